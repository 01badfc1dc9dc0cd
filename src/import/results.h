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

#endif
