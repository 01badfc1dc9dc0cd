/* The hub's insides (internal to src/notify). */
#ifndef LOADLINE_NOTIFY_INTERNAL_H
#define LOADLINE_NOTIFY_INTERNAL_H

#include <stdatomic.h>

#include "base/waiter.h"
#include "holds.h"
#include "notify.h"

/* The words other processes of one SQLite database share, at
 * SHARED_OFFSET of DBPATH-authgen (its first 64-bit slots are the auth
 * generation's).  seq moves on every event (the futex word); kinds[k]
 * counts kind k's events. */
#define SHARED_OFFSET 64
struct shared_words {
	_Atomic uint32_t seq;
	_Atomic uint32_t kinds[NOTIFY_KINDS];
};

struct notify {
	struct holds holds;
	struct waiter sleepers[NOTIFY_KINDS];   /* RUNS' is unused */
	struct shared_words *shared;            /* SQLite, or NULL */
	notify_remote_wait_fn remote;           /* PostgreSQL, or NULL */
	void *remote_arg;
	char token[24];
	int stop_fd;                            /* eventfd: the listener stops */
	atomic_bool stopping;
	bool listener_started, started;
	pthread_t listener;
	/* Events this process put on the shared page that its own listener
	 * has not yet seen (they are not another process's). */
	_Atomic uint32_t own[NOTIFY_KINDS];
	atomic_ulong listener_wakeups;
	/* The shared words as notify_start saw them (the listener's starting
	 * point: taken before the thread starts, so that nothing published
	 * after notify_start returns is taken for old news). */
	uint32_t start_seq, start_kinds[NOTIFY_KINDS];
};

#endif
