/* The jobs pipeline: one claimed run from its file to a terminal state. */
#ifndef LOADLINE_IMPORT_PIPELINE_H
#define LOADLINE_IMPORT_PIPELINE_H

#include "store/runs.h"

struct geocoder;

/* What a pipeline needs from the configuration. */
struct pipeline_opts {
	int max_rows;               /* LOADLINE_MAX_ROWS */
	int debug_row_delay_ms;     /* fault injection for the recovery tests; 0 */
	const struct geocoder *geo; /* geocodes new locations (src/geo); NULL = none */
};

/* Processes run (claimed by owner): reads the file, maps and checks every
 * row, writes Projects/Loads/Locations and the per-row results, and moves
 * the run to its outcome — all in one transaction (a dry run rolls the
 * writes back and keeps the results).  A parse-level problem ends the run
 * FAILED with its code.  Returns CODE_OK when the run is settled (also when
 * someone else moved it meanwhile), or CODE_SERVICE_UNAVAILABLE / another
 * code for a transient failure: nothing was committed and the run should
 * be retried. */
enum code pipeline_run(struct store *st, const struct pipeline_opts *o, const struct run *run, const char *owner);

#endif
