/* Per-key rate limiting with GCRA (the generic cell rate algorithm): a
 * token bucket kept as one timestamp per key.  Thread-safe; memory grows
 * with the number of distinct keys, which are authenticated API key ids. */
#ifndef LOADLINE_HTTP_RATELIMIT_H
#define LOADLINE_HTTP_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct ratelimit;

struct ratelimit_verdict {
	bool allowed;
	int limit;          /* RateLimit-Limit */
	int remaining;      /* RateLimit-Remaining */
	int reset_s;        /* RateLimit-Reset: seconds until the bucket is full again */
	int retry_after_s;  /* when refused: seconds until one request is allowed */
};

/* limit requests per window_ms, all of which may come at once (burst = limit). */
struct ratelimit *ratelimit_new(int limit, int64_t window_ms);
void ratelimit_free(struct ratelimit *rl);
/* Counts one request for key at time now_ns (nanoseconds, any epoch).
 * Exact at any rate: the limit enforced is the limit configured. */
struct ratelimit_verdict ratelimit_take_ns(struct ratelimit *rl, const char *key, int64_t now_ns);
/* The same with a millisecond clock. */
struct ratelimit_verdict ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms);

#endif
