/* Reviewing and confirming the mapping of a staged run (PRODUCT §6): the
 * operation the web app's review screen and `admin confirm-run` call. */
#ifndef LOADLINE_IMPORT_REVIEW_H
#define LOADLINE_IMPORT_REVIEW_H

#include "base/arena.h"
#include "import/propose.h"
#include "store/runs.h"

#define REVIEW_SAMPLES 3

struct review {
	struct run run;
	int ncols;
	const char **headers;                 /* per column */
	const char **samples[REVIEW_SAMPLES]; /* samples[k][col], "" when missing */
	unsigned sample_rows[REVIEW_SAMPLES]; /* their rowIndex */
	int nsamples;
	struct proposal *proposal;            /* per column */
	bool expired, decided;                /* past expiresAt / no longer staged */
	unsigned header_row;                  /* the header's row number */
	struct review_above {                 /* the rows above the header */
		unsigned number;
		int ncells;                   /* at most REVIEW_ABOVE_CELLS */
		const char **cells;
	} *above;
	int nabove;
	const char **sheets;                  /* visible worksheets (XLSX) */
	int nsheets;
	const char *sheet;                    /* the one read; NULL for CSV */
	char delimiter;                       /* the file's, for its number convention */
	unsigned at_header_row;               /* read at this header row (0: as the run reads) */
	const char *at_sheet;                 /* ... and this worksheet (NULL: as the run reads) */
	char shape_key[65];                   /* the shape of the header as read */
};

#define REVIEW_ABOVE_CELLS 12

/* Loads what the review screen shows.  CODE_NOT_FOUND outside the org;
 * parse-level codes when the file cannot be read. */
/* max_rows: the row limit the file is read with (LOADLINE_MAX_ROWS). */
enum code review_load(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
		      struct review *ret);

/* review_load, reading the file at another header row and/or worksheet
 * than the run does (0 / NULL: as the run does): the review screen's
 * "use row N as the header" and "read sheet NAME" (PRODUCT §14). */
enum code review_load_at(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			 unsigned header_row, const char *sheet, struct review *ret);

/* What a confirmation came to (when review_confirm returns CODE_OK). */
enum review_outcome {
	REVIEW_CONFIRMED,   /* mapping stored, runs released (*ret_released) */
	REVIEW_DECIDED,     /* the run no longer waits for review; nothing done */
	REVIEW_EXPIRED,     /* past expiresAt; nothing done */
	REVIEW_REFUSED,     /* wrong column count, unknown field, a field twice:
			     * *ret_message says which; nothing done */
};

/* Confirms fields (one wire name or NULL per column, ncols of them) for the
 * staged run's shape as `user_id`, and releases every run of the org staged
 * with that shape (the caller wakes its workers).  Returns CODE_OK with the
 * outcome, CODE_NOT_FOUND outside the org, or a storage error. */
enum code review_confirm(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			 const char *user_id, const char *const *fields, int ncols, int *ret_released,
			 const char **ret_message, enum review_outcome *ret_outcome);

/* review_confirm for the file read at another header row or worksheet
 * (review_load_at): the run is read so from then on (store_run_reread),
 * and the mapping is stored for that header's shape, with its row. */
struct review_at {
	unsigned header_row;
	const char *sheet;
};
enum code review_confirm_at(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			    const struct review_at *at, const char *user_id, const char *const *fields, int ncols,
			    int *ret_released, const char **ret_message, enum review_outcome *ret_outcome);

/* One finding of the preview: a per-row code the sample row would get. */
struct review_issue {
	const char *code, *field, *column, *message;
	bool warning;
};

struct review_row_check {
	unsigned row;                         /* rowIndex */
	int nissues;
	struct review_issue *issues;          /* arena */
};

/* How the sample rows would validate with fields (one wire name or NULL
 * per column, as review_confirm takes them; unknown names count as
 * ignored): the type and required-field checks of the pipeline, without
 * the look-ups that need the database.  Fills ret[0..r->nsamples).  Pure:
 * no I/O. */
void review_preview(struct arena *a, const struct review *r, const char *const *fields, struct review_row_check *ret);

#endif
