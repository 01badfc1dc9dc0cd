/* Per-row results of a run: the JSON entries of every bucket. */
#ifndef LOADLINE_IMPORT_RESULTS_H
#define LOADLINE_IMPORT_RESULTS_H

#include "base/arena.h"
#include "import/rows.h"
#include "store/runs.h"

struct store_tx;

/* Writes the result entries of rows (in tx): one per row in its bucket, and
 * a second one in `warnings` for a committed row with warnings.  docUrl of
 * each error and warning is under docs_url.  createdRecordIds are [] on a
 * dry run.  Returns CODE_OK or a storage error. */
enum code results_save(struct store_tx *tx, struct arena *a, const struct run *run, const struct colmap *map,
		       const struct row *rows, int nrows, const char *docs_url);

/* The entries results_save writes, in order (*ret in a); returns how many. */
int results_entries(struct arena *a, bool dry_run, const struct colmap *map, const struct row *rows, int nrows,
		    const char *docs_url, struct result_entry **ret);

#endif
