/* RFC 7807 problem bodies in exactly the SPEC's envelope. */
#ifndef LOADLINE_API_PROBLEM_H
#define LOADLINE_API_PROBLEM_H

#include <jansson.h>

#include "base/codes.h"

/* The reference URL of a code: "{docs_url}/api/errors/<CODE>" (malloc'd). */
char *problem_doc_url(const char *docs_url, enum code c);

/* Builds the eight-field envelope (type, title, status, detail, instance,
 * code, requestId, docUrl).  detail NULL = the code's summary + hint.
 * Members of extra (may be NULL; borrowed) are added after the eight. */
json_t *problem_new(enum code c, const char *detail, const char *instance,
		    const char *request_id, const char *docs_url, json_t *extra);

#endif
