/* Shared by the store's query files (internal to src/store). */
#ifndef LOADLINE_STORE_INTERNAL_H
#define LOADLINE_STORE_INTERNAL_H

#include <stdatomic.h>

#include "db.h"
#include "store.h"

struct db *store_acquire(struct store *st);
void store_release(struct store *st, struct db *db);
enum db_kind store_kind(const struct store *st);
const char *store_url(const struct store *st);

/* The store's cache of authenticated API keys (identity.c), created on
 * first use and freed by store_close. */
struct auth_cache;
struct auth_cache **store_auth_cache(struct store *st);

/* The notification hub and what carries its events (wakeup.c). */
struct changes_listener;
struct store_changes {
	struct notify *notify;       /* NULL: nobody to tell in this process */
	void *map;                   /* SQLite: DBPATH-authgen, mapped at hand-over */
	struct changes_listener *listener;   /* PostgreSQL: the hub's LISTEN connection */
};
struct store_changes *store_changes_of(struct store *st);
void store_changes_done(struct store_changes *c);
/* Called as db goes back to the pool: the webhook deliveries and mails
 * queued on it (db->queued, set by webhook_enqueue_db and
 * outbox_insert_db) wake their senders, here and in other processes. */
void store_work_queued(struct store *st, struct db *db);
/* Wakes kind's senders (enum notify_kind), here and in other processes;
 * db: a pooled connection to send PostgreSQL's NOTIFY on, or NULL. */
void store_signal_work(struct store *st, struct db *db, int kind);
/* Maps DBPATH-authgen (4096 bytes, shared by every process of one SQLite
 * database; identity.c's generation is its second slot); NULL when it
 * cannot be. */
void *store_map_authgen(const char *db_path);
void auth_cache_free(struct auth_cache *c);

/* Copies a result cell into a fixed buffer (truncating safely). */
void cell_copy(const struct db_res *r, int row, int col, char *dst, size_t n);

/* Runs one statement on a pooled connection; frees nothing of the caller.
 * *ret is NULL unless it succeeded. */
enum code store_exec1(struct store *st, const char *sql, const struct db_param *p, int n,
		      struct db_res **ret);

/* Up to n run ids of a query whose parameters are (time, n), into
 * ret_ids (*ret_n of them). */
enum code store_run_ids(struct store *st, const char *sql, int64_t t, char (*ret_ids)[ID_MAX], int n, int *ret_n);

struct store_tx;
/* The connection a transaction runs on. */
struct db *store_tx_db(struct store_tx *tx);

/* Opens a connection of its own (not pooled) with the pool's settings. */
enum code store_open_db(struct store *st, struct db **ret, char *err, size_t errlen);
/* Sends the runs channel's notification (PostgreSQL; nothing on SQLite),
 * delivered when db's transaction commits: a run became claimable. */
void runs_notify(struct db *db);

/* store_change_add (changes.h) on db, inside the caller's transaction. */
enum code store_change_add_db(struct db *db, const char *org_id, const char *run_id, const char *kind,
			      const char *record_id, const char *op, const char *before);

struct outbox_mail;
/* Inserts a queued mail on db (inside the caller's transaction). */
enum code outbox_insert_db(struct db *db, const struct outbox_mail *m);

/* Queues a webhook event of this type about run_id (NULL: none) to the
 * org's endpoints subscribed to it (only_endpoint: to that one alone) on
 * db, inside the caller's transaction (webhooks.c).  payload NULL: built
 * at its first attempt. */
enum code webhook_enqueue_db(struct db *db, const char *org_id, const char *type, const char *run_id,
			     const char *payload, const char *only_endpoint);

/* The text of a multi-row statement for k rows, as build writes it.  The
 * full batch's (k == full), which all but a run's last batch use, is built
 * once a process and kept in *cache (printing it per batch was an eighth
 * of the results inserts' CPU on SQLite); other sizes are built into
 * scratch. */
struct buf;
const char *store_batch_sql(_Atomic(char *) *cache, struct buf *scratch, void (*build)(struct buf *, int), int k,
			    int full);

#endif
