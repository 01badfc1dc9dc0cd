/* Import worker threads, their lease heartbeat, and the sweeper thread
 * (whose work is in sweeper.c). */
#ifndef LOADLINE_IMPORT_WORKER_H
#define LOADLINE_IMPORT_WORKER_H

#include "import/pipeline.h"
#include "import/staging.h"
#include "import/sweeper.h"
#include "store/store.h"

struct workers;

struct worker_opts {
	struct pipeline_opts pipeline;
	struct staging_opts staging;  /* the triage of runs staged at upload */
	int64_t lease_ms;            /* LOADLINE_LEASE: a claim lasts this long unrenewed */
	struct sweep_limits sweep;   /* the stuck-run reaper's limit, retention */
	int64_t sweep_interval_ms;   /* LOADLINE_SWEEP_INTERVAL */
	int64_t poll_ms;             /* LOADLINE_WORKER_POLL: idle workers look at the queue this often
				      * (besides being woken: same process, or LISTEN/NOTIFY) */
};

/* Starts n worker threads (n may be 0) plus the heartbeat and sweeper
 * threads, all using st. */
struct workers *workers_start(struct store *st, const struct worker_opts *o, int n);
/* Lets running imports finish, then stops every thread.  NULL is fine. */
void workers_stop(struct workers *w);
/* Wakes idle workers at once (a run was just queued in this process);
 * workers is a struct workers * or NULL (the shape of an app_hook). */
void workers_notify(void *workers);

#endif
