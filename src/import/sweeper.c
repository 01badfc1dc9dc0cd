/* The sweepers' work: the stuck-run reaper, staging expiry and retention.
 * The thread that runs them every LOADLINE_SWEEP_INTERVAL is in worker.c. */
#include "sweeper.h"

#include <jansson.h>

#include "base/clock.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "store/retention.h"
#include "store/runs.h"

/* A result chunk is one short write transaction: an import waiting for
 * the write lock waits for at most one chunk's delete (~2 ms on SQLite). */
#define RETENTION_CHUNK 500
#define RETENTION_BATCH 32
/* Pages given back per sweep (4 KiB each): 64 MiB. */
#define RECLAIM_PAGES 16384

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
			store_run_changed(st, ids[i]);
			metrics_run("FAILED", -1, NULL);   /* RUN_TIMED_OUT or STAGING_EXPIRED */
			log_json("warn", "run failed by sweeper", json_pack("{s:s,s:s}", "runId", ids[i], "code", code_name(c)));
		}
	}
	return moved;
}

static int delete_uploads(struct store *st, int64_t cutoff, int64_t now)
{
	char ids[RETENTION_BATCH][ID_MAX];
	int n = 0, done = 0;
	if (store_retention_due(st, RETAINED_UPLOAD, cutoff, ids, RETENTION_BATCH, &n))
		return 0;
	for (int i = 0; i < n; i++)
		if (!store_retention_delete_upload(st, ids[i], now))
			done++;
	return done;
}

static int delete_results(struct store *st, int64_t cutoff, int64_t now)
{
	char ids[RETENTION_BATCH][ID_MAX];
	int n = 0, done = 0;
	if (store_retention_due(st, RETAINED_RESULTS, cutoff, ids, RETENTION_BATCH, &n))
		return 0;
	for (int i = 0; i < n; i++) {
		bool finished = false;
		while (!finished && !store_retention_delete_results(st, ids[i], RETENTION_CHUNK, now, &finished))
			;
		done += finished;
	}
	return done;
}

int sweep_retention(struct store *st, const struct sweep_limits *l, int64_t now)
{
	int uploads = l->keep_uploads_ms > 0 ? delete_uploads(st, now - l->keep_uploads_ms, now) : 0;
	int results = l->keep_results_ms > 0 ? delete_results(st, now - l->keep_results_ms, now) : 0;
	/* Webhook attempts, deliveries and events are kept like results. */
	int hooks = l->keep_results_ms > 0 ? store_retention_webhooks(st, now - l->keep_results_ms) : 0;
	if (!uploads && !results && !hooks)
		return 0;
	int64_t pages = store_reclaim(st, RECLAIM_PAGES);
	store_retention_checkpoint(st);   /* the deleted text leaves the write-ahead log too */
	log_json("info", "retention", json_pack("{s:i,s:i,s:i,s:I}", "uploadsDeleted", uploads, "resultsDeleted",
						results, "webhookRowsDeleted", hooks, "pagesReclaimed", (json_int_t)pages));
	return uploads + results;
}

int sweep_once(struct store *st, const struct sweep_limits *l)
{
	char ids[64][ID_MAX];
	int n = 0, moved = 0;
	/* The reaper leaves staged runs alone: they have their own deadline. */
	if (!store_runs_timed_out(st, now_ms() - l->run_timeout_ms, ids, 64, &n))
		moved += fail_all(st, ids, n, CODE_RUN_TIMED_OUT, "The run did not finish within the stuck-run time-out.");
	if (!store_runs_staging_expired(st, now_ms(), ids, 64, &n))
		moved += fail_all(st, ids, n, CODE_STAGING_EXPIRED, "Nobody confirmed the column mapping before the "
				  "review link expired.");
	sweep_retention(st, l, now_ms());
	return moved;
}
