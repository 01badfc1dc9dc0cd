/* API token format, checksum and hashing. */
#include "token.h"

#include <sodium.h>
#include <string.h>
#include <zlib.h>

#include "base/digest.h"
#include "base/ids.h"

void token_checksum(const char *random32, char out[TOKEN_CHECK_LEN])
{
	unsigned long crc = crc32(0L, (const unsigned char *)random32, TOKEN_RANDOM_LEN);
	base62_encode_u64(crc, out, TOKEN_CHECK_LEN);
}

static void mint(const char *prefix, char out[TOKEN_LEN + 1])
{
	memcpy(out, prefix, TOKEN_PREFIX_LEN);
	base62_random(out + TOKEN_PREFIX_LEN, TOKEN_RANDOM_LEN);
	token_checksum(out + TOKEN_PREFIX_LEN, out + TOKEN_PREFIX_LEN + TOKEN_RANDOM_LEN);
	out[TOKEN_LEN] = '\0';
}

void token_mint(char out[TOKEN_LEN + 1])
{
	mint(TOKEN_PREFIX, out);
}

void token_mint_link(char out[TOKEN_LEN + 1])
{
	mint(LINK_PREFIX, out);
}

static bool well_formed(const char *prefix, const char *tok, size_t len)
{
	if (!tok || len != TOKEN_LEN || memcmp(tok, prefix, TOKEN_PREFIX_LEN))
		return false;
	for (size_t i = TOKEN_PREFIX_LEN; i < TOKEN_LEN; i++)
		if (!is_base62(tok[i]))
			return false;
	char sum[TOKEN_CHECK_LEN];
	token_checksum(tok + TOKEN_PREFIX_LEN, sum);
	return sodium_memcmp(sum, tok + TOKEN_PREFIX_LEN + TOKEN_RANDOM_LEN, TOKEN_CHECK_LEN) == 0;
}

bool token_well_formed(const char *tok, size_t len)
{
	return well_formed(TOKEN_PREFIX, tok, len);
}

bool token_link_well_formed(const char *tok, size_t len)
{
	return well_formed(LINK_PREFIX, tok, len);
}

void sha256_hex(const void *data, size_t len, char out[TOKEN_HASH_HEX])
{
	struct digest d;
	digest_init(&d);
	digest_update(&d, data, len);
	digest_final_hex(&d, out);
}

void token_hash(const char *tok, size_t len, char out[TOKEN_HASH_HEX])
{
	sha256_hex(tok, len, out);
}

bool token_hash_equal(const char *a, const char *b)
{
	if (strlen(a) != TOKEN_HASH_HEX - 1 || strlen(b) != TOKEN_HASH_HEX - 1)
		return false;
	return sodium_memcmp(a, b, TOKEN_HASH_HEX - 1) == 0;
}
