/* `loadline push FILE` and `loadline runs`: the integration engineer's
 * client of the imports API (PRODUCT §9).  Exit statuses are the contract a
 * cron job or CI pipeline branches on: 0 SUCCEEDED/SKIPPED, 2 PARTIAL,
 * 3 FAILED/CANCELLED, 4 staged for review, 1 usage, network or
 * authentication error. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "http_client.h"
#include "term.h"
#include "web/csv.h"

enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_PARTIAL = 2, EXIT_FAILED = 3, EXIT_STAGED = 4 };

/* Retries of one request answered 429 or 503 before giving up. */
#define MAX_RETRIES 20

struct client {
	char base[512];
	const char *token;
	bool json, dry_run, no_wait, tty;
	const char *results_dir;
	int poll_ms;      /* LOADLINE_POLL_MS: fixed delay between polls (tests), or 0 */
};

/* A non-negative decimal up to 1,000,000, or -1. */
static int atoi_clamped(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return (end == s || *end || errno || v < 0 || v > 1000000) ? -1 : (int)v;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The problem's code and detail on stderr, e.g.
 * "loadline push: 401 UNAUTHENTICATED: The token is missing." */
static void report_problem(const char *cmd, const struct hc_response *res)
{
	json_t *p = json_loads(buf_str(&res->body), 0, NULL);
	const char *code = json_string_value(json_object_get(p, "code"));
	const char *detail = json_string_value(json_object_get(p, "detail"));
	if (!detail)
		detail = json_string_value(json_object_get(p, "title"));
	char c1[128], d1[2048];
	fprintf(stderr, "loadline %s: %ld %s: %s\n", cmd, res->status, code ? term_clean(code, c1, sizeof c1) : "HTTP_ERROR",
		detail ? term_clean(detail, d1, sizeof d1) : "the server answered without a problem body");
	json_decref(p);
}

/* Absolute URL of a server path, or an absolute URL the server named
 * (existingRunUrl, nextPageUrl).  The Bearer token goes with every request,
 * so only the configured base URL's origin is followed: a URL on another
 * host, port or scheme (https -> http would be a downgrade) is refused
 * with a message, and -1 returned.  A path must start with "/": appended
 * to the base, "@evil.example/" would become userinfo and move the host. */
static int url_of(const struct client *c, const char *cmd, const char *path, char *out, size_t cap)
{
	bool absolute = !strncasecmp(path, "http://", 7) || !strncasecmp(path, "https://", 8);
	int n = absolute ? snprintf(out, cap, "%s", path) : snprintf(out, cap, "%s%s", c->base, path);
	if ((absolute || *path == '/') && n > 0 && (size_t)n < cap && hc_same_origin(c->base, out))
		return 0;
	char shown[256];
	fprintf(stderr, "loadline %s: refusing to follow %s: not on %s, the configured server (the API token is "
		"sent only there)\n", cmd, term_clean(path, shown, sizeof shown), c->base);
	return -1;
}

/* The delay before the next poll: LOADLINE_POLL_MS when set (tests), else
 * what the server asked for, else the client's own backoff. */
static int delay_ms(const struct client *c, int retry_after_s, int fallback_s)
{
	if (c->poll_ms > 0)
		return c->poll_ms;
	return (retry_after_s >= 0 ? retry_after_s : fallback_s) * 1000;
}

/* Performs rq, waiting and retrying while the server answers 429 or 503. */
static int request(const struct client *c, const char *cmd, const struct hc_request *rq, struct hc_response *res)
{
	for (int attempt = 0;; attempt++) {
		if (hc_perform(rq, res)) {
			fprintf(stderr, "loadline %s: cannot reach %s: %s\n", cmd, c->base, res->error);
			hc_response_done(res);
			return -1;
		}
		if ((res->status != 429 && res->status != 503) || attempt == MAX_RETRIES)
			return 0;
		int ms = res->retry_after_s >= 0 ? res->retry_after_s * 1000 : c->poll_ms > 0 ? c->poll_ms : 5000;
		if (!c->json)
			fprintf(stderr, "loadline %s: server answered %ld, retrying in %d ms\n", cmd, res->status, ms);
		hc_response_done(res);
		sleep_ms(ms);
	}
}

static json_t *get_json(const struct client *c, const char *cmd, const char *path)
{
	char url[2048];
	if (url_of(c, cmd, path, url, sizeof url))
		return NULL;
	struct hc_request rq = {.method = "GET", .url = url, .token = c->token};
	struct hc_response res;
	if (request(c, cmd, &rq, &res))
		return NULL;
	json_t *o = NULL;
	if (res.status == 200)
		o = json_loads(buf_str(&res.body), 0, NULL);
	else
		report_problem(cmd, &res);
	hc_response_done(&res);
	return o;
}

static int jint(json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void print_state(json_t *run)
{
	json_t *n = json_object_get(run, "counts");
	char id[128], state[64];
	printf("%s %s: %d succeeded, %d warnings, %d failed, %d skipped\n", term_clean(jstr(run, "id"), id, sizeof id),
	       term_clean(jstr(run, "state"), state, sizeof state),
	       jint(n, "succeeded"), jint(n, "warnings"), jint(n, "failed"), jint(n, "skipped"));
	fflush(stdout);
}

/* JSON for a terminal: every character past ASCII (C1 controls and bidi
 * overrides included) and every control character escaped as \uNNNN. */
static void print_json(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	printf("%s\n", s ? s : "null");
	free(s);
}

static bool run_done(json_t *run)
{
	const char *s = jstr(run, "state");
	return json_object_get(run, "nextAction") || !strcmp(s, "SUCCEEDED") || !strcmp(s, "PARTIAL") ||
	       !strcmp(s, "FAILED") || !strcmp(s, "SKIPPED") || !strcmp(s, "CANCELLED");
}

static int exit_status(json_t *run)
{
	const char *s = jstr(run, "state");
	if (!strcmp(s, "SUCCEEDED") || !strcmp(s, "SKIPPED"))
		return EXIT_OK;
	if (!strcmp(s, "PARTIAL"))
		return EXIT_PARTIAL;
	if (!strcmp(s, "FAILED") || !strcmp(s, "CANCELLED"))
		return EXIT_FAILED;
	if (json_object_get(run, "nextAction"))
		return EXIT_STAGED;
	return EXIT_OK;   /* --no-wait: accepted */
}

/* Polls the run until it is terminal or staged, with If-None-Match; the
 * delay starts at 5 s and doubles to 30 s unless Retry-After says
 * otherwise.  Takes ownership of run; returns the final one or NULL. */
static json_t *wait_run(const struct client *c, const char *path, json_t *run)
{
	char url[2048], etag[128] = "", last[32] = "";
	if (url_of(c, "push", path, url, sizeof url)) {
		json_decref(run);
		return NULL;
	}
	int backoff_s = 5, retry_after = -1;
	while (!run || !run_done(run)) {
		if (run && !c->json && strcmp(last, jstr(run, "state"))) {
			snprintf(last, sizeof last, "%s", jstr(run, "state"));
			print_state(run);
		}
		sleep_ms(delay_ms(c, retry_after, backoff_s));
		if (retry_after < 0 && backoff_s < 30)
			backoff_s = backoff_s * 2 > 30 ? 30 : backoff_s * 2;
		struct hc_request rq = {.method = "GET", .url = url, .token = c->token,
					.if_none_match = *etag ? etag : NULL};
		struct hc_response res;
		if (request(c, "push", &rq, &res)) {
			json_decref(run);
			return NULL;
		}
		retry_after = res.retry_after_s;
		if (res.status == 200) {
			json_t *o = json_loads(buf_str(&res.body), 0, NULL);
			if (o) {
				json_decref(run);
				run = o;
				snprintf(etag, sizeof etag, "%s", res.etag);
			}
		} else if (res.status != 304) {
			report_problem("push", &res);
			hc_response_done(&res);
			json_decref(run);
			return NULL;
		}
		hc_response_done(&res);
	}
	return run;
}

/* One CSV line per error or warning of a result row (one line when it has
 * none), cells made formula-safe by csv_cell like the web app's download. */
static void csv_result(struct buf *b, json_t *row)
{
	json_t *src = json_object_get(row, "source"), *list = json_object_get(row, "errors");
	if (!json_array_size(list))
		list = json_object_get(row, "warnings");
	size_t n = json_array_size(list) ? json_array_size(list) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(list, i);
		char idx[24];
		snprintf(idx, sizeof idx, "%d", jint(row, "rowIndex"));
		const char *cells[] = {idx, jstr(src, "jobCode"), jstr(src, "loadNo"), jstr(e, "code"),
				       jstr(e, "field"), jstr(e, "column"), jstr(e, "message"), jstr(row, "reason")};
		for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++)
			csv_cell(b, cells[k], k == 0);
		csv_row_end(b);
	}
}

static int write_bucket(const struct client *c, const char *run_id, const char *bucket)
{
	char path[1024];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/results/%s?limit=100", run_id, bucket);
	struct buf b;
	buf_init(&b, (size_t)1 << 30);
	const char *header[] = {"rowIndex", "jobCode", "loadNo", "code", "field", "column", "message", "reason"};
	for (size_t k = 0; k < sizeof header / sizeof header[0]; k++)
		csv_cell(&b, header[k], k == 0);
	csv_row_end(&b);
	size_t rows = 0;
	for (;;) {
		json_t *page = get_json(c, "push", path);
		if (!page) {
			buf_done(&b);
			return -1;
		}
		size_t i;
		json_t *row;
		json_array_foreach(json_object_get(page, "data"), i, row) {
			csv_result(&b, row);
			rows++;
		}
		const char *next = json_string_value(json_object_get(page, "nextPageUrl"));
		if (next)
			snprintf(path, sizeof path, "%s", next);
		json_decref(page);
		if (!next)
			break;
	}
	int rc = 0;
	if (rows) {
		char file[1024];
		snprintf(file, sizeof file, "%s/%s.csv", c->results_dir, bucket);
		FILE *f = fopen(file, "wb");
		if (!f || fwrite(buf_str(&b), 1, b.len, f) != b.len || fclose(f)) {
			fprintf(stderr, "loadline push: cannot write %s: %s\n", file, strerror(errno));
			rc = -1;
		}
	}
	buf_done(&b);
	return rc;
}

static int write_results(const struct client *c, json_t *run)
{
	if (mkdir(c->results_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "loadline push: cannot create %s: %s\n", c->results_dir, strerror(errno));
		return -1;
	}
	static const char *const buckets[] = {"succeeded", "warnings", "failed", "skipped"};
	for (size_t i = 0; i < 4; i++)
		if (write_bucket(c, jstr(run, "id"), buckets[i]))
			return -1;
	return 0;
}

static void print_final(const struct client *c, json_t *run)
{
	if (c->json) {
		print_json(run);
		return;
	}
	print_state(run);
	char t1[1024], t2[2048];
	json_t *next = json_object_get(run, "nextAction");
	if (next)
		printf("staged for review: %s\n", term_clean(jstr(next, "url"), t1, sizeof t1));
	json_t *err = json_object_get(run, "error");
	if (err)
		printf("error %s: %s\n", term_clean(jstr(err, "code"), t1, sizeof t1),
		       term_clean(jstr(err, "message"), t2, sizeof t2));
}

/* POST, then the run's URL to follow: the new run's Location, or the
 * existingRunUrl of a 409 IMPORT_IN_PROGRESS.  Returns the 202's run (or
 * NULL after a 409) through ret_run, -1 on error. */
static int upload(const struct client *c, const char *file, char *run_path, size_t cap, json_t **ret_run)
{
	char url[1024];
	if (url_of(c, "push", "/api/v1/imports/jobs", url, sizeof url))
		return -1;
	struct hc_request rq = {.method = "POST", .url = url, .token = c->token, .dry_run = c->dry_run,
				.file_path = file, .progress = c->tty && !c->json};
	struct hc_response res;
	if (request(c, "push", &rq, &res))
		return -1;
	json_t *o = json_loads(buf_str(&res.body), 0, NULL);
	int rc = 0;
	*ret_run = NULL;
	if (res.status == 202 && json_object_get(o, "id")) {
		snprintf(run_path, cap, "/api/v1/imports/runs/%s", jstr(o, "id"));
		*ret_run = json_incref(o);
	} else if (res.status == 409 && *jstr(o, "existingRunUrl")) {
		snprintf(run_path, cap, "%s", jstr(o, "existingRunUrl"));
		char check[2048];
		if (url_of(c, "push", run_path, check, sizeof check))
			rc = -1;
		else if (!c->json)
			printf("already being imported: following %s\n", term_clean(run_path, check, sizeof check));
	} else {
		report_problem("push", &res);
		rc = -1;
	}
	json_decref(o);
	hc_response_done(&res);
	return rc;
}

static void client_init(struct client *c, int argc, char **argv)
{
	const char *url = opt(argc, argv, "--url");
	if (!url)
		url = getenv("LOADLINE_URL");
	snprintf(c->base, sizeof c->base, "%s", url && *url ? url : "http://127.0.0.1:8080");
	size_t n = strlen(c->base);
	while (n && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	c->token = opt(argc, argv, "--token");
	if (!c->token)
		c->token = getenv("LOADLINE_TOKEN");
	c->json = flag(argc, argv, "--json");
	c->tty = isatty(STDOUT_FILENO);
	const char *p = getenv("LOADLINE_POLL_MS");
	c->poll_ms = p ? atoi_clamped(p) : 0;
}

static const char *positional(int argc, char **argv, const char *const *with_value)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2))
			return argv[i];
		bool takes = false;
		for (const char *const *w = with_value; *w; w++)
			takes |= !strcmp(argv[i], *w);
		i += takes;
	}
	return NULL;
}

static const char push_usage[] =
	"loadline push FILE [--url URL] [--dry-run] [--no-wait] [--results DIR] [--json]\n"
	"       (token from $LOADLINE_TOKEN, URL from $LOADLINE_URL)\n";

int cli_push(struct app *app, int argc, char **argv)
{
	static const char *const allowed[] = {"--url", "--token", "--results", NULL};
	static const char *const bools[] = {"--dry-run", "--no-wait", "--json", NULL};
	if (opts_check(argc, argv, allowed, bools, push_usage))
		return EXIT_ERROR;
	struct client c = {0};
	client_init(&c, argc, argv);
	c.dry_run = flag(argc, argv, "--dry-run");
	c.no_wait = flag(argc, argv, "--no-wait");
	c.results_dir = opt(argc, argv, "--results");
	const char *file = positional(argc, argv, allowed);
	if (!file) {
		fprintf(stderr, "usage: %s", push_usage);
		return EXIT_ERROR;
	}
	if (access(file, R_OK)) {
		fprintf(stderr, "loadline push: cannot read %s: %s\n", file, strerror(errno));
		return EXIT_ERROR;
	}
	if (!c.token || !*c.token) {
		fputs("loadline push: no API token: set LOADLINE_TOKEN\n", stderr);
		return EXIT_ERROR;
	}
	char run_path[1024];
	json_t *run;
	if (upload(&c, file, run_path, sizeof run_path, &run))
		return EXIT_ERROR;
	if (!c.no_wait) {
		run = wait_run(&c, run_path, run);
	} else if (!run) {
		run = get_json(&c, "push", run_path);
	}
	if (!run)
		return EXIT_ERROR;
	if (c.results_dir && run_done(run) && !json_object_get(run, "nextAction") && write_results(&c, run)) {
		json_decref(run);
		return EXIT_ERROR;
	}
	print_final(&c, run);
	int rc = exit_status(run);
	json_decref(run);
	return rc;
}

int cli_runs(struct app *app, int argc, char **argv)
{
	static const char *const allowed[] = {"--url", "--token", "--limit", NULL};
	static const char *const bools[] = {"--json", NULL};
	if (opts_check(argc, argv, allowed, bools, "loadline runs [--limit N] [--url URL] [--json]"))
		return EXIT_ERROR;
	struct client c = {0};
	client_init(&c, argc, argv);
	if (!c.token || !*c.token) {
		fputs("loadline runs: no API token: set LOADLINE_TOKEN\n", stderr);
		return EXIT_ERROR;
	}
	const char *lim = opt(argc, argv, "--limit");
	int n = lim ? atoi_clamped(lim) : 20;
	if (n < 1 || n > 100) {
		fputs("loadline runs: --limit must be 1 to 100\n", stderr);
		return EXIT_ERROR;
	}
	char path[128];
	snprintf(path, sizeof path, "/api/v1/imports/runs?limit=%d", n);
	json_t *list = get_json(&c, "runs", path);
	if (!list)
		return EXIT_ERROR;
	if (c.json) {
		print_json(json_object_get(list, "data"));
	} else {
		size_t i;
		json_t *run;
		json_array_foreach(json_object_get(list, "data"), i, run) {
			json_t *k = json_object_get(run, "counts");
			char id[128], st[64], at[64], name[1024];
			printf("%s  %-9s  %s  %s  %d/%d/%d/%d\n", term_clean(jstr(run, "id"), id, sizeof id),
			       term_clean(jstr(run, "state"), st, sizeof st), term_clean(jstr(run, "createdAt"), at, sizeof at),
			       term_clean(jstr(run, "fileName"), name, sizeof name), jint(k, "succeeded"), jint(k, "warnings"),
			       jint(k, "failed"), jint(k, "skipped"));
		}
	}
	json_decref(list);
	return EXIT_OK;
}
