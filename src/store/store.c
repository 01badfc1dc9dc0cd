/* Connection pool and migrations. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "migrations.h"
#include "store_internal.h"

/* Connections in one process's pool, at most (LOADLINE_HTTP_THREADS goes
 * to 256, and every HTTP thread may hold one). */
#define POOL_MAX 512
/* How long a thread waits for a free connection by default before its
 * caller answers 503 SERVICE_UNAVAILABLE (a pool sized from the threads
 * is never empty unless a thread holds two connections, or a bug leaks
 * one: a request must then fail, not hang). */
#define ACQUIRE_WAIT_MS 5000

struct store {
	char url[1024];
	enum db_kind kind;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct db *idle[POOL_MAX];
	int nidle, nopen, max;
	int64_t acquire_wait_ms;
	struct db_session session;   /* for connections opened from now on */
	_Atomic int64_t busy_at;     /* SQLite: when a writer last waited for the lock (mono ms) */
	struct auth_cache *auth;     /* identity.c: authenticated keys */
	struct store_changes changes;   /* wakeup.c: who hears of a run's change */
	/* SQLite's checkpoints, on a thread of their own when started
	 * (store_checkpoint_in_background): due is set by a commit that left
	 * the log past its checkpoint size. */
	struct {
		pthread_t thread;
		pthread_mutex_t lock;
		pthread_cond_t cond;
		bool started, due, stop;
	} ckpt;
};

/* Closes the idle connections, so that the next ones open with the
 * current session (st->lock held). */
static void close_idle_locked(struct store *st)
{
	while (st->nidle > 0) {
		db_close(st->idle[--st->nidle]);
		st->nopen--;
	}
}

enum code store_open(const char *url, int pool_size, struct store **ret, char *err, size_t errlen)
{
	struct store *st = calloc(1, sizeof(*st));
	if (!st)
		abort();
	st->session.busy_at = &st->busy_at;
	struct db *first;
	enum code rc = db_open(url, &st->session, &first, err, errlen);
	if (rc) {
		free(st);
		return rc;
	}
	snprintf(st->url, sizeof st->url, "%s", url);
	st->kind = db_kind(first);
	st->max = pool_size < 1 ? 1 : pool_size > POOL_MAX ? POOL_MAX : pool_size;
	st->acquire_wait_ms = ACQUIRE_WAIT_MS;
	pthread_mutex_init(&st->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&st->ckpt.lock, NULL);
	pthread_cond_init(&st->ckpt.cond, NULL);
	st->idle[st->nidle++] = first;
	st->nopen = 1;
	*ret = st;
	return CODE_OK;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->ckpt.started) {
		pthread_mutex_lock(&st->ckpt.lock);
		st->ckpt.stop = true;
		pthread_cond_signal(&st->ckpt.cond);
		pthread_mutex_unlock(&st->ckpt.lock);
		pthread_join(st->ckpt.thread, NULL);
	}
	pthread_mutex_destroy(&st->ckpt.lock);
	pthread_cond_destroy(&st->ckpt.cond);
	for (int i = 0; i < st->nidle; i++)
		db_close(st->idle[i]);
	auth_cache_free(st->auth);
	store_changes_done(&st->changes);
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->cond);
	free(st);
}

bool store_is_postgres(const struct store *st)
{
	return st->kind == DB_POSTGRES;
}

enum db_kind store_kind(const struct store *st)
{
	return st->kind;
}

struct auth_cache **store_auth_cache(struct store *st)
{
	return &st->auth;
}

struct store_changes *store_changes_of(struct store *st)
{
	return &st->changes;
}

const char *store_url(const struct store *st)
{
	return st->url;
}

void store_set_acquire_wait(struct store *st, int64_t ms)
{
	pthread_mutex_lock(&st->lock);
	st->acquire_wait_ms = ms;
	pthread_mutex_unlock(&st->lock);
}

/* The CLOCK_MONOTONIC time ms from now. */
static struct timespec mono_after(int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Returns a connection, opening one when the pool is not full, or NULL
 * (its caller answers SERVICE_UNAVAILABLE) when none could be opened or
 * none came free within the acquire wait. */
struct db *store_acquire(struct store *st)
{
	pthread_mutex_lock(&st->lock);
	struct timespec until = mono_after(st->acquire_wait_ms);
	for (;;) {
		if (st->nidle > 0) {
			struct db *db = st->idle[--st->nidle];
			pthread_mutex_unlock(&st->lock);
			return db;
		}
		if (st->nopen < st->max) {
			st->nopen++;
			pthread_mutex_unlock(&st->lock);
			struct db *db = NULL;
			char err[256];
			if (db_open(st->url, &st->session, &db, err, sizeof err) == CODE_OK)
				return db;
			db_note_open_failure(err);
			/* PostgreSQL is down: open lazily; db_ensure reconnects later. */
			pthread_mutex_lock(&st->lock);
			st->nopen--;
			pthread_mutex_unlock(&st->lock);
			return NULL;
		}
		if (pthread_cond_timedwait(&st->cond, &st->lock, &until) == ETIMEDOUT && st->nidle == 0) {
			pthread_mutex_unlock(&st->lock);
			db_note_open_failure("no database connection came free in time (every one of the pool's is in use)");
			return NULL;
		}
	}
}

enum code store_open_db(struct store *st, struct db **ret, char *err, size_t errlen)
{
	pthread_mutex_lock(&st->lock);
	struct db_session session = st->session;
	pthread_mutex_unlock(&st->lock);
	return db_open(st->url, &session, ret, err, errlen);
}

void store_release(struct store *st, struct db *db)
{
	if (!db)
		return;
	store_work_queued(st, db);
	pthread_mutex_lock(&st->lock);
	st->idle[st->nidle++] = db;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

void cell_copy(const struct db_res *r, int row, int col, char *dst, size_t n)
{
	const char *s = db_res_get(r, row, col);
	snprintf(dst, n, "%s", s ? s : "");
}

enum code store_exec1(struct store *st, const char *sql, const struct db_param *p, int n,
		      struct db_res **ret)
{
	if (ret)
		*ret = NULL;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_exec(db, sql, p, n, ret);
	if (rc == CODE_INTERNAL_ERROR)
		log_msg("error", "query failed: %s", db_errmsg(db));
	store_release(st, db);
	return rc;
}

enum code store_ping(struct store *st)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_ensure(db) ? db_exec(db, "SELECT 1", NULL, 0, NULL) : CODE_SERVICE_UNAVAILABLE;
	store_release(st, db);
	return rc;
}

/* Replaces @BLOB@ with the dialect's binary type, and keeps a statement
 * marked @PG@ (up to its ';') on PostgreSQL only. */
static char *dialect_sql(const char *sql, enum db_kind kind)
{
	const char *blob = kind == DB_POSTGRES ? "BYTEA" : "BLOB";
	size_t cap = strlen(sql) * 2 + 1;
	char *out = malloc(cap), *o = out;
	if (!out)
		abort();
	for (const char *s = sql; *s;) {
		if (!strncmp(s, "@BLOB@", 6)) {
			size_t bl = strlen(blob);
			memcpy(o, blob, bl);
			o += bl;
			s += 6;
		} else if (!strncmp(s, "@PG@", 4)) {
			s += 4;
			if (kind != DB_POSTGRES) {
				const char *end = strchr(s, ';');
				s = end ? end + 1 : s + strlen(s);
			}
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

static enum code apply_pending(struct db *db, char *err, size_t errlen)
{
	enum code rc = db_exec(db, "CREATE TABLE IF NOT EXISTS schema_migrations ("
			       "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
			       NULL, 0, NULL);
	struct db_res *r = NULL;
	if (!rc)
		rc = db_exec(db, "SELECT version FROM schema_migrations", NULL, 0, &r);
	if (rc) {
		snprintf(err, errlen, "migrations: %s", db_errmsg(db));
		return rc;
	}
	/* Every migration not recorded as applied, in order (not only those
	 * past the highest: one recorded missing is applied again). */
	bool have[256] = {false};
	for (int k = 0; k < db_res_rows(r); k++) {
		int64_t v = db_res_int(r, k, 0);
		if (v >= 0 && v < 256)
			have[v] = true;
	}
	db_res_free(r);
	for (int i = 0; i < migrations_count; i++) {
		const struct migration *m = &migrations[i];
		if (m->version < 256 && have[m->version])
			continue;
		char *sql = dialect_sql(m->sql, db_kind(db));
		rc = *sql ? db_script(db, sql) : CODE_OK;
		free(sql);
		const struct migration_step *step = migration_step_of(m->version);
		if (!rc && step)
			rc = step->run(db);
		struct db_param p[] = {P_INT(m->version), P_TXT(m->name), P_INT(now_ms())};
		if (!rc)
			rc = db_exec(db, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				     p, 3, NULL);
		if (rc) {
			snprintf(err, errlen, "migration %d (%s) failed: %s", m->version, m->name, db_errmsg(db));
			return rc;
		}
		log_msg("info", "applied migration %d (%s)", m->version, m->name);
	}
	return CODE_OK;
}

enum code store_migrate(struct store *st, char *err, size_t errlen)
{
	struct db *db = store_acquire(st);
	if (!db) {
		snprintf(err, errlen, "database unreachable");
		return CODE_SERVICE_UNAVAILABLE;
	}
	/* One transaction holding a database-wide lock: a second process waits,
	 * then finds nothing left to apply.  PostgreSQL DDL is transactional;
	 * SQLite's BEGIN IMMEDIATE takes the single writer lock. */
	enum code rc = db_begin_write(db);
	if (!rc && db_kind(db) == DB_POSTGRES)
		rc = db_exec(db, "SELECT pg_advisory_xact_lock(7431001)", NULL, 0, NULL);
	if (rc) {
		snprintf(err, errlen, "migrations: %s", db_errmsg(db));
		db_rollback(db);
		store_release(st, db);
		return rc;
	}
	rc = apply_pending(db, err, errlen);
	if (rc)
		db_rollback(db);
	else if ((rc = db_commit(db)))
		snprintf(err, errlen, "migrations: commit failed: %s", db_errmsg(db));
	store_release(st, db);
	return rc;
}

struct store_failure store_last_failure(void)
{
	const struct db_failure *f = db_last_failure();
	return (struct store_failure){.message = f->message, .disk_full = f->disk_full};
}

void store_yield_to_writers(struct store *st)
{
	/* A waiting writer retries every few ms (db_sqlite.c on_busy): it is
	 * waiting now when it did so within the last BUSY_FRESH_MS. */
	enum { BUSY_FRESH_MS = 5, YIELD_MAX_MS = 100 };
	double start = mono_ms();
	while (st->kind == DB_SQLITE && mono_ms() - (double)st->busy_at < BUSY_FRESH_MS &&
	       mono_ms() - start < YIELD_MAX_MS)
		usleep(1000);
}

void store_refresh_statistics(struct store *st)
{
	if (st->kind == DB_POSTGRES)
		/* Projects too: a run that makes thousands of them otherwise
		 * looks them up with the plan of an empty table — a sequential
		 * scan a statement, 90 % of a 200,000-row run's time when its rows
		 * spread over 10,000 jobs (issue 29). */
		(void)store_exec1(st, "ANALYZE loads, projects, locations", NULL, 0, NULL);
}

void store_bound_waits(struct store *st, int64_t lease_ms)
{
	int64_t lease = lease_ms > 2000 ? lease_ms : 2000;
	pthread_mutex_lock(&st->lock);
	st->session.lock_timeout_ms = lease / 2;
	st->session.idle_tx_timeout_ms = 2 * lease;
	st->session.statement_timeout_ms = 4 * lease;
	/* Idle connections were opened without the bounds: reopen lazily. */
	close_idle_locked(st);
	pthread_mutex_unlock(&st->lock);
}

/* db_session.wal_full of the pool's connections: wakes the checkpointer. */
static void checkpoint_due(void *ctx)
{
	struct store *st = ctx;
	pthread_mutex_lock(&st->ckpt.lock);
	st->ckpt.due = true;
	pthread_cond_signal(&st->ckpt.cond);
	pthread_mutex_unlock(&st->ckpt.lock);
}

static void *checkpointer_main(void *arg)
{
	struct store *st = arg;
	struct db *db = NULL;
	pthread_mutex_lock(&st->ckpt.lock);
	for (;;) {
		while (!st->ckpt.due && !st->ckpt.stop)
			pthread_cond_wait(&st->ckpt.cond, &st->ckpt.lock);
		if (st->ckpt.stop)
			break;
		st->ckpt.due = false;
		pthread_mutex_unlock(&st->ckpt.lock);
		char err[256];
		/* Its own connection, opened without the hook: it never writes. */
		if (!db && db_open(st->url, NULL, &db, err, sizeof err) != CODE_OK) {
			db = NULL;
			db_note_open_failure(err);
		}
		db_checkpoint(db);
		pthread_mutex_lock(&st->ckpt.lock);
	}
	pthread_mutex_unlock(&st->ckpt.lock);
	db_close(db);
	return NULL;
}

void store_checkpoint_in_background(struct store *st)
{
	if (st->kind != DB_SQLITE || st->ckpt.started)
		return;
	if (pthread_create(&st->ckpt.thread, NULL, checkpointer_main, st))
		return;   /* commits keep checkpointing themselves */
	st->ckpt.started = true;
	pthread_mutex_lock(&st->lock);
	st->session.wal_full = checkpoint_due;
	st->session.wal_ctx = st;
	close_idle_locked(st);
	pthread_mutex_unlock(&st->lock);
}

enum code store_ready(struct store *st)
{
	struct db_res *r = NULL;
	enum code rc = store_exec1(st, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, &r);
	if (!rc && db_res_int(r, 0, 0) < migrations[migrations_count - 1].version)
		rc = CODE_INTERNAL_ERROR;
	db_res_free(r);
	return rc;
}

static pthread_mutex_t batch_sql_mu = PTHREAD_MUTEX_INITIALIZER;

const char *store_batch_sql(_Atomic(char *) *cache, struct buf *scratch, void (*build)(struct buf *, int), int k,
			    int full)
{
	if (k != full) {
		buf_clear(scratch);
		build(scratch, k);
		return buf_str(scratch);
	}
	char *text = atomic_load_explicit(cache, memory_order_acquire);
	if (text)
		return text;
	pthread_mutex_lock(&batch_sql_mu);
	text = atomic_load_explicit(cache, memory_order_relaxed);
	if (!text) {
		struct buf b;
		buf_init(&b, 1u << 20);
		build(&b, k);
		text = strdup(buf_str(&b));
		buf_done(&b);
		if (!text)
			abort();
		atomic_store_explicit(cache, text, memory_order_release);
	}
	pthread_mutex_unlock(&batch_sql_mu);
	return text;
}
