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
