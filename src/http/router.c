/* Segment-by-segment path matching. */
#include "router.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Next segment of s after a '/', as [*start, *len); returns false at end. */
static bool next_seg(const char **s, const char **start, size_t *len)
{
	if (**s != '/')
		return false;
	(*s)++;
	*start = *s;
	while (**s && **s != '/')
		(*s)++;
	*len = (size_t)(*s - *start);
	return true;
}

static bool match_path(const char *pattern, const char *path, struct route_params *params)
{
	const char *p = pattern, *q = path;
	params->n = 0;
	for (;;) {
		const char *ps = NULL, *qs = NULL;
		size_t pl = 0, ql = 0;
		bool more_p = next_seg(&p, &ps, &pl);
		bool more_q = next_seg(&q, &qs, &ql);
		if (!more_p || !more_q)
			return !more_p && !more_q && *q == '\0';
		if (pl >= 2 && ps[0] == '{' && ps[pl - 1] == '}') {
			if (ql == 0 || ql >= sizeof params->values[0] || params->n == ROUTE_MAX_PARAMS)
				return false;
			params->names[params->n] = ps + 1;
			params->name_lens[params->n] = pl - 2;
			memcpy(params->values[params->n], qs, ql);
			params->values[params->n][ql] = '\0';
			params->n++;
		} else if (pl != ql || memcmp(ps, qs, pl)) {
			return false;
		}
	}
}

enum route_result router_match(const struct route *routes, size_t n, const char *method,
			       const char *path, const struct route **ret_route,
			       struct route_params *params, char *allow, size_t allow_len)
{
	bool path_seen = false;
	size_t used = 0;
	if (allow_len)
		allow[0] = '\0';
	/* Captures go straight into params (each match starts it afresh); they
	 * mean something only when a route is found. */
	for (size_t i = 0; i < n; i++) {
		if (!match_path(routes[i].pattern, path, params))
			continue;
		if (!strcmp(routes[i].method, method)) {
			*ret_route = &routes[i];
			return ROUTE_FOUND;
		}
		path_seen = true;
		if (allow_len && !strstr(allow, routes[i].method)) {
			int w = snprintf(allow + used, allow_len - used, "%s%s", used ? ", " : "", routes[i].method);
			if (w > 0 && (size_t)w < allow_len - used)
				used += (size_t)w;
		}
	}
	params->n = 0;
	return path_seen ? ROUTE_NO_METHOD : ROUTE_NO_PATH;
}

const char *route_param(const struct route_params *p, const char *name)
{
	size_t nl = strlen(name);
	for (int i = 0; i < p->n; i++)
		if (p->name_lens[i] == nl && !memcmp(p->names[i], name, nl))
			return p->values[i];
	return NULL;
}
