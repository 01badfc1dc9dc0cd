/* Problem envelope builder (pure: unit-tested). */
#include "problem.h"

#include <stdbool.h>
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

/* The request path as a client would have sent it: bytes that are not
 * printable UTF-8 text (and '%' itself) percent-encoded again, so the
 * instance is always a string and names the path exactly. */
static json_t *instance_json(const char *path)
{
	json_t *j = json_string(path);
	bool plain = j != NULL;
	for (const unsigned char *p = (const unsigned char *)path; plain && *p; p++)
		plain = *p >= 0x20 && *p != 0x7F && *p != '%';
	if (plain)
		return j;
	json_decref(j);
	size_t n = strlen(path);
	char *out = malloc(n * 3 + 1), *o = out;
	if (!out)
		abort();
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p < 0x20 || *p >= 0x7F || *p == '%')
			o += snprintf(o, 4, "%%%02X", *p);
		else
			*o++ = (char)*p;
	}
	*o = '\0';
	j = json_string(out);
	free(out);
	return j;
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
	json_object_set_new(o, "instance", instance_json(instance ? instance : ""));
	json_object_set_new(o, "code", json_string(code_name(c)));
	json_object_set_new(o, "requestId", json_string(request_id ? request_id : ""));
	json_object_set_new(o, "docUrl", json_string(url));
	if (extra)
		json_object_update(o, extra);
	free(url);
	return o;
}
