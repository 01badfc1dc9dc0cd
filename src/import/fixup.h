/* The fix-up file of a run (PRODUCT §9, §14): its failed rows as CSV or as
 * XLSX, by default in the upload's own format — CSV in the upload's
 * delimiter and encoding, UTF-8 always with a BOM (a spreadsheet program
 * opening a UTF-8 file without one reads it in its own default charset and
 * saves it garbled), XLSX with every cell text (typed in, too: leading
 * zeros and long numbers survive any spreadsheet program) — with the original header row and columns in their order, plus a
 * last column `errors`, so that a person can fix the cells and push the
 * file again.  Round trips (PRODUCT §11): a fix-up of a fix-up replaces
 * its `errors` column, never adds a second; cells of rows wider than the
 * header keep their own columns, under blank headers, before `errors`;
 * CSV cells carry the formula guard of base/csv_write.h, which the CSV
 * reader takes off again. */
#ifndef LOADLINE_IMPORT_FIXUP_H
#define LOADLINE_IMPORT_FIXUP_H

#include <stddef.h>

#include "base/arena.h"
#include "base/codes.h"
#include "store/runs.h"

struct fixup {
	unsigned char *data;        /* malloc'd; the caller frees it */
	size_t len;
	const char *content_type;   /* with the charset for CSV */
	const char *file_name;      /* "<upload name without extension>-failed-rows.csv|.xlsx" (arena) */
	int rows;                   /* failed rows in it */
};

enum fixup_format {
	FIXUP_AS_UPLOADED, /* the upload's format */
	FIXUP_CSV,         /* an XLSX upload as UTF-8 CSV with a BOM, comma-separated */
	FIXUP_XLSX,
};

/* Builds the fix-up file of run (terminal, not FAILED/CANCELLED: the caller
 * checks) in format.  Returns CODE_OK, a store error, or a parse code when the stored
 * file can no longer be read (never expected: it was read once). */
enum code fixup_build(struct store *st, struct arena *a, const struct run *run, enum fixup_format format,
		      struct fixup *ret);

/* The format a `format` query parameter names: NULL or "" is the upload's,
 * "csv" or "xlsx"; anything else returns -1. */
int fixup_format_parse(const char *s, enum fixup_format *ret);

#endif
