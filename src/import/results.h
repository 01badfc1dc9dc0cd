/* Per-row results of a run (PRODUCT §5, §13 "Compact results"): stored as
 * one compact row per result row (codes, message kinds and their
 * arguments), rendered when read into the JSON entries the results
 * endpoint, the run page and the fix-up file use. */
#ifndef LOADLINE_IMPORT_RESULTS_H
#define LOADLINE_IMPORT_RESULTS_H

#include "base/arena.h"
#include "import/rows.h"
#include "store/runs.h"

struct store_tx;

/* Writes the results of rows (in tx): one compact row per row in its
 * bucket, flagged when a committed row has warnings, and the run's column
 * texts.  createdRecordIds are [] on a dry run.  Returns CODE_OK or a
 * storage error. */
enum code results_save(struct store_tx *tx, struct arena *a, const struct run *run, const struct colmap *map,
		       const struct row *rows, int nrows);

/* The compact rows results_save writes, in order (*ret in a; returns how
 * many), and the run's column texts (*ret_columns, JSON). */
int results_compact(struct arena *a, bool dry_run, const struct colmap *map, const struct row *rows, int nrows,
		    struct result_entry **ret, const char **ret_columns);

/* A page of a bucket ("succeeded", "warnings", "failed", "skipped") as
 * store_results_page gives it, each body rendered as its JSON entry
 * (docUrl under docs_url). */
enum code results_page(struct store *st, const char *run_id, const char *bucket, int after, int limit,
		       const char *docs_url, void (*fn)(int row_index, const char *body, void *ctx), void *ctx,
		       bool *ret_more);

/* One stored row rendered as its entry in bucket (in a). */
const char *results_render(struct arena *a, const char *bucket, int row_index, const char *body,
			   const char *columns, const char *docs_url);

/* The reference: the JSON entries of rows, written straight from the rows
 * (a committed row with warnings twice, in succeeded and in warnings), as
 * results were stored before compact results.  tests/unit/import/
 * test_results.c holds the rendered compact rows to these bytes. */
int results_entries(struct arena *a, bool dry_run, const struct colmap *map, const struct row *rows, int nrows,
		    const char *docs_url, struct result_entry **ret);

/* One group of a run's problems (PRODUCT §11 "Problems, grouped"): the
 * errors and warnings of its rows that share (code, field, value), the
 * value compared exactly as stored (so " Acme" and "Acme" are two groups,
 * null and "" too). */
#define PROBLEM_ROWS_SHOWN 20
struct run_problem {
	const char *code;
	bool error;                 /* severity: an error of a failed row, else a warning */
	const char *field;          /* NULL when none */
	const char *column;         /* header text, NULL when no column */
	const char *value;          /* NULL when none */
	int row_count;
	int rows[PROBLEM_ROWS_SHOWN];   /* the first rows, ascending */
	int nrows;
	int last_row;               /* the last row counted (a repeat within it counts once) */
	int seq;                    /* order of first appearance (row, then place in the row) */
	const char *message;        /* rendered for its first row */
	const char *doc_url;
	/* The fix the product offers in place: "create_customer" or
	 * "create_branch" (a LOOKUP_MISS of customer/branch) with the name to
	 * create (the value trimmed); NULL when none. */
	const char *fix_type, *fix_name;
};

/* The run's problems grouped, most rows first, ties by first appearance
 * (the first row, then the order within it): *ret (in a) gets *ret_n
 * groups.  Each stored row is read once (store_results_problem_rows), and
 * a message is rendered once per group. */
enum code results_problems(struct store *st, struct arena *a, const char *run_id, const char *docs_url,
			   struct run_problem ***ret, int *ret_n);
/* The groups of rows in memory, the ones results_save stores (in a;
 * returns how many): the same groups results_problems makes of them once
 * stored, without reading them back. */
int results_problems_rows(struct arena *a, const struct colmap *map, const struct row *rows, int nrows,
			  const char *docs_url, struct run_problem ***ret);
/* The same a batch at a time, for a run written in batches (in row
 * order): a tally in a (which must live until done; it holds the groups
 * only, not the rows) gets each batch's rows as results_save stores them;
 * done sorts the groups.  A run resumed after a crash has no tally of its
 * earlier batches: problems_store (import/problems.h) reads them back. */
struct problem_tally;
struct problem_tally *results_tally_new(struct arena *a, const struct colmap *map, const char *docs_url);
void results_tally_rows(struct problem_tally *t, const struct row *rows, int nrows);
int results_tally_done(struct problem_tally *t, struct run_problem ***ret);
/* The same, read in the transaction tx (import/problems.c stores them as
 * the run ends). */
enum code results_problems_tx(struct store_tx *tx, struct arena *a, const char *run_id, const char *docs_url,
			      struct run_problem ***ret, int *ret_n);

#endif
