/* The API client's shared plumbing (client.h). */
#include "client.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/clock.h"
#include "common.h"
#include "term.h"

/* Retries of one request answered 429 or 503 before giving up. */
#define MAX_RETRIES 20

static void client_sleep_ms(int ms);

static void trim_slashes(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '/')
		s[--n] = '\0';
}

int client_init(struct client *c, const char *cmd, int argc, char **argv)
{
	const char *url = opt(argc, argv, "--url");
	if (!url)
		url = getenv("LOADLINE_URL");
	snprintf(c->base, sizeof c->base, "%s", url && *url ? url : "http://127.0.0.1:8080");
	trim_slashes(c->base);
	const char *app = getenv("LOADLINE_APP_URL");
	snprintf(c->app, sizeof c->app, "%s", app && *app ? app : c->base);
	trim_slashes(c->app);
	c->cmd = cmd;
	c->token = opt(argc, argv, "--token");
	if (!c->token)
		c->token = getenv("LOADLINE_TOKEN");
	c->json = flag(argc, argv, "--json");
	const char *p = getenv("LOADLINE_POLL_MS");
	c->poll_ms = p ? client_atoi(p) : 0;
	p = getenv("LOADLINE_STALL_S");
	c->stall_s = p ? client_atoi(p) : 0;
	c->timeout = opt(argc, argv, "--timeout");
	if (!c->timeout)
		c->timeout = CLIENT_TIMEOUT_DEFAULT;
	int64_t ms;
	if (duration_parse(c->timeout, &ms)) {
		fprintf(stderr, "loadline %s: --timeout takes a duration such as 90s, 10m or 1h (0: none)\n", cmd);
		return -1;
	}
	c->deadline = ms ? mono_ms() + (double)ms : 0;
	return 0;
}

/* Milliseconds left before --timeout, at least 1; LONG_MAX when none. */
static long left_ms(const struct client *c)
{
	if (!c->deadline)
		return LONG_MAX;
	double left = c->deadline - mono_ms();
	return left < 1 ? 0 : (long)left;
}

bool client_expired(const struct client *c, const char *what)
{
	if (left_ms(c) > 0)
		return false;
	char shown[512];
	fprintf(stderr, "loadline %s: gave up after %s (--timeout)%s%s\n", c->cmd, c->timeout, what ? ": " : "",
		what ? term_clean(what, shown, sizeof shown) : "");
	return true;
}

void client_nap(const struct client *c, int ms)
{
	long left = left_ms(c);
	client_sleep_ms(left < ms ? (int)left : ms);
}

int client_atoi(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return (end == s || *end || errno || v < 0 || v > 1000000) ? -1 : (int)v;
}

static void client_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool client_wants_help(int argc, char **argv)
{
	return flag(argc, argv, "--help") || flag(argc, argv, "-h");
}

void client_problem(const struct client *c, const struct hc_response *res)
{
	json_t *p = json_loads(buf_str(&res->body), 0, NULL);
	const char *code = json_string_value(json_object_get(p, "code"));
	const char *detail = json_string_value(json_object_get(p, "detail"));
	if (!detail)
		detail = json_string_value(json_object_get(p, "title"));
	char c1[128], d1[2048];
	fprintf(stderr, "loadline %s: %ld %s: %s\n", c->cmd, res->status,
		code ? term_clean(code, c1, sizeof c1) : "HTTP_ERROR",
		detail ? term_clean(detail, d1, sizeof d1) : "the server answered without a problem body");
	json_decref(p);
}

/* The Bearer token goes with every request, so only the configured base
 * URL's origin is followed: a URL on another host, port or scheme (https ->
 * http would be a downgrade) is refused.  A path must start with "/":
 * appended to the base, "@evil.example/" would become userinfo and move
 * the host. */
int client_url(const struct client *c, const char *path, char *out, size_t cap)
{
	bool absolute = !strncasecmp(path, "http://", 7) || !strncasecmp(path, "https://", 8);
	int n = absolute ? snprintf(out, cap, "%s", path) : snprintf(out, cap, "%s%s", c->base, path);
	if ((absolute || *path == '/') && n > 0 && (size_t)n < cap && hc_same_origin(c->base, out))
		return 0;
	char shown[256];
	fprintf(stderr, "loadline %s: refusing to follow %s: not on %s, the configured server (the API token is "
		"sent only there)\n", c->cmd, term_clean(path, shown, sizeof shown), c->base);
	return -1;
}

int client_request(const struct client *c, const struct hc_request *rq, struct hc_response *res)
{
	return client_request_for(c, rq, res, NULL);
}

int client_request_for(const struct client *c, const struct hc_request *rq, struct hc_response *res,
		       const char *what)
{
	for (int attempt = 0;; attempt++) {
		if (client_expired(c, what))
			return -1;
		struct hc_request bounded = *rq;
		long left = left_ms(c);
		bounded.timeout_ms = left == LONG_MAX ? 0 : left;
		bounded.stall_s = c->stall_s;
		if (hc_perform(&bounded, res)) {
			if (!(res->timed_out && client_expired(c, what ? what : res->error)))
				fprintf(stderr, "loadline %s: %s %s: %s\n", c->cmd,
					res->timed_out ? "no answer from" : "cannot reach", c->base, res->error);
			hc_response_done(res);
			return -1;
		}
		if ((res->status != 429 && res->status != 503) || attempt == MAX_RETRIES)
			return 0;
		int ms = res->retry_after_s >= 0 ? res->retry_after_s * 1000 : c->poll_ms > 0 ? c->poll_ms : 5000;
		if (!c->json)
			fprintf(stderr, "loadline %s: server answered %ld, retrying in %d ms\n", c->cmd, res->status, ms);
		hc_response_done(res);
		client_nap(c, ms);
	}
}

json_t *client_get_json(const struct client *c, const char *path)
{
	char url[2048];
	if (client_url(c, path, url, sizeof url))
		return NULL;
	struct hc_request rq = {.method = "GET", .url = url, .token = c->token};
	struct hc_response res;
	if (client_request(c, &rq, &res))
		return NULL;
	json_t *o = NULL;
	if (res.status == 200)
		o = json_loads(buf_str(&res.body), 0, NULL);
	else
		client_problem(c, &res);
	hc_response_done(&res);
	return o;
}

void client_print_json(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	printf("%s\n", s ? s : "null");
	free(s);
}

json_t *client_call(const struct client *c, const char *method, const char *path, json_t *body, long *ret_status)
{
	char url[2048];
	if (ret_status)
		*ret_status = 0;
	if (client_url(c, path, url, sizeof url))
		return NULL;
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	struct hc_request rq = {.method = method, .url = url, .token = c->token, .json_body = text};
	struct hc_response res;
	int rc = client_request(c, &rq, &res);
	free(text);
	if (rc)
		return NULL;
	if (ret_status)
		*ret_status = res.status;
	json_t *o = NULL;
	if (res.status >= 200 && res.status < 300)
		o = res.body.len ? json_loads(buf_str(&res.body), 0, NULL) : json_object();
	else
		client_problem(c, &res);
	hc_response_done(&res);
	return o;
}

int client_start(struct client *c, const char *cmd, const char *usage, int argc, char **argv,
		 const char *const *allowed, const char *const *bools, int *ret_exit)
{
	*ret_exit = EXIT_ERROR;
	if (client_wants_help(argc, argv)) {
		fputs(usage, stdout);
		*ret_exit = EXIT_OK;
		return 1;
	}
	if (opts_check(argc, argv, allowed, bools, usage) || client_init(c, cmd, argc, argv))
		return 1;
	if (!c->token || !*c->token) {
		fprintf(stderr, "loadline %s: no API token: set LOADLINE_TOKEN\n", cmd);
		return 1;
	}
	return 0;
}

const char *client_arg(int argc, char **argv, const char *const *allowed, int n)
{
	for (int i = 1; i < argc; i++) {
		bool takes = false;
		for (const char *const *w = allowed; *w; w++)
			takes |= !strcmp(argv[i], *w);
		if (takes) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--", 2) && n-- == 0)
			return argv[i];
	}
	return NULL;
}
