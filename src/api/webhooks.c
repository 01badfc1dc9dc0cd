/* GET/POST /api/v1/webhook-endpoints, GET/DELETE
 * /api/v1/webhook-endpoints/{id} (PRODUCT §12), POST …/{id}/test (§17).  Any token of the
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
#include "endpoints.h"
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
	return json_pack("{s:s,s:s,s:o,s:o,s:s,s:o,s:o,s:o}", "id", e->id, "object", "webhook_endpoint", "url",
			 api_str(e->url), "events", events, "status", e->disabled_at ? "disabled" : "enabled",
			 "createdAt", api_time(e->created_at), "disabledAt", api_time(e->disabled_at),
			 "failingSince", api_time(e->failing_since));
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
