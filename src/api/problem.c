/* Problem envelope builder (pure: unit-tested). */
#include "problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *problem_doc_url(const char *docs_url, enum code c)
{
	const char *name = code_name(c);
	size_t n = strlen(docs_url) + strlen(name ? name : "") + 16;
	char *u = malloc(n);
	if (!u)
		abort();
	snprintf(u, n, "%s/api/errors/%s", docs_url, name ? name : "INTERNAL_ERROR");
	return u;
}

json_t *problem_new(enum code c, const char *detail, const char *instance,
		    const char *request_id, const char *docs_url, json_t *extra)
{
	int status = code_status(c);
	if (status < 400)
		status = 500;
	char *url = problem_doc_url(docs_url, c);
	char fallback[1024];
	if (!detail) {
		snprintf(fallback, sizeof fallback, "%s %s", code_summary(c), code_hint(c));
		detail = fallback;
	}
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string(url));
	json_object_set_new(o, "title", json_string(http_reason(status)));
	json_object_set_new(o, "status", json_integer(status));
	/* json_string rejects invalid UTF-8; details may quote user input. */
	json_t *d = json_string(detail);
	json_object_set_new(o, "detail", d ? d : json_string(code_summary(c)));
	json_t *inst = json_string(instance ? instance : "");
	json_object_set_new(o, "instance", inst ? inst : json_string(""));
	json_object_set_new(o, "code", json_string(code_name(c)));
	json_object_set_new(o, "requestId", json_string(request_id ? request_id : ""));
	json_object_set_new(o, "docUrl", json_string(url));
	if (extra)
		json_object_update(o, extra);
	free(url);
	return o;
}
