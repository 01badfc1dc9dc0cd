/* The sweepers' work: the stuck-run reaper and staging expiry.  The
 * thread that runs them every LOADLINE_SWEEP_INTERVAL is in worker.c. */
#include "sweeper.h"

#include <jansson.h>

#include "base/clock.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "store/runs.h"

/* Fails each listed run with code; returns how many moved. */
static int fail_all(struct store *st, char (*ids)[ID_MAX], int n, enum code c, const char *message)
{
	int moved = 0;
	for (int i = 0; i < n; i++) {
		struct run_move m = {.to = RUN_FAILED, .error_code = code_name(c), .row_count = -1, .finish = true,
				     .error_message = message};
		bool done;
		if (store_run_move(st, ids[i], &m, &done) == CODE_OK && done) {
			moved++;
			metrics_run("FAILED", -1, NULL);   /* RUN_TIMED_OUT or STAGING_EXPIRED */
			log_json("warn", "run failed by sweeper", json_pack("{s:s,s:s}", "runId", ids[i], "code", code_name(c)));
		}
	}
	return moved;
}

int sweep_once(struct store *st, int64_t run_timeout_ms)
{
	char ids[64][ID_MAX];
	int n = 0, moved = 0;
	/* The reaper leaves staged runs alone: they have their own deadline. */
	if (!store_runs_timed_out(st, now_ms() - run_timeout_ms, ids, 64, &n))
		moved += fail_all(st, ids, n, CODE_RUN_TIMED_OUT, "The run did not finish within the stuck-run time-out.");
	if (!store_runs_staging_expired(st, now_ms(), ids, 64, &n))
		moved += fail_all(st, ids, n, CODE_STAGING_EXPIRED, "Nobody confirmed the column mapping before the "
				  "review link expired.");
	return moved;
}

