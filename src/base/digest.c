/* SHA-256 through nettle (see digest.h for why not libsodium's). */
#include "digest.h"

void digest_init(struct digest *d)
{
	sha256_init(&d->ctx);
}

void digest_update(struct digest *d, const void *p, size_t n)
{
	sha256_update(&d->ctx, n, p);
}

void digest_final(struct digest *d, unsigned char out[DIGEST_BYTES])
{
	sha256_digest(&d->ctx, DIGEST_BYTES, out);
}

void digest_final_hex(struct digest *d, char out[DIGEST_HEX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char h[DIGEST_BYTES];
	digest_final(d, h);
	for (int i = 0; i < DIGEST_BYTES; i++) {
		out[2 * i] = hex[h[i] >> 4];
		out[2 * i + 1] = hex[h[i] & 15];
	}
	out[2 * DIGEST_BYTES] = '\0';
}
