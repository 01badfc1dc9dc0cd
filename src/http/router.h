/* Method + path-pattern routing.  Patterns are literal segments and
 * "{name}" captures: "/api/v1/imports/runs/{id}/results/{bucket}". */
#ifndef LOADLINE_HTTP_ROUTER_H
#define LOADLINE_HTTP_ROUTER_H

#include <stddef.h>

#define ROUTE_MAX_PARAMS 6
#define ROUTE_MAX_SEGMENTS 16

struct route {
	const char *method;
	const char *pattern;
	void *handler;      /* the application's; the router never calls it */
	unsigned flags;     /* the application's */
};

struct route_params {
	int n;
	const char *names[ROUTE_MAX_PARAMS];
	size_t name_lens[ROUTE_MAX_PARAMS];
	char values[ROUTE_MAX_PARAMS][256];
};

enum route_result { ROUTE_FOUND, ROUTE_NO_PATH, ROUTE_NO_METHOD };

/* Finds the route for method and path among routes[0..n).  On ROUTE_FOUND
 * sets *ret_route and fills params; on ROUTE_NO_METHOD writes the allowed
 * methods, comma-separated, into allow[allow_len]. A captured segment longer
 * than 255 bytes never matches. */
enum route_result router_match(const struct route *routes, size_t n, const char *method,
			       const char *path, const struct route **ret_route,
			       struct route_params *params, char *allow, size_t allow_len);
/* The captured value for name, or NULL. */
const char *route_param(const struct route_params *p, const char *name);

#endif
