/* Import runs: the runs table is the queue.  Every state change but one goes
 * through store_run_move, which only performs moves run_move_allowed
 * permits; the exception is the claim (store_run_claim), whose single
 * UPDATE moves QUEUED (or RUNNING with a lapsed lease) to RUNNING. */
#ifndef LOADLINE_STORE_RUNS_H
#define LOADLINE_STORE_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/run_state.h"
#include "store.h"

#define RUN_FILE_NAME_MAX 255
#define RUN_FILE_DETAIL_MAX 2048

struct run {
	char id[ID_MAX];
	char org_id[ID_MAX];
	char kind[16];
	enum run_state state;
	bool dry_run;
	char fingerprint[TOKEN_HASH_HEX];
	char file_name[RUN_FILE_NAME_MAX * 4 + 1];
	int64_t file_size;
	char file_format[8];      /* "csv" | "xlsx" */
	char file_encoding[16];   /* "" until parsed */
	char file_delimiter[4];   /* "" until parsed / xlsx */
	int row_count;            /* -1 until parsed */
	char error_code[40];      /* "" unless FAILED */
	char error_message[512];
	int counts[4];            /* succeeded, warnings, failed, skipped */
	bool staged;              /* staged for mapping review (nextAction once its file was read) */
	char shape_key[TOKEN_HASH_HEX];
	int64_t expires_at;       /* staged runs: review deadline */
	int64_t created_at, started_at, finished_at;
	char lease_owner[96];
	int attempts;
	/* When retention deleted the stored upload / the per-row results (0:
	 * still kept). */
	int64_t upload_deleted_at, results_deleted_at;
	/* What the upload asked for: ?headerRow (0: detect) and ?sheet ("":
	 * choose); and what the reader found, as a JSON object (headerRow,
	 * sheet, sheets, summaryRows; "" until parsed). */
	int opt_header_row;
	char opt_sheet[128];
	char file_detail[RUN_FILE_DETAIL_MAX];
	/* A run of corrected rows (PRODUCT §15): the run they were failed
	 * rows of ("" for any other run). */
	char correction_of[ID_MAX];
	/* Who made the run (PRODUCT §15), as the JSON of its createdBy
	 * ("" for runs made before it was kept); the run it reverts ("":
	 * none); its commit policy ("all" | "partial"); the rows an
	 * all-or-nothing failure did not write (-1: not such a run). */
	char created_by[512];
	char revert_of[ID_MAX];
	char commit_policy[8];
	int not_committed;
	/* The checkpoint of a run committing in batches (PRODUCT §16): data
	 * rows done, the spreadsheet row number of the last one (0: none yet)
	 * and the attempt's rows per second. */
	int rows_done;
	unsigned ckpt_row;
	int rows_per_second;
};

enum { COUNT_SUCCEEDED, COUNT_WARNINGS, COUNT_FAILED, COUNT_SKIPPED };

/* Whether retention has taken (or, at now, may take) the run's per-row
 * results / stored upload: readers answer 410 from the moment the kept
 * time (LOADLINE_KEEP_RESULTS / _UPLOADS, 0 = forever) has passed. */
bool run_results_expired(const struct run *r, int64_t keep_results_ms, int64_t now);
bool run_upload_expired(const struct run *r, int64_t keep_uploads_ms, int64_t now);

struct outbox_mail;

/* Creates a QUEUED run (staged when run->staged, with shape_key and
 * expires_at; its approval mail comes with its triage) and stores its
 * file, atomically.  When a run with the same org and fingerprint is
 * QUEUED or RUNNING, returns CODE_IMPORT_IN_PROGRESS with that run's id in
 * ret_existing_id. */
enum code store_run_create(struct store *st, struct run *run, const void *file, size_t len,
			   char ret_existing_id[ID_MAX]);
/* The same for an upload read through a spool's mapping: forget(arg)
 * drops the pages read so far.  A big one (over UPLOAD_PARTS_OVER bytes)
 * is deflated into a spool of its own in spool_dir and stored in parts of
 * UPLOAD_PART bytes, each page dropped once written: neither the upload
 * nor its deflated copy is ever resident whole (issue 29). */
#define UPLOAD_PARTS_OVER (8u << 20)
#define UPLOAD_PART (1u << 20)
struct upload_bytes {
	const void *data;
	size_t len;
	void (*forget)(void *arg);   /* NULL: the bytes are ordinary memory */
	void *arg;
	const char *spool_dir;       /* NULL: a big upload is stored as it is */
};
enum code store_run_create_upload(struct store *st, struct run *run, const struct upload_bytes *u,
				  char ret_existing_id[ID_MAX]);
/* CODE_NOT_FOUND unless the run exists in org_id (org_id NULL: any org). */
enum code store_run_get(struct store *st, const char *org_id, const char *id, struct run *ret);
/* Runs of an org, newest first, after the (created_at, id) cursor when given. */
enum code store_run_list(struct store *st, const char *org_id, int64_t after_created,
			 const char *after_id, int limit, struct run *ret, int *ret_n);
/* The uploaded bytes (caller frees *ret). */
enum code store_run_file(struct store *st, const char *id, unsigned char **ret, size_t *ret_len);
/* The same written into the spool s (open and empty), inflated a chunk at
 * a time: a big upload is then read through its mapping, never whole in
 * the process's memory (issue 29).  CODE_SERVICE_UNAVAILABLE when the
 * spool cannot be written (disk full). */
struct spool;
enum code store_run_file_spool(struct store *st, const char *id, struct spool *s);
/* The review screen read a staged run's file at another header row or
 * worksheet (PRODUCT §14): the run is read that way from now on, under the
 * shape key of that header.  Only while it is QUEUED and staged. */
enum code store_run_reread(struct store *st, const char *org_id, const char *id, int header_row, const char *sheet,
			   const char *shape_key);

/* Claims the oldest runnable run (QUEUED and not staged, or RUNNING with an
 * expired lease) for owner until now + lease_ms; CODE_NOT_FOUND when none. */
enum code store_run_claim(struct store *st, const char *owner, int64_t lease_ms, struct run *ret);
/* Triage (the rest of the staging decision, off the HTTP threads): claims
 * the oldest run staged at upload whose file has not been read whole yet
 * (QUEUED, staged, row_count NULL), for owner until now + lease_ms, without
 * changing its state; CODE_NOT_FOUND when none. */
enum code store_run_triage_claim(struct store *st, const char *owner, int64_t lease_ms, struct run *ret);
/* The triaged run keeps waiting for review: records its row count, drops
 * the triage lease and queues its approval mail (NULL: nobody to tell), in
 * one transaction, while owner holds it and it is still staged.  *ret_done
 * says whether it was (a confirmed or cancelled run is left alone). */
enum code store_run_triaged(struct store *st, const char *id, const char *owner, int rows,
			    const struct outbox_mail *mail, bool *ret_done);
/* The staged run's file will fail anyway (it does not parse, or has too
 * many rows): the run is no longer staged, and a worker claims it and fails
 * it with the file's code. */
enum code store_run_unstage(struct store *st, const char *id, const char *owner);
/* Cross-process wake-ups (src/store/wakeup.c): on PostgreSQL a connection
 * of its own LISTENs for runs becoming claimable (created, released from
 * review, unstaged); NULL on SQLite. */
struct runs_listener;
struct runs_listener *store_runs_listen(struct store *st);
/* Waits up to timeout_ms: 1 notified, 0 time-out, -1 connection lost (the
 * next call connects and LISTENs again). */
int store_runs_listener_wait(struct runs_listener *l, int timeout_ms);
void store_runs_listener_close(struct runs_listener *l);

/* A run's representation changed (created, claimed, triaged, unstaged,
 * finished, cancelled): long polls holding it answer (issue 23).  Called
 * after the change is committed; tells the notification hub the store was
 * given (store_use_notify: this process's held requests, and the other
 * processes on SQLite) and, on PostgreSQL, the other processes by NOTIFY.
 * run_id NULL: some runs, which is not said. */
void store_run_changed(struct store *st, const char *run_id);
/* A staged run whose file a worker has read (row count known), still
 * QUEUED: it awaits an admin's review (nextAction, the review page). */
static inline bool run_awaits_review(const struct run *r)
{
	return r->staged && r->state == RUN_QUEUED && r->row_count >= 0;
}
/* Extends the lease while owner still holds the run. */
enum code store_run_heartbeat(struct store *st, const char *id, const char *owner, int64_t lease_ms);
/* Lets another claim happen soon (after a transient failure). */
enum code store_run_release(struct store *st, const char *id, const char *owner, int64_t retry_in_ms);

/* Moves a run to state `to` with the given details, when the move is
 * allowed from its current state (and, when owner is not NULL, the caller
 * still holds the lease).  Returns CODE_OK or a storage error; *ret_moved
 * is false when the run was not in a state the move starts from, or the
 * lease was someone else's (the run was moved or taken over meanwhile). */
struct run_move {
	enum run_state to;
	const char *owner;          /* guard: lease holder, or NULL */
	const char *error_code;     /* FAILED */
	const char *error_message;
	const int *counts;          /* terminal outcomes: 4 numbers */
	const char *file_encoding;  /* set when not NULL */
	const char *file_delimiter;
	int row_count;              /* set when >= 0 */
	bool finish;                /* sets finished_at */
	const char *file_detail;    /* set when not NULL (JSON object text) */
	int not_committed;          /* set when > 0: counts.notCommitted */
};
enum code store_run_move(struct store *st, const char *id, const struct run_move *m, bool *ret_moved);
/* Cancels a QUEUED or RUNNING run (PRODUCT §16 "Cancel"): it becomes
 * CANCELLED and finished, with its webhook event, and its long polls
 * wake.  *ret_moved is false when it was terminal already.  A worker
 * running it finds it cancelled when it next moves it and stops there;
 * what it committed before stays (and can be reverted). */
enum code store_run_cancel(struct store *st, const char *id, bool *ret_moved);

/* ---- transactions: a run's writes, results and final move commit together ---- */

struct store_tx;
/* Begins a write transaction on a pooled connection. */
enum code store_tx_begin(struct store *st, struct store_tx **ret);
/* Commits and frees the transaction (also on failure). */
enum code store_tx_commit(struct store_tx *tx);
/* Rolls back and frees; NULL is fine. */
void store_tx_abort(struct store_tx *tx);
/* Named savepoints, for dry runs: the writes roll back, the results stay. */
enum code store_tx_savepoint(struct store_tx *tx);
enum code store_tx_rollback_savepoint(struct store_tx *tx);
bool store_tx_is_postgres(const struct store_tx *tx);
/* Takes transaction-scoped locks on keys (n of them, sorted ascending,
 * duplicates allowed), in that order: imports that share natural keys
 * then wait for one another instead of deadlocking on rows taken in file
 * order.  PostgreSQL advisory locks; a no-op on SQLite, whose writers are
 * serialized anyway. */
enum code store_tx_lock_keys(struct store_tx *tx, const int64_t *keys, int n);
/* The lock key of one natural key: 64-bit FNV-1a of the org, a kind letter
 * and the key (a collision only makes two writers wait for each other). */
int64_t store_key_hash(const char *org_id, char kind, const char *key);

enum code store_run_move_tx(struct store_tx *tx, const char *id, const struct run_move *m, bool *ret_moved);
/* A batch of a run committed (PRODUCT §16): its checkpoint and counts so
 * far, and its row count when known (row_count >= 0), in the batch's
 * transaction.  *ret_ours is false when the run is no longer RUNNING under
 * owner's lease (cancelled, timed out or taken over meanwhile): the
 * caller rolls the batch back and stops. */
struct run_checkpoint {
	const char *owner;
	int rows_done;
	unsigned last_row;
	int rows_per_second;
	const int *counts;
	int row_count;
};
enum code store_run_checkpoint_tx(struct store_tx *tx, const char *id, const struct run_checkpoint *c,
				  bool *ret_ours);

struct result_entry {
	const char *bucket;   /* "succeeded" | "failed" | "skipped" */
	int row_index;
	bool warned;          /* a succeeded row with warnings: it is in the warnings bucket too */
	const char *body;
};
/* Stores many results with few statements (up to 100 rows each); body is
 * the compact JSON of import/results.c.  Call it after store_run_move_tx has moved run_id in the same
 * transaction: nothing else checks that the run exists (migration 8). */
enum code store_results_add_all(struct store_tx *tx, const char *run_id, const struct result_entry *e, int n);

/* A page of stored result bodies with row_index > after, in row order; fn
 * gets each (row_index, body).  Bucket "warnings" is the succeeded rows
 * flagged warned.  *ret_more says whether rows remain.  Readers use
 * results_page (import/results.h), which renders the bodies. */
enum code store_results_page(struct store *st, const char *run_id, const char *bucket, int after,
			     int limit, void (*fn)(int row_index, const char *body, void *ctx), void *ctx,
			     bool *ret_more);

/* Every stored row with errors or warnings (the failed bucket and the
 * succeeded rows flagged warned), in row order, read in batches: fn gets
 * each (row_index, whether it failed, compact body).  The grouped problems
 * of a run (import/results.h results_problems) are built from it. */
enum code store_results_problem_rows(struct store *st, const char *run_id,
				     void (*fn)(int row_index, bool failed, const char *body, void *ctx), void *ctx);

/* The run's column texts its results point at (JSON; results_save), set
 * in the run's transaction; *ret is malloc'd, NULL when the run has none. */
enum code store_run_set_result_columns(struct store_tx *tx, const char *run_id, const char *columns);
enum code store_run_result_columns(struct store *st, const char *run_id, char **ret);
/* The same two, read in the transaction tx (its own writes included): the
 * problem groups a run stores as it ends (import/problems.h). */
enum code store_results_problem_rows_tx(struct store_tx *tx, const char *run_id,
					void (*fn)(int row_index, bool failed, const char *body, void *ctx), void *ctx);
enum code store_run_result_columns_tx(struct store_tx *tx, const char *run_id, char **ret);

/* Ids of staged QUEUED runs whose review deadline has passed (at most n). */
enum code store_runs_staging_expired(struct store *st, int64_t now, char (*ret_ids)[ID_MAX], int n, int *ret_n);
/* Ids of non-staged QUEUED/RUNNING runs created before cutoff (at most n). */
enum code store_runs_timed_out(struct store *st, int64_t cutoff, char (*ret_ids)[ID_MAX], int n, int *ret_n);

#endif
