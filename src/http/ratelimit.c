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
	int64_t tat;
	char key[48];
};

struct stripe {
	pthread_mutex_t lock;
	struct entry *head;
};

struct ratelimit {
	int limit;
	int64_t window, interval;
	struct stripe stripes[STRIPES];
};

struct ratelimit *ratelimit_new(int limit, int64_t window_ms)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl));
	if (!rl)
		abort();
	rl->limit = limit > 0 ? limit : 1;
	rl->window = window_ms > 0 ? window_ms : 1000;
	rl->interval = rl->window / rl->limit;
	if (rl->interval < 1)
		rl->interval = 1;
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

static int ceil_s(int64_t ms)
{
	return ms <= 0 ? 0 : (int)((ms + 999) / 1000);
}

struct ratelimit_verdict ratelimit_take(struct ratelimit *rl, const char *key, int64_t now)
{
	struct stripe *s = &rl->stripes[hash(key) % STRIPES];
	struct ratelimit_verdict v = {.limit = rl->limit};
	int64_t tolerance = rl->window - rl->interval;
	pthread_mutex_lock(&s->lock);
	struct entry *e = find(s, key);
	int64_t tat = e->tat > now ? e->tat : now;
	if (tat - now <= tolerance) {
		v.allowed = true;
		e->tat = tat + rl->interval;
	}
	int64_t ahead = e->tat > now ? e->tat - now : 0;   /* how full the bucket is, in ms */
	pthread_mutex_unlock(&s->lock);
	int64_t room = rl->window - ahead;
	v.remaining = room > 0 ? (int)(room / rl->interval) : 0;
	if (v.remaining > rl->limit)
		v.remaining = rl->limit;
	v.reset_s = ceil_s(ahead);
	if (!v.allowed) {
		v.retry_after_s = ceil_s(tat - now - tolerance);
		if (v.retry_after_s < 1)
			v.retry_after_s = 1;
	}
	return v;
}
