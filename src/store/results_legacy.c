/* Migration 11 (issue 21, "Compact results"): per-row results stored as
 * the full JSON entries the API served become the compact rows of
 * import/results.c.  Each message is kept as its text (MSG_LITERAL = 1:
 * it was composed by the code of its day), docUrl is dropped (rendered
 * from the code and the configured docs URL when read), the column texts
 * move to runs.result_columns (the column index comes from the cell's
 * letters), and a row's second entry in `warnings` is folded into its
 * succeeded row: flagged warned, its warnings appended. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "migrations.h"

#define LEGACY_MSG_LITERAL 1

/* Column index of an A1 cell ("C12" -> 2), or -1. */
static int cell_col(const char *cell)
{
	int col = 0, n = 0;
	for (; cell && *cell >= 'A' && *cell <= 'Z' && n < 7; cell++, n++)
		col = col * 26 + (*cell - 'A' + 1);
	return n ? col - 1 : -1;
}

static json_t *compact_diags(json_t *list, json_t *columns)
{
	json_t *out = json_array();
	size_t i;
	json_t *d;
	json_array_foreach(list, i, d) {
		int col = json_is_string(json_object_get(d, "column"))
			  ? cell_col(json_string_value(json_object_get(d, "cell"))) : -1;
		if (col >= 0) {
			while (json_array_size(columns) <= (size_t)col)
				json_array_append_new(columns, json_null());
			json_array_set(columns, (size_t)col, json_object_get(d, "column"));
		}
		json_t *field = json_object_get(d, "field"), *value = json_object_get(d, "value");
		json_t *msg = json_object_get(d, "message");
		json_array_append_new(out, json_pack("[OOiiOO]", json_object_get(d, "code") ?: json_null(),
						      field ?: json_null(), col, LEGACY_MSG_LITERAL,
						      value ?: json_null(), msg ?: json_string("")));
	}
	return out;
}

static json_t *compact_source(json_t *src)
{
	json_t *out = json_array();
	static const char *const keys[] = {"loadNo", "jobCode", "projectName"};
	for (int i = 0; i < 3; i++) {
		json_t *v = json_object_get(src, keys[i]);
		if (i == 2 && !v)
			break;
		json_array_append(out, v ? v : json_null());
	}
	return out;
}

/* The compact body of a legacy entry in bucket; a warnings entry gives
 * [source, ids, warnings] (its succeeded row's body). */
static json_t *compact_entry(const char *bucket, json_t *e, json_t *columns)
{
	json_t *out = json_array();
	json_array_append_new(out, compact_source(json_object_get(e, "source")));
	if (!strcmp(bucket, "failed")) {
		json_array_append_new(out, compact_diags(json_object_get(e, "errors"), columns));
	} else if (!strcmp(bucket, "skipped")) {
		json_t *reason = json_object_get(e, "reason");
		json_array_append(out, reason ? reason : json_null());
	} else {
		json_t *ids = json_object_get(e, "createdRecordIds");
		json_array_append_new(out, ids ? json_incref(ids) : json_array());
		if (!strcmp(bucket, "warnings"))
			json_array_append_new(out, compact_diags(json_object_get(e, "warnings"), columns));
	}
	return out;
}

static enum code store_compact(struct db *db, const char *run_id, const char *bucket, int64_t row, bool warned,
			       json_t *body)
{
	char *text = json_dumps(body, JSON_COMPACT);
	if (!text)
		abort();
	struct db_param p[] = {P_TXT(run_id), P_TXT(bucket), P_INT(row), P_INT(warned), P_TXT(text)};
	enum code rc = db_exec(db, "UPDATE run_results SET body = $5, warned = $4 WHERE run_id = $1 AND bucket = $2 "
			       "AND row_index = $3", p, 5, NULL);
	free(text);
	return rc;
}

/* One run's rows, in (row_index, bucket) order: a succeeded row comes
 * just before its warnings row. */
static enum code migrate_run(struct db *db, const char *run_id)
{
	struct db_param p[] = {P_TXT(run_id)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT bucket, row_index, body FROM run_results WHERE run_id = $1 "
			       "ORDER BY row_index, bucket", p, 1, &r);
	json_t *columns = json_array();
	int n = rc ? 0 : db_res_rows(r);
	for (int i = 0; i < n && !rc; i++) {
		const char *bucket = db_res_get(r, i, 0);
		int64_t row = db_res_int(r, i, 1);
		json_t *e = json_loads(db_res_get(r, i, 2), 0, NULL);
		if (!json_is_object(e)) {
			json_decref(e);
			continue;   /* not a legacy entry: left as it is */
		}
		json_t *body = compact_entry(bucket, e, columns);
		if (!strcmp(bucket, "warnings"))
			/* Its succeeded row (same ids, same source) takes the warnings. */
			rc = store_compact(db, run_id, "succeeded", row, true, body);
		else
			rc = store_compact(db, run_id, bucket, row, false, body);
		json_decref(body);
		json_decref(e);
	}
	db_res_free(r);
	struct db_param q[] = {P_TXT(run_id)};
	if (!rc)
		rc = db_exec(db, "DELETE FROM run_results WHERE run_id = $1 AND bucket = 'warnings'", q, 1, NULL);
	char *cols = json_dumps(columns, JSON_COMPACT);
	json_decref(columns);
	struct db_param c[] = {P_TXT(run_id), P_TXT(cols)};
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET result_columns = $2 WHERE id = $1", c, 2, NULL);
	free(cols);
	return rc;
}

enum code migrate_compact_results(struct db *db)
{
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT DISTINCT run_id FROM run_results ORDER BY run_id", NULL, 0, &r);
	for (int i = 0; !rc && i < db_res_rows(r); i++)
		rc = migrate_run(db, db_res_get(r, i, 0));
	db_res_free(r);
	return rc;
}
