/* Held requests (holds.h, notify.h).
 *
 * An entry is REGISTERED (used, not in the heap) from notify_hold_add
 * until the handler parks or cancels it, then PARKED (in the heap) until
 * it is resumed.  A wake that finds it registered only marks it woken:
 * the handler then reads again instead of parking, so a change between
 * registering and reading is never missed, and nobody is ever resumed
 * that was not parked.  Resume callbacks run without the lock, taken out
 * of the table in batches of RESUME_BATCH (no allocation per wake). */
#include "holds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/waiter.h"
#include "notify_internal.h"

#define RESUME_BATCH 64

struct resumption {
	void (*resume)(void *who);
	void *who;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		abort();
	return p;
}

void holds_init(struct holds *h, int max, int per_org)
{
	memset(h, 0, sizeof(*h));
	h->max = max > 0 ? max : 0;
	h->per_org = per_org > 0 && per_org < h->max ? per_org : h->max;
	h->e = xcalloc((size_t)h->max, sizeof(struct hold));
	h->heap = xcalloc((size_t)h->max, sizeof(int));
	h->nbuckets = 64;
	while (h->nbuckets < (uint32_t)h->max)
		h->nbuckets *= 2;
	h->bucket = xcalloc(h->nbuckets, sizeof(int));
	h->orgs = xcalloc((size_t)h->max, sizeof(struct hold_org));
	h->org_bucket = xcalloc(h->nbuckets, sizeof(int));
	for (uint32_t i = 0; i < h->nbuckets; i++)
		h->bucket[i] = h->org_bucket[i] = -1;
	for (int i = 0; i < h->max; i++) {
		h->e[i].next_free = i + 1 < h->max ? i + 1 : -1;
		h->orgs[i].next = i + 1 < h->max ? i + 1 : -1;
	}
	h->free_head = h->org_free = h->max ? 0 : -1;
	h->all_head = -1;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
}

void holds_done(struct holds *h)
{
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->e);
	free(h->heap);
	free(h->bucket);
	free(h->orgs);
	free(h->org_bucket);
}

/* ---- The deadline heap (parked entries) ---- */

static bool earlier(const struct holds *h, int a, int b)
{
	return h->e[h->heap[a]].deadline < h->e[h->heap[b]].deadline;
}

static void heap_swap(struct holds *h, int a, int b)
{
	int t = h->heap[a];
	h->heap[a] = h->heap[b];
	h->heap[b] = t;
	h->e[h->heap[a]].heap_pos = a;
	h->e[h->heap[b]].heap_pos = b;
}

static void heap_fix(struct holds *h, int i)
{
	while (i > 0 && earlier(h, i, (i - 1) / 2)) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->nheap && earlier(h, l, m))
			m = l;
		if (r < h->nheap && earlier(h, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

static void heap_push(struct holds *h, int idx)
{
	h->heap[h->nheap] = idx;
	h->e[idx].heap_pos = h->nheap++;
	heap_fix(h, h->nheap - 1);
}

static void heap_remove(struct holds *h, int idx)
{
	int pos = h->e[idx].heap_pos, last = --h->nheap;
	h->e[idx].heap_pos = -1;
	if (pos == last)
		return;
	h->heap[pos] = h->heap[last];
	h->e[h->heap[pos]].heap_pos = pos;
	heap_fix(h, pos);
}

/* ---- Organizations' counts (a chained hash over a pool of max) ---- */

/* The org's counter slot, made when make; -1 when absent (or no slot). */
static int org_find(struct holds *h, const char *org, bool make)
{
	uint32_t b = hash_str(org) & (h->nbuckets - 1);
	for (int i = h->org_bucket[b]; i >= 0; i = h->orgs[i].next)
		if (!strcmp(h->orgs[i].org, org))
			return i;
	if (!make || h->org_free < 0)
		return -1;
	int i = h->org_free;
	h->org_free = h->orgs[i].next;
	snprintf(h->orgs[i].org, sizeof h->orgs[i].org, "%s", org);
	h->orgs[i].n = 0;
	h->orgs[i].next = h->org_bucket[b];
	h->org_bucket[b] = i;
	return i;
}

static void org_put(struct holds *h, int slot)
{
	if (--h->orgs[slot].n > 0)
		return;
	uint32_t b = hash_str(h->orgs[slot].org) & (h->nbuckets - 1);
	int *p = &h->org_bucket[b];
	while (*p != slot)
		p = &h->orgs[*p].next;
	*p = h->orgs[slot].next;
	h->orgs[slot].next = h->org_free;
	h->org_free = slot;
}

/* ---- Entries ---- */

static void unlink_at(struct holds *h, int *head, int idx, int next, int prev, bool chain)
{
	if (prev >= 0) {
		if (chain)
			h->e[prev].hnext = next;
		else
			h->e[prev].anext = next;
	} else {
		*head = next;
	}
	if (next >= 0) {
		if (chain)
			h->e[next].hprev = prev;
		else
			h->e[next].aprev = prev;
	}
	(void)idx;
}

static void release(struct holds *h, int idx)
{
	struct hold *e = &h->e[idx];
	if (e->heap_pos >= 0)
		heap_remove(h, idx);
	unlink_at(h, &h->bucket[e->hash & (h->nbuckets - 1)], idx, e->hnext, e->hprev, true);
	unlink_at(h, &h->all_head, idx, e->anext, e->aprev, false);
	org_put(h, e->org_slot);
	e->used = false;
	e->resume = NULL;
	e->who = NULL;
	e->next_free = h->free_head;
	h->free_head = idx;
	h->n--;
}

static int add_locked(struct holds *h, const char *topic, const char *org, int64_t deadline)
{
	if (h->closed || h->stopping || h->free_head < 0)
		return NOTIFY_HOLD_NONE;
	int slot = org_find(h, org, true);
	if (slot < 0 || h->orgs[slot].n >= h->per_org)
		return NOTIFY_HOLD_NONE;
	int idx = h->free_head;
	struct hold *e = &h->e[idx];
	h->free_head = e->next_free;
	h->orgs[slot].n++;
	snprintf(e->topic, sizeof e->topic, "%s", topic);
	e->used = true;
	e->woken = false;
	e->org_slot = slot;
	e->deadline = deadline;
	e->heap_pos = -1;
	e->hash = hash_str(e->topic);
	int *head = &h->bucket[e->hash & (h->nbuckets - 1)];
	e->hprev = -1;
	e->hnext = *head;
	if (*head >= 0)
		h->e[*head].hprev = idx;
	*head = idx;
	e->aprev = -1;
	e->anext = h->all_head;
	if (h->all_head >= 0)
		h->e[h->all_head].aprev = idx;
	h->all_head = idx;
	h->n++;
	return idx;
}

int notify_hold_add(struct notify *n, const char *topic, const char *org, int64_t deadline_ms,
		    void (*resume)(void *who), void *who)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	int idx = add_locked(h, topic ? topic : "", org ? org : "", deadline_ms);
	if (idx >= 0) {
		h->e[idx].resume = resume;
		h->e[idx].who = who;
	}
	pthread_mutex_unlock(&h->mu);
	return idx;
}

bool notify_hold_park(struct notify *n, int idx)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	struct hold *e = &h->e[idx];
	bool park = !e->woken && !h->closed;
	if (park) {
		heap_push(h, idx);
		if (e->heap_pos == 0)
			pthread_cond_signal(&h->cv);   /* the earliest deadline changed */
	} else {
		release(h, idx);
	}
	pthread_mutex_unlock(&h->mu);
	return park;
}

void notify_hold_cancel(struct notify *n, int idx)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	release(h, idx);
	pthread_mutex_unlock(&h->mu);
}

int notify_held(struct notify *n)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	int k = h->n;
	pthread_mutex_unlock(&h->mu);
	return k;
}

/* Under the lock: takes up to RESUME_BATCH parked entries of topic's
 * chain (NULL: of all) out of the table, marks registered ones woken.
 * *ret_more: some were left for another batch. */
static int take_topic(struct holds *h, const char *topic, struct resumption *out, bool *ret_more)
{
	int k = 0;
	uint32_t hash = topic ? hash_str(topic) : 0;
	int i = topic ? h->bucket[hash & (h->nbuckets - 1)] : h->all_head;
	*ret_more = false;
	while (i >= 0) {
		struct hold *e = &h->e[i];
		int next = topic ? e->hnext : e->anext;
		if (!topic || (e->hash == hash && !strcmp(e->topic, topic))) {
			if (e->heap_pos < 0) {
				e->woken = true;
			} else if (k == RESUME_BATCH) {
				*ret_more = true;
				break;
			} else {
				out[k++] = (struct resumption){e->resume, e->who};
				release(h, i);
			}
		}
		i = next;
	}
	return k;
}

static void resume_all(const struct resumption *r, int k)
{
	for (int i = 0; i < k; i++)
		r[i].resume(r[i].who);
}

void holds_wake(struct holds *h, const char *topic)
{
	struct resumption r[RESUME_BATCH];
	bool more = true;
	while (more) {
		pthread_mutex_lock(&h->mu);
		int k = take_topic(h, topic, r, &more);
		pthread_mutex_unlock(&h->mu);
		resume_all(r, k);
	}
}

/* Under the lock: up to RESUME_BATCH entries whose deadline passed. */
static int take_expired(struct holds *h, int64_t now, struct resumption *out)
{
	int k = 0;
	while (k < RESUME_BATCH && h->nheap > 0 && h->e[h->heap[0]].deadline <= now) {
		int idx = h->heap[0];
		out[k++] = (struct resumption){h->e[idx].resume, h->e[idx].who};
		release(h, idx);
	}
	return k;
}

/* Sleeps until the earliest deadline (or a new earlier one); no timer
 * ticks while nothing is held. */
static void *deadline_main(void *arg)
{
	struct holds *h = arg;
	struct resumption r[RESUME_BATCH];
	pthread_mutex_lock(&h->mu);
	while (!h->stopping) {
		int64_t now = now_ms();
		int k = take_expired(h, now, r);
		if (k) {
			pthread_mutex_unlock(&h->mu);
			resume_all(r, k);
			pthread_mutex_lock(&h->mu);
			continue;
		}
		int64_t wait = h->nheap ? h->e[h->heap[0]].deadline - now : 3600 * 1000;
		waiter_cond_wait_ms(&h->cv, &h->mu, wait);
		h->wakeups++;
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

void holds_start(struct holds *h)
{
	if (h->thread_started)
		return;
	h->thread_started = true;
	thread_start(&h->thread, deadline_main, h);
}

void holds_stop(struct holds *h)
{
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	if (h->thread_started)
		pthread_join(h->thread, NULL);
	h->thread_started = false;
	holds_wake(h, NULL);
}

void notify_holds_close(struct notify *n)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	h->closed = true;
	pthread_mutex_unlock(&h->mu);
	holds_wake(h, NULL);
}

void notify_holds_open(struct notify *n)
{
	struct holds *h = &n->holds;
	pthread_mutex_lock(&h->mu);
	h->closed = false;
	pthread_mutex_unlock(&h->mu);
}
