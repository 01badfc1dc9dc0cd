/* The sweepers: runs that must end without a worker, and retention. */
#ifndef LOADLINE_IMPORT_SWEEPER_H
#define LOADLINE_IMPORT_SWEEPER_H

#include <stdint.h>

#include "store/store.h"

struct sweep_limits {
	int64_t run_timeout_ms;    /* LOADLINE_RUN_TIMEOUT: the stuck-run reaper's limit */
	int64_t keep_uploads_ms;   /* LOADLINE_KEEP_UPLOADS; 0 = keep forever */
	int64_t keep_results_ms;   /* LOADLINE_KEEP_RESULTS; 0 = keep forever */
};

/* One sweep: fails RUN_TIMED_OUT the runs older than run_timeout_ms (staged
 * runs excepted) and STAGING_EXPIRED the staged runs past expiresAt, then
 * deletes a bounded batch of expired uploads and results (sweep_retention).
 * Returns how many runs it moved. */
int sweep_once(struct store *st, const struct sweep_limits *l);

/* Deletes what retention allows, in small transactions (one upload, or up
 * to RETENTION_CHUNK result rows, each), at most RETENTION_BATCH runs of
 * each kind per call, then gives the space back (SQLite).  Returns how
 * many uploads and result sets it finished deleting. */
int sweep_retention(struct store *st, const struct sweep_limits *l, int64_t now);

#endif
