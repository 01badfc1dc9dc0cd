/* The OpenAPI 3.1 description of the service, built from the code table
 * and the route list so it cannot drift from either. */
#ifndef LOADLINE_API_OPENAPI_H
#define LOADLINE_API_OPENAPI_H

#include <jansson.h>

/* A new reference (caller decrefs). server_url may be NULL. */
json_t *openapi_document(const char *server_url);
/* The path under which the document describes a router pattern (the SPEC's
 * path as written, e.g. /api/v1/imports/jobs for /api/v1/imports/{kind}). */
const char *openapi_path_of(const char *route);

#endif
