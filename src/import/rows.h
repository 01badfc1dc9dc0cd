/* A jobs file in memory: the column mapping, and each data row with its
 * normalized values, diagnostics and outcome (internal to src/import). */
#ifndef LOADLINE_IMPORT_ROWS_H
#define LOADLINE_IMPORT_ROWS_H

#include <stdbool.h>

#include "base/arena.h"
#include "base/codes.h"
#include "model/normalize.h"
#include "model/schema.h"
#include "sheet/sheet.h"

/* Which file column feeds which field. */
struct colmap {
	int ncols;
	const char **headers;           /* header text per column (arena) */
	enum field *col_field;          /* FIELD_NONE = ignored */
	int field_col[FIELD__COUNT];    /* -1 = unmapped */
	/* How a person reads the numbers (import/units.c): the weight unit
	 * each column's header names (enum weight_unit; NULL = none), and the
	 * European convention of a ;-separated file ("1.234,56"). */
	unsigned char *col_unit;
	bool decimal_comma;
};

/* Reads the units of the mapped columns' headers ("Net Tons") and the
 * number convention of the file (info: NULL = the usual one) into map. */
void colmap_read_units(struct arena *a, struct colmap *map, const struct sheet_info *info);
/* The weight unit a header names: "Weight (tons)", "Net Tons", "Wt kg",
 * "Gross lbs"; WUNIT_NONE when it names none. */
enum weight_unit header_weight_unit(const char *h, size_t n);
/* A number in the European convention as the normalizers read numbers:
 * "1.234,56" -> "1234.56", "24,5 t" -> "24.5 t".  Text that is not such a
 * number comes back as it is ("$1,250.00", "12.5 t", "Gravel"). */
const char *european_number(struct arena *a, const char *s, size_t n, size_t *ret_len);

struct diag {
	enum code code;
	enum field field;               /* FIELD_NONE when the row as a whole */
	int col;                        /* -1 when unmapped */
	const char *value;              /* raw text excerpt (<= 200 chars), NULL when none */
	struct msg msg;                 /* the message, rendered when read (model/messages.h) */
};

enum bucket { BUCKET_SUCCEEDED, BUCKET_FAILED, BUCKET_SKIPPED };

#define ROW_MAX_DIAGS (FIELD__COUNT + 12)
#define ROW_MAX_IDS 8

struct row {
	unsigned number;                /* rowIndex */
	const char *raw[FIELD__COUNT];  /* the cell as read (arena copy); NULL when unmapped */
	size_t raw_len[FIELD__COUNT];
	struct norm_value v[FIELD__COUNT];
	int nerrors, nwarnings, nids;
	char content_hash[65];
	enum bucket bucket;
	const char *reason;             /* skipped rows */
	/* The diagnostics, in the row's arena, grown as they are added (at
	 * most ROW_MAX_DIAGS each): a batch of rows costs their fields, not
	 * 6 kB a row of lists' capacity (issue 29's memory goal). */
	struct arena *arena;
	struct diag *errors, *warnings;
	int errors_cap, warnings_cap;
	const char *ids[ROW_MAX_IDS];   /* createdRecordIds */
};

/* Reads one data row through the mapping and normalizes every field,
 * collecting TYPE_MISMATCH / MISSING_REQUIRED errors and UNIT_NORMALIZED
 * warnings, and the content hash of the normalized values. */
void row_check(struct arena *a, const struct colmap *map, const struct sheet_row *in, struct row *out);

/* Adds a diagnostic in r->arena (silently drops past ROW_MAX_DIAGS); a row
 * not made by row_check sets its arena first. */
void row_add_error(struct row *r, enum code c, enum field f, int col, const char *value, struct msg m);
void row_add_warning(struct row *r, enum code c, enum field f, int col, const char *value, struct msg m);
void row_add_id(struct row *r, struct arena *a, const char *id);

/* "C12" for column index 2 (0-based) and row 12. */
char *cell_ref(struct arena *a, int col, unsigned row);

#endif
