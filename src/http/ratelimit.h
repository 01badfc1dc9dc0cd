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
/* Shared budget across processes (PostgreSQL): lease(arg, key, now,
 * interval, span, want, &granted, &tat) takes up to want slots of the
 * key's GCRA kept in the database (store_rate_lease).  Returns 0, or -1 when
 * the database is away (this process then limits on its own). */
typedef int (*ratelimit_lease_fn)(void *arg, const char *key, int64_t now_ns, int64_t interval_ns,
				  int64_t span_ns, int want, int *ret_granted, int64_t *ret_tat);
void ratelimit_share(struct ratelimit *rl, ratelimit_lease_fn lease, void *arg);

/* Counts one request for key at time now_ns (nanoseconds, any epoch).
 * Exact at any rate: the limit enforced is the limit configured. */
struct ratelimit_verdict ratelimit_take_ns(struct ratelimit *rl, const char *key, int64_t now_ns);
/* The same with a millisecond clock. */
struct ratelimit_verdict ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms);

#endif
