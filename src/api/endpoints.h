/* Every endpoint the router can reach (internal to src/api). */
#ifndef LOADLINE_API_ENDPOINTS_H
#define LOADLINE_API_ENDPOINTS_H

#include "api.h"

extern const struct endpoint ep_whoami;
extern const struct endpoint ep_openapi;
extern const struct endpoint ep_healthz;

/* Serves the error reference page for a code, or the index. */
void docs_error_page(struct http_request *req, struct http_response *res, const char *code);
void docs_error_index(struct http_request *req, struct http_response *res);

#endif
