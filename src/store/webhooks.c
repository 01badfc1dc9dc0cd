/* Webhook endpoints, events, deliveries and their log. */
#include "webhooks.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/ids.h"
#include "outbox.h"
#include "notify/notify.h"
#include "store_internal.h"

#define EP_COLS "id, org_id, url, events, secret, created_at, disabled_at, failing_since, previous_secret_until"

static void row_to_endpoint(struct arena *a, const struct db_res *r, int i, struct webhook_endpoint *e)
{
	memset(e, 0, sizeof(*e));
	cell_copy(r, i, 0, e->id, sizeof e->id);
	cell_copy(r, i, 1, e->org_id, sizeof e->org_id);
	e->url = arena_strdup(a, db_res_get(r, i, 2));
	e->events = arena_strdup(a, db_res_get(r, i, 3));
	cell_copy(r, i, 4, e->secret, sizeof e->secret);
	e->created_at = db_res_int(r, i, 5);
	e->disabled_at = db_res_null(r, i, 6) ? 0 : db_res_int(r, i, 6);
	e->failing_since = db_res_null(r, i, 7) ? 0 : db_res_int(r, i, 7);
	e->previous_until = db_res_null(r, i, 8) ? 0 : db_res_int(r, i, 8);
}

enum code store_webhook_endpoint_create(struct store *st, const struct webhook_endpoint *e, int max)
{
	struct db_param p[] = {P_TXT(e->id), P_TXT(e->org_id), P_TXT(e->url), P_TXT(e->events), P_TXT(e->secret),
			       P_INT(e->created_at), P_INT(max)};
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	/* The count and the insert in one write transaction: SQLite has one
	 * writer; on PostgreSQL the org's row lock orders concurrent creates. */
	struct db_res *r = NULL;
	enum code rc = db_begin_write(db);
	if (!rc && db_kind(db) == DB_POSTGRES)
		rc = db_exec(db, "SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE", p + 1, 1, NULL);
	if (!rc)
		rc = db_exec(db, "INSERT INTO webhook_endpoints (id, org_id, url, events, secret, created_at) "
			     "SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), "
			     "CAST($5 AS TEXT), CAST($6 AS BIGINT) WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE "
			     "org_id = $2 AND deleted_at IS NULL) < $7 RETURNING id", p, 7, &r);
	if (!rc && db_res_rows(r) == 0)
		rc = CODE_WEBHOOK_ENDPOINT_LIMIT;
	db_res_free(r);
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}

enum code store_webhook_endpoint_list(struct store *st, struct arena *a, const char *org_id,
				      void (*fn)(const struct webhook_endpoint *e, void *ctx), void *ctx)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT " EP_COLS " FROM webhook_endpoints WHERE org_id = $1 AND deleted_at "
				   "IS NULL ORDER BY created_at, id", p, 1, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct webhook_endpoint e;
		row_to_endpoint(a, r, i, &e);
		fn(&e, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_webhook_endpoint_get(struct store *st, struct arena *a, const char *org_id, const char *id,
				     struct webhook_endpoint *ret)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id), P_TXT(id)};
	enum code rc = store_exec1(st, "SELECT " EP_COLS " FROM webhook_endpoints WHERE org_id = $1 AND id = $2 "
				   "AND deleted_at IS NULL", p, 2, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_endpoint(a, r, 0, ret);
	db_res_free(r);
	return rc;
}

enum code store_webhook_endpoint_delete(struct store *st, const char *org_id, const char *id)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(org_id), P_TXT(id), P_INT(now_ms())};
	struct db_res *r = NULL;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_endpoints SET deleted_at = $3 WHERE org_id = $1 AND id = $2 "
			     "AND deleted_at IS NULL RETURNING id", p, 3, &r);
	if (!rc && db_res_rows(r) != 1)
		rc = CODE_NOT_FOUND;
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_deliveries SET state = 'failed', last_error = 'endpoint deleted' "
			     "WHERE endpoint_id = $2 AND state = 'queued' AND org_id = $1", p, 2, NULL);
	db_res_free(r);
	rc = rc == CODE_NOT_FOUND ? (db_rollback(db), rc) : db_finish(db, rc);
	store_release(st, db);
	return rc;
}

/* The enabled change of a PATCH, on db in the caller's transaction. */
static enum code set_enabled(struct db *db, const char *org_id, const char *id, bool enable)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(id), P_INT(now_ms())};
	if (enable)
		return db_exec(db, "UPDATE webhook_endpoints SET disabled_at = NULL, failing_since = NULL WHERE "
			       "org_id = $1 AND id = $2 AND disabled_at IS NOT NULL", p, 2, NULL);
	enum code rc = db_exec(db, "UPDATE webhook_endpoints SET disabled_at = $3 WHERE org_id = $1 AND id = $2 AND "
			       "disabled_at IS NULL", p, 3, NULL);
	/* The sender claims queued deliveries whatever their endpoint's state. */
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_deliveries SET state = 'failed', last_error = COALESCE(last_error, '') "
			     "|| ' (endpoint disabled)' WHERE org_id = $1 AND endpoint_id = $2 AND state = 'queued'",
			     p, 2, NULL);
	return rc;
}

enum code store_webhook_endpoint_update(struct store *st, struct arena *a, const char *org_id, const char *id,
					const struct webhook_endpoint_change *c, struct webhook_endpoint *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(org_id), P_TXT(id), P_TXT(c->url), P_TXT(c->events)};
	struct db_res *r = NULL;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_endpoints SET url = COALESCE($3, url), events = COALESCE($4, events) "
			     "WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id", p, 4, &r);
	if (!rc && db_res_rows(r) != 1)
		rc = CODE_NOT_FOUND;
	db_res_free(r);
	r = NULL;
	if (!rc && c->enabled >= 0)
		rc = set_enabled(db, org_id, id, c->enabled == 1);
	if (!rc)
		rc = db_exec(db, "SELECT " EP_COLS " FROM webhook_endpoints WHERE org_id = $1 AND id = $2", p, 2, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_endpoint(a, r, 0, ret);
	db_res_free(r);
	rc = rc == CODE_NOT_FOUND ? (db_rollback(db), rc) : db_finish(db, rc);
	store_release(st, db);
	return rc;
}

enum code store_webhook_rotate_secret(struct store *st, const char *org_id, const char *id, const char *secret,
				      int64_t until_ms)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(id), P_TXT(secret), P_INT(until_ms)};
	struct db_res *r = NULL;
	enum code rc = store_exec1(st, "UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = "
				   "$4, secret = $3 WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id",
				   p, 4, &r);
	rc = db_one_row(rc, r);
	db_res_free(r);
	return rc;
}

/* The endpoints an event of this type goes to ($org: the org, $like:
 * "%,type,%"). */
#define SUBSCRIBED(org, like) "FROM webhook_endpoints WHERE org_id = " org " AND deleted_at IS NULL AND " \
	"disabled_at IS NULL AND (',' || events || ',') LIKE " like

/* The event, and its deliveries to every endpoint of the org subscribed
 * to its type (no event at all when there is none), on db in the caller's
 * transaction. */
enum code webhook_enqueue_db(struct db *db, const char *org_id, const char *type, const char *run_id,
			     const char *payload, const char *only_endpoint)
{
	char id[ID_MAX], like[64];
	id_new("evt", id);
	/* A test event goes to the one endpoint whatever it subscribed to. */
	snprintf(like, sizeof like, only_endpoint ? "%%" : "%%,%s,%%", type);
	struct db_param p[] = {P_TXT(id), P_TXT(org_id), P_TXT(type), P_TXT(run_id), P_INT(now_ms()), P_TXT(like),
			       P_TXT(payload), P_TXT(only_endpoint)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "INSERT INTO webhook_events (id, org_id, type, run_id, payload, created_at) SELECT "
			       "CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), "
			       "CAST($7 AS TEXT), $5 WHERE EXISTS (SELECT 1 " SUBSCRIBED("$2", "$6")
			       " AND (CAST($8 AS TEXT) IS NULL OR id = $8)) RETURNING id", p, 8, &r);
	/* No subscriber (the common case): one statement per run change. */
	bool any = !rc && db_res_rows(r) == 1;
	db_res_free(r);
	struct db_param q[] = {P_TXT(id), P_TXT(org_id), P_INT(now_ms()), P_TXT(like), P_TXT(only_endpoint)};
	if (any)
		rc = db_exec(db, "INSERT INTO webhook_deliveries (key, event_id, endpoint_id, org_id, state, "
			     "next_attempt_at, created_at) SELECT CAST($1 AS TEXT) || '/' || id, CAST($1 AS TEXT), id, "
			     "org_id, 'queued', $3, $3 " SUBSCRIBED("$2", "$4")
			     " AND (CAST($5 AS TEXT) IS NULL OR id = $5)", q, 5, NULL);
	if (any && !rc)
		db_mark_queued(db, 1u << NOTIFY_WEBHOOKS);   /* the sender wakes (store_work_queued) */
	return rc;
}

#define CLAIMED_COLS "d.event_id, d.endpoint_id, d.org_id, e.run_id, e.type, e.payload, p.url, p.secret, " \
	"d.attempts, d.created_at, e.created_at, CASE WHEN p.previous_secret_until > $3 THEN p.previous_secret END"

static void row_to_delivery(struct arena *a, const struct db_res *r, struct webhook_delivery *d)
{
	memset(d, 0, sizeof(*d));
	cell_copy(r, 0, 0, d->event_id, sizeof d->event_id);
	cell_copy(r, 0, 1, d->endpoint_id, sizeof d->endpoint_id);
	cell_copy(r, 0, 2, d->org_id, sizeof d->org_id);
	cell_copy(r, 0, 3, d->run_id, sizeof d->run_id);
	d->type = arena_strdup(a, db_res_get(r, 0, 4));
	d->payload = db_res_null(r, 0, 5) ? NULL : arena_strdup(a, db_res_get(r, 0, 5));
	d->url = arena_strdup(a, db_res_get(r, 0, 6));
	cell_copy(r, 0, 7, d->secret, sizeof d->secret);
	d->attempts = (int)db_res_int(r, 0, 8);
	d->created_at = db_res_int(r, 0, 9);
	d->event_created_at = db_res_int(r, 0, 10);
	if (!db_res_null(r, 0, 11))
		cell_copy(r, 0, 11, d->previous_secret, sizeof d->previous_secret);
}

/* " AND d.col NOT IN ($k, ...)" for n values from parameter k on. */
static void not_in(struct buf *b, const char *col, int n, int *k)
{
	if (n <= 0)
		return;
	buf_printf(b, " AND %s NOT IN (", col);
	for (int i = 0; i < n; i++)
		buf_printf(b, "%s$%d", i ? ", " : "", (*k)++);
	buf_printf(b, ")");
}

/* The claim's statement and parameters (two fixed, then skip's). */
static int claim_sql(struct buf *b, enum db_kind kind, const struct webhook_skip *skip, struct db_param *p)
{
	int k = 3, n = 2;
	buf_printf(b, "UPDATE webhook_deliveries SET next_attempt_at = $2, attempts = attempts + 1 "
		   "WHERE key = (SELECT key FROM webhook_deliveries WHERE state = 'queued' AND next_attempt_at <= $1");
	if (skip) {
		not_in(b, "endpoint_id", skip->nendpoints, &k);
		not_in(b, "org_id", skip->norgs, &k);
		for (int i = 0; i < skip->nendpoints; i++)
			p[n++] = (struct db_param)P_TXT(skip->endpoints[i]);
		for (int i = 0; i < skip->norgs; i++)
			p[n++] = (struct db_param)P_TXT(skip->orgs[i]);
	}
	/* A scalar subquery, evaluated once: exactly one delivery is claimed. */
	buf_printf(b, " ORDER BY next_attempt_at LIMIT 1%s) AND state = 'queued' AND next_attempt_at <= $1 "
		   "RETURNING event_id, endpoint_id", kind == DB_POSTGRES ? " FOR UPDATE SKIP LOCKED" : "");
	return n;
}

enum code store_webhook_claim(struct store *st, struct arena *a, int64_t hold_ms, const struct webhook_skip *skip,
			      struct webhook_delivery *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	int64_t now = now_ms();
	struct db_param p[2 + 2 * WEBHOOK_SKIP_MAX] = {P_INT(now), P_INT(now + hold_ms)};
	struct buf sql;
	buf_init(&sql, 4096);
	int n = claim_sql(&sql, db_kind(db), skip, p);
	struct db_res *r = NULL;
	enum code rc = db_exec(db, buf_str(&sql), p, n, &r);   /* under 1 KB: fits */
	buf_done(&sql);
	if ((rc = db_one_row(rc, r)) == CODE_OK) {
		struct db_param k[] = {P_TXT(db_res_get(r, 0, 0)), P_TXT(db_res_get(r, 0, 1)), P_INT(now)};
		struct db_res *d = NULL;
		rc = db_exec(db, "SELECT " CLAIMED_COLS " FROM webhook_deliveries d JOIN webhook_events e ON "
			     "e.id = d.event_id JOIN webhook_endpoints p ON p.id = d.endpoint_id WHERE d.event_id = $1 "
			     "AND d.endpoint_id = $2", k, 3, &d);
		if ((rc = db_one_row(rc, d)) == CODE_OK)
			row_to_delivery(a, d, ret);
		db_res_free(d);
	}
	db_res_free(r);
	store_release(st, db);
	return rc;
}

enum code store_webhook_next_due(struct store *st, int64_t *ret_at)
{
	struct db_res *r = NULL;
	enum code rc = store_exec1(st, "SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE state = 'queued'",
				   NULL, 0, &r);
	if (!rc)
		*ret_at = db_res_rows(r) == 1 && !db_res_null(r, 0, 0) ? db_res_int(r, 0, 0) : 0;
	db_res_free(r);
	return rc;
}

enum code store_webhook_set_payload(struct store *st, struct arena *a, const char *event_id, const char *payload,
				    const char **ret)
{
	struct db_param p[] = {P_TXT(event_id), P_TXT(payload)};
	enum code rc = store_exec1(st, "UPDATE webhook_events SET payload = $2 WHERE id = $1 AND payload IS NULL",
				   p, 2, NULL);
	struct db_res *r = NULL;
	if (!rc)
		rc = store_exec1(st, "SELECT payload FROM webhook_events WHERE id = $1", p, 1, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		*ret = arena_strdup(a, db_res_get(r, 0, 0));
	db_res_free(r);
	return rc;
}

enum code store_webhook_record(struct store *st, const struct webhook_delivery *d, const struct webhook_attempt *at,
			       bool ok, bool give_up, int64_t retry_at, int64_t *ret_failing_since)
{
	*ret_failing_since = 0;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	int64_t now = now_ms();
	enum code rc = db_begin_write(db);
	char id[ID_MAX];
	id_new("wha", id);
	struct db_param a[] = {P_TXT(d->event_id), P_TXT(d->endpoint_id), P_INT(d->attempts), P_INT(now),
			       at->status ? P_INT(at->status) : P_NULL, P_INT(at->duration_ms), P_TXT(at->error),
			       P_TXT(id), P_TXT(at->response_body)};
	if (!rc)
		rc = db_exec(db, "INSERT INTO webhook_attempts (event_id, endpoint_id, attempt, at, status, duration_ms, "
			     "error, id, response_body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
			     a, 9, NULL);
	const char *state = ok ? "delivered" : give_up ? "failed" : "queued";
	struct db_param u[] = {P_TXT(d->event_id), P_TXT(d->endpoint_id), P_INT(d->attempts), P_TXT(state),
			       at->status ? P_INT(at->status) : P_NULL, P_INT(at->duration_ms), P_TXT(at->error),
			       P_INT(ok ? now : retry_at), ok ? P_INT(now) : P_NULL};
	/* Only while no later claim took the delivery over (attempts). */
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_deliveries SET state = $4, last_status = $5, last_duration_ms = $6, "
			     "last_error = $7, next_attempt_at = $8, delivered_at = $9 WHERE event_id = $1 AND "
			     "endpoint_id = $2 AND attempts = $3 AND state = 'queued'", u, 9, NULL);
	struct db_param e[] = {P_TXT(d->endpoint_id), P_INT(now)};
	struct db_res *r = NULL;
	if (!rc)
		rc = db_exec(db, ok ? "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 RETURNING 0"
				    : "UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) "
				      "WHERE id = $1 RETURNING failing_since", e, ok ? 1 : 2, &r);
	if (!rc && db_res_rows(r) == 1)
		*ret_failing_since = db_res_int(r, 0, 0);
	db_res_free(r);
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}

enum code store_webhook_disable(struct store *st, const char *endpoint_id, const struct outbox_mail *mail,
				bool *ret_done)
{
	*ret_done = false;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(endpoint_id), P_INT(now_ms())};
	struct db_res *r = NULL;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "UPDATE webhook_endpoints SET disabled_at = $2 WHERE id = $1 AND disabled_at IS NULL "
			     "AND deleted_at IS NULL RETURNING id", p, 2, &r);
	*ret_done = !rc && db_res_rows(r) == 1;
	db_res_free(r);
	if (!rc && *ret_done)
		rc = db_exec(db, "UPDATE webhook_deliveries SET state = 'failed', last_error = COALESCE(last_error, '') "
			     "|| ' (endpoint disabled)' WHERE endpoint_id = $1 AND state = 'queued'", p, 1, NULL);
	/* The mail exists only with the disabling. */
	if (!rc && *ret_done && mail)
		rc = outbox_insert_db(db, mail);
	rc = db_finish(db, rc);
	if (rc)
		*ret_done = false;
	store_release(st, db);
	return rc;
}

enum code store_org_admins(struct store *st, struct arena *a, const char *org_id, const char **ret)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT email FROM users WHERE org_id = $1 AND role = 'admin' ORDER BY email",
				   p, 1, &r);
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

#define LOG_COLS "a.event_id, a.endpoint_id, e.type, a.attempt, a.status, a.at, a.duration_ms, a.error, a.id, " \
	"a.response_body"

static void row_to_log(struct arena *a, const struct db_res *r, int i, struct webhook_log *l)
{
	memset(l, 0, sizeof(*l));
	cell_copy(r, i, 0, l->event_id, sizeof l->event_id);
	cell_copy(r, i, 1, l->endpoint_id, sizeof l->endpoint_id);
	l->type = arena_strdup(a, db_res_get(r, i, 2));
	l->attempt = (int)db_res_int(r, i, 3);
	l->status = db_res_null(r, i, 4) ? 0 : (int)db_res_int(r, i, 4);
	l->at = db_res_int(r, i, 5);
	l->duration_ms = db_res_int(r, i, 6);
	l->error = db_res_null(r, i, 7) ? NULL : arena_strdup(a, db_res_get(r, i, 7));
	cell_copy(r, i, 8, l->id, sizeof l->id);
	l->response_body = db_res_null(r, i, 9) ? NULL : arena_strdup(a, db_res_get(r, i, 9));
}

static enum code each_log(struct store *st, struct arena *a, const char *sql, const struct db_param *p, int n,
			  void (*fn)(const struct webhook_log *l, void *ctx), void *ctx)
{
	struct db_res *r;
	enum code rc = store_exec1(st, sql, p, n, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct webhook_log l;
		row_to_log(a, r, i, &l);
		fn(&l, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_webhook_log(struct store *st, struct arena *a, const char *org_id, int n,
			    void (*fn)(const struct webhook_log *l, void *ctx), void *ctx)
{
	struct db_param p[] = {P_TXT(org_id), P_INT(n)};
	return each_log(st, a, "SELECT " LOG_COLS " FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id "
			"WHERE e.org_id = $1 ORDER BY a.at DESC, a.attempt DESC LIMIT $2", p, 2, fn, ctx);
}

enum code store_webhook_attempts(struct store *st, struct arena *a, const char *org_id,
				 const struct webhook_log_page *pg, void (*fn)(const struct webhook_log *l, void *ctx),
				 void *ctx)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(pg->endpoint_id), P_INT(pg->n), P_INT(pg->after_at),
			       P_TXT(pg->after_id)};
	return each_log(st, a, "SELECT " LOG_COLS " FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id "
			"WHERE e.org_id = $1 AND a.endpoint_id = $2 AND (CAST($5 AS TEXT) IS NULL OR a.at < $4 OR "
			"(a.at = $4 AND a.id < $5)) ORDER BY a.at DESC, a.id DESC LIMIT $3", p, 5, fn, ctx);
}

static void copy_log(const struct webhook_log *l, void *ctx)
{
	*(struct webhook_log *)ctx = *l;
}

enum code store_webhook_attempt_get(struct store *st, struct arena *a, const char *org_id, const char *id,
				    struct webhook_log *ret)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(id)};
	ret->id[0] = '\0';
	enum code rc = each_log(st, a, "SELECT " LOG_COLS " FROM webhook_attempts a JOIN webhook_events e ON "
				"e.id = a.event_id WHERE e.org_id = $1 AND a.id = $2", p, 2, copy_log, ret);
	return !rc && !ret->id[0] ? CODE_NOT_FOUND : rc;
}

enum code store_webhook_test(struct store *st, const char *org_id, const char *endpoint_id)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = webhook_enqueue_db(db, org_id, "webhook.test", NULL, NULL, endpoint_id);
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}

enum code store_webhook_resend(struct store *st, const char *org_id, const char *event_id, const char *endpoint_id)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(event_id), P_TXT(endpoint_id), P_INT(now_ms())};
	struct db_res *r = NULL;
	/* A queued delivery is left alone: it may be in flight right now (one
	 * attempt at a time), and it will be tried again anyway.  A resent one
	 * gets a new retry window. */
	enum code rc = store_exec1(st, "UPDATE webhook_deliveries SET state = 'queued', next_attempt_at = $4, "
				   "created_at = $4 WHERE org_id = $1 AND event_id = $2 AND endpoint_id = $3 AND state <> "
				   "'queued' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE deleted_at IS NULL "
				   "AND disabled_at IS NULL) RETURNING event_id", p, 4, &r);
	if (!rc && db_res_rows(r) == 0) {
		db_res_free(r);
		r = NULL;
		rc = store_exec1(st, "SELECT event_id FROM webhook_deliveries WHERE org_id = $1 AND event_id = $2 AND "
				 "endpoint_id = $3 AND state = 'queued'", p, 3, &r);
	}
	rc = db_one_row(rc, r);
	db_res_free(r);
	if (!rc)
		store_signal_work(st, NULL, NOTIFY_WEBHOOKS);
	return rc;
}
