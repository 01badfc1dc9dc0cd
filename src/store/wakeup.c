/* Cross-process wake-ups for workers (PostgreSQL LISTEN/NOTIFY).
 *
 * A run queued by `serve` on one host used to wait for a `worker` process's
 * next poll (up to 250 ms).  Whatever makes a run claimable now sends a
 * NOTIFY in its own transaction (delivered at commit), and each worker
 * process keeps one connection of its own LISTENing, whose thread wakes
 * the process's idle workers.  Polling stays as the fallback: a lost
 * notification only costs the poll interval.  SQLite has no notifications;
 * its writers share one host and one process usually, whose waiter is
 * woken directly. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "notify/notify.h"
#include "runs.h"
#include "store_internal.h"

#define RUNS_CHANNEL "loadline_runs"

struct runs_listener {
	struct store *st;
	struct db *db;
	bool listening;
};

void runs_notify(struct db *db)
{
	/* Best effort: a failed NOTIFY must not fail the write it goes with
	 * (it cannot: pg_notify fails only with a full notification queue,
	 * and then the poll still finds the run). */
	if (db_kind(db) == DB_POSTGRES)
		db_exec(db, "SELECT pg_notify('" RUNS_CHANNEL "', '')", NULL, 0, NULL);
}

struct runs_listener *store_runs_listen(struct store *st)
{
	if (store_kind(st) != DB_POSTGRES)
		return NULL;
	struct runs_listener *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->st = st;
	return l;
}

static bool listen_now(struct runs_listener *l)
{
	if (!l->db) {
		char err[256];
		if (store_open_db(l->st, &l->db, err, sizeof err))
			return false;
	}
	if (!db_ensure(l->db))
		return false;
	l->listening = db_exec(l->db, "LISTEN " RUNS_CHANNEL, NULL, 0, NULL) == CODE_OK;
	return l->listening;
}

int store_runs_listener_wait(struct runs_listener *l, int timeout_ms)
{
	if (!l->listening && !listen_now(l))
		return -1;
	int r = db_wait_notify(l->db, timeout_ms);
	if (r < 0)
		l->listening = false;   /* connection lost: LISTEN again next time */
	return r;
}

void store_runs_listener_close(struct runs_listener *l)
{
	if (!l)
		return;
	if (l->db)
		db_close(l->db);
	free(l);
}

/* ---- Run changes and queued work between processes (issue 27) ----
 *
 * The notification hub (src/notify) does the waking; the store carries
 * its events.  In this process store_run_changed tells the hub at once,
 * with the run id.  SQLite: the hub's futex words on the shared
 * DBPATH-authgen page, mapped here at hand-over (not lazily from whatever
 * thread came first).  PostgreSQL: NOTIFY on three channels, each payload
 * "<the sender's hub token>:<run id>", and a LISTEN connection of the
 * store's own that the hub's listener thread blocks on (no time-out: it
 * also watches the hub's stop descriptor). */
#define CHANGES_CHANNEL "loadline_run_changed"
#define WEBHOOKS_CHANNEL "loadline_webhooks"
#define MAIL_CHANNEL "loadline_mail"
#define AUTHGEN_BYTES 4096

struct changes_listener {
	struct store *st;
	struct db *db;
	bool listening;
};

void store_changes_done(struct store_changes *c)
{
	if (c->map)
		munmap(c->map, AUTHGEN_BYTES);
	c->map = NULL;
	if (c->listener) {
		if (c->listener->db)
			db_close(c->listener->db);
		free(c->listener);
		c->listener = NULL;
	}
}

static void heard(void *arg, const char *channel, const char *payload)
{
	enum notify_kind kind = !strcmp(channel, CHANGES_CHANNEL) ? NOTIFY_RUNS
			      : !strcmp(channel, WEBHOOKS_CHANNEL) ? NOTIFY_WEBHOOKS : NOTIFY_MAIL;
	notify_heard(arg, kind, payload);
}

/* The hub's remote wait (notify.h): LISTEN once per connection, then
 * block until notifications or the stop descriptor. */
static int pg_listen_wait(void *arg, int stop_fd, struct notify *n)
{
	struct changes_listener *l = arg;
	if (!l->listening) {
		char err[256];
		if (!l->db && store_open_db(l->st, &l->db, err, sizeof err))
			return -1;
		if (!db_ensure(l->db) ||
		    db_script(l->db, "LISTEN " CHANGES_CHANNEL "; LISTEN " WEBHOOKS_CHANNEL "; LISTEN " MAIL_CHANNEL))
			return -1;
		l->listening = true;
	}
	if (db_listen_wait(l->db, -1, stop_fd, heard, n) >= 0)
		return 0;
	l->listening = false;
	return -1;
}

static const char *sqlite_path(struct store *st)
{
	const char *path = store_url(st) + 7;
	return strncmp(path, "//", 2) ? path : path + 2;
}

void store_use_notify(struct store *st, struct notify *n)
{
	struct store_changes *c = store_changes_of(st);
	c->notify = n;
	if (!n)
		return;
	if (store_kind(st) == DB_POSTGRES) {
		if (!(c->listener = calloc(1, sizeof(*c->listener))))
			abort();
		c->listener->st = st;
		notify_use_remote(n, pg_listen_wait, c->listener);
		return;
	}
	/* An in-memory database has no other process. */
	const char *path = sqlite_path(st);
	if (strcmp(path, ":memory:") && !(c->map = store_map_authgen(path)))
		log_msg("error", "cannot map %s-authgen: other processes' run changes reach long polls only at "
			"their deadline", path);
	notify_use_shared(n, c->map);
}

/* PostgreSQL: tells the other processes (autocommit, after the change). */
static void pg_tell(struct store *st, struct db *db, const char *channel, const char *run_id)
{
	struct notify *n = store_changes_of(st)->notify;
	char payload[128];
	snprintf(payload, sizeof payload, "%s:%s", n ? notify_token(n) : "", run_id ? run_id : "");
	struct db_param p[] = {P_TXT(channel), P_TXT(payload)};
	if (db)
		db_exec(db, "SELECT pg_notify($1, $2)", p, 2, NULL);
	else
		store_exec1(st, "SELECT pg_notify($1, $2)", p, 2, NULL);
}

void store_run_changed(struct store *st, const char *run_id)
{
	notify_run_changed(store_changes_of(st)->notify, run_id);
	if (store_kind(st) == DB_POSTGRES)
		pg_tell(st, NULL, CHANGES_CHANNEL, run_id);
}

void store_signal_work(struct store *st, struct db *db, int kind)
{
	notify_work(store_changes_of(st)->notify, kind);
	if (store_kind(st) == DB_POSTGRES)
		pg_tell(st, db, kind == NOTIFY_WEBHOOKS ? WEBHOOKS_CHANNEL : MAIL_CHANNEL, NULL);
}

void store_work_queued(struct store *st, struct db *db)
{
	unsigned w = db_take_queued(db);
	for (int k = NOTIFY_WEBHOOKS; k <= NOTIFY_MAIL; k++)
		if (w & (1u << k))
			store_signal_work(st, db, k);
}
