/* The front door: the http_app every serving process runs, the top of the
 * request path.  It checks sizes and framing, serves /metrics and the error
 * reference pages, and hands each request to the API (src/api: /api/, /v1/,
 * /healthz) or to the web application (src/web: everything else), then
 * writes one access-log line (base/log.c).  It sits above api/ and web/,
 * which are siblings that never see each other, and above http/ (the
 * libmicrohttpd server, router, multipart parser), which knows none of them. */
#ifndef LOADLINE_FRONT_FRONT_H
#define LOADLINE_FRONT_FRONT_H

#include "http/http.h"

struct app;

/* The hooks to pass to http_start, bound to app (which must outlive the
 * server).  Fills *ret and returns it. */
const struct http_app *front_app(struct app *app, struct http_app *ret);
/* The LOADLINE_METRICS_LISTEN listener's app: GET /metrics only. */
const struct http_app *front_metrics_app(struct app *app, struct http_app *ret);

#endif
