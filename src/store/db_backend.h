/* What a database backend implements (internal to src/store). */
#ifndef LOADLINE_STORE_DB_BACKEND_H
#define LOADLINE_STORE_DB_BACKEND_H

#include <stdint.h>

#include "db.h"

struct db {
	enum db_kind kind;
	const struct db_ops *ops;
	void *conn;          /* sqlite3* or PGconn* */
	char url[1024];
	char err[512];
	bool conflict;       /* last failure was a unique violation */
	bool disk_full;      /* last failure was the disk (or quota) being full */
	bool in_tx;
	unsigned queued;     /* 1 << notify_kind: work queued on it (store_work_queued) */
	struct db_session session;   /* applied at every (re)connection */
	double busy_since;           /* SQLite: when the current wait for a lock began (mono ms) */
	/* Statements prepared on this connection, by SQL text: SQLite keeps
	 * sqlite3_stmt pointers, PostgreSQL the names given to PQprepare. */
	struct stmt_cache *cache;
};

#define STMT_CACHE_MAX 96

struct stmt_cache_entry {
	char *sql;
	uint64_t hash;        /* stmt_hash(sql): most look-ups compare only this */
	void *handle;         /* sqlite3_stmt*, or NULL for PostgreSQL */
	char name[16];        /* PostgreSQL statement name */
};

struct stmt_cache {
	struct stmt_cache_entry e[STMT_CACHE_MAX];
	int n, next_victim, serial;
};

/* db_checkpoint of a SQLite connection (db_sqlite.c). */
void db_sqlite_checkpoint(struct db *db);

/* The cache key of sql (FNV-1a of its text). */
uint64_t stmt_hash(const char *sql);
/* The index of sql's entry in c, or -1.  A cache holds up to 96 texts of a
 * few hundred bytes, many sharing long prefixes ("SELECT id, org_id, ...");
 * comparing hashes first keeps a look-up to one pass over sql. */
int stmt_cache_find(const struct stmt_cache *c, const char *sql, uint64_t hash);

struct db_ops {
	enum code (*open)(struct db *db, const char *url);
	void (*close)(struct db *db);
	bool (*ensure)(struct db *db);
	enum code (*exec)(struct db *db, const char *sql, const struct db_param *p, int n,
			  struct db_res **ret);
	enum code (*script)(struct db *db, const char *sql);
	/* NULL where the backend has no notifications (SQLite). */
	int (*wait_notify)(struct db *db, int timeout_ms, int stop_fd, db_notify_fn each, void *arg);
	const char *begin_write_sql;
};

extern const struct db_ops db_sqlite_ops;
extern const struct db_ops db_pg_ops;

#endif
