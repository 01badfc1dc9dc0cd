/* Request pipeline of the API: size checks, docs pages, routing,
 * authentication, rate limiting, then the endpoint; one access-log line per
 * request at the end. */
#include "api.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "endpoints.h"
#include "http/ratelimit.h"
#include "problem.h"
#include "web/web.h"

struct api_env g_api;

enum { ROUTE_PUBLIC = 1 };

#define NOBODY_MAX (64 * 1024)   /* bodies sent to endpoints that take none */

static const struct route routes[] = {
	{"GET", "/healthz", (void *)&ep_healthz, ROUTE_PUBLIC},
	{"GET", "/api/v1/openapi.json", (void *)&ep_openapi, ROUTE_PUBLIC},
	{"GET", "/api/v1/whoami", (void *)&ep_whoami, 0},
	{"GET", "/v1/whoami", (void *)&ep_whoami, 0},
	{"POST", "/api/v1/imports/{kind}", (void *)&ep_import_upload, 0},
	{"GET", "/api/v1/imports/runs", (void *)&ep_run_list, 0},
	{"GET", "/api/v1/imports/runs/{id}", (void *)&ep_run_get, 0},
	{"GET", "/api/v1/imports/runs/{id}/results/{bucket}", (void *)&ep_run_results, 0},
	{"GET", "/api/v1/loads/{id}", (void *)&ep_load_get, 0},
	{"GET", "/api/v1/projects/{id}", (void *)&ep_project_get, 0},
	{"GET", "/api/v1/locations", (void *)&ep_locations_search, 0},
	{"GET", "/api/v1/locations/{id}", (void *)&ep_location_get, 0},
};

const struct route *api_routes(size_t *ret_n)
{
	*ret_n = sizeof routes / sizeof routes[0];
	return routes;
}

json_t *api_str(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	/* Invalid UTF-8 never reaches the wire as is. */
	size_t n = strlen(s);
	char *fixed = malloc(n * 3 + 1), *o = fixed;
	if (!fixed)
		abort();
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x80) {
			*o++ = (char)*p;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
		}
	}
	*o = '\0';
	j = json_string(fixed);
	free(fixed);
	return j ? j : json_string("");
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

void api_problem(struct http_request *req, struct http_response *res, enum code c,
		 const char *detail, json_t *extra)
{
	json_t *p = problem_new(c, detail, req->path, req->request_id, g_config.docs_url, extra);
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

static size_t query_bytes(const struct http_request *req);

/* Path of the error reference pages this process serves: the path part of
 * LOADLINE_DOCS_URL when it points at this service, else /docs. */
static const char *docs_path(void)
{
	static char path[512];
	static int done;
	if (!done) {
		size_t bl = strlen(g_config.base_url);
		const char *d = g_config.docs_url;
		if (!strncmp(d, g_config.base_url, bl) && (d[bl] == '/' || d[bl] == '\0'))
			snprintf(path, sizeof path, "%s", d + bl);
		else
			snprintf(path, sizeof path, "/docs");
		done = 1;
	}
	return path;
}

static bool serve_docs(struct http_request *req, struct http_response *res)
{
	const char *dp = docs_path();
	size_t dl = strlen(dp);
	if (strncmp(req->path, dp, dl))
		return false;
	if (!strcmp(req->path + dl, "/api") && (!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD"))) {
		docs_api_reference(req, res);
		return true;
	}
	if (strncmp(req->path + dl, "/api/errors", 11))
		return false;
	const char *rest = req->path + dl + 11;
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
		api_problem(req, res, CODE_METHOD_NOT_ALLOWED, NULL, NULL);
		http_add_header(req, res, "Allow", "GET");
	} else if (*rest == '\0' || !strcmp(rest, "/")) {
		docs_error_index(req, res);
	} else if (rest[0] == '/') {
		docs_error_page(req, res, rest + 1);
	} else {
		return false;
	}
	return true;
}

static bool is_api_path(const char *p)
{
	return !strncmp(p, "/api/", 5) || !strncmp(p, "/v1/", 4);
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
	enum code rc = store_key_authenticate(g_api.store, tok, len, &ctx->key, &ctx->org);
	if (rc == CODE_UNAUTHORIZED) {
		api_problem(req, res, rc, "The token is malformed, unknown or revoked. Check it with "
			    "GET /api/v1/whoami, or mint a new one under Settings > API keys.", NULL);
		return false;
	}
	if (rc) {
		api_problem(req, res, CODE_SERVICE_UNAVAILABLE, NULL, NULL);
		return false;
	}
	ctx->authed = true;
	snprintf(req->org_id, sizeof req->org_id, "%s", ctx->org.id);
	return true;
}

static bool rate_limit(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct ratelimit_verdict v = ratelimit_take(g_api.rl, ctx->key.id, now_ms());
	char buf[32];
	snprintf(buf, sizeof buf, "%d", v.limit);
	http_add_header(req, res, "RateLimit-Limit", buf);
	snprintf(buf, sizeof buf, "%d", v.remaining);
	http_add_header(req, res, "RateLimit-Remaining", buf);
	snprintf(buf, sizeof buf, "%d", v.reset_s);
	http_add_header(req, res, "RateLimit-Reset", buf);
	if (v.allowed)
		return true;
	char detail[160];
	snprintf(detail, sizeof detail, "This token may make %d requests per %lld seconds. Retry after %d s.",
		 v.limit, (long long)(g_config.rate_window_ms / 1000), v.retry_after_s);
	api_problem(req, res, CODE_RATE_LIMIT_EXCEEDED, detail, NULL);
	snprintf(buf, sizeof buf, "%d", v.retry_after_s);
	http_add_header(req, res, "Retry-After", buf);
	return false;
}

static void on_headers(struct http_request *req, struct http_response *res)
{
	struct api_ctx *ctx = arena_alloc(req->arena, sizeof(*ctx));
	req->app_data = ctx;
	ctx->t0 = mono_ms();
	if (strlen(req->path) + query_bytes(req) > HTTP_MAX_URL) {
		api_problem(req, res, CODE_URI_TOO_LONG, NULL, NULL);
		return;
	}
	if (http_header_bytes(req) > HTTP_MAX_HEADER_BYTES) {
		api_problem(req, res, CODE_HEADERS_TOO_LARGE, NULL, NULL);
		return;
	}
	if (serve_docs(req, res))
		return;
	/* Everything outside the API and the probe is the web application. */
	if (!is_api_path(req->path) && strcmp(req->path, "/healthz")) {
		ctx->web = web_begin(req, res);
		return;
	}
	const struct route *r = NULL;
	char allow[64];
	const char *method = strcmp(req->method, "HEAD") ? req->method : "GET";
	size_t n;
	const struct route *table = api_routes(&n);
	enum route_result m = router_match(table, n, method, req->path, &r, &ctx->params, allow, sizeof allow);
	bool needs_auth = m == ROUTE_FOUND ? !(r->flags & ROUTE_PUBLIC) : is_api_path(req->path);
	if (needs_auth && (!authenticate(ctx, req, res) || !rate_limit(ctx, req, res)))
		return;
	if (m == ROUTE_NO_PATH) {
		api_problem(req, res, CODE_NOT_FOUND, NULL, NULL);
		return;
	}
	if (m == ROUTE_NO_METHOD) {
		char detail[128];
		snprintf(detail, sizeof detail, "%s is not allowed here; use %s.", req->method, allow);
		api_problem(req, res, CODE_METHOD_NOT_ALLOWED, detail, NULL);
		http_add_header(req, res, "Allow", allow);
		return;
	}
	ctx->ep = r->handler;
	if (ctx->ep->begin)
		ctx->ep->begin(ctx, req, res);
}

static void on_body(struct http_request *req, struct http_response *res, const char *data, size_t size)
{
	struct api_ctx *ctx = req->app_data;
	if (ctx->web) {
		web_body(ctx->web, data, size);
		return;
	}
	if (ctx->ep && ctx->ep->body) {
		ctx->ep->body(ctx, req, res, data, size);
		return;
	}
	if (req->body_bytes > NOBODY_MAX)
		api_problem(req, res, CODE_TOO_LARGE, "This endpoint takes no request body.", NULL);
}

static void on_complete(struct http_request *req, struct http_response *res)
{
	struct api_ctx *ctx = req->app_data;
	if (ctx->web)
		web_finish(ctx->web);
	else if (ctx->ep)
		ctx->ep->finish(ctx, req, res);
}

static void on_done(struct http_request *req, const struct http_response *res)
{
	struct api_ctx *ctx = req->app_data;
	json_t *f = json_object();
	json_object_set_new(f, "requestId", json_string(req->request_id));
	json_object_set_new(f, "orgId", req->org_id[0] ? json_string(req->org_id) : json_null());
	json_object_set_new(f, "method", api_str(req->method));
	json_object_set_new(f, "path", api_str(req->path));
	json_object_set_new(f, "status", json_integer(res->status));
	double ms = ctx ? mono_ms() - ctx->t0 : 0;
	json_object_set_new(f, "durationMs", json_real((double)(long long)(ms * 100) / 100.0));
	log_json("info", "request", f);
}

static enum MHD_Result add_len(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	*(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 2;
	return MHD_YES;
}

static size_t query_bytes(const struct http_request *req)
{
	size_t total = 0;
	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, add_len, &total);
	return total;
}

const struct http_app *api_app(void)
{
	static struct http_app app = {
		.on_headers = on_headers,
		.on_body = on_body,
		.on_complete = on_complete,
		.on_done = on_done,
	};
	/* An answered upload is read and dropped up to twice the file limit so
	 * the client gets our problem body, not a connection reset. */
	/* Small unwanted bodies are read and dropped; past this the answer goes
	 * out at once and the connection closes gracefully (server.c). */
	app.max_discard = 256 * 1024;
	app.max_discard_hard = g_config.max_file_bytes + (1 << 20);
	return &app;
}
