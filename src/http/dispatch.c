/* Request dispatch: size checks, error pages, API or web app, access log. */
#include "dispatch.h"

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
	struct metrics_gauges g = {-1, -1};
	if (store_metrics_gauges(app->store, &g.queue_depth, &g.outbox_pending))
		g.queue_depth = g.outbox_pending = -1;
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
		d->label = "web";
		d->ctx = web_begin(req, res);
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

/* The access line through jansson: for any field that needs escaping. */
static void access_log_json(const struct http_request *req, int status, double duration_ms)
{
	json_t *f = json_object();
	json_object_set_new(f, "requestId", json_string(req->request_id));
	json_object_set_new(f, "orgId", req->org_id[0] ? json_string(req->org_id) : json_null());
	json_object_set_new(f, "method", api_str(req->method));
	json_object_set_new(f, "path", api_str(req->path));
	json_object_set_new(f, "status", json_integer(status));
	json_object_set_new(f, "durationMs", json_real(duration_ms));
	log_json("info", "request", f);
}

/* True when s goes into a JSON string as it is (printable ASCII, no quote
 * or backslash): what jansson would write too, escaping nothing. */
static bool json_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return false;
	return true;
}

static char *put(char *o, const char *end, const char *s)
{
	size_t n = strlen(s);
	if (!o || (size_t)(end - o) <= n)
		return NULL;
	memcpy(o, s, n);
	return o + n;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" as time_iso writes it; the part up to the
 * seconds is formatted once a second per thread. */
static void iso_now(char out[TIME_ISO_MAX])
{
	static _Thread_local int64_t cached_s = -1;
	static _Thread_local char prefix[TIME_ISO_MAX];
	int64_t ms = now_ms();
	if (ms < 0) {
		time_iso(ms, out);
		return;
	}
	if (ms / 1000 != cached_s) {
		time_iso(ms / 1000 * 1000, prefix);
		cached_s = ms / 1000;
	}
	memcpy(out, prefix, 20); /* through the seconds and the '.' */
	int m = (int)(ms % 1000);
	out[20] = (char)('0' + m / 100);
	out[21] = (char)('0' + m / 10 % 10);
	out[22] = (char)('0' + m % 10);
	out[23] = 'Z';
	out[24] = '\0';
}

/* v in decimal at out; returns the end (not terminated). */
static char *utoa(unsigned long long v, char *out)
{
	char tmp[24];
	int k = 0;
	do
		tmp[k++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (k)
		*out++ = tmp[--k];
	return out;
}

/* A real as jansson writes it with JSON_REAL_PRECISION(6) (jsonp_dtostr):
 * %.6g, ".0" when it reads as an integer, no '+' or leading zeros in the
 * exponent.  Durations are whole hundredths: below 10,000 ms that is at most
 * six significant digits, which %.6g writes exactly, trailing zeros cut. */
static bool json_real6(double v, char *out, size_t cap)
{
	long long h = (long long)(v * 100 + (v >= 0 ? 0.5 : -0.5));
	if (v >= 0 && h < 1000000 && (double)h / 100.0 == v && cap >= 16) {
		int n = (int)(utoa((unsigned long long)(h / 100), out) - out);
		int frac = (int)(h % 100);
		out[n++] = '.';
		out[n++] = (char)('0' + frac / 10);
		if (frac % 10)
			out[n++] = (char)('0' + frac % 10);
		out[n] = '\0';
		return true;
	}
	int n = snprintf(out, cap, "%.6g", v);
	if (n < 0 || (size_t)n + 3 >= cap)
		return false;
	if (!strchr(out, '.') && !strchr(out, 'e'))
		memcpy(out + n, ".0", 3);
	char *e = strchr(out, 'e');
	if (e) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start)
			memmove(start, end, strlen(end) + 1);
	}
	return true;
}

size_t dispatch_access_line(char *out, size_t cap, const char *ts, const struct http_request *req, int status,
			    double duration_ms)
{
	if (!json_plain(req->request_id) || !json_plain(req->org_id) || !json_plain(req->method) ||
	    !json_plain(req->path) || !json_plain(ts))
		return 0;
	char num[64], st[16];
	if (!json_real6(duration_ms, num, sizeof num))
		return 0;
	if (status < 0)
		return 0;
	*utoa((unsigned long long)status, st) = '\0';
	const char *end = out + cap;
	char *o = put(out, end, "{\"ts\":\"");
	o = put(o, end, ts);
	o = put(o, end, "\",\"level\":\"info\",\"msg\":\"request\",\"requestId\":\"");
	o = put(o, end, req->request_id);
	if (req->org_id[0]) {
		o = put(o, end, "\",\"orgId\":\"");
		o = put(o, end, req->org_id);
		o = put(o, end, "\",\"method\":\"");
	} else {
		o = put(o, end, "\",\"orgId\":null,\"method\":\"");
	}
	o = put(o, end, req->method);
	o = put(o, end, "\",\"path\":\"");
	o = put(o, end, req->path);
	o = put(o, end, "\",\"status\":");
	o = put(o, end, st);
	o = put(o, end, ",\"durationMs\":");
	o = put(o, end, num);
	o = put(o, end, "}\n");
	return o ? (size_t)(o - out) : 0;
}

static void on_done(struct http_request *req, const struct http_response *res)
{
	struct dispatch_req *d = req->app_data;
	double ms = d ? mono_ms() - d->t0 : 0;
	/* Route patterns only, never raw paths: ids would make a series each. */
	const char *route = d && d->to == TO_API && d->ctx ? ((struct api_ctx *)d->ctx)->route : NULL;
	metrics_http(route ? route : d && d->label ? d->label : "unmatched", res->status, ms / 1000.0);
	double dur = (double)(long long)(ms * 100) / 100.0;
	/* The line log_json would write, formatted directly when no field
	 * needs escaping (every request the API answers). */
	char ts[TIME_ISO_MAX], line[HTTP_MAX_URL + 512];
	iso_now(ts);
	size_t n = dispatch_access_line(line, sizeof line, ts, req, res->status, dur);
	if (n)
		log_raw(line, n);
	else
		access_log_json(req, res->status, dur);
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

const struct http_app *dispatch_metrics_app(struct app *app, struct http_app *ret)
{
	*ret = (struct http_app){
		.on_headers = metrics_only,
		.max_discard = 64 * 1024,
		.max_discard_hard = 64 * 1024,
		.app = app,
		.max_connections = 64,
		.max_per_ip = 0,
		.idle_timeout_s = 15,
	};
	return ret;
}

const struct http_app *dispatch_app(struct app *app, struct http_app *ret)
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
	};
	return ret;
}
