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
#include <time.h>

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

/* ---- A run's representation changed (long polls, issue 23) ----
 *
 * In this process the store's callback hears it at once, with the run id.
 * Other processes: on PostgreSQL a NOTIFY on loadline_run_changed, which
 * each serve's listener hears; on SQLite a counter in the shared
 * DBPATH-authgen file, which each serve's listener reads every few
 * milliseconds while it holds requests.  Both say only "some run
 * changed": the listener wakes every held request, which reads its run
 * again. */
#define CHANGES_CHANNEL "loadline_run_changed"
#define AUTHGEN_BYTES 4096

void store_changes_done(struct store_changes *c)
{
	if (c->map)
		munmap(c->map, AUTHGEN_BYTES);
	c->map = NULL;
	c->counter = NULL;
}

static const char *sqlite_path(struct store *st)
{
	const char *path = store_url(st) + 7;
	return strncmp(path, "//", 2) ? path : path + 2;
}

/* The shared counter, mapped on first use (NULL: an in-memory database,
 * or the file cannot be mapped: other processes then poll). */
static _Atomic unsigned long long *counter_of(struct store *st)
{
	struct store_changes *c = store_changes_of(st);
	if (!c->mapped) {
		c->mapped = true;
		const char *path = sqlite_path(st);
		if (strcmp(path, ":memory:") && (c->map = store_map_authgen(path)))
			c->counter = (_Atomic unsigned long long *)c->map + 2;
	}
	return c->counter;
}

void store_on_run_changed(struct store *st, void (*fn)(void *arg, const char *run_id), void *arg)
{
	struct store_changes *c = store_changes_of(st);
	c->fn = fn;
	c->arg = arg;
}

void store_run_changed(struct store *st, const char *run_id)
{
	struct store_changes *c = store_changes_of(st);
	if (c->fn)
		c->fn(c->arg, run_id);
	if (store_kind(st) == DB_POSTGRES) {
		struct db_param p[] = {P_TXT(run_id ? run_id : "")};
		store_exec1(st, "SELECT pg_notify('" CHANGES_CHANNEL "', $1)", p, 1, NULL);
		return;
	}
	_Atomic unsigned long long *ctr = counter_of(st);
	if (ctr)
		atomic_store(&c->local_last, atomic_fetch_add(ctr, 1) + 1);
}

struct run_changes {
	struct store *st;
	struct db *db;
	bool listening;
	unsigned long long seen;
};

struct run_changes *store_run_changes_open(struct store *st)
{
	struct run_changes *rc = calloc(1, sizeof(*rc));
	if (!rc)
		abort();
	rc->st = st;
	_Atomic unsigned long long *ctr = store_kind(st) == DB_SQLITE ? counter_of(st) : NULL;
	rc->seen = ctr ? atomic_load(ctr) : 0;
	return rc;
}

static int pg_changes_wait(struct run_changes *rc, int timeout_ms)
{
	if (!rc->listening) {
		char err[256];
		if (!rc->db && store_open_db(rc->st, &rc->db, err, sizeof err))
			return -1;
		if (!db_ensure(rc->db) || db_exec(rc->db, "LISTEN " CHANGES_CHANNEL, NULL, 0, NULL))
			return -1;
		rc->listening = true;
	}
	int r = db_wait_notify(rc->db, timeout_ms);
	if (r < 0)
		rc->listening = false;
	return r;
}

/* SQLite: the counter moved by someone else than this process's last
 * bump.  Looked at every 5 ms for at most timeout_ms. */
static int sqlite_changes_wait(struct run_changes *rc, int timeout_ms)
{
	struct store_changes *c = store_changes_of(rc->st);
	_Atomic unsigned long long *ctr = counter_of(rc->st);
	for (int waited = 0;; waited += 5) {
		unsigned long long now = ctr ? atomic_load(ctr) : rc->seen;
		if (now != rc->seen) {
			bool ours = now == rc->seen + 1 && now == atomic_load(&c->local_last);
			rc->seen = now;
			if (!ours)
				return 1;
		}
		if (waited >= timeout_ms)
			return 0;
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int store_run_changes_wait(struct run_changes *rc, int timeout_ms)
{
	return store_kind(rc->st) == DB_POSTGRES ? pg_changes_wait(rc, timeout_ms) : sqlite_changes_wait(rc, timeout_ms);
}

void store_run_changes_close(struct run_changes *rc)
{
	if (!rc)
		return;
	if (rc->db)
		db_close(rc->db);
	free(rc);
}
