/* libcurl easy interface, one handle per request: the client makes a few
 * requests a minute, so reuse would buy nothing and cost shared state. */
#include "http_client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Responses are JSON documents of at most one page of results. */
#define BODY_MAX (64u << 20)

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct hc_response *res = ctx;
	return buf_append(&res->body, p, size * n) ? 0 : size * n;
}

static void header_value(const char *line, size_t len, const char *name, char *out, size_t cap)
{
	size_t nl = strlen(name);
	if (len <= nl + 1 || strncasecmp(line, name, nl) || line[nl] != ':')
		return;
	const char *v = line + nl + 1, *end = line + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	snprintf(out, cap, "%.*s", (int)(end - v), v);
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct hc_response *res = ctx;
	size_t len = size * n;
	char ra[32] = "", applied[64] = "";
	header_value(p, len, "ETag", res->etag, sizeof res->etag);
	header_value(p, len, "Preference-Applied", applied, sizeof applied);
	if (!strncasecmp(applied, "wait", 4))
		res->waited = true;
	header_value(p, len, "Location", res->location, sizeof res->location);
	header_value(p, len, "Content-Disposition", res->content_disposition, sizeof res->content_disposition);
	header_value(p, len, "Retry-After", ra, sizeof ra);
	if (*ra) {
		char *end;
		long v = strtol(ra, &end, 10);
		if (end != ra && !*end && v >= 0 && v <= 3600)
			res->retry_after_s = (int)v;
	}
	return len;
}

/* Progress is not the result: it goes to stderr, so stdout stays the
 * summary a script reads. */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct hc_request *rq = ctx;
	(void)dltotal;
	(void)dlnow;
	if (ultotal > 0)
		fprintf(stderr, "\r%suploading %3d%% (%lld of %lld bytes)", rq->progress_label ? rq->progress_label : "",
			(int)(ulnow * 100 / ultotal), (long long)ulnow, (long long)ultotal);
	fflush(stderr);
	return 0;
}

static struct curl_slist *headers(const struct hc_request *rq)
{
	struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
	char line[600];
	if (rq->token) {
		snprintf(line, sizeof line, "Authorization: Bearer %s", rq->token);
		h = curl_slist_append(h, line);
	}
	if (rq->if_none_match) {
		snprintf(line, sizeof line, "If-None-Match: %s", rq->if_none_match);
		h = curl_slist_append(h, line);
	}
	if (rq->dry_run)
		h = curl_slist_append(h, "Service-Dry-Run: true");
	if (rq->json_body)
		h = curl_slist_append(h, "Content-Type: application/json");
	if (rq->prefer_wait_s > 0) {
		snprintf(line, sizeof line, "Prefer: wait=%d", rq->prefer_wait_s);
		h = curl_slist_append(h, line);
	}
	return h;
}

/* A server that accepts and then says nothing must not hold a cron job
 * forever: connect within 10 s, then at least a byte every stall_s seconds
 * either way, and the whole request within what is left of the command's
 * --timeout.  Redirects are never followed (libcurl's default, kept): the
 * token must not go where a Location points. */
static void set_limits(CURL *c, const struct hc_request *rq)
{
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, rq->stall_s > 0 ? rq->stall_s : 60L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms > 0 ? rq->timeout_ms : 0L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
}

/* The method and a JSON body; a POST without one sends an empty body (the
 * rerun and the like take none). */
static void set_method(CURL *c, const struct hc_request *rq)
{
	bool post = !strcmp(rq->method, "POST");
	if (rq->file_path)
		return;
	if (post || rq->json_body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->json_body ? rq->json_body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)(rq->json_body ? strlen(rq->json_body) : 0));
	}
	if (!post && strcmp(rq->method, "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
}

int hc_perform(const struct hc_request *rq, struct hc_response *res)
{
	memset(res, 0, sizeof *res);
	buf_init(&res->body, BODY_MAX);
	res->retry_after_s = -1;
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(res->error, sizeof res->error, "cannot start libcurl");
		return -1;
	}
	struct curl_slist *h = headers(rq);
	curl_mime *mime = NULL;
	curl_easy_setopt(c, CURLOPT_URL, rq->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, res);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, res);
	set_limits(c, rq);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, res->error);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "loadline-push/" LOADLINE_VERSION);
	set_method(c, rq);
	if (rq->file_path) {
		mime = curl_mime_init(c);
		curl_mimepart *part = curl_mime_addpart(mime);
		curl_mime_name(part, "file");
		curl_mime_filedata(part, rq->file_path);
		curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
	}
	if (rq->progress) {
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, rq);
	}
	CURLcode rc = curl_easy_perform(c);
	if (rq->progress)
		fputc('\n', stderr);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	} else {
		if (!*res->error)
			snprintf(res->error, sizeof res->error, "%s", curl_easy_strerror(rc));
		res->timed_out = rc == CURLE_OPERATION_TIMEDOUT;
		res->status = 0;
	}
	curl_mime_free(mime);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return rc == CURLE_OK ? 0 : -1;
}

void hc_response_done(struct hc_response *res)
{
	buf_done(&res->body);
}

/* The scheme, host and port of url, lower-cased, as "scheme://host:port"
 * into out; -1 when libcurl cannot parse it. */
static int origin_of(const char *url, char *out, size_t cap)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int rc = -1;
	/* GUESS_SCHEME like curl_easy_perform: a base URL written without one
	 * ("127.0.0.1:8080") is http. */
	if (u && !curl_url_set(u, CURLUPART_URL, url, CURLU_GUESS_SCHEME) && !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
	    !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
		int n = snprintf(out, cap, "%s://%s:%s", scheme, host, port);
		rc = n > 0 && (size_t)n < cap ? 0 : -1;
		for (char *p = out; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return rc;
}

bool hc_same_origin(const char *base, const char *url)
{
	char a[600], b[600];
	return !origin_of(base, a, sizeof a) && !origin_of(url, b, sizeof b) && !strcmp(a, b);
}
