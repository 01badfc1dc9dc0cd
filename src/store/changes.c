/* record_changes: what runs changed in records (changes.h). */
#include "changes.h"

#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "store_internal.h"

enum code store_change_add(struct store_tx *tx, const char *org_id, const char *run_id, const char *kind,
			   const char *record_id, const char *op, const char *before)
{
	return store_change_add_db(store_tx_db(tx), org_id, run_id, kind, record_id, op, before);
}

enum code store_change_add_db(struct db *db, const char *org_id, const char *run_id, const char *kind,
			      const char *record_id, const char *op, const char *before)
{
	struct db_param p[] = {P_TXT(run_id), P_TXT(org_id), P_TXT(kind), P_TXT(record_id), P_TXT(op), P_TXT(before),
			       P_INT(now_ms())};
	return db_exec(db, "INSERT INTO record_changes (run_id, org_id, kind, record_id, op, before, at) "
		       "VALUES ($1, $2, $3, $4, $5, $6, $7)", p, 7, NULL);
}

/* The run r's results are kept ($3: LOADLINE_KEEP_RESULTS in ms, 0 =
 * forever; $4: now): readers answer as retention will, before its sweep
 * (run_results_expired). */
#define KEPT "r.results_deleted_at IS NULL AND ($3 = 0 OR r.finished_at IS NULL OR r.finished_at + $3 > $4)"

enum code store_changes_add_many(struct store_tx *tx, const char *org_id, const char *run_id,
				 const char *const *kinds, const char *const *ids, const char *const *befores, int n)
{
	enum code rc = CODE_OK;
	struct buf sql;
	buf_init(&sql, 1u << 16);
	struct db_param p[3 + 3 * STORE_CHANGE_BATCH];
	for (int start = 0; start < n && !rc; start += STORE_CHANGE_BATCH) {
		int k = n - start < STORE_CHANGE_BATCH ? n - start : STORE_CHANGE_BATCH;
		buf_clear(&sql);
		buf_puts(&sql, "INSERT INTO record_changes (run_id, org_id, at, op, kind, record_id, before) VALUES ");
		p[0] = P_TXT(run_id);
		p[1] = P_TXT(org_id);
		p[2] = P_INT(now_ms());
		for (int i = 0; i < k; i++) {
			int b = 4 + 3 * i;
			p[3 + 3 * i] = P_TXT(kinds[start + i]);
			p[4 + 3 * i] = P_TXT(ids[start + i]);
			p[5 + 3 * i] = P_TXT(befores[start + i]);
			buf_printf(&sql, "%s($1, $2, $3, 'update', $%d, $%d, $%d)", i ? ", " : "", b, b + 1, b + 2);
		}
		rc = db_exec(store_tx_db(tx), buf_str(&sql), p, 3 + 3 * k, NULL);
	}
	buf_done(&sql);
	return rc;
}

static const char *dup_cell(struct arena *a, const struct db_res *r, int i, int c)
{
	const char *v = db_res_get(r, i, c);
	return v ? arena_strdup(a, v) : NULL;
}

/* The run that created the Load, unless its results (and so its part of
 * the history) are gone. */
static enum code created_by_run(struct db *db, struct arena *a, const char *org_id, const char *load_id,
				int64_t keep_ms, struct record_change *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct db_param p[] = {P_TXT(load_id), P_TXT(org_id), P_INT(keep_ms), P_INT(now_ms())};
	struct db_res *r;
	enum code rc = db_exec(db, "SELECT r.id, r.created_by, l.created_at FROM loads l JOIN runs r ON "
			       "r.id = l.created_run_id WHERE l.id = $1 AND l.org_id = $2 AND " KEPT, p, 4, &r);
	if (rc)
		return rc;
	if (db_res_rows(r) == 1) {
		ret->run_id = dup_cell(a, r, 0, 0);
		ret->created_by = dup_cell(a, r, 0, 1);
		ret->at = db_res_int(r, 0, 2);
		ret->op = "create";
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_load_changes(struct store *st, struct arena *a, const char *org_id, const char *load_id,
			     int64_t keep_ms, struct record_change **ret, int *ret_n, struct record_change *ret_created)
{
	*ret = NULL;
	*ret_n = 0;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(load_id), P_TXT(org_id), P_INT(keep_ms), P_INT(now_ms())};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT c.run_id, c.op, c.before, c.at, r.created_by, r.revert_of FROM "
			       "record_changes c JOIN runs r ON r.id = c.run_id WHERE c.record_id = $1 AND "
			       "c.org_id = $2 AND c.kind = 'load' AND " KEPT " ORDER BY c.at DESC, c.run_id DESC", p, 4, &r);
	if (!rc) {
		int n = db_res_rows(r);
		struct record_change *c = arena_alloc(a, sizeof(*c) * (size_t)(n + 1));
		for (int i = 0; i < n; i++) {
			c[i].run_id = dup_cell(a, r, i, 0);
			c[i].op = dup_cell(a, r, i, 1);
			c[i].before = dup_cell(a, r, i, 2);
			c[i].at = db_res_int(r, i, 3);
			c[i].created_by = dup_cell(a, r, i, 4);
			c[i].by_revert = !db_res_null(r, i, 5);
		}
		*ret = c;
		*ret_n = n;
	}
	db_res_free(r);
	if (!rc)
		rc = created_by_run(db, a, org_id, load_id, keep_ms, ret_created);
	store_release(st, db);
	return rc;
}
