/* GCRA: each key stores its theoretical arrival time (TAT).  A request at
 * time t is allowed when TAT - t <= window - interval; it then moves TAT on
 * by one interval.  Keys hash into stripes with their own locks, so one
 * token's flood never waits on another organization's requests. */
#include "ratelimit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIPES 64

struct entry {
	struct entry *next;
	__int128 tat;       /* theoretical arrival time, in 1/limit ns */
	/* Shared mode: the slots leased from the database, `left` of them from
	 * `slot` on, one interval apart, and the database's tat after the lease. */
	int64_t slot, shared_tat;
	int left;
	char key[48];
};

struct stripe {
	pthread_mutex_t lock;
	struct entry *head;
};

/* Time is kept in units of 1/limit nanosecond, so one request's interval
 * (window / limit) is exactly window_ns units: no rounding at any rate,
 * 1,000,000/1s or 100000/60s alike.  128 bits hold epoch nanoseconds times
 * any int limit without overflow. */
struct ratelimit {
	int limit;
	int64_t window_ns;
	__int128 window, interval;   /* scaled units */
	ratelimit_lease_fn lease;    /* shared mode when set */
	void *lease_arg;
	int64_t shared_interval;     /* ceil(window / limit) ns */
	int batch;                   /* slots per lease */
	struct stripe stripes[STRIPES];
};

struct ratelimit *ratelimit_new(int limit, int64_t window_ms)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl));
	if (!rl)
		abort();
	rl->limit = limit > 0 ? limit : 1;
	rl->window_ns = (window_ms > 0 ? window_ms : 1000) * 1000000LL;
	rl->interval = rl->window_ns;
	rl->window = (__int128)rl->window_ns * rl->limit;
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&rl->stripes[i].lock, NULL);
	return rl;
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	for (int i = 0; i < STRIPES; i++) {
		struct entry *e = rl->stripes[i].head;
		while (e) {
			struct entry *n = e->next;
			free(e);
			e = n;
		}
		pthread_mutex_destroy(&rl->stripes[i].lock);
	}
	free(rl);
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct entry *find(struct stripe *s, const char *key)
{
	for (struct entry *e = s->head; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	struct entry *e = calloc(1, sizeof(*e));
	if (!e)
		abort();
	snprintf(e->key, sizeof e->key, "%s", key);
	e->next = s->head;
	s->head = e;
	return e;
}

/* Scaled units to whole seconds, rounded up. */
static int ceil_s(const struct ratelimit *rl, __int128 units)
{
	if (units <= 0)
		return 0;
	__int128 per_s = (__int128)1000000000 * rl->limit;
	return (int)((units + per_s - 1) / per_s);
}

void ratelimit_share(struct ratelimit *rl, ratelimit_lease_fn lease, void *arg)
{
	rl->lease = lease;
	rl->lease_arg = arg;
	rl->shared_interval = (rl->window_ns + rl->limit - 1) / rl->limit;
	/* Small batches: a lease per ~2% of the budget, never more than 100
	 * slots; a limit under 50 leases one slot at a time. */
	rl->batch = rl->limit / 50 < 1 ? 1 : rl->limit / 50 > 100 ? 100 : rl->limit / 50;
}

static int ceil_ns_s(int64_t ns)
{
	return ns <= 0 ? 0 : (int)((ns + 999999999) / 1000000000);
}

/* A slot t may serve a request at now only while t >= now + interval (the
 * tat plain GCRA would give it): expired slots are dropped, never used late,
 * so the requests of every process together conform to one GCRA. */
static void drop_expired(struct entry *e, int64_t now, int64_t iv)
{
	if (e->left > 0 && e->slot < now + iv) {
		int64_t k = (now + iv - e->slot + iv - 1) / iv;
		if (k >= e->left) {
			e->left = 0;
		} else {
			e->slot += k * iv;
			e->left -= (int)k;
		}
	}
}

static struct ratelimit_verdict take_shared(struct ratelimit *rl, struct stripe *s, const char *key, int64_t now)
{
	struct ratelimit_verdict v = {.limit = rl->limit};
	int64_t iv = rl->shared_interval, span = iv * rl->limit;
	/* The lease runs under the stripe lock: one lease per batch of requests,
	 * and two threads never lease for one key at once. */
	pthread_mutex_lock(&s->lock);
	struct entry *e = find(s, key);
	drop_expired(e, now, iv);
	if (e->left == 0) {
		int n = 0;
		int64_t tat = 0;
		if (rl->lease(rl->lease_arg, key, now, iv, span, rl->batch, &n, &tat)) {
			pthread_mutex_unlock(&s->lock);
			return (struct ratelimit_verdict){.allowed = false, .limit = -1};
		}
		e->shared_tat = tat;
		e->left = n;
		e->slot = tat - (int64_t)n * iv + iv;
	}
	if (e->left > 0) {
		v.allowed = true;
		e->slot += iv;
		e->left--;
	}
	int64_t room = (now + span - e->shared_tat) / iv;
	int64_t rem = (int64_t)e->left + (room > 0 ? room : 0);
	v.remaining = rem > rl->limit ? rl->limit : (int)rem;
	v.reset_s = ceil_ns_s(e->shared_tat - now);
	if (!v.allowed) {
		v.retry_after_s = ceil_ns_s(e->shared_tat + iv - span - now);
		if (v.retry_after_s < 1)
			v.retry_after_s = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return v;
}

static struct ratelimit_verdict take_local(struct ratelimit *rl, struct stripe *s, const char *key, int64_t now_ns);

struct ratelimit_verdict ratelimit_take_ns(struct ratelimit *rl, const char *key, int64_t now_ns)
{
	struct stripe *s = &rl->stripes[hash(key) % STRIPES];
	if (rl->lease) {
		struct ratelimit_verdict v = take_shared(rl, s, key, now_ns);
		if (v.limit >= 0)
			return v;
		/* The database is away: limit on this process's own count. */
	}
	return take_local(rl, s, key, now_ns);
}

static struct ratelimit_verdict take_local(struct ratelimit *rl, struct stripe *s, const char *key, int64_t now_ns)
{
	struct ratelimit_verdict v = {.limit = rl->limit};
	__int128 now = (__int128)now_ns * rl->limit;
	__int128 tolerance = rl->window - rl->interval;
	pthread_mutex_lock(&s->lock);
	struct entry *e = find(s, key);
	__int128 tat = e->tat > now ? e->tat : now;
	if (tat - now <= tolerance) {
		v.allowed = true;
		e->tat = tat + rl->interval;
	}
	__int128 ahead = e->tat > now ? e->tat - now : 0;   /* how full the bucket is */
	pthread_mutex_unlock(&s->lock);
	__int128 room = rl->window - ahead;
	v.remaining = room > 0 ? (int)(room / rl->interval) : 0;
	if (v.remaining > rl->limit)
		v.remaining = rl->limit;
	v.reset_s = ceil_s(rl, ahead);
	if (!v.allowed) {
		v.retry_after_s = ceil_s(rl, tat - now - tolerance);
		if (v.retry_after_s < 1)
			v.retry_after_s = 1;
	}
	return v;
}

struct ratelimit_verdict ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms)
{
	return ratelimit_take_ns(rl, key, now_ms * 1000000LL);
}
