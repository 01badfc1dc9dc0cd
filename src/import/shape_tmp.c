/* Interim shape keys and exact-name proposals, until the proposal engine lands. */
#include <sodium.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "import/names.h"
#include "import/normalize.h"
#include "import/propose.h"

void shape_key(const char *const *headers, const size_t *lens, size_t n, char out[65])
{
	struct arena *a = arena_new();
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	for (size_t i = 0; i < n; i++) {
		char *k = name_key(a, headers[i], lens[i]);
		if (i)
			crypto_hash_sha256_update(&st, (const unsigned char *)"\x1f", 1);
		crypto_hash_sha256_update(&st, (const unsigned char *)(k ? k : ""), k ? strlen(k) : 0);
	}
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_final(&st, h);
	sodium_bin2hex(out, 65, h, sizeof h);
	arena_free(a);
}

static enum field exact(const char *s, size_t len)
{
	size_t tl;
	const char *t = norm_trim(s, len, &tl);
	for (int f = 0; f < FIELD__COUNT; f++)
		if (strlen(field_name((enum field)f)) == tl && !strncasecmp(field_name((enum field)f), t, tl))
			return (enum field)f;
	return FIELD_NONE;
}

void propose_mapping(const char *const *headers, const size_t *lens, size_t n, struct proposal *ret)
{
	bool used[FIELD__COUNT] = {0};
	for (size_t i = 0; i < n; i++) {
		enum field f = exact(headers[i], lens[i]);
		ret[i] = (struct proposal){FIELD_NONE, 0, false};
		if (f == FIELD_NONE)
			continue;
		if (used[f]) {
			ret[i].conflict = true;
			continue;
		}
		used[f] = true;
		ret[i] = (struct proposal){f, 100, false};
	}
}

bool shape_is_template(const char *const *headers, const size_t *lens, size_t n)
{
	bool used[FIELD__COUNT] = {0}, any = false;
	for (size_t i = 0; i < n; i++) {
		if (norm_is_blank(headers[i], lens[i]))
			continue;
		enum field f = exact(headers[i], lens[i]);
		if (f == FIELD_NONE || used[f])
			return false;
		used[f] = any = true;
	}
	return any;
}
