/* Adapter from the store's fixed buffers to the match keys of
 * src/model/names.c (Unicode case folding, every kind of whitespace). */
#include "textkey.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "model/names.h"

void text_key(const char *s, char *out, size_t n)
{
	struct arena *a = arena_new();
	char *k = name_key(a, s, strlen(s));
	snprintf(out, n, "%s", k ? k : "");
	arena_free(a);
}

void text_ref_key(const char *s, char *out, size_t n)
{
	struct arena *a = arena_new();
	char *k = name_ref_key(a, s, strlen(s));
	size_t len = k ? strlen(k) : 0;
	if (len >= n) {   /* cut at a character boundary: the database wants UTF-8 */
		len = n - 1;
		while (len > 0 && ((unsigned char)k[len] & 0xC0) == 0x80)
			len--;
	}
	snprintf(out, n, "%.*s", (int)len, k ? k : "");
	arena_free(a);
}

static size_t len_of(const char *s)
{
	return s ? strlen(s) : 0;
}

void address_key(const char *street, const char *city, const char *state, const char *zip,
		 char *out, size_t n)
{
	struct arena *a = arena_new();
	char *k = name_address_key(a, street, len_of(street), city, len_of(city), state, len_of(state), zip,
				   len_of(zip));
	snprintf(out, n, "%s", k ? k : "");
	arena_free(a);
}
