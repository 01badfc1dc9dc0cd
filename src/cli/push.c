/* `loadline push FILE`: the integration engineer's client of the imports
 * API (PRODUCT §9, §11).  Exit statuses are the contract a cron job or CI
 * pipeline branches on: 0 SUCCEEDED or SKIPPED, or PARTIAL with no failed
 * row ("with N warnings"); 2 a row failed (or, with --strict, warned);
 * 3 FAILED/CANCELLED; 4 staged for review; 1 usage, network or
 * authentication error.  The result goes to stdout, progress and problems
 * to stderr; in a dry run every line says so. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/url.h"
#include "cli.h"
#include "client.h"
#include "common.h"
#include "push.h"
#include "term.h"

static const char push_usage[] =
	"loadline push FILE [--url URL] [--dry-run] [--no-wait] [--strict] [--results DIR] [--json]\n"
	"                   [--timeout DURATION] [--header-row N] [--sheet NAME] [--all-or-nothing]\n"
	"  Uploads FILE (CSV or XLSX) to POST /api/v1/imports/jobs and waits for the run.\n"
	"  --dry-run      validate everything, write nothing (Service-Dry-Run: true)\n"
	"  --no-wait      print the run after the 202 and exit 0\n"
	"  --strict       exit 2 when rows warned, too\n"
	"  --all-or-nothing  write nothing when any row fails (?commit=all; the run ends FAILED,\n"
	"                 ROWS_FAILED, exit 2); default: the organization's setting\n"
	"  --results DIR  write every non-empty bucket as DIR/<bucket>.csv\n"
	"  --json         print the final run resource as JSON\n"
	"  --header-row N the header is row N (as the spreadsheet numbers it); default: detected\n"
	"  --sheet NAME   read the workbook's sheet NAME; default: the first with job codes or loads\n"
	"  --timeout D    give up (exit 1) after D, upload and waiting included: 90s, 10m, 1h;\n"
	"                 0 waits forever (default " CLIENT_TIMEOUT_DEFAULT ")\n"
	"  Exit: 0 imported (warnings allowed), 2 a row failed, 3 file rejected, 4 staged for\n"
	"  review, 1 usage, network or authentication error, or --timeout.\n"
	"  Token from $LOADLINE_TOKEN, URL from $LOADLINE_URL.\n";

/* "dry run: " before every line a dry run prints on stdout. */
static const char *dry(const struct client *c)
{
	return c->dry_run ? "dry run: " : "";
}

/* The delay before the next poll: LOADLINE_POLL_MS when set (tests), else
 * what the server asked for, else the client's own backoff. */
static int delay_ms(const struct client *c, int retry_after_s, int fallback_s)
{
	if (c->poll_ms > 0)
		return c->poll_ms;
	return (retry_after_s >= 0 ? retry_after_s : fallback_s) * 1000;
}

static void print_state(const struct client *c, FILE *to, json_t *run)
{
	json_t *n = json_object_get(run, "counts");
	char id[128], state[64];
	fprintf(to, "%s%s %s: %d succeeded, %d warnings, %d failed, %d skipped\n", dry(c),
		term_clean(jstr(run, "id"), id, sizeof id), term_clean(jstr(run, "state"), state, sizeof state),
		jint(n, "succeeded"), jint(n, "warnings"), jint(n, "failed"), jint(n, "skipped"));
	fflush(to);
}

/* A RUNNING run's progress (PRODUCT §16) on stderr: on a terminal one bar
 * redrawn in place (*drawn: a bar is on the line), else a plain line each
 * time rowsDone moves, at most every PLAIN_PROGRESS_MS. */
#define PLAIN_PROGRESS_MS 2000
struct shown {
	bool drawn;
	long long done;
	double at;
};

static void show_progress(const struct client *c, json_t *run, struct shown *sh)
{
	json_t *p = json_object_get(run, "progress");
	if (c->json || !json_is_object(p))
		return;
	long long done = json_integer_value(json_object_get(p, "rowsDone"));
	json_t *t = json_object_get(p, "rowsTotal");
	long long total = json_is_integer(t) ? json_integer_value(t) : -1;
	long long rate = json_integer_value(json_object_get(p, "rowsPerSecond"));
	char line[256];
	if (c->progress) {
		fprintf(stderr, "\r%s%s\033[K", dry(c), term_progress(line, sizeof line, true, done, total, rate));
		sh->drawn = true;
	} else if (done != sh->done && mono_ms() - sh->at >= PLAIN_PROGRESS_MS) {
		fprintf(stderr, "%s%s\n", dry(c), term_progress(line, sizeof line, false, done, total, rate));
		sh->at = mono_ms();
	}
	sh->done = done;
	fflush(stderr);
}

/* Ends a bar's line before anything else is printed. */
static void end_progress(struct shown *sh)
{
	if (sh->drawn)
		fputc('\n', stderr);
	sh->drawn = false;
}

static bool run_done(json_t *run)
{
	const char *s = jstr(run, "state");
	return json_object_get(run, "nextAction") || !strcmp(s, "SUCCEEDED") || !strcmp(s, "PARTIAL") ||
	       !strcmp(s, "FAILED") || !strcmp(s, "SKIPPED") || !strcmp(s, "CANCELLED");
}

static int exit_status(const struct client *c, json_t *run)
{
	const char *s = jstr(run, "state");
	json_t *n = json_object_get(run, "counts");
	/* An all-or-nothing run refused for its failed rows: rows failed. */
	if (!strcmp(s, "FAILED") && !strcmp(jstr(json_object_get(run, "error"), "code"), "ROWS_FAILED"))
		return EXIT_PARTIAL;
	if (!strcmp(s, "FAILED") || !strcmp(s, "CANCELLED"))
		return EXIT_FAILED;
	if (json_object_get(run, "nextAction"))
		return EXIT_STAGED;
	if (jint(n, "failed") > 0 || (c->strict && jint(n, "warnings") > 0))
		return EXIT_PARTIAL;
	return EXIT_OK;   /* SUCCEEDED, SKIPPED, PARTIAL with warnings only, or accepted (--no-wait) */
}

/* How long a long poll asks the server to hold it: 25 s, less than the
 * silence a request is allowed (LOADLINE_STALL_S) and than what is left of
 * --timeout. */
static int long_poll_s(const struct client *c)
{
	long s = 25, stall = c->stall_s > 0 ? c->stall_s : 60;
	if (s > stall - 2)
		s = stall - 2;
	if (c->deadline > 0 && s > (long)((c->deadline - mono_ms()) / 1000) - 1)
		s = (long)((c->deadline - mono_ms()) / 1000) - 1;
	return s > 0 ? (int)s : 0;
}

/* Fetches the run at url once (with If-None-Match, and as a long poll);
 * the new run (or NULL when unchanged) through ret, whether the server
 * held it (Preference-Applied) through *ret_waited, -1 after a message. */
static int poll_once(const struct client *c, const char *url, const char *what, char *etag, size_t etag_cap,
		     int *retry_after, bool *ret_waited, json_t **ret)
{
	struct hc_request rq = {.method = "GET", .url = url, .token = c->token, .if_none_match = *etag ? etag : NULL,
				.prefer_wait_s = *etag ? long_poll_s(c) : 0};
	struct hc_response res;
	*ret = NULL;
	if (client_request_for(c, &rq, &res, what))
		return -1;
	*retry_after = res.retry_after_s;
	/* The first look had no ETag to wait on: the next one goes at once,
	 * as a long poll, and says whether the server holds polls at all. */
	*ret_waited = res.waited || !rq.if_none_match;
	int rc = 0;
	if (res.status == 200) {
		*ret = json_loads(buf_str(&res.body), 0, NULL);
		if (*ret)
			snprintf(etag, etag_cap, "%s", res.etag);
	} else if (res.status != 304) {
		client_problem(c, &res);
		rc = -1;
	}
	hc_response_done(&res);
	return rc;
}

/* Polls the run until it is terminal or staged, with If-None-Match and as
 * a long poll (Prefer: wait): a server that holds the request (it answers
 * Preference-Applied) is asked again at once, so the command returns the
 * moment the run ends.  With a server that does not, the delay starts at
 * 5 s and doubles to 30 s unless Retry-After says otherwise.  Each new
 * state is progress, on stderr.  Takes ownership of run; returns the
 * final one or NULL. */
static json_t *wait_run(const struct client *c, const char *path, json_t *run)
{
	char url[2048], etag[128] = "", last[32] = "";
	if (client_url(c, path, url, sizeof url)) {
		json_decref(run);
		return NULL;
	}
	int backoff_s = 5, retry_after = -1;
	/* The first look is at once: the 202's run has no ETag to wait on yet,
	 * and a small file is often done by now. */
	bool waited = true;
	struct shown sh = {.at = -1e9};
	while (!run || !run_done(run)) {
		if (run && !c->json && strcmp(last, jstr(run, "state"))) {
			snprintf(last, sizeof last, "%s", jstr(run, "state"));
			end_progress(&sh);
			print_state(c, stderr, run);
		}
		if (run)
			show_progress(c, run, &sh);
		if (!waited) {
			client_nap(c, delay_ms(c, retry_after, backoff_s));
			if (retry_after < 0 && backoff_s < 30)
				backoff_s = backoff_s * 2 > 30 ? 30 : backoff_s * 2;
		}
		char what[160];
		snprintf(what, sizeof what, "run %.40s is still %.20s", run ? jstr(run, "id") : "",
			 run ? jstr(run, "state") : "");
		json_t *o;
		if (client_expired(c, run ? what : NULL) ||
		    poll_once(c, url, run ? what : NULL, etag, sizeof etag, &retry_after, &waited, &o)) {
			end_progress(&sh);
			json_decref(run);
			return NULL;
		}
		if (o) {
			json_decref(run);
			run = o;
		}
	}
	end_progress(&sh);
	return run;
}

/* The run's page in the web app: {app_url}/imports/runs/<id>.  The API
 * does not return it; a staged run's nextAction URL is under the server's
 * app URL and gives it away, else $LOADLINE_APP_URL or the base URL (the
 * web app is served on the API's address unless LOADLINE_APP_URL moves it). */
static void run_page(const struct client *c, json_t *run, char *out, size_t cap)
{
	const char *review = jstr(json_object_get(run, "nextAction"), "url");
	size_t n = strlen(review), tail = strlen("/review");
	if (n > tail && !strcmp(review + n - tail, "/review"))
		snprintf(out, cap, "%.*s", (int)(n - tail), review);
	else
		snprintf(out, cap, "%s/imports/runs/%s", c->app, jstr(run, "id"));
}

static void print_final(const struct client *c, json_t *run)
{
	if (c->json) {
		client_print_json(run);
		return;
	}
	print_state(c, stdout, run);
	char t1[1024], t2[2048];
	json_t *n = json_object_get(run, "counts");
	if (!jint(n, "failed") && jint(n, "warnings") > 0 && run_done(run) && !json_object_get(run, "nextAction"))
		printf("%simported with %d warning%s%s\n", dry(c), jint(n, "warnings"), jint(n, "warnings") == 1 ? "" : "s",
		       c->strict ? " (--strict: exit 2)" : "");
	json_t *next = json_object_get(run, "nextAction");
	if (next)
		printf("%sstaged for review: %s\n", dry(c), term_clean(jstr(next, "url"), t1, sizeof t1));
	json_t *err = json_object_get(run, "error");
	if (err)
		printf("%serror %s: %s\n", dry(c), term_clean(jstr(err, "code"), t1, sizeof t1),
		       term_clean(jstr(err, "message"), t2, sizeof t2));
	run_page(c, run, t2, sizeof t2);
	printf("%srun page: %s\n", dry(c), term_clean(t2, t1, sizeof t1));
}

/* POST, then the run's URL to follow: the new run's path, or the
 * existingRunUrl of a 409 IMPORT_IN_PROGRESS (on the base URL's origin
 * only).  Returns the 202's run (or NULL after a 409) through ret_run, -1
 * on error. */
static int upload(const struct client *c, const char *file, char *run_path, size_t cap, json_t **ret_run)
{
	char url[1024], path[512];
	/* ?headerRow and ?sheet as given: the server checks them (400
	 * INVALID_IMPORT_OPTION says what is wrong). */
	struct arena *a = arena_new();
	snprintf(path, sizeof path, "/api/v1/imports/jobs%s%s%s%s%s%s", c->header_row || c->sheet ? "?" : "",
		 c->header_row ? "headerRow=" : "", c->header_row ? url_encode(a, c->header_row, NULL) : "",
		 c->header_row && c->sheet ? "&sheet=" : c->sheet ? "sheet=" : "",
		 c->sheet ? url_encode(a, c->sheet, NULL) : "",
		 !c->all_or_nothing ? "" : c->header_row || c->sheet ? "&commit=all" : "?commit=all");
	arena_free(a);
	if (client_url(c, path, url, sizeof url))
		return -1;
	struct hc_request rq = {.method = "POST", .url = url, .token = c->token, .dry_run = c->dry_run,
				.file_path = file, .progress = c->progress, .progress_label = dry(c)};
	struct hc_response res;
	if (client_request(c, &rq, &res))
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
		if (client_url(c, run_path, check, sizeof check))
			rc = -1;
		else if (!c->json)
			fprintf(stderr, "%salready being imported: following %s\n", dry(c),
				term_clean(run_path, check, sizeof check));
	} else {
		client_problem(c, &res);
		rc = -1;
	}
	json_decref(o);
	hc_response_done(&res);
	return rc;
}

/* --results DIR is checked before the upload (PRODUCT §17): created when
 * missing, else it must be a directory this user can write into; an
 * import whose results cannot be saved is not started.  True after a
 * message when it is unusable. */
static bool results_dir_unusable(const struct client *c)
{
	struct stat st;
	if (mkdir(c->results_dir, 0777) && errno != EEXIST)
		fprintf(stderr, "loadline %s: --results %s: cannot create it: %s\n", c->cmd, c->results_dir,
			strerror(errno));
	else if (stat(c->results_dir, &st) || !S_ISDIR(st.st_mode))
		fprintf(stderr, "loadline %s: --results %s: not a directory\n", c->cmd, c->results_dir);
	else if (access(c->results_dir, W_OK | X_OK))
		fprintf(stderr, "loadline %s: --results %s: cannot write into it: %s\n", c->cmd, c->results_dir,
			strerror(errno));
	else
		return false;
	return true;
}

/* Options into c; the file to push, or NULL after a message. */
static const char *push_args(struct client *c, int argc, char **argv)
{
	static const char *const allowed[] = {"--url", "--token", "--results", "--timeout", "--header-row", "--sheet",
					      NULL};
	static const char *const bools[] = {"--dry-run", "--no-wait", "--json", "--strict", "--all-or-nothing", NULL};
	if (opts_check(argc, argv, allowed, bools, push_usage))
		return NULL;
	c->dry_run = flag(argc, argv, "--dry-run");
	if (client_init(c, c->dry_run ? "push (dry run)" : "push", argc, argv))
		return NULL;
	c->no_wait = flag(argc, argv, "--no-wait");
	c->strict = flag(argc, argv, "--strict");
	c->all_or_nothing = flag(argc, argv, "--all-or-nothing");
	c->results_dir = opt(argc, argv, "--results");
	c->header_row = opt(argc, argv, "--header-row");
	c->sheet = opt(argc, argv, "--sheet");
	c->progress = isatty(STDERR_FILENO) && !c->json;
	const char *file = NULL;
	for (int i = 1; i < argc && !file; i++) {
		bool takes = false;
		for (const char *const *w = allowed; *w; w++)
			takes |= !strcmp(argv[i], *w);
		if (strncmp(argv[i], "--", 2))
			file = argv[i];
		i += takes;
	}
	if (!file)
		fprintf(stderr, "usage: %s", push_usage);
	else if (access(file, R_OK))
		fprintf(stderr, "loadline %s: cannot read %s: %s\n", c->cmd, file, strerror(errno));
	else if (!c->token || !*c->token)
		fprintf(stderr, "loadline %s: no API token: set LOADLINE_TOKEN\n", c->cmd);
	else if (c->results_dir && results_dir_unusable(c))
		return NULL;
	else
		return file;
	return NULL;
}

int cli_push(struct app *app, int argc, char **argv)
{
	(void)app;
	if (client_wants_help(argc, argv)) {
		fputs(push_usage, stdout);
		return EXIT_OK;
	}
	struct client c = {0};
	const char *file = push_args(&c, argc, argv);
	if (!file)
		return EXIT_ERROR;
	char run_path[1024];
	json_t *run;
	if (upload(&c, file, run_path, sizeof run_path, &run))
		return EXIT_ERROR;
	if (!c.no_wait)
		run = wait_run(&c, run_path, run);
	else if (!run)
		run = client_get_json(&c, run_path);
	if (!run)
		return EXIT_ERROR;
	if (c.results_dir && run_done(run) && !json_object_get(run, "nextAction") && push_write_results(&c, run)) {
		json_decref(run);
		return EXIT_ERROR;
	}
	print_final(&c, run);
	int rc = exit_status(&c, run);
	json_decref(run);
	return rc;
}
