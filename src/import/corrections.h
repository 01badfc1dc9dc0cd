/* Corrected rows (PRODUCT §15 "Edit failed rows in the browser"): a run's
 * failed rows read back from its stored upload as a table of the file's
 * own columns, and a new run of exactly the rows someone corrected.
 *
 * The corrected run is an ordinary upload (docs/design.md "Corrected
 * rows"): a UTF-8 CSV holding the original header row and the corrected
 * rows, each at its original spreadsheet row number (blank lines stand
 * for the rows left out: blank rows keep their numbers and import
 * nothing), pushed through intake_create_run with the original's header
 * row.  So its results carry the original rowIndex, its column shape is
 * the original's (a confirmed shape is not reviewed again), identical
 * corrections have the same fingerprint (409 while one is active) and a
 * correction of a correction works like the first. */
#ifndef LOADLINE_IMPORT_CORRECTIONS_H
#define LOADLINE_IMPORT_CORRECTIONS_H

#include <jansson.h>
#include <stdbool.h>

#include "base/arena.h"
#include "base/codes.h"
#include "store/runs.h"

/* At most this many rows per correction, cells of at most this many
 * bytes (Excel's cell limit is characters; bytes keep the check cheap). */
#define CORRECTIONS_MAX_ROWS 1000
#define CORRECTIONS_CELL_MAX 32767

/* One error of a failed row, as its result reports it. */
struct failed_error {
	const char *code;
	int col;                /* 0-based column, -1 when none */
	const char *column;     /* header text, NULL when none */
	const char *value;      /* NULL when none */
	const char *message;
};

/* The failed rows of a run, ascending by row number, from its results. */
struct failed_list {
	int n;
	struct failed_item {
		unsigned row;
		int nerrors;
		struct failed_error *errors;
	} *rows;
};
enum code corrections_failed(struct store *st, struct arena *a, const char *run_id, const char *docs_url,
			     struct failed_list *ret);
/* The item of row, or NULL when it did not fail. */
const struct failed_item *corrections_find(const struct failed_list *f, unsigned row);

/* A page of the failed rows with their cells from the stored upload. */
struct failed_grid {
	size_t ncols;
	const char **header;    /* ncols header texts */
	int n;                  /* rows on this page */
	const struct failed_item **items;
	const char ***cells;    /* n rows of ncols texts */
	unsigned next_after;    /* 0: no page after this one */
};
/* Up to limit failed rows numbered after `after`.  CODE_UPLOAD_EXPIRED
 * when the stored upload is gone, else a store or parse code. */
enum code corrections_grid(struct store *st, struct arena *a, const struct run *run, const struct failed_list *f,
			   unsigned after, int limit, struct failed_grid *ret);

/* What someone corrected: rows by original row number, cells by header
 * text (the API) or by 0-based column (cols not NULL: the web form, whose
 * columns may share a header text). */
struct correction_row {
	unsigned row;
	int ncells;
	const char **headers;
	const int *cols;
	const char **texts;
};
struct corrections {
	int n;
	struct correction_row *rows;
	/* The web form sends every cell shown: rows none of whose cells
	 * differ from the file are left out (an API request means each row). */
	bool changed_only;
};

/* Reads the API body {"rows": [{"rowIndex": n, "cells": {"<header>":
 * "<text>"}}]}.  CODE_INVALID_CORRECTION with *ret_why when it has no rows,
 * too many, a rowIndex that is not a positive integer or repeats, a cell
 * that is not a string or is too long or holds NUL. */
enum code corrections_from_json(struct arena *a, json_t *body, struct corrections *ret, const char **ret_why);

struct correction_opts {
	bool dry_run;
	int64_t keep_uploads_ms;
	int64_t staging_ttl_ms;
	const char *created_by;   /* intake_who_token/_user (PRODUCT §15 createdBy) */
};
/* The new run of the corrected rows of orig (terminal, with results: the
 * caller checks), with correction_of set.  CODE_INVALID_CORRECTION with
 * *ret_why for a row that is not a failed row of orig or a header the
 * file does not have (or nothing changed, with changed_only);
 * CODE_UPLOAD_EXPIRED; otherwise as intake_create_run. */
enum code corrections_create(struct store *st, struct arena *a, const struct run *orig, const struct corrections *c,
			     const struct correction_opts *o, struct run *ret, char ret_existing_id[ID_MAX],
			     const char **ret_why);

#endif
