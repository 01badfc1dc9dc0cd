/* Opening an upload as every part of an import reads it: one header row,
 * one worksheet, one list of summary rows for the pipeline, staging, the
 * review screen, fix-ups and `loadline inspect` (PRODUCT §14). */
#ifndef LOADLINE_IMPORT_READFILE_H
#define LOADLINE_IMPORT_READFILE_H

#include <jansson.h>
#include <stdlib.h>

#include "base/arena.h"
#include "sheet/sheet.h"
#include "store/runs.h"

struct import_read {
	struct store *st;      /* NULL: no confirmed shapes are known (inspect) */
	struct arena *a;       /* the judge's scratch */
	const char *org_id;    /* whose confirmed shapes count as headers */
	unsigned header_row;   /* ?headerRow, 0 = detect */
	const char *sheet;     /* ?sheet, NULL = choose */
};

/* The options of a run (its ?headerRow and ?sheet), for its org. */
void import_read_for_run(struct import_read *r, struct store *st, struct arena *a, const struct run *run);

/* sheet_open_opts with the mapping rules as the judge: a row is a header
 * when the organization confirmed its shape (or it is the template), or
 * when most of its text cells name fields (by the header rules and what
 * the organization learned).  Same returns as sheet_open_opts, and
 * CODE_SERVICE_UNAVAILABLE / CODE_INTERNAL_ERROR when the learned headers
 * cannot be read; r must outlive the call. */
enum code import_sheet_open(const struct import_read *r, const void *data, size_t len, const struct sheet_limits *lim,
			    struct sheet **ret_sheet, const char **ret_msg, struct sheet_info *ret_info);

/* The run's file detail (run_json's file.headerRow, sheet, sheets,
 * summaryRows) as JSON text in a; call after the last row was read.  NULL
 * when it would not fit the store's column. */
char *import_file_detail(struct arena *a, const struct sheet *s);

#endif
