/* Outbox rows and delivery bookkeeping. */
#include "outbox.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "notify/notify.h"
#include "store_internal.h"

enum code outbox_insert_db(struct db *db, const struct outbox_mail *m)
{
	struct db_param p[] = {P_TXT(m->id), P_TXT(m->org_id), P_TXT(*m->run_id ? m->run_id : NULL),
			       P_TXT(m->recipients), P_TXT(m->subject), P_TXT(m->body), P_INT(m->created_at)};
	enum code rc = db_exec(db, "INSERT INTO outbox (id, org_id, run_id, recipients, subject, body, state, "
			       "next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $7)", p, 7,
			       NULL);
	if (!rc)
		db_mark_queued(db, 1u << NOTIFY_MAIL);   /* the mailer wakes (store_work_queued) */
	return rc;
}

#define MAIL_COLS "id, org_id, run_id, recipients, subject, body, state, attempts, created_at, sent_at, " \
	"next_attempt_at, last_error"

static void row_to_mail(struct arena *a, const struct db_res *r, int i, struct outbox_mail *m)
{
	memset(m, 0, sizeof(*m));
	cell_copy(r, i, 0, m->id, sizeof m->id);
	cell_copy(r, i, 1, m->org_id, sizeof m->org_id);
	cell_copy(r, i, 2, m->run_id, sizeof m->run_id);
	m->recipients = arena_strdup(a, db_res_get(r, i, 3));
	m->subject = arena_strdup(a, db_res_get(r, i, 4));
	m->body = arena_strdup(a, db_res_get(r, i, 5));
	m->state = arena_strdup(a, db_res_get(r, i, 6));
	m->attempts = (int)db_res_int(r, i, 7);
	m->created_at = db_res_int(r, i, 8);
	m->sent_at = db_res_int(r, i, 9);
	m->next_attempt_at = db_res_int(r, i, 10);
	m->last_error = db_res_null(r, i, 11) ? NULL : arena_strdup(a, db_res_get(r, i, 11));
}

enum code store_outbox_claim(struct store *st, struct arena *a, int64_t hold_ms, struct outbox_mail *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	int64_t now = now_ms();
	char sql[600];
	snprintf(sql, sizeof sql, "UPDATE outbox SET next_attempt_at = $2, attempts = attempts + 1 WHERE id = "
		 "(SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= $1 ORDER BY created_at "
		 "LIMIT 1%s) AND state = 'queued' AND next_attempt_at <= $1 RETURNING " MAIL_COLS,
		 db_kind(db) == DB_POSTGRES ? " FOR UPDATE SKIP LOCKED" : "");
	struct db_param p[] = {P_INT(now), P_INT(now + hold_ms)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, sql, p, 2, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_mail(a, r, 0, ret);
	db_res_free(r);
	store_release(st, db);
	return rc;
}

enum code store_outbox_record(struct store *st, const char *id, int attempt, bool ok, const char *detail,
			      int64_t retry_at)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	int64_t now = now_ms();
	enum code rc = db_begin_write(db);
	struct db_param a[] = {P_TXT(id), P_INT(attempt), P_INT(now), P_INT(ok), P_TXT(detail)};
	if (!rc)
		rc = db_exec(db, "INSERT INTO outbox_attempts (outbox_id, attempt, at, ok, detail) VALUES "
			     "($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING", a, 5, NULL);
	struct db_param u[] = {P_TXT(id), P_INT(now), P_TXT(detail), P_INT(retry_at)};
	if (!rc)
		rc = db_exec(db, ok ? "UPDATE outbox SET state = 'sent', sent_at = $2, last_error = NULL WHERE id = $1"
				    : "UPDATE outbox SET last_error = $3, next_attempt_at = $4 WHERE id = $1",
			     u, ok ? 2 : 4, NULL);
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}

enum code store_outbox_list(struct store *st, struct arena *a, const char *org_id,
			    void (*fn)(const struct outbox_mail *m, void *ctx), void *ctx)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT " MAIL_COLS " FROM outbox WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) "
				   "ORDER BY created_at DESC, id DESC", p, 1, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct outbox_mail m;
		row_to_mail(a, r, i, &m);
		fn(&m, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_approver_list(struct store *st, struct arena *a, const char *org_id, const char **ret)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT email FROM approvers WHERE org_id = $1 ORDER BY email", p, 1, &r);
	if (!rc && db_res_rows(r) == 0) {
		db_res_free(r);
		rc = store_exec1(st, "SELECT email FROM users WHERE org_id = $1 AND role = 'admin' ORDER BY email",
				 p, 1, &r);
	}
	if (rc)
		return rc;
	struct buf b;
	buf_init(&b, 64 * 1024);
	for (int i = 0; i < db_res_rows(r); i++) {
		if (i)
			buf_putc(&b, ',');
		buf_puts(&b, db_res_get(r, i, 0));
	}
	*ret = arena_strdup(a, buf_str(&b));
	buf_done(&b);
	db_res_free(r);
	return CODE_OK;
}
