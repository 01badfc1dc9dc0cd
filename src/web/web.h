/* The web application (PRODUCT.md §7) as the front door sees it:
 * src/front/front.c hands every path outside the API, /healthz and the
 * docs pages to these three calls.  Pages, sign-in, sessions and CSRF live
 * behind them; each request reads the application object from req->app. */
#ifndef LOADLINE_WEB_WEB_H
#define LOADLINE_WEB_WEB_H

#include <stdbool.h>
#include <stddef.h>

#include "http/http.h"

struct web_req;

/* Headers are in: routes the request, loads the session, answers at once
 * when it can (unknown path, wrong method, body that is no form).  Returns
 * the request's state (arena-owned). */
struct web_req *web_begin(struct http_request *req, struct http_response *res);
/* A chunk of the body (forms only; capped). */
void web_body(struct web_req *w, const char *data, size_t size);
/* The matched page's route pattern (e.g. /imports/runs/{id}), the metrics
 * label; "unmatched" when no page has this path. */
const char *web_route(const struct web_req *w);
/* The body is complete: runs the page. */
void web_finish(struct web_req *w);

#endif
