/* Request pipeline of the API: routing, authentication, rate limiting,
 * then the endpoint.  The front door (src/front/front.c) hands requests
 * here; problem bodies and JSON answers are built here for every endpoint. */
#include "api.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/digest.h"
#include "base/ids.h"
#include "base/log.h"
#include "endpoints.h"
#include "http/ratelimit.h"
#include "problem.h"

enum { ROUTE_PUBLIC = 1 };

#define NOBODY_MAX (64 * 1024)   /* bodies sent to endpoints that take none */

static const struct route routes[] = {
	{"GET", "/healthz", (void *)&ep_healthz, ROUTE_PUBLIC},
	{"GET", "/readyz", (void *)&ep_readyz, ROUTE_PUBLIC},
	{"GET", "/api/v1/openapi.json", (void *)&ep_openapi, ROUTE_PUBLIC},
	{"GET", "/api/v1/whoami", (void *)&ep_whoami, 0},
	{"GET", "/v1/whoami", (void *)&ep_whoami, 0},
	{"POST", "/api/v1/imports/{kind}", (void *)&ep_import_upload, 0},
	{"GET", "/api/v1/imports/runs", (void *)&ep_run_list, 0},
	{"GET", "/api/v1/imports/runs/{id}", (void *)&ep_run_get, 0},
	{"GET", "/api/v1/imports/runs/{id}/results/{bucket}", (void *)&ep_run_results, 0},
	{"GET", "/api/v1/imports/runs/{id}/failed-rows", (void *)&ep_run_failed_rows, 0},
	{"GET", "/api/v1/imports/runs/{id}/problems", (void *)&ep_run_problems, 0},
	{"POST", "/api/v1/imports/runs/{id}/rerun", (void *)&ep_run_rerun, 0},
	{"POST", "/api/v1/imports/runs/{id}/corrections", (void *)&ep_run_corrections, 0},
	{"POST", "/api/v1/imports/runs/{id}/revert", (void *)&ep_run_revert, 0},
	{"POST", "/api/v1/imports/runs/{id}/cancel", (void *)&ep_run_cancel, 0},
	{"GET", "/api/v1/imports/jobs/template", (void *)&ep_import_template, 0},
	{"GET", "/api/v1/loads/{id}", (void *)&ep_load_get, 0},
	{"GET", "/api/v1/loads/{id}/history", (void *)&ep_load_history, 0},
	{"GET", "/api/v1/projects/{id}", (void *)&ep_project_get, 0},
	{"GET", "/api/v1/locations", (void *)&ep_locations_search, 0},
	{"GET", "/api/v1/locations/{id}", (void *)&ep_location_get, 0},
	{"GET", "/api/v1/customers", (void *)&ep_reference_list, 0},
	{"POST", "/api/v1/customers", (void *)&ep_reference_create, 0},
	{"GET", "/api/v1/customers/{id}", (void *)&ep_reference_get, 0},
	{"GET", "/api/v1/branches", (void *)&ep_reference_list, 0},
	{"POST", "/api/v1/branches", (void *)&ep_reference_create, 0},
	{"GET", "/api/v1/branches/{id}", (void *)&ep_reference_get, 0},
	{"GET", "/api/v1/webhook-endpoints", (void *)&ep_webhook_list, 0},
	{"POST", "/api/v1/webhook-endpoints", (void *)&ep_webhook_create, 0},
	{"GET", "/api/v1/webhook-endpoints/{id}", (void *)&ep_webhook_get, 0},
	{"DELETE", "/api/v1/webhook-endpoints/{id}", (void *)&ep_webhook_delete, 0},
	{"PATCH", "/api/v1/webhook-endpoints/{id}", (void *)&ep_webhook_patch, 0},
	{"POST", "/api/v1/webhook-endpoints/{id}/test", (void *)&ep_webhook_test, 0},
	{"POST", "/api/v1/webhook-endpoints/{id}/rotate-secret", (void *)&ep_webhook_rotate, 0},
	{"GET", "/api/v1/webhook-endpoints/{id}/attempts", (void *)&ep_webhook_attempts, 0},
	{"POST", "/api/v1/webhook-attempts/{id}/resend", (void *)&ep_webhook_resend, 0},
};

const struct route *api_routes(size_t *ret_n)
{
	*ret_n = sizeof routes / sizeof routes[0];
	return routes;
}

json_t *api_str(const char *s)
{
	return log_json_str(s);
}

json_t *api_time(int64_t ms)
{
	if (!ms)
		return json_null();
	char t[TIME_ISO_MAX];
	time_iso(ms, t);
	return json_string(t);
}

void api_json(struct http_request *req, struct http_response *res, int status, json_t *body)
{
	char *s = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(body);
	if (!s) {
		api_problem(req, res, CODE_INTERNAL_ERROR, NULL, NULL);
		return;
	}
	http_respond(req, res, status, "application/json", s, strlen(s));
	free(s);
}

const char *api_json_etagged(struct http_request *req, struct http_response *res, json_t *body, char etag[40])
{
	char *s = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(body);
	if (!s) {
		api_problem(req, res, CODE_INTERNAL_ERROR, NULL, NULL);
		return NULL;
	}
	unsigned char h[DIGEST_BYTES];
	struct digest d;
	digest_init(&d);
	digest_update(&d, s, strlen(s));
	digest_final(&d, h);
	char hex[33];
	sodium_bin2hex(hex, sizeof hex, h, 16);
	snprintf(etag, 40, "\"%s\"", hex);
	const char *copy = arena_strdup(req->arena, s);
	free(s);
	return copy;
}

bool api_etag_matches(const struct http_request *req, const char *etag)
{
	const char *inm = http_header(req, "If-None-Match");
	return inm && (strstr(inm, etag) || !strcmp(inm, "*"));
}

void api_respond_etagged(struct http_request *req, struct http_response *res, const char *s, const char *etag)
{
	if (api_etag_matches(req, etag))
		http_respond(req, res, 304, NULL, NULL, 0);
	else
		http_respond(req, res, 200, "application/json", s, strlen(s));
	http_add_header(req, res, "ETag", etag);
	http_add_header(req, res, "Cache-Control", "no-cache");
}

const char *api_json_etag(struct http_request *req, struct http_response *res, json_t *body)
{
	char etag[40];
	const char *s = api_json_etagged(req, res, body, etag);
	if (!s)
		return NULL;
	api_respond_etagged(req, res, s, etag);
	return arena_strdup(req->arena, etag);
}

/* A small request body, collected for finish (JSON endpoints). */
struct small_body {
	struct buf b;
	bool too_large;
};

static void small_body_free(void *p)
{
	buf_done(&((struct small_body *)p)->b);
}

static void collect(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
		    size_t size, size_t max)
{
	struct small_body *sb = ctx->body;
	if (!sb) {
		sb = ctx->body = arena_alloc(req->arena, sizeof(*sb));
		buf_init(&sb->b, max);
		arena_cleanup(req->arena, small_body_free, sb);
	}
	if (!sb->too_large && buf_append(&sb->b, data, size)) {
		sb->too_large = true;
		api_problem(req, res, CODE_TOO_LARGE, arena_printf(req->arena, "The JSON body is larger than %zu KiB.",
			    max / 1024), NULL);
	}
}

void api_collect_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
		      size_t size)
{
	collect(ctx, req, res, data, size, API_JSON_BODY_MAX);
}

void api_collect_large_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
			    const char *data, size_t size)
{
	collect(ctx, req, res, data, size, API_JSON_LARGE_BODY_MAX);
}

json_t *api_body_json(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct small_body *sb = ctx->body;
	if (sb && sb->too_large)
		return NULL;
	const char *ct = http_header(req, "Content-Type");
	json_error_t err;
	json_t *j = NULL;
	if (ct && !strncasecmp(ct, "application/json", 16) && sb && sb->b.len)
		j = json_loadb(sb->b.data, sb->b.len, JSON_REJECT_DUPLICATES, &err);
	if (!json_is_object(j)) {
		json_decref(j);
		api_problem(req, res, CODE_INVALID_REQUEST, "Send a JSON object with Content-Type: application/json, "
			    "e.g. {\"name\": \"ACME Paving\"}.", NULL);
		return NULL;
	}
	return j;
}

void api_problem(struct http_request *req, struct http_response *res, enum code c,
		 const char *detail, json_t *extra)
{
	const struct app *app = req->app;
	json_t *p = problem_new(c, detail, req->path, req->request_id, app->cfg.docs_url, extra);
	char *s = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(p);
	int status = code_status(c) >= 400 ? code_status(c) : 500;
	http_respond(req, res, status, "application/problem+json", s ? s : "{}", s ? strlen(s) : 2);
	free(s);
	if (c == CODE_UNAUTHORIZED)
		http_add_header(req, res, "WWW-Authenticate", "Bearer realm=\"loadline\"");
	if (c == CODE_SERVICE_UNAVAILABLE)
		http_add_header(req, res, "Retry-After", "5");
}

void api_store_failed(struct http_request *req, struct http_response *res, enum code rc)
{
	struct store_failure f = store_last_failure();
	/* Logged once, here at the edge, with the database's own words. */
	log_json("error", "store failure", json_pack("{s:s,s:s,s:s,s:s,s:b}", "requestId", req->request_id,
		 "path", req->path, "code", code_name(rc), "cause", f.message, "diskFull", f.disk_full));
	if (rc == CODE_SERVICE_UNAVAILABLE && f.disk_full) {
		api_problem(req, res, CODE_SERVICE_UNAVAILABLE, "The service's database is out of disk space; nothing "
			    "was written. Retry later; the operator must free space.", NULL);
		return;
	}
	/* Not the database being away: a bug, a constraint we did not expect.
	 * Retrying will not help, so it is not a 503. */
	api_problem(req, res, rc == CODE_SERVICE_UNAVAILABLE ? rc : CODE_INTERNAL_ERROR, NULL, NULL);
}

const char *api_id(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *prefix,
		   const char *what)
{
	const char *id = route_param(&ctx->params, "id");
	if (id && id_valid(id, prefix))
		return id;
	api_problem(req, res, CODE_NOT_FOUND, arena_printf(req->arena, "No %s with this id in your organization.",
							   what), NULL);
	return NULL;
}

void api_docs_page(struct http_request *req, struct http_response *res, const char *code)
{
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
		api_problem(req, res, CODE_METHOD_NOT_ALLOWED, NULL, NULL);
		http_add_header(req, res, "Allow", "GET");
	} else if (!code) {
		docs_api_reference(req, res);
	} else if (!strcmp(code, "/")) {
		docs_home(req, res);
	} else if (*code == '\0') {
		docs_error_index(req, res);
	} else {
		docs_error_page(req, res, code);
	}
}

/* Returns true when the request may go on. */
static bool authenticate(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *h = http_header(req, "Authorization");
	const char *tok = NULL;
	if (h && !strncasecmp(h, "Bearer ", 7)) {
		tok = h + 7;
		while (*tok == ' ')
			tok++;
	}
	if (!tok || !*tok) {
		api_problem(req, res, CODE_UNAUTHORIZED,
			    h ? "The Authorization header must be `Bearer <token>`."
			      : "No Authorization header: send `Authorization: Bearer <token>`.", NULL);
		return false;
	}
	size_t len = strlen(tok);
	while (len && tok[len - 1] == ' ')
		len--;
	enum code rc = store_key_authenticate(ctx->app->store, tok, len, &ctx->key, &ctx->org);
	if (rc == CODE_UNAUTHORIZED) {
		api_problem(req, res, rc, "The token is malformed, unknown or revoked. Check it with "
			    "GET /api/v1/whoami, or mint a new one under Settings > API keys.", NULL);
		return false;
	}
	if (rc) {
		api_store_failed(req, res, rc);
		return false;
	}
	ctx->authed = true;
	size_t idlen = strnlen(ctx->org.id, sizeof req->org_id - 1);
	memcpy(req->org_id, ctx->org.id, idlen);
	req->org_id[idlen] = '\0';
	return true;
}

/* n in decimal, as "%d" writes it, into buf[32]. */
static const char *int_str(int n, char buf[32])
{
	char *p = buf + 31;
	*p = '\0';
	unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (n < 0)
		*--p = '-';
	return p;
}

static bool rate_limit(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct ratelimit_verdict v = ratelimit_take(ctx->app->rl, ctx->key.id, now_ms());
	char buf[32];
	/* Every authenticated request: %d without printf. */
	http_add_header(req, res, "RateLimit-Limit", int_str(v.limit, buf));
	http_add_header(req, res, "RateLimit-Remaining", int_str(v.remaining, buf));
	http_add_header(req, res, "RateLimit-Reset", int_str(v.reset_s, buf));
	if (v.allowed)
		return true;
	char detail[160];
	snprintf(detail, sizeof detail, "This token may make %d requests per %lld seconds. Retry after %d s.",
		 v.limit, (long long)(ctx->app->cfg.rate_window_ms / 1000), v.retry_after_s);
	api_problem(req, res, CODE_RATE_LIMIT_EXCEEDED, detail, NULL);
	snprintf(buf, sizeof buf, "%d", v.retry_after_s);
	http_add_header(req, res, "Retry-After", buf);
	return false;
}

static bool is_api_path(const char *p)
{
	return !strncmp(p, "/api/", 5) || !strncmp(p, "/v1/", 4);
}

struct api_ctx *api_begin(struct http_request *req, struct http_response *res)
{
	struct api_ctx *ctx = arena_alloc(req->arena, sizeof(*ctx));
	ctx->app = req->app;
	const struct route *r = NULL;
	char allow[64];
	const char *method = strcmp(req->method, "HEAD") ? req->method : "GET";
	size_t n;
	const struct route *table = api_routes(&n);
	enum route_result m = router_match(table, n, method, req->path, &r, &ctx->params, allow, sizeof allow);
	if (m == ROUTE_FOUND)
		ctx->route = r->pattern;
	bool needs_auth = m == ROUTE_FOUND ? !(r->flags & ROUTE_PUBLIC) : is_api_path(req->path);
	if (needs_auth && (!authenticate(ctx, req, res) || !rate_limit(ctx, req, res)))
		return ctx;
	if (m == ROUTE_NO_PATH) {
		api_problem(req, res, CODE_NOT_FOUND, NULL, NULL);
		return ctx;
	}
	if (m == ROUTE_NO_METHOD) {
		char detail[128];
		snprintf(detail, sizeof detail, "%s is not allowed here; use %s.", req->method, allow);
		api_problem(req, res, CODE_METHOD_NOT_ALLOWED, detail, NULL);
		http_add_header(req, res, "Allow", allow);
		return ctx;
	}
	ctx->ep = r->handler;
	if (ctx->ep->begin)
		ctx->ep->begin(ctx, req, res);
	return ctx;
}

void api_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
	      size_t size)
{
	if (ctx->ep && ctx->ep->body) {
		ctx->ep->body(ctx, req, res, data, size);
		return;
	}
	if (req->body_bytes > NOBODY_MAX)
		api_problem(req, res, CODE_TOO_LARGE, "This endpoint takes no request body.", NULL);
}

void api_finish(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	if (ctx->ep)
		ctx->ep->finish(ctx, req, res);
}
