/* SQLite backend: WAL, busy timeout, $N placeholders rewritten to ?N. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "db_backend.h"
#include "db_res.h"

#define BUSY_TIMEOUT_MS 15000

/* Creates the parent directory of path (one level, like ./data/). */
static void make_parent_dir(const char *path)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	mkdir(dir, 0700);
}

/* The log file is cut back to this many bytes when it starts over after a
 * checkpoint: otherwise it keeps the size of the largest backlog it ever
 * held (a log that had grown to 127 MB under a busy hour stayed 127 MB). */
#define WAL_SIZE_LIMIT "16777216"

/* SQLite's own auto-checkpoint size, in pages of the log. */
#define WAL_CHECKPOINT_PAGES 1000

/* Installed instead of SQLite's auto-checkpoint when the session asks for
 * checkpoints elsewhere (see db_session.wal_full). */
static int on_wal_commit(void *ctx, sqlite3 *s, const char *name, int pages)
{
	const struct db *db = ctx;
	if (pages >= WAL_CHECKPOINT_PAGES)
		db->session.wal_full(db->session.wal_ctx);
	return SQLITE_OK;
}

/* The log's size, in pages, past which the checkpointer makes it start
 * over (WAL_SIZE_LIMIT's worth). */
#define WAL_RESTART_PAGES 4096

void db_sqlite_checkpoint(struct db *db)
{
	if (!db->conn)
		return;
	int log = 0;
	sqlite3_wal_checkpoint_v2(db->conn, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, NULL);
	/* A passive checkpoint copies the log into the database but never
	 * lets it start over while writers keep committing: a writer starts
	 * the log over only when everything in it was copied before it began,
	 * and a big import's batches follow one another without such a gap.
	 * The log then grew by every page each batch wrote — 5 GB during a
	 * million-row import, with its index (the -shm file, mapped by every
	 * connection) 9 MB (issue 29).  Past the limit, a RESTART checkpoint
	 * waits (the busy handler: a batch's length at most) for the writer
	 * of the moment, copies what is left and makes the next writer start
	 * the log over, cut back to WAL_SIZE_LIMIT. */
	if (log >= WAL_RESTART_PAGES)
		sqlite3_wal_checkpoint_v2(db->conn, NULL, SQLITE_CHECKPOINT_RESTART, NULL, NULL);
}

/* A statement that writes several rows and may fail half-way (a multi-row
 * INSERT into a table with a unique key: the import's batches of Loads and
 * results) keeps the pages it changes in a statement journal, so that it
 * can be undone alone.  SQLite keeps that journal in memory up to 64 KiB
 * and then moves it to a temporary file in /var/tmp: a 36-row batch of
 * Loads, whose random ids land on as many index pages, passed that every
 * time, and a fifth of the import worker's CPU went into writing those
 * files (docs/benchmarks.md, "Goal 2, session 4").  4 MiB keeps a batch's
 * journal in memory and still bounds it; larger statements spill as
 * before.  It has to be set before SQLite initializes, once a process. */
#define STMT_JOURNAL_SPILL (4 << 20)

/* Instead of sqlite3_busy_timeout, whose sleeps grow to 100 ms: a
 * statement waiting for a lock retries every millisecond, so that it gets
 * in between a big import's batches (PRODUCT §16), and says it is waiting
 * (db_session.busy_at: the import lets it in). */
static int on_busy(void *ctx, int count)
{
	struct db *db = ctx;
	double now = mono_ms();
	if (count == 0)
		db->busy_since = now;
	if (db->session.busy_at)
		*db->session.busy_at = (int64_t)now;
	if (now - db->busy_since >= BUSY_TIMEOUT_MS)
		return 0;
	usleep(1000);
	return 1;
}

static void configure_once(void)
{
	/* SQLITE_MISUSE if something in this process initialized SQLite
	 * first: the default stays, which is only slower. */
	(void)sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, STMT_JOURNAL_SPILL);
}

static enum code sq_open(struct db *db, const char *url)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, configure_once);
	const char *path = url + 7;
	if (!strncmp(path, "//", 2))
		path += 2;
	if (!*path) {
		snprintf(db->err, sizeof db->err, "sqlite: URL has no file path");
		return CODE_INTERNAL_ERROR;
	}
	make_parent_dir(path);
	sqlite3 *s = NULL;
	int rc = sqlite3_open_v2(path, &s, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX, NULL);
	db->conn = s;
	if (rc != SQLITE_OK) {
		snprintf(db->err, sizeof db->err, "cannot open SQLite database %s: %s", path,
			 s ? sqlite3_errmsg(s) : sqlite3_errstr(rc));
		return CODE_SERVICE_UNAVAILABLE;
	}
	sqlite3_busy_handler(s, on_busy, db);
	sqlite3_extended_result_codes(s, 1);
	/* Switching a brand-new file to WAL takes a lock that the busy handler
	 * does not wait for; several processes opening it at once retry. */
	char *msg = NULL;
	for (int tries = 0;; tries++) {
		sqlite3_free(msg);
		msg = NULL;
		rc = sqlite3_exec(s, "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
				  "PRAGMA foreign_keys=ON; PRAGMA journal_size_limit=" WAL_SIZE_LIMIT "; "
				  /* Deleted rows' text is overwritten with zeros, not left
				   * in free pages (retention, issue 27 item 16). */
				  "PRAGMA secure_delete=ON;", NULL, NULL, &msg);
		if ((rc & 0xff) != SQLITE_BUSY || tries >= 300)
			break;
		sqlite3_sleep(50);
	}
	if (rc != SQLITE_OK) {
		snprintf(db->err, sizeof db->err, "SQLite set-up failed: %s", msg ? msg : "?");
		sqlite3_free(msg);
		return (rc & 0xff) == SQLITE_BUSY ? CODE_SERVICE_UNAVAILABLE : CODE_INTERNAL_ERROR;
	}
	if (db->session.wal_full)
		sqlite3_wal_hook(s, on_wal_commit, db);
	return CODE_OK;
}

static void cache_clear(struct db *db)
{
	struct stmt_cache *c = db->cache;
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		sqlite3_finalize(c->e[i].handle);
		free(c->e[i].sql);
	}
	free(c);
	db->cache = NULL;
}

static void sq_close(struct db *db)
{
	cache_clear(db);
	if (db->conn)
		sqlite3_close_v2(db->conn);
	db->conn = NULL;
}

static char *rewrite(const char *sql);

/* A prepared statement for sql, from the connection's cache or newly
 * prepared (and cached).  Preparing is most of the cost of a small query. */
static int cached_stmt(struct db *db, const char *sql, sqlite3_stmt **ret)
{
	if (!db->cache && !(db->cache = calloc(1, sizeof(*db->cache))))
		abort();
	struct stmt_cache *c = db->cache;
	uint64_t hash = stmt_hash(sql);
	int hit = stmt_cache_find(c, sql, hash);
	if (hit >= 0) {
		*ret = c->e[hit].handle;
		return SQLITE_OK;
	}
	char *q = rewrite(sql);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v3(db->conn, q, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
	free(q);
	if (rc != SQLITE_OK)
		return rc;
	int slot = c->n < STMT_CACHE_MAX ? c->n++ : c->next_victim++ % STMT_CACHE_MAX;
	if (c->e[slot].sql) {
		sqlite3_finalize(c->e[slot].handle);
		free(c->e[slot].sql);
	}
	c->e[slot].sql = strdup(sql);
	c->e[slot].hash = hash;
	c->e[slot].handle = st;
	*ret = st;
	return SQLITE_OK;
}

static bool sq_ensure(struct db *db)
{
	return db->conn != NULL;
}

static enum code fail(struct db *db, int rc)
{
	sqlite3 *s = db->conn;
	snprintf(db->err, sizeof db->err, "%s", sqlite3_errmsg(s));
	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		db->conflict = true;
	int primary = rc & 0xff;
	db->disk_full = primary == SQLITE_FULL;
	if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_IOERR ||
	    primary == SQLITE_CANTOPEN || primary == SQLITE_FULL || primary == SQLITE_READONLY)
		return CODE_SERVICE_UNAVAILABLE;
	return CODE_INTERNAL_ERROR;
}

/* "$12" -> "?12": SQLite numbers ?NNN parameters explicitly, so the same
 * index means the same value in both dialects. */
static char *rewrite(const char *sql)
{
	size_t n = strlen(sql);
	char *out = malloc(n + 1);
	if (!out)
		abort();
	for (size_t i = 0; i <= n; i++)
		out[i] = (sql[i] == '$' && sql[i + 1] >= '1' && sql[i + 1] <= '9') ? '?' : sql[i];
	return out;
}

static int bind(sqlite3_stmt *st, const struct db_param *p, int n)
{
	int nb = sqlite3_bind_parameter_count(st);
	for (int i = 0; i < n && i < nb; i++) {
		int rc;
		switch (p[i].type) {
		case DBP_NULL: rc = sqlite3_bind_null(st, i + 1); break;
		case DBP_INT: rc = sqlite3_bind_int64(st, i + 1, p[i].i); break;
		case DBP_BLOB:
			rc = sqlite3_bind_blob64(st, i + 1, p[i].len ? p[i].s : "", p[i].len, SQLITE_STATIC);
			break;
		default:
			rc = sqlite3_bind_text64(st, i + 1, p[i].s, p[i].sized ? strnlen(p[i].s, p[i].len) : strlen(p[i].s),
						 SQLITE_STATIC, SQLITE_UTF8);
		}
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

static void copy_row(struct db_res *r, sqlite3_stmt *st)
{
	struct db_cell *row = db_res_add_row(r);
	for (int c = 0; c < r->cols; c++) {
		int t = sqlite3_column_type(st, c);
		if (t == SQLITE_NULL)
			continue;
		const void *v = t == SQLITE_BLOB ? sqlite3_column_blob(st, c) : (const void *)sqlite3_column_text(st, c);
		size_t len = (size_t)sqlite3_column_bytes(st, c);
		row[c].p = arena_strndup(r->arena, v ? v : "", v ? len : 0);
		row[c].len = v ? len : 0;
	}
}

static enum code sq_exec(struct db *db, const char *sql, const struct db_param *p, int n,
			 struct db_res **ret)
{
	sqlite3_stmt *st = NULL;
	int rc = cached_stmt(db, sql, &st);
	if (rc != SQLITE_OK)
		return fail(db, rc);
	rc = bind(st, p, n);
	if (rc != SQLITE_OK) {
		enum code c = fail(db, rc);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return c;
	}
	struct db_res *r = ret ? db_res_new(sqlite3_column_count(st)) : NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (r)
			copy_row(r, st);
	enum code result = CODE_OK;
	if (rc != SQLITE_DONE) {
		result = fail(db, sqlite3_extended_errcode(db->conn));
		db_res_free(r);
		r = NULL;
	}
	/* Reset at once: a statement left mid-step would hold its read lock. */
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (ret)
		*ret = r;
	return result;
}

static enum code sq_script(struct db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->conn, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		enum code c = fail(db, sqlite3_extended_errcode(db->conn));
		snprintf(db->err, sizeof db->err, "%s", msg ? msg : "?");
		sqlite3_free(msg);
		return c;
	}
	return CODE_OK;
}

const struct db_ops db_sqlite_ops = {
	.open = sq_open,
	.close = sq_close,
	.ensure = sq_ensure,
	.exec = sq_exec,
	.script = sq_script,
	.begin_write_sql = "BEGIN IMMEDIATE",
};
