/* SHA-256: upload fingerprints, rows' content hashes, column-shape keys,
 * response ETags and the stored hashes of tokens and sessions.
 *
 * nettle (GnuTLS's crypto library) uses the CPU's SHA instructions where
 * there are: 3.3 ms for a 5 MB upload where libsodium's portable code takes
 * 17.5 ms, and a quarter of the time for a 750-row file's content hashes.
 * The digests are the same SHA-256, so every value stored before still
 * matches.  libsodium keeps the CSPRNG, the MACs and constant-time compares. */
#ifndef LOADLINE_BASE_DIGEST_H
#define LOADLINE_BASE_DIGEST_H

#include <stddef.h>

#include <nettle/sha2.h>

#define DIGEST_BYTES 32
#define DIGEST_HEX 65   /* 64 hex digits and the NUL */

struct digest {
	struct sha256_ctx ctx;
};

void digest_init(struct digest *d);
void digest_update(struct digest *d, const void *p, size_t n);
/* The digest as raw bytes; d must be initialized again before reuse. */
void digest_final(struct digest *d, unsigned char out[DIGEST_BYTES]);
/* The digest as lower-case hex. */
void digest_final_hex(struct digest *d, char out[DIGEST_HEX]);

#endif
