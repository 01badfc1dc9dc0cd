/* Backend dispatch and transactions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "db_backend.h"

enum code db_open(const char *url, const struct db_session *session, struct db **ret_db, char *err,
		  size_t errlen)
{
	const struct db_ops *ops;
	enum db_kind kind;
	if (!strncmp(url, "sqlite:", 7)) {
		ops = &db_sqlite_ops;
		kind = DB_SQLITE;
	} else if (!strncmp(url, "postgres://", 11) || !strncmp(url, "postgresql://", 13)) {
		ops = &db_pg_ops;
		kind = DB_POSTGRES;
	} else {
		snprintf(err, errlen, "database URL must start with sqlite: or postgres://, not \"%.100s\"", url);
		return CODE_INTERNAL_ERROR;
	}
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		abort();
	db->kind = kind;
	db->ops = ops;
	snprintf(db->url, sizeof db->url, "%s", url);
	if (session)
		db->session = *session;
	enum code rc = ops->open(db, url);
	if (rc) {
		snprintf(err, errlen, "%s", db->err);
		ops->close(db);
		free(db);
		return rc;
	}
	*ret_db = db;
	return CODE_OK;
}

void db_checkpoint(struct db *db)
{
	if (db && db->kind == DB_SQLITE)
		db_sqlite_checkpoint(db);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	db->ops->close(db);
	free(db);
}

enum db_kind db_kind(const struct db *db)
{
	return db->kind;
}

bool db_ensure(struct db *db)
{
	return db->ops->ensure(db);
}

enum code db_exec(struct db *db, const char *sql, const struct db_param *params,
		  int nparams, struct db_res **ret_res)
{
	if (ret_res)
		*ret_res = NULL;
	db->conflict = false;
	db->disk_full = false;
	db->err[0] = '\0';
	enum code rc = db->ops->exec(db, sql, params, nparams, ret_res);
	if (rc)
		db_note_failure(db, rc);
	return rc;
}

/* The last failure of this thread, for the edge that answers it. */
static _Thread_local struct db_failure last_failure;

void db_note_failure(const struct db *db, enum code rc)
{
	last_failure.code = rc;
	last_failure.disk_full = db->disk_full;
	snprintf(last_failure.message, sizeof last_failure.message, "%s", db->err);
}

void db_note_open_failure(const char *message)
{
	last_failure.code = CODE_SERVICE_UNAVAILABLE;
	last_failure.disk_full = false;
	snprintf(last_failure.message, sizeof last_failure.message, "%s", message);
}

const struct db_failure *db_last_failure(void)
{
	return &last_failure;
}

enum code db_script(struct db *db, const char *sql)
{
	db->err[0] = '\0';
	return db->ops->script(db, sql);
}

int db_wait_notify(struct db *db, int timeout_ms)
{
	return db_listen_wait(db, timeout_ms, -1, NULL, NULL);
}

void db_mark_queued(struct db *db, unsigned bits)
{
	db->queued |= bits;
}

unsigned db_take_queued(struct db *db)
{
	unsigned q = db->queued;
	db->queued = 0;
	return q;
}

int db_listen_wait(struct db *db, int timeout_ms, int stop_fd, db_notify_fn each, void *arg)
{
	return db->ops->wait_notify ? db->ops->wait_notify(db, timeout_ms, stop_fd, each, arg) : -1;
}

const char *db_errmsg(const struct db *db)
{
	return db->err;
}

bool db_last_was_conflict(const struct db *db)
{
	return db->conflict;
}

static enum code tx(struct db *db, const char *sql)
{
	return db_exec(db, sql, NULL, 0, NULL);
}

enum code db_begin(struct db *db)
{
	enum code rc = tx(db, "BEGIN");
	db->in_tx = rc == CODE_OK;
	return rc;
}

enum code db_begin_write(struct db *db)
{
	enum code rc = tx(db, db->ops->begin_write_sql);
	db->in_tx = rc == CODE_OK;
	return rc;
}

enum code db_commit(struct db *db)
{
	enum code rc = tx(db, "COMMIT");
	if (rc)
		db_rollback(db);
	db->in_tx = false;
	return rc;
}

enum code db_finish(struct db *db, enum code rc)
{
	if (rc) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db);
}

enum code db_one_row(enum code rc, const struct db_res *r)
{
	if (rc)
		return rc;
	return db_res_rows(r) == 1 ? CODE_OK : CODE_NOT_FOUND;
}

void db_rollback(struct db *db)
{
	db->queued = 0;   /* what was queued is gone */
	if (db->in_tx) {
		/* The failure that led here is the one to report, not the
		 * rollback's (SQLite may already have rolled back on a full disk). */
		char keep[sizeof db->err];
		struct db_failure failed = last_failure;
		bool full = db->disk_full;
		memcpy(keep, db->err, sizeof keep);
		tx(db, "ROLLBACK");
		memcpy(db->err, keep, sizeof keep);
		db->disk_full = full;
		last_failure = failed;
	}
	db->in_tx = false;
}
