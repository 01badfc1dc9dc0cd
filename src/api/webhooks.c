/* GET/POST /api/v1/webhook-endpoints, GET/DELETE
 * /api/v1/webhook-endpoints/{id} (PRODUCT §12); PATCH …/{id}, POST
 * …/{id}/test and …/{id}/rotate-secret, GET …/{id}/attempts and POST
 * /api/v1/webhook-attempts/{id}/resend (§17).  Any token of the
 * organization may manage them: an API token is org-wide (like minting
 * one in Settings, which only admins can do). */
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/clock.h"
#include "base/ids.h"
#include "base/log.h"
#include "endpoints.h"
#include "paging.h"
#include "store/webhooks.h"
#include "webhook/webhook.h"

static const char *const event_types[] = {"import_run.staged", "import_run.completed"};

static json_t *webhook_endpoint_json(const struct webhook_endpoint *e)
{
	json_t *events = json_array();
	for (size_t i = 0; i < sizeof event_types / sizeof event_types[0]; i++) {
		size_t n = strlen(event_types[i]);
		for (const char *p = e->events; (p = strstr(p, event_types[i])); p += n)
			if ((p == e->events || p[-1] == ',') && (p[n] == ',' || !p[n])) {
				json_array_append_new(events, json_string(event_types[i]));
				break;
			}
	}
	int64_t until = e->previous_until > now_ms() ? e->previous_until : 0;
	return json_pack("{s:s,s:s,s:o,s:o,s:s,s:o,s:o,s:o,s:o}", "id", e->id, "object", "webhook_endpoint", "url",
			 api_str(e->url), "events", events, "status", e->disabled_at ? "disabled" : "enabled",
			 "createdAt", api_time(e->created_at), "disabledAt", api_time(e->disabled_at),
			 "failingSince", api_time(e->failing_since), "previousSecretExpiresAt", api_time(until));
}

/* The url of a POST body, or NULL after answering 400 INVALID_WEBHOOK_URL. */
static const char *posted_url(struct http_request *req, struct http_response *res, json_t *body, bool allow_http,
			      bool allow_private)
{
	json_t *ju = json_object_get(body, "url");
	const char *u = json_string_value(ju);
	const char *why = u && strlen(u) != json_string_length(ju) ? "url contains a NUL." : webhook_url_check(u, allow_http);
	if (!why && !allow_private)
		why = webhook_url_deliverable(u);
	if (why)
		api_problem(req, res, CODE_INVALID_WEBHOOK_URL, why, NULL);
	return why ? NULL : u;
}

/* The events of a POST body as stored ("a,b"), or NULL after answering 400. */
static const char *posted_events(struct http_request *req, struct http_response *res, json_t *body)
{
	json_t *je = json_object_get(body, "events");
	bool seen[2] = {false, false}, ok = json_is_array(je) && json_array_size(je) > 0;
	for (size_t i = 0; ok && i < json_array_size(je); i++) {
		const char *t = json_string_value(json_array_get(je, i));
		bool known = false;
		for (size_t k = 0; t && k < 2; k++)
			if (!strcmp(t, event_types[k]))
				known = seen[k] = true;
		ok = known;
	}
	if (!ok) {
		api_problem(req, res, CODE_INVALID_WEBHOOK_EVENTS, "events must be a non-empty list of "
			    "\"import_run.staged\" and \"import_run.completed\".", NULL);
		return NULL;
	}
	return seen[0] && seen[1] ? "import_run.staged,import_run.completed" : seen[0] ? event_types[0] : event_types[1];
}

static void create(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	json_t *body = api_body_json(ctx, req, res);
	if (!body)
		return;
	const char *url = posted_url(req, res, body, ctx->app->cfg.webhook_allow_http, ctx->app->cfg.webhook_allow_private);
	const char *events = url ? posted_events(req, res, body) : NULL;
	url = url ? arena_strdup(req->arena, url) : NULL;
	json_decref(body);
	if (!url || !events)
		return;
	struct webhook_endpoint e = {.url = url, .events = events, .created_at = now_ms()};
	id_new("whe", e.id);
	snprintf(e.org_id, sizeof e.org_id, "%s", ctx->org.id);
	webhook_new_secret(e.secret);
	enum code rc = store_webhook_endpoint_create(ctx->app->store, &e, WEBHOOK_ENDPOINTS_MAX);
	if (rc == CODE_WEBHOOK_ENDPOINT_LIMIT) {
		api_problem(req, res, rc, arena_printf(req->arena, "This organization has %d webhook endpoints, the most "
			    "it may have.", WEBHOOK_ENDPOINTS_MAX), NULL);
		return;
	} else if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	json_t *o = webhook_endpoint_json(&e);
	/* The only time the secret is shown. */
	json_object_set_new(o, "secret", json_string(e.secret));
	api_json(req, res, 201, o);
	http_add_header(req, res, "Location", arena_printf(req->arena, "/api/v1/webhook-endpoints/%s", e.id));
	http_add_header(req, res, "Cache-Control", "no-store");
	sodium_memzero(e.secret, sizeof e.secret);
}

const struct endpoint ep_webhook_create = {.body = api_collect_body, .finish = create};

static void add(const struct webhook_endpoint *e, void *data)
{
	json_array_append_new(data, webhook_endpoint_json(e));
}

static void list(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	json_t *data = json_array();
	enum code rc = store_webhook_endpoint_list(ctx->app->store, req->arena, ctx->org.id, add, data);
	if (rc) {
		json_decref(data);
		api_store_failed(req, res, rc);
		return;
	}
	/* An organization has a handful of endpoints: one page, always. */
	api_json(req, res, 200, json_pack("{s:s,s:o,s:n}", "object", "list", "data", data, "nextPageUrl"));
}

const struct endpoint ep_webhook_list = {.finish = list};

static void get_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	if (!id)
		return;
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_get(ctx->app->store, req->arena, ctx->org.id, id, &e);
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, "No webhook endpoint with this id in your organization.", NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	else
		api_json(req, res, 200, webhook_endpoint_json(&e));
}

const struct endpoint ep_webhook_get = {.finish = get_one};

static void delete_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	if (!id)
		return;
	enum code rc = store_webhook_endpoint_delete(ctx->app->store, ctx->org.id, id);
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, "No webhook endpoint with this id in your organization.", NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	else
		http_respond(req, res, 204, NULL, NULL, 0);
}

const struct endpoint ep_webhook_delete = {.finish = delete_one};

/* POST /api/v1/webhook-endpoints/{id}/test (PRODUCT §17): queues a
 * `webhook.test` event for this endpoint alone, delivered and signed like
 * any other (the web app's "Send test event"). */
static void test_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	if (!id)
		return;
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_get(ctx->app->store, req->arena, ctx->org.id, id, &e);
	if (!rc)
		rc = store_webhook_test(ctx->app->store, ctx->org.id, e.id);
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, "No webhook endpoint with this id in your organization.", NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	else
		api_json(req, res, 202, json_pack("{s:s,s:s,s:s}", "object", "webhook_test", "endpointId", e.id,
						  "type", "webhook.test"));
}

const struct endpoint ep_webhook_test = {.finish = test_one};

static void not_found(struct http_request *req, struct http_response *res, enum code rc)
{
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, "No webhook endpoint with this id in your organization.", NULL);
	else
		api_store_failed(req, res, rc);
}

/* The PATCH body as a change; false after answering 400.  Members not
 * sent are left as they are. */
static bool patched(struct api_ctx *ctx, struct http_request *req, struct http_response *res, json_t *body,
		    struct webhook_endpoint_change *c)
{
	*c = (struct webhook_endpoint_change){.enabled = -1};
	const char *key;
	json_t *v;
	json_object_foreach(body, key, v) {
		if (strcmp(key, "url") && strcmp(key, "events") && strcmp(key, "enabled")) {
			api_problem(req, res, CODE_INVALID_REQUEST, arena_printf(req->arena, "Unknown member \"%s\": a "
				    "PATCH may change url, events and enabled.", key), NULL);
			return false;
		}
	}
	if (json_object_get(body, "url") && !(c->url = posted_url(req, res, body, ctx->app->cfg.webhook_allow_http,
								  ctx->app->cfg.webhook_allow_private)))
		return false;
	if (json_object_get(body, "events") && !(c->events = posted_events(req, res, body)))
		return false;
	json_t *en = json_object_get(body, "enabled");
	if (en && !json_is_boolean(en)) {
		api_problem(req, res, CODE_INVALID_REQUEST, "enabled must be true or false.", NULL);
		return false;
	}
	if (en)
		c->enabled = json_is_true(en) ? 1 : 0;
	if (c->url)
		c->url = arena_strdup(req->arena, c->url);
	return true;
}

/* PATCH /api/v1/webhook-endpoints/{id}: url, events, enabled (true
 * re-enables a disabled endpoint with a fresh retry window). */
static void patch_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	json_t *body = id ? api_body_json(ctx, req, res) : NULL;
	if (!body)
		return;
	struct webhook_endpoint_change c;
	bool ok = patched(ctx, req, res, body, &c);
	json_decref(body);
	if (!ok)
		return;
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_update(ctx->app->store, req->arena, ctx->org.id, id, &c, &e);
	if (rc) {
		not_found(req, res, rc);
		return;
	}
	log_json("info", "webhook endpoint changed", json_pack("{s:s,s:s,s:b,s:b,s:i}", "endpointId", id, "orgId",
		 ctx->org.id, "url", c.url != NULL, "events", c.events != NULL, "enabled", c.enabled));
	api_json(req, res, 200, webhook_endpoint_json(&e));
}

const struct endpoint ep_webhook_patch = {.body = api_collect_body, .finish = patch_one};

/* POST /api/v1/webhook-endpoints/{id}/rotate-secret: a new secret, shown
 * this once; the old one signs beside it for 24 h. */
static void rotate_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	if (!id)
		return;
	char secret[WEBHOOK_SECRET_MAX];
	webhook_new_secret(secret);
	int64_t until = now_ms() + WEBHOOK_SECRET_OVERLAP_MS;
	struct webhook_endpoint e;
	enum code rc = store_webhook_rotate_secret(ctx->app->store, ctx->org.id, id, secret, until);
	if (!rc)
		rc = store_webhook_endpoint_get(ctx->app->store, req->arena, ctx->org.id, id, &e);
	if (rc) {
		sodium_memzero(secret, sizeof secret);
		not_found(req, res, rc);
		return;
	}
	log_json("info", "webhook secret rotated", json_pack("{s:s,s:s}", "endpointId", id, "orgId", ctx->org.id));
	json_t *o = webhook_endpoint_json(&e);
	json_object_set_new(o, "secret", json_string(secret));
	sodium_memzero(secret, sizeof secret);
	api_json(req, res, 200, o);
	http_add_header(req, res, "Cache-Control", "no-store");
}

const struct endpoint ep_webhook_rotate = {.finish = rotate_one};

static json_t *attempt_json(const struct webhook_log *l)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:o,s:o,s:I,s:s,s:o,s:o}", "id", l->id, "object",
			 "webhook_attempt", "endpointId", l->endpoint_id, "eventId", l->event_id, "type", l->type,
			 "attempt", l->attempt, "at", api_time(l->at), "status", l->status ? json_integer(l->status)
			 : json_null(), "durationMs", (json_int_t)l->duration_ms, "result", l->error ? "failed"
			 : "delivered", "error", api_str(l->error), "responseBody", api_str(l->response_body));
}

struct attempts {
	json_t *data;
	int n;
	int64_t last_at;
	char last_id[ID_MAX];
	int limit;
};

static void add_attempt(const struct webhook_log *l, void *arg)
{
	struct attempts *a = arg;
	if (a->n++ >= a->limit)
		return;
	json_array_append_new(a->data, attempt_json(l));
	a->last_at = l->at;
	snprintf(a->last_id, sizeof a->last_id, "%s", l->id);
}

/* GET /api/v1/webhook-endpoints/{id}/attempts: newest first, paged. */
static void attempts_list(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "whe", "webhook endpoint");
	if (!id)
		return;
	char *scope = arena_printf(req->arena, "%s/webhook-attempts/%s", ctx->org.id, id);
	struct time_page pg;
	if (!time_page_read(req, res, scope, &pg))
		return;
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_get(ctx->app->store, req->arena, ctx->org.id, id, &e);
	struct attempts a = {.data = json_array(), .limit = pg.limit};
	struct webhook_log_page lp = {id, pg.limit + 1, pg.after_created, pg.after_id};
	if (!rc)
		rc = store_webhook_attempts(ctx->app->store, req->arena, ctx->org.id, &lp, add_attempt, &a);
	if (rc) {
		json_decref(a.data);
		not_found(req, res, rc);
		return;
	}
	time_page_answer(req, res, scope, &pg, a.data, a.n, a.last_at, a.last_id, NULL);
}

const struct endpoint ep_webhook_attempts = {.finish = attempts_list};

/* POST /api/v1/webhook-attempts/{id}/resend: the attempt's event is
 * delivered to its endpoint again (same webhook-id, a new attempt). */
static void resend_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *id = api_id(ctx, req, res, "wha", "webhook attempt");
	if (!id)
		return;
	struct webhook_log l;
	struct webhook_endpoint e;
	enum code rc = store_webhook_attempt_get(ctx->app->store, req->arena, ctx->org.id, id, &l);
	if (rc == CODE_NOT_FOUND) {
		api_problem(req, res, rc, "No webhook attempt with this id in your organization.", NULL);
		return;
	}
	if (!rc)
		rc = store_webhook_endpoint_get(ctx->app->store, req->arena, ctx->org.id, l.endpoint_id, &e);
	if (!rc && e.disabled_at) {
		api_problem(req, res, CODE_WEBHOOK_ENDPOINT_DISABLED, "The attempt's endpoint is disabled: enable it "
			    "first (PATCH /api/v1/webhook-endpoints/{id} with {\"enabled\": true}).", NULL);
		return;
	}
	if (!rc)
		rc = store_webhook_resend(ctx->app->store, ctx->org.id, l.event_id, l.endpoint_id);
	if (rc) {
		not_found(req, res, rc);   /* the endpoint was deleted */
		return;
	}
	api_json(req, res, 202, json_pack("{s:s,s:s,s:s,s:s}", "object", "webhook_resend", "attemptId", l.id,
					  "eventId", l.event_id, "endpointId", l.endpoint_id));
}

const struct endpoint ep_webhook_resend = {.finish = resend_one};
