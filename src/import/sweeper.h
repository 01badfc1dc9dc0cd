/* The sweepers: runs that must end without a worker. */
#ifndef LOADLINE_IMPORT_SWEEPER_H
#define LOADLINE_IMPORT_SWEEPER_H

#include <stdint.h>

#include "store/store.h"

/* One sweep: fails RUN_TIMED_OUT the runs older than run_timeout_ms (staged
 * runs excepted) and STAGING_EXPIRED the staged runs past expiresAt.
 * Returns how many runs it moved. */
int sweep_once(struct store *st, int64_t run_timeout_ms);

#endif
