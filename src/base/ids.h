/* Random identifiers: prefixed base62 ids ("run_3Fq...") and request ids. */
#ifndef LOADLINE_BASE_IDS_H
#define LOADLINE_BASE_IDS_H

#include <stddef.h>

#define ID_RANDOM_CHARS 22   /* 22 base62 chars = 131 bits */
#define ID_MAX 40            /* longest prefix + '_' + random + NUL fits */

/* Must be called once before any other function here (initializes libsodium). */
int ids_init(void);
/* Writes prefix + '_' + ID_RANDOM_CHARS base62 characters into out[ID_MAX]. */
void id_new(const char *prefix, char out[ID_MAX]);
/* The same, ordered by creation time: the first ID_TIME_CHARS characters
 * after '_' are the milliseconds since 1970 in base62 (sorted like the
 * times, byte by byte), the rest random.  For rows added in bulk. */
#define ID_TIME_CHARS 8
void id_new_ordered(const char *prefix, char out[ID_MAX]);
/* Fills out[0..n) with uniformly random base62 characters (no NUL added). */
void base62_random(char *out, size_t n);
/* Encodes v as exactly width base62 digits, most significant first. */
void base62_encode_u64(unsigned long long v, char *out, size_t width);
int is_base62(char c);
/* True when s looks like prefix_XXXX (right prefix, base62 body, sane length). */
int id_valid(const char *s, const char *prefix);

#endif
