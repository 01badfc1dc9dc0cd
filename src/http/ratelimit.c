/* GCRA: each key stores its theoretical arrival time (TAT).  A request at
 * time t is allowed when TAT - t <= window - interval; it then moves TAT on
 * by one interval.  Keys hash into stripes with their own locks, so one
 * token's flood never waits on another organization's requests.
 *
 * Exact at any rate: times are kept in units of 1/limit millisecond, so the
 * interval (window / limit) is a whole number of units (window_ms) and no
 * rate is rounded — 1,000,000/1s is a million a second, not the thousand a
 * millisecond clock would round it to. */
#include "ratelimit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIPES 64

typedef __int128 units;   /* 1/limit ms */

struct entry {
	struct entry *next;
	units tat;
	char key[48];
};

struct stripe {
	pthread_mutex_t lock;
	struct entry *head;
};

struct ratelimit {
	int limit;
	int64_t window_ms;
	units window, interval;
	struct stripe stripes[STRIPES];
};

struct ratelimit *ratelimit_new(int limit, int64_t window_ms)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl));
	if (!rl)
		abort();
	rl->limit = limit > 0 ? limit : 1;
	rl->window_ms = window_ms > 0 ? window_ms : 1000;
	rl->interval = rl->window_ms;
	rl->window = (units)rl->window_ms * rl->limit;
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

/* Whole seconds (rounded up) in u units of 1/limit ms. */
static int ceil_s(const struct ratelimit *rl, units u)
{
	if (u <= 0)
		return 0;
	units per_s = (units)rl->limit * 1000;
	return (int)((u + per_s - 1) / per_s);
}

struct ratelimit_verdict ratelimit_take(struct ratelimit *rl, const char *key, int64_t now_ms)
{
	struct stripe *s = &rl->stripes[hash(key) % STRIPES];
	struct ratelimit_verdict v = {.limit = rl->limit};
	units now = (units)now_ms * rl->limit, tolerance = rl->window - rl->interval;
	pthread_mutex_lock(&s->lock);
	struct entry *e = find(s, key);
	units tat = e->tat > now ? e->tat : now;
	if (tat - now <= tolerance) {
		v.allowed = true;
		e->tat = tat + rl->interval;
	}
	units ahead = e->tat > now ? e->tat - now : 0;   /* how full the bucket is */
	pthread_mutex_unlock(&s->lock);
	units room = rl->window - ahead;
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
