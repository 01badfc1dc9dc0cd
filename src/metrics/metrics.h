/* The process's Prometheus metrics (PRODUCT §10): a fixed set of series,
 * counted with relaxed atomics (no lock on any request or run path), and
 * their text exposition.  Routes are interned patterns, never raw paths. */
#ifndef LOADLINE_METRICS_METRICS_H
#define LOADLINE_METRICS_METRICS_H

#include <stdint.h>

#include "base/buf.h"

/* At most this many distinct (method, route) labels; more share "other". */
#define METRICS_MAX_ROUTES 160

/* One HTTP request answered: its method (HEAD counts as itself; a method
 * HTTP does not define is "other"), route pattern (e.g.
 * /api/v1/imports/runs/{id}, /imports/runs/{id} for a page), status,
 * seconds from headers to response. */
void metrics_http(const char *method, const char *route, int status, double seconds);
/* A run reached a terminal state (state name, e.g. "SUCCEEDED") after
 * seconds of processing (< 0: it was never processed, e.g. failed by the
 * sweeper; not observed in the duration histogram); rows counts the
 * results by bucket (succeeded, warnings, failed, skipped), or is NULL. */
void metrics_run(const char *state, double seconds, const int rows[4]);

/* A long poll (GET run with Prefer: wait) ended: it was answered because
 * the run changed, because its time was up, or at once because no more
 * could be held (LOADLINE_MAX_WAITERS). */
enum long_poll_outcome { LONG_POLL_CHANGED, LONG_POLL_TIMEOUT, LONG_POLL_REFUSED };
void metrics_long_poll(enum long_poll_outcome o);
/* An upload found every upload slot taken (one per core) and was held,
 * without an HTTP thread, until one freed. */
void metrics_upload_held(void);

/* A webhook delivery attempt ended (PRODUCT §17): delivered (a 2xx),
 * failed and to be retried, or failed for good (the retry window is
 * over); seconds from connect to answer or failure. */
enum webhook_result { WEBHOOK_DELIVERED, WEBHOOK_RETRYING, WEBHOOK_FAILED };
void metrics_webhook(enum webhook_result r, double seconds);

/* Gauges read at scrape time from the database, -1 = unknown. */
struct metrics_gauges {
	int64_t queue_depth;     /* runs QUEUED (not staged) */
	int64_t outbox_pending;  /* mails not yet delivered */
	int64_t awaiting_review; /* runs QUEUED and staged for mapping review */
	int64_t held;            /* this process's long polls held now (-1: not serving) */
	int64_t webhooks_pending; /* webhook deliveries queued (due or waiting for a retry) */
};

/* Appends the text exposition format (version 0.0.4) of every series,
 * with the process's own (process_cpu_seconds_total, resident and virtual
 * memory, open and max descriptors, start time; read from /proc/self and
 * getrusage at each scrape). */
int metrics_render(struct buf *out, const struct metrics_gauges *g, const char *version);
/* Zeroes every series (tests). */
void metrics_reset(void);

#endif
