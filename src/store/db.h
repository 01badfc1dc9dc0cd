/* One database connection, SQLite or PostgreSQL, behind one small interface.
 *
 * SQL is written once, in PostgreSQL's placeholder style ($1, $2, ...); the
 * SQLite backend rewrites $N to ?N.  Both backends speak the same portable
 * subset: TEXT, BIGINT (times are epoch milliseconds), INTEGER 0/1 booleans,
 * ON CONFLICT, RETURNING.  Where they differ (row locks, advisory locks,
 * blob type) callers ask db_kind().  Only src/store/ includes this header. */
#ifndef LOADLINE_STORE_DB_H
#define LOADLINE_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/codes.h"

enum db_kind { DB_SQLITE, DB_POSTGRES };

enum db_ptype { DBP_NULL, DBP_TEXT, DBP_INT, DBP_BLOB };

struct db_param {
	enum db_ptype type;
	const char *s;    /* TEXT / BLOB */
	size_t len;       /* BLOB: bytes; TEXT: at most len bytes when sized */
	bool sized;       /* TEXT: bound to the first NUL or len bytes, whichever
			   * comes first (the same on both backends: PostgreSQL
			   * text cannot hold NUL) */
	int64_t i;
};

#define P_NULL ((struct db_param){.type = DBP_NULL})
static inline struct db_param db_text_or_null(const char *s)
{
	return (struct db_param){.type = s ? DBP_TEXT : DBP_NULL, .s = s};
}
#define P_TXT(x) db_text_or_null(x)
#define P_TXTN(x, n) ((struct db_param){.type = DBP_TEXT, .s = (x), .len = (n), .sized = true})
#define P_INT(x) ((struct db_param){.type = DBP_INT, .i = (int64_t)(x)})
#define P_BLOB(p, n) ((struct db_param){.type = DBP_BLOB, .s = (const char *)(p), .len = (n)})

struct db;
struct db_res;

/* Opens "sqlite:PATH" or "postgres://..." / "postgresql://...".  Returns
 * CODE_OK, CODE_SERVICE_UNAVAILABLE (server unreachable) or
 * CODE_INTERNAL_ERROR (bad URL, unopenable file), with a message in err. */
/* Bounds on one session's waits (0 = the server's default):
 * PostgreSQL lock_timeout / idle_in_transaction_session_timeout /
 * statement_timeout.  SQLite ignores them: its busy wait is always
 * bounded (15 s), and a frozen SQLite writer blocks only its own file. */
struct db_session {
	int64_t lock_timeout_ms, idle_tx_timeout_ms, statement_timeout_ms;
	/* SQLite: when set, a commit that leaves the write-ahead log past its
	 * checkpoint size calls wal_full(wal_ctx) instead of copying the log
	 * into the database itself (a checkpoint of a few MB is ~10 ms that
	 * would otherwise land inside whichever import happened to commit). */
	void (*wal_full)(void *wal_ctx);
	void *wal_ctx;
	/* SQLite: set to mono_ms() each time a statement waits for a lock
	 * (store_yield_to_writers); NULL: not kept. */
	_Atomic int64_t *busy_at;
};
enum code db_open(const char *url, const struct db_session *session, struct db **ret_db, char *err,
		  size_t errlen);
void db_close(struct db *db);
/* SQLite: copies what it can of the write-ahead log into the database
 * without waiting for readers or writers (a PASSIVE checkpoint).  Does
 * nothing on PostgreSQL. */
void db_checkpoint(struct db *db);
enum db_kind db_kind(const struct db *db);
/* True when the connection is usable; tries to re-establish a broken
 * PostgreSQL connection first. */
bool db_ensure(struct db *db);

/* Runs one statement.  On success *ret_res (if given) holds the rows; free
 * it with db_res_free.  Returns CODE_OK, CODE_SERVICE_UNAVAILABLE when the
 * connection is gone or the database is locked past the busy timeout, or
 * CODE_INTERNAL_ERROR for any other failure (constraint violations too:
 * check db_last_was_conflict).  The error text is kept in db_errmsg. */
enum code db_exec(struct db *db, const char *sql, const struct db_param *params,
		  int nparams, struct db_res **ret_res);
/* Runs a script of several statements without parameters (migrations). */
enum code db_script(struct db *db, const char *sql);
const char *db_errmsg(const struct db *db);
/* On a connection that ran LISTEN (PostgreSQL): waits up to timeout_ms for
 * a notification.  1 when one (or more) arrived, 0 on time-out, -1 when the
 * connection is lost or the backend has no notifications (SQLite). */
int db_wait_notify(struct db *db, int timeout_ms);
/* The same, handing each notification to each(arg, channel, payload), and
 * returning 0 at once when stop_fd (>= 0) becomes readable; timeout_ms -1:
 * no time-out. */
/* Marks work queued on db's transaction (1 << notify_kind), for the store
 * to wake its senders when db goes back to the pool; a rollback forgets. */
void db_mark_queued(struct db *db, unsigned bits);
/* What was marked since the last call (0: nothing), and forgets it. */
unsigned db_take_queued(struct db *db);
typedef void (*db_notify_fn)(void *arg, const char *channel, const char *payload);
int db_listen_wait(struct db *db, int timeout_ms, int stop_fd, db_notify_fn each, void *arg);

/* The last failed statement (or connection attempt) of the calling thread:
 * what the edge that answers the failure logs, and whether it was the disk
 * being full.  Each failing db_exec records itself here. */
struct db_failure {
	enum code code;
	bool disk_full;
	char message[512];
};
const struct db_failure *db_last_failure(void);
void db_note_failure(const struct db *db, enum code rc);
void db_note_open_failure(const char *message);
/* True when the last failure was a unique-constraint violation. */
bool db_last_was_conflict(const struct db *db);

/* Transactions.  db_begin_write takes the write lock at once (SQLite BEGIN
 * IMMEDIATE) so that read-then-write sequences cannot deadlock. */
enum code db_begin(struct db *db);
enum code db_begin_write(struct db *db);
enum code db_commit(struct db *db);
void db_rollback(struct db *db);
/* Ends a transaction by how it went: commits when rc is CODE_OK, else
 * rolls back and returns rc.  Returns the commit's result. */
enum code db_finish(struct db *db, enum code rc);
/* For look-ups of one row: rc when the statement failed, CODE_NOT_FOUND
 * unless r has exactly one row, else CODE_OK. */
enum code db_one_row(enum code rc, const struct db_res *r);

int db_res_rows(const struct db_res *r);
int db_res_cols(const struct db_res *r);
/* Text of a cell, NULL for SQL NULL; valid until db_res_free. */
const char *db_res_get(const struct db_res *r, int row, int col);
size_t db_res_len(const struct db_res *r, int row, int col);
bool db_res_null(const struct db_res *r, int row, int col);
int64_t db_res_int(const struct db_res *r, int row, int col);
/* Blob cell, decoded; caller frees *ret.  Returns 0 or -1. */
int db_res_blob(const struct db_res *r, int row, int col, unsigned char **ret, size_t *ret_len);
/* The same without a copy: *ret points into r, valid until db_res_free
 * (a big stored upload is read once, not copied). */
int db_res_blob_view(const struct db_res *r, int row, int col, const unsigned char **ret, size_t *ret_len);
void db_res_free(struct db_res *r);

#endif
