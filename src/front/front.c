/* The front door: size and framing checks, /metrics, error pages, API or
 * web app, access log (front.h). */
#include "front.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/app.h"
#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "web/web.h"

enum target { TO_NOBODY, TO_API, TO_WEB };

struct dispatch_req {
	enum target to;
	void *ctx;        /* struct api_ctx or struct web_req */
	const char *label; /* metrics route label when not an API route */
	const char *user_agent; /* for the access line: its first LOG_UA_MAX bytes, or NULL */
	double t0;
};

/* GET /metrics: Prometheus text exposition, no token (PRODUCT §10).  The
 * queue and outbox gauges come from the database; when it is away they are
 * left out and the process's own series are still served. */
static void serve_metrics(struct http_request *req, struct http_response *res)
{
	const struct app *app = req->app;
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD")) {
		api_problem(req, res, CODE_METHOD_NOT_ALLOWED, NULL, NULL);
		http_add_header(req, res, "Allow", "GET");
		return;
	}
	struct http_server *srv = atomic_load(&((struct app *)app)->http);
	struct metrics_gauges g = {-1, -1, -1, srv ? http_held(srv) : -1, -1};
	if (store_metrics_gauges(app->store, &g.queue_depth, &g.outbox_pending, &g.awaiting_review,
				 &g.webhooks_pending))
		g.queue_depth = g.outbox_pending = g.awaiting_review = g.webhooks_pending = -1;
	struct buf b;
	buf_init(&b, (size_t)4 << 20);
	metrics_render(&b, &g, LOADLINE_VERSION);
	http_respond(req, res, 200, "text/plain; version=0.0.4; charset=utf-8", buf_str(&b), b.len);
	buf_done(&b);
}

/* /metrics on the API listener (no LOADLINE_METRICS_LISTEN) shows
 * database-wide counts without a token: only to a client on this host that
 * talks to us directly.  A reverse proxy on the same host connects from
 * loopback too, but names its client in one of these headers.  Everyone
 * else gets the 404 of an unknown page. */
static bool local_scraper(const struct http_request *req)
{
	return http_peer_loopback(req) && !http_header(req, "Forwarded") && !http_header(req, "X-Forwarded-For") &&
	       !http_header(req, "X-Real-IP");
}

static bool is_api_path(const char *p)
{
	return !strncmp(p, "/api/", 5) || !strncmp(p, "/v1/", 4) || !strcmp(p, "/healthz") || !strcmp(p, "/readyz");
}

/* The error reference pages, served under the path part of the docs URL. */
static bool serve_docs(struct http_request *req, struct http_response *res)
{
	const struct app *app = req->app;
	const char *dp = app->cfg.docs_path;
	size_t dl = strlen(dp);
	if (strncmp(req->path, dp, dl))
		return false;
	if (!strcmp(req->path + dl, "/api")) {
		api_docs_page(req, res, NULL);
		return true;
	}
	if (dl && (!req->path[dl] || !strcmp(req->path + dl, "/"))) {
		/* {docs_url} itself (issue 30: it was a 404); relative links
		 * need the trailing slash. */
		if (!req->path[dl]) {
			http_respond(req, res, 308, "text/plain; charset=utf-8", "", 0);
			http_add_header(req, res, "Location", arena_printf(req->arena, "%s/", req->path));
		} else {
			api_docs_page(req, res, "/");
		}
		return true;
	}
	if (strncmp(req->path + dl, "/api/errors", 11))
		return false;
	const char *rest = req->path + dl + 11;
	if (*rest && rest[0] != '/')
		return false;
	api_docs_page(req, res, rest[0] == '/' ? rest + 1 : rest);
	return true;
}

static void on_headers(struct http_request *req, struct http_response *res)
{
	struct dispatch_req *d = arena_alloc(req->arena, sizeof(*d));
	req->app_data = d;
	d->t0 = mono_ms();
	const char *ua = http_header(req, "User-Agent");
	d->user_agent = ua ? arena_strndup(req->arena, ua, strnlen(ua, LOG_UA_MAX + 4)) : NULL;
	struct http_scan scan; /* one pass over the headers and query */
	http_request_scan(req, &scan);
	if (strlen(req->path) + scan.query_bytes > HTTP_MAX_URL) {
		api_problem(req, res, CODE_URI_TOO_LONG, NULL, NULL);
		return;
	}
	if (scan.header_bytes > HTTP_MAX_HEADER_BYTES || scan.header_fields > HTTP_MAX_HEADER_FIELDS) {
		api_problem(req, res, CODE_HEADERS_TOO_LARGE, NULL, NULL);
		return;
	}
	/* Two framings of one body are how requests are smuggled past a proxy
	 * that picks the other one: refuse rather than choose, and end the
	 * connection, since where this request ends (and the next one starts)
	 * is exactly what is in doubt. */
	if (scan.length_conflicts || (scan.has_length && scan.has_transfer_encoding)) {
		api_problem(req, res, CODE_INVALID_REQUEST, "The request has conflicting Content-Length headers, or "
			    "both Content-Length and Transfer-Encoding: send exactly one body framing.", NULL);
		res->close = true;
		return;
	}
	if (scan.bad_field_name) {
		api_problem(req, res, CODE_INVALID_REQUEST, "A header field name is not a token (for example a "
			    "space before the colon): send \"Name: value\".", NULL);
		res->close = true;
		return;
	}
	/* Text parameters are UTF-8 everywhere; PostgreSQL refuses other
	 * bytes (a 500 there, a 200 on SQLite), so they stop here. */
	if (scan.query_not_utf8) {
		api_problem(req, res, CODE_INVALID_REQUEST, "A query parameter is not valid UTF-8: percent-encode "
			    "the UTF-8 bytes of the text.", NULL);
		return;
	}
	if (!strcmp(req->path, "/metrics") && !((const struct app *)req->app)->cfg.metrics_listen[0] &&
	    local_scraper(req)) {
		d->label = "/metrics";
		serve_metrics(req, res);
		return;
	}
	if (serve_docs(req, res)) {
		d->label = "docs";
		return;
	}
	if (is_api_path(req->path)) {
		d->to = TO_API;
		d->ctx = api_begin(req, res);
	} else {
		d->to = TO_WEB;
		d->ctx = web_begin(req, res);
		/* The page's route pattern, like the API's (issue 30). */
		d->label = web_route(d->ctx);
	}
}

static void on_body(struct http_request *req, struct http_response *res, const char *data, size_t size)
{
	struct dispatch_req *d = req->app_data;
	if (d->to == TO_API)
		api_body(d->ctx, req, res, data, size);
	else if (d->to == TO_WEB)
		web_body(d->ctx, data, size);
}

static void on_complete(struct http_request *req, struct http_response *res)
{
	struct dispatch_req *d = req->app_data;
	if (d->to == TO_API)
		api_finish(d->ctx, req, res);
	else if (d->to == TO_WEB)
		web_finish(d->ctx);
}

/* Load balancers' and scrapers' requests: every few seconds all day, so
 * their access lines are debug (LOADLINE_LOG_LEVEL=debug), not info. */
static bool health_probe(const struct http_request *req, const struct dispatch_req *d)
{
	return !strcmp(req->path, "/healthz") || !strcmp(req->path, "/readyz") ||
	       (d && d->label && !strcmp(d->label, "/metrics"));
}

static void on_done(struct http_request *req, const struct http_response *res)
{
	struct dispatch_req *d = req->app_data;
	double ms = d ? mono_ms() - d->t0 : 0;
	/* Route patterns only, never raw paths: ids would make a series each. */
	const struct api_ctx *api = d && d->to == TO_API ? d->ctx : NULL;
	const char *route = api ? api->route : NULL;
	metrics_http(req->method, route ? route : d && d->label ? d->label : "unmatched", res->status, ms / 1000.0);
	bool probe = health_probe(req, d);
	if (probe && !((const struct app *)req->app)->cfg.log_debug)
		return;
	char client[64];
	struct log_access a = {req->request_id, req->org_id, req->method, req->path, res->status,
			       (double)(long long)(ms * 100) / 100.0, http_peer_addr(req, client, sizeof client),
			       d ? d->user_agent : NULL, api && api->authed ? api->key.prefix : NULL, probe};
	log_access(&a);
}

/* The metrics listener (LOADLINE_METRICS_LISTEN): /metrics and nothing
 * else, no token, no access log. */
static void metrics_only(struct http_request *req, struct http_response *res)
{
	if (!strcmp(req->path, "/metrics"))
		serve_metrics(req, res);
	else
		http_respond(req, res, 404, "text/plain; charset=utf-8", "Only /metrics is served here.\n", 30);
}

const struct http_app *front_metrics_app(struct app *app, struct http_app *ret)
{
	*ret = (struct http_app){
		.on_headers = metrics_only,
		.max_discard = 64 * 1024,
		.max_discard_hard = 64 * 1024,
		.app = app,
		.max_connections = 64,
		.max_per_ip = 0,
		.idle_timeout_s = 15,
		.reuse_port = app->cfg.reuseport,
	};
	return ret;
}

const struct http_app *front_app(struct app *app, struct http_app *ret)
{
	*ret = (struct http_app){
		.on_headers = on_headers,
		.on_body = on_body,
		.on_complete = on_complete,
		.on_done = on_done,
		/* Small unwanted bodies are read and dropped; a larger announced
		 * one is not read: the answer goes out at once and the connection
		 * closes gracefully (server.c).  A chunked body has no announced
		 * size, and libmicrohttpd cannot answer in the middle of one, so
		 * one answered mid-way (a file over the limit) is read and dropped
		 * up to 64 MiB past the limit, to give the client its 413 rather
		 * than a reset connection; beyond that the connection is cut. */
		.max_discard = 256 * 1024,
		.max_discard_hard = app->cfg.max_file_bytes + ((size_t)64 << 20),
		.app = app,
		.max_connections = (unsigned)app->cfg.max_connections,
		.max_per_ip = (unsigned)app->cfg.max_connections_per_ip,
		.idle_timeout_s = (unsigned)((app->cfg.idle_timeout_ms + 999) / 1000),
		.header_timeout_ms = (unsigned)(app->cfg.header_timeout_ms < 3600000 ? app->cfg.header_timeout_ms : 3600000),
		.reuse_port = app->cfg.reuseport,
		.min_body_rate = (unsigned)app->cfg.min_body_rate,
		.notify = app->notify,
	};
	return ret;
}
