/* PostgreSQL backend (libpq): text results, binary only for blob params. */
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db_backend.h"
#include "base/arena.h"
#include "db_res.h"

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message; /* NOTICEs such as "relation already exists, skipping" */
}

/* Prepared statements belong to a connection: a new connection starts
 * with an empty cache. */
static void cache_clear(struct db *db)
{
	struct stmt_cache *c = db->cache;
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free(c->e[i].sql);
	free(c);
	db->cache = NULL;
}

static enum code pg_connect(struct db *db)
{
	cache_clear(db);
	/* connect_timeout keeps a request from hanging on a dead server; the
	 * URL's own parameters win over these defaults (expand_dbname). */
	/* Bounded waits, so a frozen (not dead) process cannot hold everyone
	 * up: its idle transaction is ended by the server, and whoever waits
	 * on its locks gives up and retries. */
	char options[256] = "";
	const struct db_session *s = &db->session;
	if (s->lock_timeout_ms || s->idle_tx_timeout_ms || s->statement_timeout_ms)
		snprintf(options, sizeof options, "-c lock_timeout=%lld -c idle_in_transaction_session_timeout=%lld "
			 "-c statement_timeout=%lld", (long long)s->lock_timeout_ms, (long long)s->idle_tx_timeout_ms,
			 (long long)s->statement_timeout_ms);
	const char *keys[] = {"connect_timeout", "application_name", "options", "dbname", NULL};
	const char *vals[] = {"3", "loadline", options, db->url, NULL};
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	db->conn = c;
	if (!c || PQstatus(c) != CONNECTION_OK) {
		snprintf(db->err, sizeof db->err, "cannot connect to PostgreSQL: %s",
			 c ? PQerrorMessage(c) : "out of memory");
		char *nl = strchr(db->err, '\n');
		if (nl)
			*nl = '\0';
		return CODE_SERVICE_UNAVAILABLE;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	return CODE_OK;
}

static enum code pg_open(struct db *db, const char *url)
{
	(void)url;
	return pg_connect(db);
}

static void pg_close(struct db *db)
{
	cache_clear(db);
	if (db->conn)
		PQfinish(db->conn);
	db->conn = NULL;
}

static bool pg_ensure(struct db *db)
{
	if (db->conn && PQstatus(db->conn) == CONNECTION_OK)
		return true;
	pg_close(db);
	return pg_connect(db) == CODE_OK;
}

static enum code check(struct db *db, PGresult *res)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return CODE_OK;
	const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn);
	snprintf(db->err, sizeof db->err, "%s", msg && *msg ? msg : "PostgreSQL error");
	char *nl = strchr(db->err, '\n');
	if (nl)
		*nl = '\0';
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (state && !strcmp(state, "23505"))
		db->conflict = true;
	db->disk_full = state && (!strcmp(state, "53100") || !strcmp(state, "53400"));
	if (!db->conn || PQstatus(db->conn) != CONNECTION_OK)
		return CODE_SERVICE_UNAVAILABLE;
	/* Class 08 connection exceptions, 57P admin shutdown, 53 resources. */
	if (state && (!strncmp(state, "40", 2) || !strncmp(state, "08", 2) || !strncmp(state, "57P", 3) || !strncmp(state, "53", 2)))
		return CODE_SERVICE_UNAVAILABLE;
	return CODE_INTERNAL_ERROR;
}

#define MAX_PARAMS 512

static enum code check(struct db *db, PGresult *res);

/* The name of sql's prepared statement on this connection, preparing it
 * on first use: parsing and planning are most of a small query's cost. */
static enum code prepared(struct db *db, const char *sql, int n, const Oid *types, const char **ret_name)
{
	if (!db->cache && !(db->cache = calloc(1, sizeof(*db->cache))))
		abort();
	struct stmt_cache *c = db->cache;
	uint64_t hash = stmt_hash(sql);
	int hit = stmt_cache_find(c, sql, hash);
	if (hit >= 0) {
		*ret_name = c->e[hit].name;
		return CODE_OK;
	}
	int slot = c->n < STMT_CACHE_MAX ? c->n++ : c->next_victim++ % STMT_CACHE_MAX;
	struct stmt_cache_entry *e = &c->e[slot];
	if (e->sql) {
		char dealloc[48];
		snprintf(dealloc, sizeof dealloc, "DEALLOCATE %s", e->name);
		PQclear(PQexec(db->conn, dealloc));
		free(e->sql);
		e->sql = NULL;
	}
	snprintf(e->name, sizeof e->name, "ll%d", ++c->serial);
	PGresult *res = PQprepare(db->conn, e->name, sql, n, types);
	enum code rc = check(db, res);
	PQclear(res);
	if (rc)
		return rc;   /* the slot stays empty (sql NULL): never looked up */
	e->sql = strdup(sql);
	e->hash = hash;
	*ret_name = e->name;
	return CODE_OK;
}

/* Copies a result into the backend-neutral db_res (db_res.h), decoding
 * bytea columns, so that nothing outside this file touches libpq. */
static enum code materialize(PGresult *res, struct db_res **ret)
{
	int cols = PQnfields(res), rows = PQntuples(res);
	struct db_res *r = db_res_new(cols);
	for (int i = 0; i < rows; i++) {
		struct db_cell *row = db_res_add_row(r);
		for (int c = 0; c < cols; c++) {
			if (PQgetisnull(res, i, c))
				continue;
			const char *v = PQgetvalue(res, i, c);
			size_t len = (size_t)PQgetlength(res, i, c);
			if (PQftype(res, c) != 17 /* bytea */) {
				row[c].p = arena_strndup(r->arena, v, len);
				row[c].len = len;
				continue;
			}
			unsigned char *u = PQunescapeBytea((const unsigned char *)v, &len);
			if (!u) {
				db_res_free(r);
				return CODE_INTERNAL_ERROR;
			}
			row[c].p = arena_strndup(r->arena, (const char *)u, len);
			row[c].len = len;
			PQfreemem(u);
		}
	}
	*ret = r;
	return CODE_OK;
}

static enum code pg_exec_once(struct db *db, const char *sql, const struct db_param *p, int n,
			      struct db_res **ret)
{
	if (!pg_ensure(db))
		return CODE_SERVICE_UNAVAILABLE;
	if (n > MAX_PARAMS) {
		snprintf(db->err, sizeof db->err, "too many parameters");
		return CODE_INTERNAL_ERROR;
	}
	const char *vals[MAX_PARAMS] = {0};
	int lens[MAX_PARAMS] = {0}, fmts[MAX_PARAMS] = {0};
	/* Typed integers and blobs let PostgreSQL resolve expressions such as
	 * "$2 + $3"; text stays untyped so the column's type decides. */
	Oid types[MAX_PARAMS] = {0};
	char ints[MAX_PARAMS][24];
	for (int i = 0; i < n; i++) {
		lens[i] = 0;
		fmts[i] = 0;
		switch (p[i].type) {
		case DBP_NULL: vals[i] = NULL; break;
		case DBP_INT:
			types[i] = 20; /* int8 */
			snprintf(ints[i], sizeof ints[i], "%lld", (long long)p[i].i);
			vals[i] = ints[i];
			break;
		case DBP_BLOB:
			vals[i] = p[i].len ? p[i].s : "";
			lens[i] = (int)p[i].len;
			fmts[i] = 1;
			types[i] = 17; /* bytea */
			break;
		default:
			vals[i] = p[i].s;
		}
	}
	char **owned = NULL;
	for (int i = 0; i < n; i++) {
		/* libpq text params are NUL-terminated: copy length-bounded ones. */
		if (p[i].type == DBP_TEXT && p[i].sized) {
			if (!owned && !(owned = calloc((size_t)n, sizeof(*owned))))
				abort();
			owned[i] = strndup(p[i].s, p[i].len);
			if (!owned[i])
				abort();
			vals[i] = owned[i];
		}
	}
	const char *name = NULL;
	enum code prc = prepared(db, sql, n, types, &name);
	PGresult *res = prc ? NULL : PQexecPrepared(db->conn, name, n, vals, lens, fmts, 0);
	if (owned) {
		for (int i = 0; i < n; i++)
			free(owned[i]);
		free(owned);
	}
	enum code rc = prc ? prc : check(db, res);
	if (rc) {
		PQclear(res);
		return rc;
	}
	if (ret)
		rc = materialize(res, ret);
	PQclear(res);
	return rc;
}

static bool is_read(const char *sql)
{
	while (*sql == ' ' || *sql == '\n' || *sql == '\t')
		sql++;
	return !strncasecmp(sql, "SELECT", 6);
}

/* A connection that died while idle (a PostgreSQL restart, a proxy time-out)
 * is only found dead when used.  A read outside a transaction is safe to
 * run again, so it gets one retry on a fresh connection rather than a 503
 * after the database is already back. */
static enum code pg_exec(struct db *db, const char *sql, const struct db_param *p, int n,
			 struct db_res **ret)
{
	enum code rc = pg_exec_once(db, sql, p, n, ret);
	if (rc == CODE_SERVICE_UNAVAILABLE && !db->in_tx && is_read(sql) && db->conn &&
	    PQstatus(db->conn) != CONNECTION_OK && pg_ensure(db))
		rc = pg_exec_once(db, sql, p, n, ret);
	return rc;
}

static enum code pg_script(struct db *db, const char *sql)
{
	if (!pg_ensure(db))
		return CODE_SERVICE_UNAVAILABLE;
	PGresult *res = PQexec(db->conn, sql);
	enum code rc = check(db, res);
	PQclear(res);
	return rc;
}

/* Hands the notifications that arrived to each; 1 when there were any. */
static int drain_notifies(PGconn *c, db_notify_fn each, void *arg)
{
	PGnotify *n;
	int got = 0;
	while ((n = PQnotifies(c))) {
		got = 1;
		if (each)
			each(arg, n->relname, n->extra);
		PQfreemem(n);
	}
	return got;
}

static int pg_wait_notify(struct db *db, int timeout_ms, int stop_fd, db_notify_fn each, void *arg)
{
	PGconn *c = db->conn;
	if (!c || PQstatus(c) != CONNECTION_OK)
		return -1;
	if (!PQconsumeInput(c))
		return -1;
	if (drain_notifies(c, each, arg))
		return 1;
	struct pollfd pfd[2] = {{.fd = PQsocket(c), .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
	int r = poll(pfd, stop_fd >= 0 ? 2 : 1, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	if (r == 0 || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	if (!PQconsumeInput(c))
		return -1;
	return drain_notifies(c, each, arg);
}

const struct db_ops db_pg_ops = {
	.wait_notify = pg_wait_notify,
	.open = pg_open,
	.close = pg_close,
	.ensure = pg_ensure,
	.exec = pg_exec,
	.script = pg_script,
	.begin_write_sql = "BEGIN",
};
