/* What a streamed import keeps of rows already read (PRODUCT §16): the
 * natural keys seen, for duplicate_in_file and UNIQUE_VIOLATION, and the
 * job codes written, for the first row of each job (§5).  Not the rows:
 * 16 bytes per distinct key, and a third more free: a counted million-row
 * file keeps 21 MB.
 *
 * Keys are kept as 64-bit FNV-1a hashes and a row's content as 32 bits of
 * its content hash: two different keys of one file collide with a chance
 * of about n^2 / 2^65 (3e-8 at a million rows), and a changed row passes
 * for a repeat with a chance of 2^-32 (docs/design.md, "Big files"). */
#ifndef LOADLINE_IMPORT_KEYSET_H
#define LOADLINE_IMPORT_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct keyset;

struct keyset *keyset_new(void);
void keyset_free(struct keyset *k);   /* NULL is fine */

/* The hash of the texts a and b joined by \x1f (b NULL: a alone). */
uint64_t keyset_hash(const char *a, const char *b);

/* Looks up key; when absent, adds it with (row, content) and returns
 * false.  When present, returns true and its first (row, content) in
 * *ret_row and *ret_content (either may be NULL). */
bool keyset_put(struct keyset *k, uint64_t key, uint32_t row, uint32_t content, uint32_t *ret_row,
		uint32_t *ret_content);
/* Makes room for n keys in all, at once: a set that knows its count (a
 * counted file) then never doubles, which would hold the old table and one
 * twice its size at the same moment. */
void keyset_reserve(struct keyset *k, size_t n);
bool keyset_has(const struct keyset *k, uint64_t key);
size_t keyset_count(const struct keyset *k);
/* Bytes of memory the set holds. */
size_t keyset_bytes(const struct keyset *k);

#endif
