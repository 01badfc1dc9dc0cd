/* The public API as an http_app: routing, authentication, rate limiting,
 * problem responses and the access log.  Endpoints live in their own files
 * and see only this interface. */
#ifndef LOADLINE_API_API_H
#define LOADLINE_API_API_H

#include <jansson.h>
#include <stdbool.h>

#include "base/codes.h"
#include "http/http.h"
#include "http/router.h"
#include "store/store.h"

struct ratelimit;
struct web_req;

/* Process-wide dependencies of the API, set once before serving. */
struct api_env {
	struct store *store;
	struct ratelimit *rl;
	unsigned char cursor_key[32];   /* page-cursor MAC key, from the database */
};
extern struct api_env g_api;

/* Per-request state of the API layer. */
struct api_ctx {
	const struct endpoint *ep;
	struct route_params params;
	bool authed;
	struct api_key key;
	struct org org;
	double t0;
	void *state;       /* the endpoint's, arena-allocated */
	struct web_req *web;  /* set when the web app serves the request */
};

/* An endpoint: finish is required; begin/body only for streamed uploads.
 * begin runs after authentication, before any body arrives. */
struct endpoint {
	void (*begin)(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
	void (*body)(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
		     const char *data, size_t size);
	void (*finish)(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
};

/* The http_app to pass to http_start. */
const struct http_app *api_app(void);

/* Answers with a problem body for code (detail NULL = the table's text).
 * extra (may be NULL) is borrowed. Adds WWW-Authenticate / Retry-After where
 * the code calls for them. */
void api_problem(struct http_request *req, struct http_response *res, enum code c,
		 const char *detail, json_t *extra);
/* Answers with body as JSON (stolen). */
void api_json(struct http_request *req, struct http_response *res, int status, json_t *body);
/* json_string that never fails: invalid UTF-8 becomes U+FFFD replacements. */
json_t *api_str(const char *s);
/* ISO timestamp or JSON null for 0. */
json_t *api_time(int64_t ms);

/* The list of routes, for the OpenAPI document's self-check. */
const struct route *api_routes(size_t *ret_n);

#endif
