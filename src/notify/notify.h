/* Run-change and outbox notifications (issue 27): one hub per process,
 * built before any thread starts and owned by the app object.
 *
 * It knows three kinds of event — a run's representation changed (by run
 * id), a webhook delivery was queued, a mail was queued — and who waits for
 * them in this process: held requests (long polls) in a table indexed by
 * run id with their deadlines in a heap, and one sleeper per outbox (the
 * webhook sender, the mailer).  Events reach other processes without
 * polling: on SQLite through a futex word in the shared DBPATH-authgen
 * page (FUTEX_WAIT/WAKE without FUTEX_PRIVATE work across processes on a
 * MAP_SHARED file), on PostgreSQL through LISTEN/NOTIFY, which the store
 * listens to on the hub's behalf (notify_use_remote).
 *
 * Floor: base/ only.  The store, http/ and the senders use it; it calls
 * none of them (held requests are resumed through the callback each one
 * was registered with). */
#ifndef LOADLINE_NOTIFY_NOTIFY_H
#define LOADLINE_NOTIFY_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

struct waiter;
struct notify;

enum notify_kind { NOTIFY_RUNS, NOTIFY_WEBHOOKS, NOTIFY_MAIL, NOTIFY_KINDS };

/* A hub whose table holds at most max_held requests in all and at most
 * max_held_per_org of one organization (0: max_held).  Aborts on OOM. */
struct notify *notify_new(int max_held, int max_held_per_org);
/* After notify_stop (or when never started); NULL is fine. */
void notify_free(struct notify *n);

/* ---- Transports: called once, before notify_start, by the store as it
 * opens (one thread). ---- */

/* SQLite: the shared page (DBPATH-authgen, 4096 bytes, MAP_SHARED) whose
 * words carry events to the other processes of one database. */
void notify_use_shared(struct notify *n, void *page);
/* PostgreSQL: wait(arg, stop_fd, n) blocks until notifications arrive
 * (handing each to notify_heard) or stop_fd becomes readable; returns 0,
 * or -1 when its connection failed (it is called again after a pause,
 * and every held request is woken: events may have been missed). */
typedef int (*notify_remote_wait_fn)(void *arg, int stop_fd, struct notify *n);
void notify_use_remote(struct notify *n, notify_remote_wait_fn wait, void *arg);
/* The token that marks this process's own PostgreSQL notifications
 * ("<token>:<payload>"), so that its listener skips them. */
const char *notify_token(const struct notify *n);

/* Starts the deadline thread and, with a transport, the listener thread.
 * notify_stop ends both, resumes every held request, refuses new holds
 * and stops the outbox sleepers' waiters.  Both idempotent. */
void notify_start(struct notify *n);
void notify_stop(struct notify *n);

/* ---- Events (any thread; n may be NULL: nothing to tell) ---- */

/* A run's representation changed in this process (run_id NULL: some run,
 * unknown): wakes its held requests here, and tells the other processes
 * on SQLite (PostgreSQL: the store's NOTIFY). */
void notify_run_changed(struct notify *n, const char *run_id);
/* Wakes this process's requests held on topic and no other process's:
 * something of this process's own freed (an upload slot). */
void notify_wake_here(struct notify *n, const char *topic);
/* Work was queued in this process's database (NOTIFY_WEBHOOKS,
 * NOTIFY_MAIL): wakes this process's sender, and the others' on SQLite. */
void notify_work(struct notify *n, enum notify_kind kind);
/* From a remote transport: another process's event.  payload is its
 * notification's ("<token>:<run id>" or "<token>:"). */
void notify_heard(struct notify *n, enum notify_kind kind, const char *payload);

/* The sleeper of an outbox kind: its sender naps on it
 * (waiter_nap_since); woken by notify_work and other processes' work,
 * stopped by notify_stop.  Owned by the hub. */
struct waiter *notify_waiter(struct notify *n, enum notify_kind kind);
/* How many times the listener thread woke up (the idle bench). */
unsigned long notify_listener_wakeups(struct notify *n);

/* ---- Held requests ----
 *
 * A request registers before it reads what it waits on (register, then
 * read: a change in between marks it woken), then either answers —
 * notify_hold_cancel — or parks: notify_hold_park.  A parked request is
 * resumed once, by resume(who) from some thread without the hub's lock,
 * when its run changes or its deadline passes; a registered one that was
 * woken before it parked is not parked (park returns false: read again). */
#define NOTIFY_HOLD_NONE (-1)
/* A handle, or NOTIFY_HOLD_NONE when the table or the org's share is full
 * or the hub is stopping.  topic (a run id) and org are copied (at most
 * 63 bytes each). */
int notify_hold_add(struct notify *n, const char *topic, const char *org, int64_t deadline_ms,
		    void (*resume)(void *who), void *who);
/* Parks a registered hold until resumed; false (and released) when it was
 * woken meanwhile.  Calls nothing of the caller's. */
bool notify_hold_park(struct notify *n, int h);
/* Releases a registered hold that will not park. */
void notify_hold_cancel(struct notify *n, int h);
/* Resumes every parked request and refuses new holds until
 * notify_holds_open (the API listener stops; the deadline thread runs on). */
void notify_holds_close(struct notify *n);
void notify_holds_open(struct notify *n);
/* Registered and parked requests now. */
int notify_held(struct notify *n);

#endif
