/* The notification hub (notify.h): events to this process's waiters, and
 * to and from other processes. */
#include "notify.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "notify_internal.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the shared futex words need lock-free 32-bit atomics");

struct notify *notify_new(int max_held, int max_held_per_org)
{
	struct notify *n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	holds_init(&n->holds, max_held, max_held_per_org);
	for (int k = 0; k < NOTIFY_KINDS; k++)
		waiter_init(&n->sleepers[k]);
	unsigned char r[8];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		uint64_t t = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 40);
		memcpy(r, &t, sizeof r);
	}
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(n->token + 2 * i, 3, "%02x", r[i]);
	n->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->stop_fd < 0)
		abort();
	return n;
}

void notify_free(struct notify *n)
{
	if (!n)
		return;
	notify_stop(n);
	holds_done(&n->holds);
	for (int k = 0; k < NOTIFY_KINDS; k++)
		waiter_done(&n->sleepers[k]);
	close(n->stop_fd);
	free(n);
}

void notify_use_shared(struct notify *n, void *page)
{
	n->shared = page ? (struct shared_words *)((char *)page + SHARED_OFFSET) : NULL;
}

void notify_use_remote(struct notify *n, notify_remote_wait_fn wait, void *arg)
{
	n->remote = wait;
	n->remote_arg = arg;
}

const char *notify_token(const struct notify *n)
{
	return n->token;
}

struct waiter *notify_waiter(struct notify *n, enum notify_kind kind)
{
	return &n->sleepers[kind];
}

unsigned long notify_listener_wakeups(struct notify *n)
{
	return atomic_load(&n->listener_wakeups);
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is in a MAP_SHARED file that other
	 * processes map, and the kernel keys such futexes by the file page. */
	return syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* Tells the other processes of this SQLite database: kind's counter, then
 * the futex word, then the wake-up. */
static void shared_bump(struct notify *n, enum notify_kind kind)
{
	if (!n->shared)
		return;
	atomic_fetch_add(&n->own[kind], 1);
	atomic_fetch_add(&n->shared->kinds[kind], 1);
	atomic_fetch_add(&n->shared->seq, 1);
	futex(&n->shared->seq, FUTEX_WAKE, INT_MAX);
}

/* Another process's event of kind (run_id NULL: which run is not known). */
static void deliver(struct notify *n, enum notify_kind kind, const char *run_id)
{
	if (kind == NOTIFY_RUNS)
		holds_wake(&n->holds, run_id && *run_id ? run_id : NULL);
	else
		waiter_wake(&n->sleepers[kind]);
}

void notify_run_changed(struct notify *n, const char *run_id)
{
	if (!n)
		return;
	holds_wake(&n->holds, run_id);
	shared_bump(n, NOTIFY_RUNS);
}

void notify_wake_here(struct notify *n, const char *topic)
{
	if (n)
		holds_wake(&n->holds, topic);
}

void notify_work(struct notify *n, enum notify_kind kind)
{
	if (!n || kind == NOTIFY_RUNS)
		return;
	waiter_wake(&n->sleepers[kind]);
	shared_bump(n, kind);
}

void notify_heard(struct notify *n, enum notify_kind kind, const char *payload)
{
	const char *colon = payload ? strchr(payload, ':') : NULL;
	if (colon && (size_t)(colon - payload) == strlen(n->token) && !strncmp(payload, n->token, strlen(n->token)))
		return;   /* our own: this process's waiters heard it already */
	deliver(n, kind, colon ? colon + 1 : NULL);
}

/* How many of delta new events of kind were this process's own: as many
 * as it made and has not yet seen, at most delta. */
static uint32_t take_own(struct notify *n, enum notify_kind kind, uint32_t delta)
{
	uint32_t own = atomic_load(&n->own[kind]);
	while (own && !atomic_compare_exchange_weak(&n->own[kind], &own, own - (own < delta ? own : delta)))
		;
	return own < delta ? own : delta;
}

/* SQLite: blocks on the futex word until another process (or this one)
 * moves it; no timeout, so an idle server does not wake. */
static void shared_listen(struct notify *n)
{
	struct shared_words *w = n->shared;
	uint32_t seq = n->start_seq, seen[NOTIFY_KINDS];
	for (int k = 0; k < NOTIFY_KINDS; k++)
		seen[k] = n->start_kinds[k];
	while (!atomic_load(&n->stopping)) {
		if (futex(&w->seq, FUTEX_WAIT, seq) < 0 && errno != EAGAIN && errno != EINTR)
			break;
		atomic_fetch_add(&n->listener_wakeups, 1);
		seq = atomic_load(&w->seq);
		for (int k = 0; k < NOTIFY_KINDS; k++) {
			uint32_t now = atomic_load(&w->kinds[k]), delta = now - seen[k];
			seen[k] = now;
			if (delta && delta > take_own(n, (enum notify_kind)k, delta))
				deliver(n, (enum notify_kind)k, NULL);
		}
	}
}

/* PostgreSQL: the store's LISTEN connection; after a failure, every waiter
 * is woken (events may have been lost) and it is tried again. */
static void remote_listen(struct notify *n)
{
	while (!atomic_load(&n->stopping)) {
		atomic_fetch_add(&n->listener_wakeups, 1);
		if (n->remote(n->remote_arg, n->stop_fd, n) == 0)
			continue;
		for (int k = 0; k < NOTIFY_KINDS; k++)
			deliver(n, (enum notify_kind)k, NULL);
		struct pollfd pfd = {.fd = n->stop_fd, .events = POLLIN};
		poll(&pfd, 1, 500);
	}
}

static void *listener_main(void *arg)
{
	struct notify *n = arg;
	if (n->shared)
		shared_listen(n);
	else
		remote_listen(n);
	return NULL;
}

void notify_start(struct notify *n)
{
	if (!n || n->started)
		return;
	n->started = true;
	holds_start(&n->holds);
	if (n->shared) {
		/* This process's earlier events are in the snapshot: none is
		 * pending any more (else a later remote one would pass for ours). */
		n->start_seq = atomic_load(&n->shared->seq);
		for (int k = 0; k < NOTIFY_KINDS; k++) {
			atomic_store(&n->own[k], 0);
			n->start_kinds[k] = atomic_load(&n->shared->kinds[k]);
		}
	}
	if (n->shared || n->remote) {
		n->listener_started = true;
		thread_start(&n->listener, listener_main, n);
	}
}

void notify_stop(struct notify *n)
{
	if (!n || atomic_exchange(&n->stopping, true))
		return;
	if (n->listener_started) {
		uint64_t one = 1;
		if (write(n->stop_fd, &one, sizeof one) < 0)
			abort();
		if (n->shared) {
			/* Moves the word so that a listener about to wait does not
			 * (others see no kind move and wait again). */
			atomic_fetch_add(&n->shared->seq, 1);
			futex(&n->shared->seq, FUTEX_WAKE, INT_MAX);
		}
		pthread_join(n->listener, NULL);
	}
	holds_stop(&n->holds);
	for (int k = 0; k < NOTIFY_KINDS; k++)
		waiter_stop(&n->sleepers[k]);
}
