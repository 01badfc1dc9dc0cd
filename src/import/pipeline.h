/* The jobs pipeline: one claimed run from its file to a terminal state. */
#ifndef LOADLINE_IMPORT_PIPELINE_H
#define LOADLINE_IMPORT_PIPELINE_H

#include "store/runs.h"

struct geocoder;

/* Rows a run commits at a time (PRODUCT §16: at most 5,000): a batch
 * holds its rows (~8 KB each while checked) and what the writer keeps of
 * them, so 2,000 keeps an import within its 64 MiB (docs/design.md). */
#define PIPELINE_BATCH_ROWS 2000

/* What a pipeline needs from the configuration. */
struct pipeline_opts {
	int max_rows;               /* LOADLINE_MAX_ROWS */
	int batch_rows;             /* LOADLINE_IMPORT_BATCH_ROWS; 0 = PIPELINE_BATCH_ROWS */
	int debug_row_delay_ms;     /* fault injection for the recovery tests; 0 */
	const struct geocoder *geo; /* geocodes new locations (src/geo); NULL = none */
	/* LOADLINE_SPOOL_DIR: an upload over PIPELINE_SPOOL_BYTES is inflated
	 * there and read through a mapping whose pages are dropped after each
	 * batch (PRODUCT §16: memory stays flat); NULL: always in memory. */
	const char *spool_dir;
};

#define PIPELINE_SPOOL_BYTES (8u << 20)

/* Processes run (claimed by owner): reads the file, maps and checks every
 * row, writes Projects/Loads/Locations and the per-row results in batches
 * of batch_rows, each one transaction with the run's checkpoint, the last
 * one also moving the run to its outcome (PRODUCT §16).  A run that was
 * interrupted resumes after its checkpoint.  A dry run and a commit=all
 * run are one transaction (a dry run rolls the writes back and keeps the
 * results).  A parse-level problem, found before any batch commits (the
 * rows are counted first), ends the run FAILED with its code.  A run
 * moved meanwhile (cancelled, timed out, taken over) stops after its
 * current batch, which rolls back; the batches before it stay.  Returns CODE_OK when the run is settled (also when
 * someone else moved it meanwhile), or CODE_SERVICE_UNAVAILABLE / another
 * code for a transient failure: nothing was committed and the run should
 * be retried. */
enum code pipeline_run(struct store *st, const struct pipeline_opts *o, const struct run *run, const char *owner);

#endif
