/* A small blocking HTTP client over libcurl for the command-line client
 * (`loadline push`, `loadline runs`): one request at a time, the body kept
 * in a capped buffer, the few response headers the client acts on kept. */
#ifndef LOADLINE_CLI_HTTP_CLIENT_H
#define LOADLINE_CLI_HTTP_CLIENT_H

#include <stdbool.h>

#include "base/buf.h"

struct hc_request {
	const char *method;         /* "GET", "POST", "PATCH" or "DELETE" */
	const char *url;            /* absolute */
	const char *token;          /* Bearer token, or NULL */
	const char *if_none_match;  /* or NULL */
	bool dry_run;               /* sends Service-Dry-Run: true */
	const char *file_path;      /* POST: multipart part "file" from this path */
	const char *json_body;      /* POST/PATCH: this JSON as the body (or NULL: none) */
	bool progress;              /* upload progress on stderr (a terminal) */
	const char *progress_label; /* before the progress text ("dry run: "), or NULL */
	long timeout_ms;            /* the whole request, or 0: no limit */
	long stall_s;               /* give up when no byte moves for this long; 0: 60 s */
	int prefer_wait_s;          /* > 0: Prefer: wait=N (a long poll, RFC 7240) */
};

struct hc_response {
	long status;                /* 0 when the request did not complete */
	struct buf body;
	char etag[128];
	char location[512];
	char content_disposition[512];
	int retry_after_s;          /* -1 when absent */
	char error[256];            /* transport error, when status is 0 */
	bool timed_out;             /* the error was a timeout (timeout_ms or stall_s) */
	bool waited;                /* Preference-Applied: wait=... (the server long-polls) */
};

/* Performs the request; returns 0 when an HTTP response arrived (any
 * status), -1 on a transport error (message in res->error).  The caller
 * frees res with hc_response_done. */
int hc_perform(const struct hc_request *rq, struct hc_response *res);
void hc_response_done(struct hc_response *res);

/* True when url has the scheme, host and port of base (the default port
 * of the scheme when none is written): the only origin the client sends
 * its token to.  False for anything libcurl cannot parse. */
bool hc_same_origin(const char *base, const char *url);

#endif
