/* The front door: the http_app every serving process runs.  It checks
 * sizes, serves the error reference pages, and hands each request to the
 * API (src/api: /api/, /v1/, /healthz) or to the web application (src/web:
 * everything else), then writes one access-log line.  api/ and web/ are
 * siblings that never see each other or libmicrohttpd. */
#ifndef LOADLINE_HTTP_DISPATCH_H
#define LOADLINE_HTTP_DISPATCH_H

#include "http/http.h"

struct app;

/* The hooks to pass to http_start, bound to app (which must outlive the
 * server).  Fills *ret and returns it. */
const struct http_app *dispatch_app(struct app *app, struct http_app *ret);
/* The LOADLINE_METRICS_LISTEN listener's app: GET /metrics only. */
const struct http_app *dispatch_metrics_app(struct app *app, struct http_app *ret);

/* The access-log line for a request, as log_json writes it, into out:
 * its length (with the newline), or 0 when a field needs escaping and
 * log_json must write it.  ts is the time_iso of now.  (Exposed for tests.) */
#include <stddef.h>
size_t dispatch_access_line(char *out, size_t cap, const char *ts, const struct http_request *req, int status,
			    double duration_ms);

#endif
