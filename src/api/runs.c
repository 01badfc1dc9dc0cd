/* GET /api/v1/imports/runs, /runs/{id}, /runs/{id}/results/{bucket}. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "base/arena.h"
#include "base/clock.h"
#include "metrics/metrics.h"
#include "app/app.h"
#include "base/url.h"
#include "endpoints.h"
#include "import/fixup.h"
#include "import/intake.h"
#include "import/problems.h"
#include "import/revert.h"
#include "import/run_json.h"
#include "import/results.h"
#include "paging.h"
#include "state.h"
#include "store/runs.h"

/* Looks the run up in the caller's org; answers 404 (never revealing that
 * another org's run exists) or the store failure and returns false. */
static bool load_run(struct api_ctx *ctx, struct http_request *req, struct http_response *res, struct run *run)
{
	const char *id = api_id(ctx, req, res, "run", "import run");
	if (!id)
		return false;
	enum code rc = store_run_get(ctx->app->store, ctx->org.id, id, run);
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, "No import run with this id in your organization.", NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	return rc == CODE_OK;
}

/* The cache of terminal runs' ETags (state.h), app->api's. */
static struct terminal_etag *etag_slot(struct api_state *st, const char *run_id)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)run_id; *p; p++)
		h = (h ^ *p) * 16777619u;
	return &st->etags[h % TERMINAL_ETAGS];
}

/* The cached ETag of this org's terminal run when If-None-Match names it
 * (arena), else NULL: a terminal run's poll is answered without a read. */
static const char *terminal_etag(struct api_ctx *ctx, struct http_request *req, const char *id)
{
	const char *inm = http_header(req, "If-None-Match");
	if (!inm)
		return NULL;
	char etag[40] = "";
	struct api_state *st = ctx->app->api;
	pthread_mutex_lock(&st->etags_mu);
	const struct terminal_etag *e = etag_slot(st, id);
	if (!strcmp(e->run_id, id) && !strcmp(e->org_id, ctx->org.id))
		memcpy(etag, e->etag, sizeof etag);
	pthread_mutex_unlock(&st->etags_mu);
	return *etag && strstr(inm, etag) ? arena_strdup(req->arena, etag) : NULL;
}

static void remember_terminal(struct api_state *st, const struct run *run, const char *etag)
{
	if (!run_state_terminal(run->state) || strlen(etag) >= sizeof st->etags[0].etag)
		return;
	pthread_mutex_lock(&st->etags_mu);
	struct terminal_etag *e = etag_slot(st, run->id);
	snprintf(e->run_id, sizeof e->run_id, "%s", run->id);
	snprintf(e->org_id, sizeof e->org_id, "%s", run->org_id);
	snprintf(e->etag, sizeof e->etag, "%s", etag);
	pthread_mutex_unlock(&st->etags_mu);
}

/* Prefer: wait=N (RFC 7240): N seconds, clamped to 60; -1 when absent. */
static int prefer_wait(const struct http_request *req)
{
	const char *p = http_header(req, "Prefer");
	for (; p && *p; p++) {
		if (strncasecmp(p, "wait", 4) || (p != http_header(req, "Prefer") && !strchr(" ,;", p[-1])))
			continue;
		const char *q = p + 4;
		while (*q == ' ')
			q++;
		if (*q++ != '=')
			continue;
		while (*q == ' ' || *q == '"')
			q++;
		if (*q < '0' || *q > '9')
			return -1;
		long n = strtol(q, NULL, 10);
		return n > 60 ? 60 : (int)n;
	}
	return -1;
}

/* A long poll (Prefer: wait=N with If-None-Match): its deadline, set on
 * the first pass and kept across its holds. */
struct long_poll {
	int wait_s;
	int64_t deadline;
	bool held;          /* held at least once */
	bool refused;       /* this pass could not be held (LOADLINE_MAX_WAITERS, the org's share) */
};

/* Register, then read (issue 27): a long poll whose time is not up is
 * registered for its run before the run is read, so that a change while
 * it reads wakes it; true when registered (then an unchanged run is held:
 * the handler returns without answering). */
static bool hold_first(struct api_ctx *ctx, struct http_request *req, const char *id)
{
	int wait = prefer_wait(req);
	if (!ctx->state && wait >= 0 && http_header(req, "If-None-Match")) {
		struct long_poll *lp = arena_alloc(req->arena, sizeof(*lp));
		*lp = (struct long_poll){wait, now_ms() + (int64_t)wait * 1000, false, false};
		ctx->state = lp;
	}
	struct long_poll *lp = ctx->state;
	if (!lp || now_ms() >= lp->deadline)
		return false;
	lp->refused = !http_hold(req, id, lp->deadline);
	return !lp->refused;
}

/* The answer of a long poll: Preference-Applied says the wait was
 * honoured (not on a 304 that could not be held). */
static void long_poll_answered(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct long_poll *lp = ctx->state;
	if (!lp)
		return;
	if (lp->refused && res->status == 304) {
		metrics_long_poll(LONG_POLL_REFUSED);   /* LOADLINE_MAX_WAITERS held already: a plain 304 */
		return;
	}
	if (lp->held)
		metrics_long_poll(res->status == 304 ? LONG_POLL_TIMEOUT : LONG_POLL_CHANGED);
	http_add_header(req, res, "Preference-Applied", arena_printf(req->arena, "wait=%d", lp->wait_s));
}

/* Unchanged and registered: held (no response built). */
static bool held(struct api_ctx *ctx, bool holding, bool unchanged)
{
	if (!holding || !unchanged)
		return false;
	((struct long_poll *)ctx->state)->held = true;
	return true;
}

static void get_run(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "run", "import run");
	if (!id)
		return;
	bool holding = hold_first(ctx, req, id);
	const char *cached = terminal_etag(ctx, req, id);
	if (cached) {
		if (held(ctx, holding, true))
			return;
		http_respond(req, res, 304, NULL, NULL, 0);
		http_add_header(req, res, "ETag", cached);
		http_add_header(req, res, "Cache-Control", "no-cache");
		long_poll_answered(ctx, req, res);
		return;
	}
	struct run run;
	if (!load_run(ctx, req, res, &run))
		return;
	int delay = http_header(req, "Prefer") ? ctx->app->cfg.debug_poll_read_delay_ms : 0;
	if (delay)   /* tests: a change lands between the read and the decision */
		nanosleep(&(struct timespec){delay / 1000, delay % 1000 * 1000000L}, NULL);
	char etag[40];
	const char *s = api_json_etagged(req, res, run_json(&run, &ctx->app->cfg), etag);
	if (!s)
		return;
	remember_terminal(ctx->app->api, &run, etag);
	if (held(ctx, holding, api_etag_matches(req, etag)))
		return;
	api_respond_etagged(req, res, s, etag);
	long_poll_answered(ctx, req, res);
}

const struct endpoint ep_run_get = {.finish = get_run};

static void list_runs(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct time_page pg;
	if (!time_page_read(req, res, ctx->org.id, &pg))
		return;
	struct run *runs = arena_alloc(req->arena, sizeof(struct run) * (size_t)(pg.limit + 1));
	int n = 0;
	enum code rc = store_run_list(ctx->app->store, ctx->org.id, pg.after_created, pg.after_id, pg.limit + 1, runs,
				      &n);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	json_t *data = json_array();
	for (int i = 0; i < n && i < pg.limit; i++)
		json_array_append_new(data, run_json(&runs[i], &ctx->app->cfg));
	const struct run *last = n > pg.limit ? &runs[pg.limit - 1] : NULL;
	time_page_answer(req, res, ctx->org.id, &pg, data, n, last ? last->created_at : 0, last ? last->id : NULL, NULL);
}

const struct endpoint ep_run_list = {.finish = list_runs};

/* 410 RESULTS_EXPIRED, saying when they went. */
static void results_expired(struct http_request *req, struct http_response *res, const struct run *run)
{
	char when[TIME_ISO_MAX];
	time_iso(run->results_deleted_at ? run->results_deleted_at : run->finished_at, when);
	api_problem(req, res, CODE_RESULTS_EXPIRED,
		    arena_printf(req->arena, "The per-row results of run %s were deleted by retention (the run finished "
				 "at %s; its counts remain). Push the file again for fresh results.", run->id,
				 run->finished_at ? when : "?"), NULL);
}

static const char *const buckets[] = {"succeeded", "failed", "warnings", "skipped"};

struct page {
	json_t *data;
	int last;
};

static void add_row(int row_index, const char *body, void *ctx)
{
	struct page *p = ctx;
	json_t *o = json_loads(body, 0, NULL);
	if (o)
		json_array_append_new(p->data, o);
	p->last = row_index;
}

static void get_results(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run run;
	if (!load_run(ctx, req, res, &run))
		return;
	const char *bucket = route_param(&ctx->params, "bucket");
	bool known = false;
	for (size_t i = 0; i < 4; i++)
		known |= !strcmp(bucket, buckets[i]);
	if (!known) {
		api_problem(req, res, CODE_INVALID_BUCKET, "bucket must be succeeded, failed, warnings or skipped.", NULL);
		return;
	}
	int limit;
	const char *pos;
	char *scope = arena_printf(req->arena, "%s/%s", run.id, bucket);
	if (!page_limit(req, res, &limit) || !cursor_read(req, res, scope, &pos))
		return;
	if (!run_state_terminal(run.state)) {
		char *d = arena_printf(req->arena, "The run is %s; results exist once it is terminal. Poll the run first.",
				       run_state_name(run.state));
		api_problem(req, res, CODE_RUN_NOT_TERMINAL, d, NULL);
		return;
	}
	if (run_results_expired(&run, ctx->app->cfg.keep_results_ms, now_ms())) {
		results_expired(req, res, &run);
		return;
	}
	int after = 0;
	if (pos && !position_index(pos, &after)) {
		cursor_invalid(req, res);
		return;
	}
	struct page p = {json_array(), 0};
	bool more = false;
	enum code rc = results_page(ctx->app->store, run.id, bucket, after, limit, ctx->app->cfg.docs_url, add_row, &p, &more);
	if (rc) {
		json_decref(p.data);
		api_store_failed(req, res, rc);
		return;
	}
	json_t *next = json_null();
	if (more)
		next = json_string(next_page_url(req, cursor_make(req, scope, arena_printf(req->arena, "%d", p.last)),
						 limit, NULL));
	api_json(req, res, 200, json_pack("{s:s,s:o,s:o}", "object", "list", "data", p.data, "nextPageUrl", next));
}

const struct endpoint ep_run_results = {.finish = get_results};

/* GET /api/v1/imports/runs/{id}/failed-rows: the fix-up file (PRODUCT §9). */
static void failed_rows(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run run;
	if (!load_run(ctx, req, res, &run))
		return;
	if (!run_state_terminal(run.state)) {
		api_problem(req, res, CODE_RUN_NOT_TERMINAL, "The fix-up file exists once the run is terminal; poll "
			    "the run until then.", NULL);
		return;
	}
	if (run.state == RUN_FAILED || run.state == RUN_CANCELLED) {
		api_problem(req, res, CODE_NO_ROW_RESULTS, NULL, NULL);
		return;
	}
	if (run_results_expired(&run, ctx->app->cfg.keep_results_ms, now_ms())) {
		results_expired(req, res, &run);
		return;
	}
	if (run_upload_expired(&run, ctx->app->cfg.keep_uploads_ms, now_ms())) {
		api_problem(req, res, CODE_UPLOAD_EXPIRED, "The fix-up file is built from the stored upload, which "
			    "retention deleted: push the file again from your copy to get a new run and its fix-up file.",
			    NULL);
		return;
	}
	struct fixup f;
	enum fixup_format format;
	if (fixup_format_parse(http_query(req, "format"), &format)) {
		api_problem(req, res, CODE_INVALID_REQUEST, "format must be csv or xlsx (or left out for the upload's "
			    "own format).", NULL);
		return;
	}
	enum code rc = fixup_build(ctx->app->store, req->arena, &run, format, &f);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	http_respond(req, res, 200, f.content_type, (const char *)f.data, f.len);
	free(f.data);
	http_add_header(req, res, "Content-Disposition", content_disposition(req->arena, f.file_name));
	http_add_header(req, res, "X-Failed-Rows", arena_printf(req->arena, "%d", f.rows));
	http_add_header(req, res, "Cache-Control", "no-store");
}

const struct endpoint ep_run_failed_rows = {.finish = failed_rows};

/* POST /api/v1/imports/runs/{id}/rerun (PRODUCT §11): a new run of the
 * stored upload, exactly as pushing the same bytes again would be (same
 * fingerprint, same 409 while a twin is active, same staging), with the
 * original file name; Service-Dry-Run is honoured. */
static void rerun(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run orig;
	bool dry_run;
	if (!load_run(ctx, req, res, &orig) || !api_dry_run_header(req, res, &dry_run))
		return;
	struct run run;
	char existing[ID_MAX];
	enum code rc = intake_rerun(ctx->app->store, req->arena, &orig, dry_run, ctx->app->cfg.keep_uploads_ms,
				    ctx->app->cfg.staging_ttl_ms, intake_who_token(req->arena, ctx->key.id, ctx->key.name),
				    &run, existing);
	if (rc == CODE_UPLOAD_EXPIRED) {
		api_problem(req, res, rc, arena_printf(req->arena, "The stored file of run %s was deleted by retention; "
			    "push the file again from your copy.", orig.id), NULL);
		return;
	}
	api_run_created(ctx, req, res, rc, &run, existing);
}

const struct endpoint ep_run_rerun = {.finish = rerun};

/* POST /api/v1/imports/runs/{id}/revert (PRODUCT §15): a new run with
 * revertOf that undoes the run's writes, while its results (and with them
 * its before-images) are kept; Service-Dry-Run shows what it would do. */
static void revert(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run orig;
	bool dry_run;
	if (!load_run(ctx, req, res, &orig) || !api_dry_run_header(req, res, &dry_run))
		return;
	if (!run_state_terminal(orig.state)) {
		api_problem(req, res, CODE_RUN_NOT_TERMINAL, arena_printf(req->arena, "Run %s is %s; a run can be "
			    "reverted once it is terminal.", orig.id, run_state_name(orig.state)), NULL);
		return;
	}
	if (run_results_expired(&orig, ctx->app->cfg.keep_results_ms, now_ms())) {
		api_problem(req, res, CODE_RESULTS_EXPIRED, arena_printf(req->arena, "Retention deleted what run %s "
			    "changed together with its results; it can no longer be reverted.", orig.id), NULL);
		return;
	}
	struct run run;
	char existing[ID_MAX];
	enum code rc = revert_create(ctx->app->store, &orig, dry_run,
				     intake_who_token(req->arena, ctx->key.id, ctx->key.name), &run, existing);
	api_run_created(ctx, req, res, rc, &run, existing);
}

const struct endpoint ep_run_revert = {.finish = revert};

/* POST /api/v1/imports/runs/{id}/cancel (PRODUCT §16): a QUEUED or RUNNING
 * run becomes CANCELLED; its worker stops after the batch it is writing,
 * and what was committed stays.  Any token of the organization may: an
 * API token is org-wide (minting one is an admin's act).  Answers the
 * run. */
static void cancel(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run run;
	if (!load_run(ctx, req, res, &run))
		return;
	bool moved = false;
	enum code rc = run_state_terminal(run.state) ? CODE_OK : store_run_cancel(ctx->app->store, run.id, &moved);
	/* Read again: the answer shows the run as cancelled, or the state it
	 * reached meanwhile. */
	if (!rc)
		rc = store_run_get(ctx->app->store, ctx->org.id, run.id, &run);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	if (!moved) {
		api_problem(req, res, CODE_RUN_ALREADY_TERMINAL, arena_printf(req->arena, "Run %s is already %s; only a "
			    "QUEUED or RUNNING run can be cancelled. To undo what it wrote, revert it: POST "
			    "/api/v1/imports/runs/%s/revert.", run.id, run_state_name(run.state), run.id), NULL);
		return;
	}
	api_json(req, res, 200, run_json(&run, &ctx->app->cfg));
}

const struct endpoint ep_run_cancel = {.finish = cancel};

/* ---- GET /api/v1/imports/runs/{id}/problems (PRODUCT §11) ---- */

static json_t *str_or_null(const char *s)
{
	return s ? api_str(s) : json_null();
}

static json_t *problem_json(const struct run_problem *p)
{
	json_t *rows = json_array();
	for (int i = 0; i < p->nrows; i++)
		json_array_append_new(rows, json_integer(p->rows[i]));
	json_t *o = json_object();
	json_object_set_new(o, "object", json_string("run_problem"));
	json_object_set_new(o, "code", json_string(p->code));
	json_object_set_new(o, "severity", json_string(p->error ? "error" : "warning"));
	json_object_set_new(o, "field", str_or_null(p->field));
	json_object_set_new(o, "column", str_or_null(p->column));
	json_object_set_new(o, "value", str_or_null(p->value));
	json_object_set_new(o, "rowCount", json_integer(p->row_count));
	json_object_set_new(o, "rowIndexes", rows);
	json_object_set_new(o, "message", api_str(p->message));
	json_object_set_new(o, "docUrl", api_str(p->doc_url));
	if (p->fix_type)
		json_object_set_new(o, "fix", json_pack("{s:s,s:o}", "type", p->fix_type, "name", api_str(p->fix_name)));
	return o;
}

/* The problems of a finished run never change, so the page's position is
 * an index into the sorted groups; the answer carries an ETag. */
static void get_problems(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run run;
	if (!load_run(ctx, req, res, &run))
		return;
	int limit, after = 0;
	const char *pos;
	char *scope = arena_printf(req->arena, "%s/problems", run.id);
	if (!page_limit(req, res, &limit) || !cursor_read(req, res, scope, &pos))
		return;
	if (!run_state_terminal(run.state)) {
		api_problem(req, res, CODE_RUN_NOT_TERMINAL, arena_printf(req->arena, "The run is %s; its problems "
			    "exist once it is terminal. Poll the run first.", run_state_name(run.state)), NULL);
		return;
	}
	if (run_results_expired(&run, ctx->app->cfg.keep_results_ms, now_ms())) {
		results_expired(req, res, &run);
		return;
	}
	if (pos && !position_index(pos, &after)) {
		cursor_invalid(req, res);
		return;
	}
	/* Stored as the run ended: only this page is read. */
	struct run_problem **groups;
	int k, n;
	enum code rc = problems_page(ctx->app->store, req->arena, run.id, ctx->app->cfg.docs_url, after, limit, &groups,
				     &k, &n);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	if (after > n) {
		cursor_invalid(req, res);
		return;
	}
	json_t *data = json_array();
	for (int i = 0; i < k; i++)
		json_array_append_new(data, problem_json(groups[i]));
	json_t *next = json_null();
	if (n - after > limit)
		next = json_string(next_page_url(req, cursor_make(req, scope, arena_printf(req->arena, "%d", after + limit)),
						 limit, NULL));
	api_json_etag(req, res, json_pack("{s:s,s:o,s:o}", "object", "list", "data", data, "nextPageUrl", next));
}

const struct endpoint ep_run_problems = {.finish = get_problems};
