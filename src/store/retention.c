/* Retention: deleting expired uploads and per-row results (retention.h). */
#include "retention.h"

#include <stdio.h>

#include "base/log.h"
#include "store_internal.h"

#define TERMINAL "state IN ('SUCCEEDED','PARTIAL','SKIPPED','FAILED','CANCELLED')"

enum code store_retention_due(struct store *st, enum retained what, int64_t cutoff, char (*ret_ids)[ID_MAX], int n,
			      int *ret_n)
{
	const char *sql = what == RETAINED_UPLOAD
		? "SELECT id FROM runs WHERE finished_at < $1 AND upload_deleted_at IS NULL AND " TERMINAL
		  " ORDER BY finished_at LIMIT $2"
		: "SELECT id FROM runs WHERE finished_at < $1 AND results_deleted_at IS NULL AND " TERMINAL
		  " ORDER BY finished_at LIMIT $2";
	*ret_n = 0;
	return store_run_ids(st, sql, cutoff, ret_ids, n, ret_n);
}

/* One chunk: the run's lowest row indexes first, so a chunk is one range
 * of the results' primary key. */
static enum code delete_chunk(struct db *db, const char *run_id, int chunk, int64_t now, bool *ret_done)
{
	struct db_param p[] = {P_TXT(run_id), P_INT(chunk)};
	enum code rc = db_exec(db, "DELETE FROM run_results WHERE run_id = $1 AND row_index IN (SELECT row_index "
			       "FROM run_results WHERE run_id = $1 ORDER BY row_index LIMIT $2)", p, 2, NULL);
	struct db_res *r = NULL;
	if (!rc)
		rc = db_exec(db, "SELECT 1 FROM run_results WHERE run_id = $1 LIMIT 1", p, 1, &r);
	*ret_done = !rc && db_res_rows(r) == 0;
	db_res_free(r);
	struct db_param m[] = {P_INT(now), P_TXT(run_id)};
	/* The run's before-images and Load history go with its results
	 * (PRODUCT §15): from then on it cannot be reverted (410). */
	if (!rc && *ret_done)
		rc = db_exec(db, "DELETE FROM record_changes WHERE run_id = $1", p, 1, NULL);
	if (!rc && *ret_done)
		rc = db_exec(db, "DELETE FROM run_problems WHERE run_id = $1", p, 1, NULL);
	if (!rc && *ret_done)
		rc = db_exec(db, "UPDATE runs SET results_deleted_at = $1 WHERE id = $2", m, 2, NULL);
	return rc;
}

enum code store_retention_delete_results(struct store *st, const char *run_id, int chunk, int64_t now,
					 bool *ret_done)
{
	*ret_done = false;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_finish(db, delete_chunk(db, run_id, chunk, now, ret_done));
	store_release(st, db);
	return rc;
}

enum code store_retention_delete_upload(struct store *st, const char *run_id, int64_t now)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(run_id)};
	struct db_param m[] = {P_INT(now), P_TXT(run_id)};
	enum code rc = db_begin_write(db);
	if (!rc) {
		rc = db_exec(db, "DELETE FROM run_file_parts WHERE run_id = $1", p, 1, NULL);
		if (!rc)
			rc = db_exec(db, "DELETE FROM run_files WHERE run_id = $1", p, 1, NULL);
		if (!rc)
			rc = db_exec(db, "UPDATE runs SET upload_deleted_at = $1 WHERE id = $2", m, 2, NULL);
		rc = db_finish(db, rc);
	}
	store_release(st, db);
	return rc;
}

static int64_t page_count(struct db *db)
{
	struct db_res *r = NULL;
	int64_t n = db_exec(db, "PRAGMA page_count", NULL, 0, &r) || db_res_rows(r) != 1 ? 0 : db_res_int(r, 0, 0);
	db_res_free(r);
	return n;
}

void store_retention_checkpoint(struct store *st)
{
	if (store_kind(st) != DB_SQLITE)
		return;
	struct db *db = store_acquire(st);
	if (!db)
		return;
	if (db_script(db, "PRAGMA wal_checkpoint(TRUNCATE)"))
		log_msg("warn", "checkpoint after the retention sweep failed: %s", db_errmsg(db));
	store_release(st, db);
}

int store_retention_webhooks(struct store *st, int64_t cutoff)
{
	static const char *const sql[] = {
		"DELETE FROM webhook_attempts WHERE at < $1",
		/* Attempts first: a delivery goes with its last attempt. */
		/* Parenthesized: one element each (clang's -Wstring-concatenation). */
		("DELETE FROM webhook_deliveries WHERE state <> 'queued' AND created_at < $1 AND NOT EXISTS (SELECT 1 "
		 "FROM webhook_attempts a WHERE a.event_id = webhook_deliveries.event_id AND a.endpoint_id = "
		 "webhook_deliveries.endpoint_id)"),
		("DELETE FROM webhook_events WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d "
		 "WHERE d.event_id = webhook_events.id)"),
	};
	struct db *db = store_acquire(st);
	if (!db)
		return 0;
	struct db_param p[] = {P_INT(cutoff)};
	int n = 0;
	for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
		struct db_res *r = NULL;
		char stmt[400];
		snprintf(stmt, sizeof stmt, "%s RETURNING 1", sql[i]);
		if (db_exec(db, stmt, p, 1, &r) == CODE_OK)
			n += db_res_rows(r);
		db_res_free(r);
	}
	store_release(st, db);
	return n;
}

int64_t store_reclaim(struct store *st, int pages)
{
	if (store_kind(st) != DB_SQLITE)
		return 0;
	struct db *db = store_acquire(st);
	if (!db)
		return 0;
	int64_t before = page_count(db);
	char sql[64];
	snprintf(sql, sizeof sql, "PRAGMA incremental_vacuum(%d)", pages > 0 ? pages : 1);
	/* A database made before auto_vacuum=INCREMENTAL ignores it: its free
	 * pages are reused by later writes instead (docs/operations.md). */
	if (db_script(db, sql))
		log_msg("warn", "incremental vacuum failed: %s", db_errmsg(db));
	int64_t shrunk = before - page_count(db);
	store_release(st, db);
	return shrunk > 0 ? shrunk : 0;
}
