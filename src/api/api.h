/* The public API: routing, authentication, rate limiting and problem
 * responses.  The front door (src/front/front.c) calls api_begin/
 * api_body/api_finish for /api/, /v1/ and /healthz.  Endpoints live in their
 * own files and see only this interface. */
#ifndef LOADLINE_API_API_H
#define LOADLINE_API_API_H

#include <jansson.h>
#include <stdbool.h>

#include "base/codes.h"
#include "http/http.h"
#include "http/router.h"
#include "store/store.h"

struct app;

/* Per-request state of the API layer. */
struct api_ctx {
	const struct app *app;      /* store, limits, URLs (src/app/app.h) */
	const struct endpoint *ep;
	const char *route;          /* the matched route's pattern (metrics label), or NULL */
	struct route_params params;
	bool authed;
	struct api_key key;
	struct org org;
	void *state;       /* the endpoint's, arena-allocated */
	void *body;        /* a small body collected by api_collect_body */
};

/* An endpoint: finish is required; begin/body only for streamed uploads.
 * begin runs after authentication, before any body arrives. */
struct endpoint {
	void (*begin)(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
	void (*body)(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
		     const char *data, size_t size);
	void (*finish)(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
};

/* The three steps of a request (headers in; each body chunk; body
 * complete).  api_begin may answer at once (authentication, routing). */
struct api_ctx *api_begin(struct http_request *req, struct http_response *res);
void api_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
	      size_t size);
void api_finish(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
/* The error reference page of code, the index when code is "", or the API
 * reference page (rendered from docs/openapi.json) when code is NULL. */
void api_docs_page(struct http_request *req, struct http_response *res, const char *code);

/* Answers with a problem body for code (detail NULL = the table's text).
 * extra (may be NULL) is borrowed. Adds WWW-Authenticate / Retry-After where
 * the code calls for them. */
void api_problem(struct http_request *req, struct http_response *res, enum code c,
		 const char *detail, json_t *extra);
/* Answers a failed store call: 503 SERVICE_UNAVAILABLE (with Retry-After)
 * when the database is unreachable, else 500 INTERNAL_ERROR with the cause
 * logged under the request id. */
void api_store_failed(struct http_request *req, struct http_response *res, enum code rc);
/* The {id} path parameter when it is a well-formed id with prefix ("run",
 * "load" ...); else answers 404 NOT_FOUND ("No <what> with this id ...")
 * and returns NULL, so a malformed id never reaches the database. */
const char *api_id(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *prefix,
		   const char *what);
/* Answers with body as JSON (stolen). */
void api_json(struct http_request *req, struct http_response *res, int status, json_t *body);
/* Answers 200 with body (stolen) and a strong ETag, or 304 when the
 * request's If-None-Match has that ETag.  Returns the ETag (arena), or NULL
 * when it answered 500 instead. */
const char *api_json_etag(struct http_request *req, struct http_response *res, json_t *body);
/* api_json_etag in two steps, for a handler that decides between holding
 * and answering before it answers (a long poll): body serialized into the
 * request arena and its ETag into etag (NULL, answered 500, when it cannot
 * be); then whether If-None-Match names it, and the 200 or 304. */
const char *api_json_etagged(struct http_request *req, struct http_response *res, json_t *body, char etag[40]);
bool api_etag_matches(const struct http_request *req, const char *etag);
void api_respond_etagged(struct http_request *req, struct http_response *res, const char *s, const char *etag);

/* JSON request bodies: an endpoint's body step collects up to
 * API_JSON_BODY_MAX bytes (413 TOO_LARGE beyond); api_body_json then gives
 * the parsed object, or NULL after answering 400 INVALID_REQUEST (not a
 * JSON object, or not sent as application/json). */
#define API_JSON_BODY_MAX 16384
void api_collect_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
		      size_t size);
/* The same for the one endpoint whose body is a list of rows (POST
 * /api/v1/imports/runs/{id}/corrections): up to API_JSON_LARGE_BODY_MAX. */
#define API_JSON_LARGE_BODY_MAX (1024 * 1024)
void api_collect_large_body(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
			    const char *data, size_t size);
json_t *api_body_json(struct api_ctx *ctx, struct http_request *req, struct http_response *res);
/* json_string that never fails: invalid UTF-8 becomes U+FFFD replacements. */
json_t *api_str(const char *s);
/* ISO timestamp or JSON null for 0. */
json_t *api_time(int64_t ms);

/* The list of routes, for the OpenAPI document's self-check. */
const struct route *api_routes(size_t *ret_n);

/* The API's process-wide state (the terminal-run ETag cache, the upload
 * semaphore: src/api/state.h), owned by the application object (app->api)
 * of every process that serves the API. */
struct api_state;
struct api_state *api_state_new(void);
void api_state_free(struct api_state *s);

#endif
