/* Held requests (hold.h).
 *
 * An entry goes PENDING (registered by the handler) -> SUSPENDED (after
 * MHD_suspend_connection) -> gone (resumed).  A wake that finds it PENDING
 * only marks it, and the handler resumes at once instead of suspending:
 * libmicrohttpd must never be asked to resume a connection that is not
 * suspended.  No libmicrohttpd call is made with the table's lock held. */
#include "hold.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/waiter.h"

#define TOPIC_MAX 64

enum hold_state { HOLD_FREE, HOLD_PENDING, HOLD_SUSPENDED };

struct hold {
	enum hold_state state;
	bool woken;
	struct MHD_Connection *c;
	char topic[TOPIC_MAX];
	int64_t deadline;
};

struct holds {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct hold *e;
	int max, n;
	bool stopping;
	pthread_t thread;
};

static struct hold *find(struct holds *h, struct MHD_Connection *c)
{
	for (int i = 0; i < h->max; i++)
		if (h->e[i].state != HOLD_FREE && h->e[i].c == c)
			return &h->e[i];
	return NULL;
}

static void release(struct holds *h, struct hold *e)
{
	e->state = HOLD_FREE;
	e->c = NULL;
	h->n--;
}

/* Under the lock: takes the suspended entries that match out of the
 * table (into out), marks the pending ones woken. */
static int take(struct holds *h, const char *topic, int64_t expired_by, struct MHD_Connection **out)
{
	int k = 0;
	for (int i = 0; i < h->max; i++) {
		struct hold *e = &h->e[i];
		if (e->state == HOLD_FREE)
			continue;
		bool hit = expired_by ? e->deadline <= expired_by : !topic || !strcmp(e->topic, topic);
		if (!hit)
			continue;
		if (e->state == HOLD_PENDING) {
			e->woken = true;
			continue;
		}
		out[k++] = e->c;
		release(h, e);
	}
	return k;
}

static void resume_all(struct MHD_Connection **cs, int k)
{
	for (int i = 0; i < k; i++)
		MHD_resume_connection(cs[i]);
}

static int64_t next_deadline(struct holds *h)
{
	int64_t next = 0;
	for (int i = 0; i < h->max; i++)
		if (h->e[i].state == HOLD_SUSPENDED && (!next || h->e[i].deadline < next))
			next = h->e[i].deadline;
	return next;
}

static void *deadline_main(void *arg)
{
	struct holds *h = arg;
	struct MHD_Connection **cs = calloc((size_t)h->max + 1, sizeof(*cs));
	if (!cs)
		abort();
	pthread_mutex_lock(&h->mu);
	while (!h->stopping) {
		int64_t next = next_deadline(h), now = now_ms();
		if (next && next <= now) {
			int k = take(h, NULL, now, cs);
			pthread_mutex_unlock(&h->mu);
			resume_all(cs, k);
			pthread_mutex_lock(&h->mu);
			continue;
		}
		waiter_cond_wait_ms(&h->cv, &h->mu, next ? next - now : 60000);
	}
	pthread_mutex_unlock(&h->mu);
	free(cs);
	return NULL;
}

struct holds *holds_new(int max)
{
	struct holds *h = calloc(1, sizeof(*h));
	if (!h || !(h->e = calloc((size_t)(max > 0 ? max : 1), sizeof(struct hold))))
		abort();
	h->max = max > 0 ? max : 0;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	thread_start(&h->thread, deadline_main, h);
	return h;
}

bool holds_add(struct holds *h, struct MHD_Connection *c, const char *topic, int64_t deadline)
{
	pthread_mutex_lock(&h->mu);
	struct hold *e = NULL;
	for (int i = 0; !h->stopping && h->n < h->max && i < h->max && !e; i++)
		if (h->e[i].state == HOLD_FREE)
			e = &h->e[i];
	if (e) {
		*e = (struct hold){.state = HOLD_PENDING, .c = c, .deadline = deadline};
		snprintf(e->topic, sizeof e->topic, "%s", topic);
		h->n++;
	}
	pthread_mutex_unlock(&h->mu);
	return e != NULL;
}

bool holds_suspend(struct holds *h, struct MHD_Connection *c)
{
	pthread_mutex_lock(&h->mu);
	struct hold *e = find(h, c);
	bool woken = !e || e->woken;
	if (e && woken)
		release(h, e);
	pthread_mutex_unlock(&h->mu);
	if (woken)
		return false;
	MHD_suspend_connection(c);
	pthread_mutex_lock(&h->mu);
	e = find(h, c);
	woken = !e || e->woken;
	if (e && woken)
		release(h, e);
	else if (e)
		e->state = HOLD_SUSPENDED;
	pthread_cond_signal(&h->cv);   /* a new deadline */
	pthread_mutex_unlock(&h->mu);
	if (woken)
		MHD_resume_connection(c);
	return true;
}

int holds_wake(struct holds *h, const char *topic)
{
	struct MHD_Connection **cs = calloc((size_t)h->max + 1, sizeof(*cs));
	if (!cs)
		abort();
	pthread_mutex_lock(&h->mu);
	int k = take(h, topic, 0, cs);
	pthread_mutex_unlock(&h->mu);
	resume_all(cs, k);
	free(cs);
	return k;
}

int holds_count(struct holds *h)
{
	pthread_mutex_lock(&h->mu);
	int n = h->n;
	pthread_mutex_unlock(&h->mu);
	return n;
}

void holds_stop(struct holds *h)
{
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->thread, NULL);
	holds_wake(h, NULL);
}

void holds_free(struct holds *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->e);
	free(h);
}
