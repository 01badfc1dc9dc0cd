/* Column shapes and header-to-field proposals for jobs files (SPEC "Bulk
 * import behavior" point 3, PRODUCT.md §6): the key a confirmed mapping is
 * stored under, the mapping proposed for a shape never seen before, and
 * the test for the published template, which needs no review.  Pure
 * functions: no I/O, no global state but a read-only word list built once;
 * thread-safe.  docs/column-mapping.md explains the rules and decisions.
 *
 * Every function takes the header row as n slices (headers[i], lens[i]),
 * which need not be NUL-terminated nor valid UTF-8; headers[i] may be NULL
 * when lens[i] is 0, and headers and lens may be NULL when n is 0. */
#ifndef LOADLINE_IMPORT_PROPOSE_H
#define LOADLINE_IMPORT_PROPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/schema.h"

#define SHAPE_KEY_SIZE 65 /* 64 hex digits and NUL */

/* The key of a column shape: the lowercase hex SHA-256 of the headers,
 * each as name_key() makes it (trimmed of every Unicode whitespace, NFC,
 * case-folded), joined by U+001F.  Blank headers count, as "", so the key
 * keeps column positions.  Bytes that are not UTF-8, and NUL and U+001F
 * inside a header, are read as U+FFFD first, so every header has a key
 * and no header can fake a column boundary.  Never fails. */
void shape_key(const char *const *headers, const size_t *lens, size_t n,
	       char out[SHAPE_KEY_SIZE]);

struct proposal {
	enum field field; /* FIELD_NONE = ignore this column */
	int confidence;   /* 0..100: how sure the proposal is; for an ignored
			     column, how sure that it is irrelevant (0 when
			     nothing matched or the column lost a conflict) */
	bool conflict;    /* another column wanted the same field and won */
};

/* Fills ret[0..n-1], one proposal per column.  Blank headers are ignored
 * (FIELD_NONE, confidence 0).  Never two columns on one field: the column
 * with the higher confidence wins (the earlier one on a tie); the others
 * get FIELD_NONE with conflict set.  Only the first 256 bytes of a header
 * are read: no real header is longer.  Never fails. */
void propose_mapping(const char *const *headers, const size_t *lens, size_t n,
		     struct proposal *ret);

/* True when every non-blank header equals a schema wire name exactly,
 * ignoring ASCII letter case and surrounding whitespace of any Unicode
 * kind, with no field twice: the published template, which needs no
 * review.  False when no header is non-blank (nothing would be mapped). */
bool shape_is_template(const char *const *headers, const size_t *lens, size_t n);

#endif
