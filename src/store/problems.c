/* Stored problem groups (problems.h). */
#include "problems.h"

#include "base/buf.h"
#include "runs.h"
#include "store_internal.h"

#define PUT_BATCH 50
#define PUT_COLS 11

static enum code put_batch(struct db *db, const char *run_id, const struct stored_problem *p, int first, int k)
{
	struct buf sql;
	buf_init(&sql, 4096);
	buf_puts(&sql, "INSERT INTO run_problems (run_id, pos, code, error, field, column_text, value, row_count, "
		 "row_indexes, message, fix_type, fix_name) VALUES ");
	struct db_param q[1 + PUT_COLS * PUT_BATCH];
	q[0] = P_TXT(run_id);
	for (int i = 0; i < k; i++) {
		const struct stored_problem *x = &p[first + i];
		struct db_param *v = &q[1 + PUT_COLS * i];
		v[0] = P_INT(first + i);
		v[1] = P_TXT(x->code);
		v[2] = P_INT(x->error);
		v[3] = P_TXT(x->field);
		v[4] = P_TXT(x->column);
		v[5] = P_TXT(x->value);
		v[6] = P_INT(x->row_count);
		v[7] = P_TXT(x->row_indexes);
		v[8] = P_TXT(x->message);
		v[9] = P_TXT(x->fix_type);
		v[10] = P_TXT(x->fix_name);
		buf_printf(&sql, "%s($1", i ? ", " : "");
		for (int c = 0; c < PUT_COLS; c++)
			buf_printf(&sql, ", $%d", 2 + PUT_COLS * i + c);
		buf_putc(&sql, ')');
	}
	enum code rc = db_exec(db, buf_str(&sql), q, 1 + PUT_COLS * k, NULL);
	buf_done(&sql);
	return rc;
}

enum code store_problems_put(struct store_tx *tx, const char *run_id, const struct stored_problem *p, int n)
{
	struct db *db = store_tx_db(tx);
	struct db_param id[] = {P_TXT(run_id)};
	enum code rc = db_exec(db, "DELETE FROM run_problems WHERE run_id = $1", id, 1, NULL);
	for (int first = 0; first < n && !rc; first += PUT_BATCH)
		rc = put_batch(db, run_id, p, first, n - first < PUT_BATCH ? n - first : PUT_BATCH);
	struct db_param m[] = {P_TXT(run_id), P_INT(n)};
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET problem_groups = $2 WHERE id = $1", m, 2, NULL);
	return rc;
}

static const char *text_or_null(const struct db_res *r, int row, int col)
{
	return db_res_null(r, row, col) ? NULL : db_res_get(r, row, col);
}

enum code store_problems_page(struct store *st, const char *run_id, int after, int limit,
			      void (*fn)(const struct stored_problem *p, void *ctx), void *ctx, int *ret_total)
{
	*ret_total = -1;
	struct db_res *r;
	struct db_param p[] = {P_TXT(run_id), P_INT(after), P_INT(limit)};
	enum code rc = store_exec1(st, "SELECT problem_groups FROM runs WHERE id = $1", p, 1, &r);
	if (rc)
		return rc;
	if (db_res_rows(r) == 1 && !db_res_null(r, 0, 0))
		*ret_total = (int)db_res_int(r, 0, 0);
	db_res_free(r);
	if (*ret_total <= 0 || limit <= 0)
		return CODE_OK;
	rc = store_exec1(st, "SELECT code, error, field, column_text, value, row_count, row_indexes, message, fix_type, "
			 "fix_name FROM run_problems WHERE run_id = $1 AND pos >= $2 ORDER BY pos LIMIT $3", p, 3, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct stored_problem x = {
			.code = db_res_get(r, i, 0), .error = db_res_int(r, i, 1) != 0, .field = text_or_null(r, i, 2),
			.column = text_or_null(r, i, 3), .value = text_or_null(r, i, 4), .row_count = (int)db_res_int(r, i, 5),
			.row_indexes = db_res_get(r, i, 6), .message = db_res_get(r, i, 7), .fix_type = text_or_null(r, i, 8),
			.fix_name = text_or_null(r, i, 9),
		};
		fn(&x, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}
