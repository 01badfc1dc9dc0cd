/* Prefixed random ids from libsodium's CSPRNG. */
#include "ids.h"

#include <sodium.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static const char alphabet[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

int ids_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

/* The base62 character of random byte b into *out; false for a byte of
 * 248 (= 4 * 62) or more, which the caller redraws so that every character
 * stays uniform. */
static bool base62_of_byte(unsigned char b, char *out)
{
	if (b >= 248)
		return false;
	*out = alphabet[b % 62];
	return true;
}

/* One call to the CSPRNG for all characters. */
void base62_random(char *out, size_t n)
{
	unsigned char pool[64];
	size_t have = 0, used = 0;
	for (size_t i = 0; i < n;) {
		if (used == have) {
			have = n - i + 8 < sizeof pool ? n - i + 8 : sizeof pool;
			randombytes_buf(pool, have);
			used = 0;
		}
		if (base62_of_byte(pool[used++], &out[i]))
			i++;
	}
}

void base62_encode_u64(unsigned long long v, char *out, size_t width)
{
	for (size_t i = width; i > 0; i--) {
		out[i - 1] = alphabet[v % 62];
		v /= 62;
	}
}

int is_base62(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Record ids are not secrets (they travel in URLs and results) but must
 * never collide: their bytes come from the CSPRNG too, through a pool per
 * thread refilled 512 bytes at a time, which spares an import of 750 rows
 * ~850 getrandom calls.  Secrets (tokens, sessions, CSRF, OIDC values)
 * call base62_random, which never pools.  (Nothing here forks: a pool
 * copied into a child would repeat ids.) */
static _Thread_local unsigned char id_pool[512];
static _Thread_local size_t id_pool_used = sizeof id_pool;

static unsigned char id_byte(void)
{
	if (id_pool_used == sizeof id_pool) {
		randombytes_buf(id_pool, sizeof id_pool);
		id_pool_used = 0;
	}
	return id_pool[id_pool_used++];
}

void id_new(const char *prefix, char out[ID_MAX])
{
	size_t pl = strlen(prefix);
	if (pl > ID_MAX - ID_RANDOM_CHARS - 2)
		pl = ID_MAX - ID_RANDOM_CHARS - 2;
	memcpy(out, prefix, pl);
	out[pl] = '_';
	char *r = out + pl + 1;
	for (int i = 0; i < ID_RANDOM_CHARS;)
		if (base62_of_byte(id_byte(), &r[i]))
			i++;
	out[pl + 1 + ID_RANDOM_CHARS] = '\0';
}

/* Rows that every import adds (loads, runs) take ids whose first
 * ID_TIME_CHARS characters are the creation time in milliseconds, so that
 * each new id sorts at the end of its table's id index: an index of random
 * ids is written at a random page per row, and once it outgrew SQLite's page
 * cache every insert read and dirtied a page of its own, which made an import
 * ~1.5x slower after 225,000 loads (docs/benchmarks.md, "Growth").  The other
 * ID_RANDOM_CHARS - ID_TIME_CHARS characters stay random (83 bits: ids made
 * in the same millisecond do not collide). */
void id_new_ordered(const char *prefix, char out[ID_MAX])
{
	id_new(prefix, out);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long ms = (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
	base62_encode_u64(ms, strchr(out, '_') + 1, ID_TIME_CHARS);
}

int id_valid(const char *s, const char *prefix)
{
	size_t pl = strlen(prefix), n = strlen(s);
	if (n != pl + 1 + ID_RANDOM_CHARS || strncmp(s, prefix, pl) || s[pl] != '_')
		return 0;
	for (size_t i = pl + 1; i < n; i++)
		if (!is_base62(s[i]))
			return 0;
	return 1;
}
