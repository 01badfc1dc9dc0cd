/* The table of held requests (internal to src/notify; notify.h has the
 * interface).  Entries are slots of one array: free ones on a free list,
 * used ones on their topic's chain (a hash of run ids) and on the list of
 * all, parked ones in a min-heap by deadline.  Adding, waking one topic
 * and expiring are O(1)/O(log n) plus the requests they resume; waking
 * every request (another process's change on SQLite, which does not say
 * which run) walks the used entries only. */
#ifndef LOADLINE_NOTIFY_HOLDS_H
#define LOADLINE_NOTIFY_HOLDS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define HOLD_KEY_MAX 64

struct hold {
	int next_free;              /* free list; -1 ends it */
	int hnext, hprev;           /* the topic's chain */
	int anext, aprev;           /* all used entries */
	int heap_pos;               /* -1: not parked */
	int org_slot;               /* its org's counter */
	bool used, woken;
	uint32_t hash;
	int64_t deadline;
	void (*resume)(void *who);
	void *who;
	char topic[HOLD_KEY_MAX];
};

/* One organization's count of entries: a chained hash over a pool of
 * max slots (an org with an entry has a slot; one at 0 goes back). */
struct hold_org {
	char org[HOLD_KEY_MAX];
	int n;
	int next;                   /* its chain, or the free list */
};

struct holds {
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* the deadline thread: the earliest changed */
	struct hold *e;
	int max, per_org, n, free_head, all_head;
	int *bucket;                /* topic chains' heads */
	uint32_t nbuckets;          /* a power of two */
	int *heap, nheap;           /* parked entries by deadline */
	struct hold_org *orgs;
	int *org_bucket, org_free;  /* orgs' chains (nbuckets of them), free slots */
	bool closed, stopping;
	bool thread_started;
	pthread_t thread;
	unsigned long wakeups;      /* the deadline thread's */
};

void holds_init(struct holds *h, int max, int per_org);
void holds_done(struct holds *h);
void holds_start(struct holds *h);
void holds_stop(struct holds *h);
/* Wakes topic's entries (NULL: all). */
void holds_wake(struct holds *h, const char *topic);

#endif
