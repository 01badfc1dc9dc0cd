/* API tokens: "ll_live_" + 32 random base62 + 6-char base62 CRC32 checksum.
 * Only the SHA-256 of a token is ever stored. */
#ifndef LOADLINE_AUTH_TOKEN_H
#define LOADLINE_AUTH_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define TOKEN_PREFIX "ll_live_"
#define TOKEN_PREFIX_LEN 8
#define TOKEN_RANDOM_LEN 32
#define TOKEN_CHECK_LEN 6
#define TOKEN_LEN (TOKEN_PREFIX_LEN + TOKEN_RANDOM_LEN + TOKEN_CHECK_LEN)
#define TOKEN_HASH_HEX 65       /* 64 hex chars + NUL */
#define TOKEN_DISPLAY_LEN 12    /* "ll_live_XXXX": what lists and whoami show */

/* Writes a fresh token into out[TOKEN_LEN + 1]. */
void token_mint(char out[TOKEN_LEN + 1]);

/* Sign-in links use the same shape with their own prefix, so a link can
 * never be mistaken for (or used as) an API token. */
#define LINK_PREFIX "ll_link_"
void token_mint_link(char out[TOKEN_LEN + 1]);
bool token_link_well_formed(const char *tok, size_t len);
/* The checksum characters for a 32-character random part. */
void token_checksum(const char *random32, char out[TOKEN_CHECK_LEN]);
/* True when tok[0..len) has the prefix, the length, base62 characters and a
 * matching checksum: a cheap check done before any database look-up, so that
 * typos and truncated tokens are rejected without touching storage. */
bool token_well_formed(const char *tok, size_t len);
/* Lower-case hex SHA-256 of the token into out[TOKEN_HASH_HEX]. */
void token_hash(const char *tok, size_t len, char out[TOKEN_HASH_HEX]);
/* Compares two hashes in constant time. */
bool token_hash_equal(const char *a, const char *b);
/* Generic: hex SHA-256 of any bytes (also used for sign-in links). */
void sha256_hex(const void *data, size_t len, char out[TOKEN_HASH_HEX]);

#endif
