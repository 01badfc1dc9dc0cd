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

#include "base/arena.h"

#include "model/schema.h"
#include "sheet/sheet.h"

#define SHAPE_KEY_SIZE 65 /* 64 hex digits and NUL */

/* The key of a column shape: the lowercase hex SHA-256 of the headers,
 * each as name_key() makes it (trimmed of every Unicode whitespace, NFC,
 * case-folded), joined by U+001F.  Blank headers count, as "", so the key
 * keeps column positions.  Bytes that are not UTF-8, and NUL and U+001F
 * inside a header, are read as U+FFFD first, so every header has a key
 * and no header can fake a column boundary.  Never fails. */
void shape_key(const char *const *headers, const size_t *lens, size_t n,
	       char out[SHAPE_KEY_SIZE]);

/* Why a column got its field, or was left on "Ignore" (the review screen
 * says it in words: propose_reason_text). */
enum propose_reason {
	REASON_NONE,       /* ignored: nothing in the header or values fits a field */
	REASON_NAME,       /* the header is the field's wire name */
	REASON_SYNONYM,    /* the header is, or holds, a known name of the field */
	REASON_FUZZY,      /* the same, after a typo or a cut-off word was read */
	REASON_ADDRESS,    /* a group word and an address part ("Ship To City") */
	REASON_VALUES,     /* the values decided: the header was not decisive */
	REASON_GUESSED,    /* a required field no header names, guessed from the values */
	REASON_LEARNED,    /* the organization confirmed this header so before */
	REASON_IRRELEVANT, /* ignored: the header names something no field takes */
	REASON_CONFLICT,   /* ignored: another column fits its field better */
	REASON_MISFIT,     /* ignored: its values cannot be the header's field */
	REASON_TIMESTAMP,  /* ignored: a creation or modification time, while a
			      ship, pickup, load or delivery date column exists */
	REASON__COUNT
};

struct proposal {
	enum field field; /* FIELD_NONE = ignore this column */
	int confidence;   /* 0..100: how sure the proposal is; for an ignored
			     column, how sure that it is irrelevant (0 when
			     nothing matched or the column lost a conflict) */
	bool conflict;    /* another column wanted the same field and won */
	enum propose_reason reason;
	enum field other; /* CONFLICT, MISFIT, TIMESTAMP: the field the header
			     suggested; else FIELD_NONE */
	const char *values; /* what the values look like ("dates", "unique
			       codes"), static text; "" without samples */
};

/* A header the organization confirmed before (PRODUCT §14 "Learning from
 * confirmations"): key is propose_header_key() of it, field the field it
 * was confirmed as (FIELD_NONE: left on "Ignore"). */
struct propose_learned {
	const char *key;
	enum field field;
};

/* What the proposal reads besides the headers: the first data rows
 * (samples[r]->cells[col]; at most PROPOSE_SAMPLE_ROWS are read) and what
 * the organization learned.  Any member may be NULL with its count 0. */
#define PROPOSE_SAMPLE_ROWS 50
struct propose_input {
	const struct sheet_row *const *samples;
	size_t nsamples;
	const struct propose_learned *learned;
	size_t nlearned;
};

/* Fills ret[0..n-1], one proposal per column, by the scoring model of
 * docs/column-mapping.md: per column and field, a score from the header
 * (wire name, synonyms, fuzzy words, address group words) adjusted by the
 * values, or the learned field; then each field goes to one column, the
 * best score first (required fields first on a tie); a column that loses
 * takes its next-best free field.  A required field still unmapped takes
 * the best-fitting ignored column by its values (REASON_GUESSED).  Blank
 * headers are ignored (FIELD_NONE, confidence 0) unless learned or
 * guessed.  Only the first 256 bytes of a header and VP_CELL_CAP of a
 * cell are read.  in may be NULL (headers alone).  Never fails. */
void propose_mapping_with(const char *const *headers, const size_t *lens, size_t n,
			  const struct propose_input *in, struct proposal *ret);

/* propose_mapping_with() from the headers alone. */
void propose_mapping(const char *const *headers, const size_t *lens, size_t n,
		     struct proposal *ret);

/* The key a learned header is stored and matched under: name_key() of the
 * header (trimmed, NFC, case-folded), bad bytes as U+FFFD, as in
 * shape_key.  Arena copy; "" for a blank header. */
char *propose_header_key(struct arena *a, const char *header, size_t len);

/* A short English phrase for r ("a known name of the field"). */
const char *propose_reason_text(enum propose_reason r);

/* True when every non-blank header equals a schema wire name exactly,
 * ignoring ASCII letter case and surrounding whitespace of any Unicode
 * kind, with no field twice: the published template, which needs no
 * review.  False when no header is non-blank (nothing would be mapped). */
bool shape_is_template(const char *const *headers, const size_t *lens, size_t n);

#endif
