/* The API client's commands about one run and the token (PRODUCT §17), in
 * the manner of `gh run view|download|rerun` and `gh auth status`:
 *   loadline runs view ID      state, counts, grouped problems, links
 *   loadline results ID        the per-row results, a bucket or all
 *   loadline failed-rows ID    the fix-up file, format from -o's extension
 *   loadline rerun ID          a new run of the stored upload
 *   loadline revert ID         undo the run (a revert run)
 *   loadline cancel ID         stop a QUEUED or RUNNING run
 *   loadline whoami            the token's organization and key
 * Everything from the server is printed through term_clean; results go to
 * stdout, problems to stderr, exit 0 or 1 (rerun: push's statuses). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "common.h"
#include "term.h"

#define T(s, buf) term_clean((s), (buf), sizeof(buf))

static const char *const json_bool[] = {"--json", NULL};

/* The run id argument: letters, digits, '_' and '-' only, so it is safe
 * in a path; NULL after a message. */
static const char *run_id_arg(const struct client *c, int argc, char **argv, const char *const *allowed, int n,
			      const char *usage)
{
	const char *id = client_arg(argc, argv, allowed, n);
	if (!id) {
		fprintf(stderr, "usage: %s", usage);
		return NULL;
	}
	for (const char *p = id; *p; p++)
		if (!(*p == '_' || *p == '-' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z'))) {
			char shown[128];
			fprintf(stderr, "loadline %s: %s is not a run id (run_...; `loadline runs` lists them)\n", c->cmd,
				T(id, shown));
			return NULL;
		}
	return id;
}

/* ---- runs view ---- */

static const char view_usage[] =
	"loadline runs view ID [--json] [--url URL] [--timeout DURATION]\n"
	"  One run: state, file, counts, the problems grouped (code, field, value, rows), and where\n"
	"  to go next (run page, results, failed rows). --json prints {\"run\", \"problems\"}.\n";

static void print_problem(json_t *p)
{
	char code[64], field[64], value[256], msg[1024];
	json_t *v = json_object_get(p, "value");
	printf("  %5d row%s  %-18s %-14s %s%s%s\n", jint(p, "rowCount"), jint(p, "rowCount") == 1 ? " " : "s",
	       T(jstr(p, "code"), code), T(jstr(p, "field"), field), v ? "\"" : "",
	       v ? T(json_string_value(v) ? json_string_value(v) : "", value) : "", v ? "\"" : "");
	printf("             %s\n", T(jstr(p, "message"), msg));
}

static void print_view_links(const struct client *c, json_t *run)
{
	char id[128], url[1024];
	T(jstr(run, "id"), id);
	snprintf(url, sizeof url, "%s/imports/runs/%s", c->app, id);
	char shown[1100];
	printf("run page:     %s\n", T(url, shown));
	json_t *next = json_object_get(run, "nextAction");
	if (next)
		printf("review:       %s\n", T(jstr(next, "url"), shown));
	if (jint(json_object_get(run, "counts"), "failed") > 0)
		printf("failed rows:  loadline failed-rows %s -o %s-failed-rows.xlsx\n", id, id);
	printf("results:      loadline results %s\n", id);
}

static void print_view(const struct client *c, json_t *run, json_t *problems)
{
	char t1[256], t2[1024], t3[64];
	json_t *f = json_object_get(run, "file"), *n = json_object_get(run, "counts");
	printf("%s  %s%s\n", T(jstr(run, "id"), t1), T(jstr(run, "state"), t3),
	       json_is_true(json_object_get(run, "dryRun")) ? " (dry run)" : "");
	printf("file:         %s (%s, %s)\n", T(jstr(run, "fileName"), t2), T(jstr(f, "format"), t1),
	       T(jstr(f, "encoding"), t3));
	printf("created:      %s\n", T(jstr(run, "createdAt"), t1));
	json_t *by = json_object_get(run, "createdBy");
	if (json_is_object(by))
		printf("by:           %s %s\n", T(jstr(by, "type"), t3), *jstr(by, "email") ? T(jstr(by, "email"), t2)
		       : T(jstr(by, "name"), t2));
	if (*jstr(run, "finishedAt"))
		printf("finished:     %s\n", T(jstr(run, "finishedAt"), t1));
	printf("counts:       %d succeeded, %d warnings, %d failed, %d skipped\n", jint(n, "succeeded"),
	       jint(n, "warnings"), jint(n, "failed"), jint(n, "skipped"));
	json_t *err = json_object_get(run, "error");
	if (err)
		printf("error:        %s: %s\n", T(jstr(err, "code"), t1), T(jstr(err, "message"), t2));
	json_t *list = json_object_get(problems, "data");
	if (json_array_size(list)) {
		printf("problems:\n");
		size_t i;
		json_t *p;
		json_array_foreach(list, i, p)
			print_problem(p);
		if (json_is_string(json_object_get(problems, "nextPageUrl")))
			printf("  (more groups: loadline runs view %s --json, or the run page)\n", T(jstr(run, "id"), t1));
	}
	print_view_links(c, run);
}

/* A run's problems exist once it is terminal with per-row results; an
 * empty list otherwise (409, 410 are not errors here). */
static json_t *problems_of(const struct client *c, json_t *run)
{
	const char *s = jstr(run, "state");
	bool rows = !strcmp(s, "SUCCEEDED") || !strcmp(s, "PARTIAL") || !strcmp(s, "SKIPPED");
	char path[256];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/problems?limit=20", jstr(run, "id"));
	json_t *p = rows && !json_object_get(run, "resultsExpiredAt") ? client_get_json(c, path) : NULL;
	return p ? p : json_pack("{s:s,s:[],s:n}", "object", "list", "data", "nextPageUrl");
}

int cli_run_view(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const allowed[] = {"--url", "--token", "--timeout", NULL};
	struct client c = {0};
	int rc;
	if (client_start(&c, "runs view", view_usage, argc, argv, allowed, json_bool, &rc))
		return rc;
	const char *id = run_id_arg(&c, argc, argv, allowed, 0, view_usage);
	if (!id)
		return EXIT_ERROR;
	char path[256];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s", id);
	json_t *run = client_get_json(&c, path);
	if (!run)
		return EXIT_ERROR;
	json_t *problems = problems_of(&c, run);
	if (c.json) {
		json_t *o = json_pack("{s:O,s:O}", "run", run, "problems", json_object_get(problems, "data"));
		client_print_json(o);
		json_decref(o);
	} else {
		print_view(&c, run, problems);
	}
	json_decref(problems);
	json_decref(run);
	return EXIT_OK;
}

/* ---- results ---- */

static const char results_usage[] =
	"loadline results ID [--bucket succeeded|warnings|failed|skipped] [--json] [--url URL]\n"
	"  The run's per-row results (all buckets, or one), every page. A line per error or warning:\n"
	"  BUCKET ROW JOB LOAD CODE FIELD MESSAGE, tab-separated when piped; --json prints the\n"
	"  result entries as one JSON array, each with its \"bucket\".\n";

static void print_result(const char *bucket, json_t *row, bool tty)
{
	json_t *src = json_object_get(row, "source"), *list = json_object_get(row, "errors");
	if (!json_array_size(list))
		list = json_object_get(row, "warnings");
	size_t n = json_array_size(list) ? json_array_size(list) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(list, i);
		char job[256], load[256], code[64], field[64], msg[1024];
		const char *what = e ? T(jstr(e, "message"), msg) : T(jstr(row, "reason"), msg);
		printf(tty ? "%-9s %5d  %-12s %-12s %-18s %-12s %s\n" : "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", bucket,
		       jint(row, "rowIndex"), T(jstr(src, "jobCode"), job), T(jstr(src, "loadNo"), load),
		       T(jstr(e, "code"), code), T(jstr(e, "field"), field), what);
	}
}

/* Every page of one bucket: printed, or appended to all (--json). */
static int one_bucket(const struct client *c, const char *id, const char *bucket, json_t *all)
{
	char path[2048];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/results/%s?limit=1000", id, bucket);
	for (;;) {
		json_t *page = client_get_json(c, path);
		if (!page)
			return -1;
		size_t i;
		json_t *row;
		json_array_foreach(json_object_get(page, "data"), i, row) {
			if (all)
				json_array_append_new(all, json_pack("{s:s,s:O}", "bucket", bucket, "result", row));
			else
				print_result(bucket, row, isatty(STDOUT_FILENO));
		}
		const char *next = json_string_value(json_object_get(page, "nextPageUrl"));
		if (next)
			snprintf(path, sizeof path, "%s", next);
		json_decref(page);
		if (!next)
			return 0;
	}
}

int cli_results(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const allowed[] = {"--url", "--token", "--timeout", "--bucket", NULL};
	static const char *const buckets[] = {"succeeded", "warnings", "failed", "skipped"};
	struct client c = {0};
	int rc;
	if (client_start(&c, "results", results_usage, argc, argv, allowed, json_bool, &rc))
		return rc;
	const char *id = run_id_arg(&c, argc, argv, allowed, 0, results_usage), *only = opt(argc, argv, "--bucket");
	bool known = !only;
	for (int i = 0; i < 4 && only; i++)
		known |= !strcmp(only, buckets[i]);
	if (!known) {
		fputs("loadline results: --bucket must be succeeded, warnings, failed or skipped\n", stderr);
		return EXIT_ERROR;
	}
	if (!id)
		return EXIT_ERROR;
	json_t *all = c.json ? json_array() : NULL;
	rc = EXIT_OK;
	for (int i = 0; i < 4 && rc == EXIT_OK; i++)
		if ((!only || !strcmp(only, buckets[i])) && one_bucket(&c, id, buckets[i], all))
			rc = EXIT_ERROR;
	if (all && rc == EXIT_OK)
		client_print_json(all);
	json_decref(all);
	return rc;
}

/* ---- failed-rows ---- */

static const char fixup_usage[] =
	"loadline failed-rows ID [-o FILE] [--url URL]\n"
	"  Downloads the run's failed rows to fix (the fix-up file). The format follows FILE's\n"
	"  extension: .xlsx (recommended: every cell text, leading zeros survive) or .csv; without -o\n"
	"  the server's file name in the current directory, in the upload's format. -o - writes to\n"
	"  stdout. An existing file is not overwritten unless --force.\n";

/* The file name of a Content-Disposition's plain filename="...", its last
 * path part, into out ("" when there is none or it is not a safe name). */
static void disposition_name(const char *cd, char *out, size_t cap)
{
	*out = '\0';
	const char *p = strstr(cd, "filename=\"");
	if (!p)
		return;
	p += 10;
	const char *end = strchr(p, '"'), *slash;
	while (end && (slash = memchr(p, '/', (size_t)(end - p))))
		p = slash + 1;
	if (!end || end == p || *p == '.' || (size_t)(end - p) >= cap)
		return;
	snprintf(out, cap, "%.*s", (int)(end - p), p);
}

static int save_file(const struct client *c, const char *path, const struct hc_response *res, bool force)
{
	if (!strcmp(path, "-"))
		return fwrite(res->body.data, 1, res->body.len, stdout) == res->body.len ? 0 : -1;
	FILE *f = fopen(path, force ? "wb" : "wbx");
	if (!f || fwrite(res->body.data, 1, res->body.len, f) != res->body.len || fclose(f)) {
		fprintf(stderr, "loadline %s: cannot write %s: %s%s\n", c->cmd, path, strerror(errno),
			errno == EEXIST ? " (--force overwrites it)" : "");
		return -1;
	}
	return 0;
}

/* The format -o asks for, from its extension: "xlsx", "csv", "" (the
 * upload's), or NULL for another extension. */
static const char *format_of(const char *out)
{
	const char *dot = out ? strrchr(out, '.') : NULL;
	if (!out || !strcmp(out, "-") || !dot)
		return "";
	if (!strcasecmp(dot, ".xlsx"))
		return "xlsx";
	if (!strcasecmp(dot, ".csv") || !strcasecmp(dot, ".txt") || !strcasecmp(dot, ".tsv"))
		return "csv";
	return NULL;
}

static int download_fixup(const struct client *c, const char *id, const char *out, const char *fmt, bool force)
{
	char path[256], url[2048];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/failed-rows%s%s", id, *fmt ? "?format=" : "", fmt);
	if (client_url(c, path, url, sizeof url))
		return EXIT_ERROR;
	struct hc_request rq = {.method = "GET", .url = url, .token = c->token};
	struct hc_response res;
	if (client_request(c, &rq, &res))
		return EXIT_ERROR;
	int rc = EXIT_ERROR;
	char name[256];
	if (res.status != 200) {
		client_problem(c, &res);
	} else {
		disposition_name(res.content_disposition, name, sizeof name);
		const char *to = out ? out : *name ? name : "failed-rows";
		if (!save_file(c, to, &res, force)) {
			rc = EXIT_OK;
			if (strcmp(to, "-"))
				fprintf(stderr, "wrote %s\n", to);
		}
	}
	hc_response_done(&res);
	return rc;
}

int cli_failed_rows(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const allowed[] = {"--url", "--token", "--timeout", "-o", "--output", NULL};
	static const char *const bools[] = {"--force", NULL};
	struct client c = {0};
	int rc;
	if (client_start(&c, "failed-rows", fixup_usage, argc, argv, allowed, bools, &rc))
		return rc;
	const char *id = run_id_arg(&c, argc, argv, allowed, 0, fixup_usage);
	const char *out = opt(argc, argv, "-o") ? opt(argc, argv, "-o") : opt(argc, argv, "--output");
	const char *fmt = format_of(out);
	if (!fmt) {
		fprintf(stderr, "loadline failed-rows: %s: the file name must end in .xlsx or .csv\n", out);
		return EXIT_ERROR;
	}
	return id ? download_fixup(&c, id, out, fmt, flag(argc, argv, "--force")) : EXIT_ERROR;
}

/* ---- rerun ---- */

static const char rerun_usage[] =
	"loadline rerun ID [--json] [--url URL]\n"
	"  Imports the run's stored file again (POST /api/v1/imports/runs/ID/rerun): a new run, as\n"
	"  pushing the same file would be. Prints the new run's id and page; `loadline runs view`\n"
	"  follows it.\n";

/* A run a command made (rerun, revert): its id and state, and its page. */
static void print_new_run(const struct client *c, json_t *run, bool dry_run)
{
	char t1[128], t2[64], t3[1200], shown[1300];
	printf("%s %s%s\n", T(jstr(run, "id"), t1), T(jstr(run, "state"), t2), dry_run ? " (dry run)" : "");
	snprintf(t3, sizeof t3, "%s/imports/runs/%s", c->app, jstr(run, "id"));
	printf("run page: %s\n", T(t3, shown));
}

/* `loadline NAME ID`: POST /api/v1/imports/runs/ID/NAME, the run it
 * answers (printed as JSON with --json, then NULL: nothing left to print),
 * or NULL with *ret_rc set. */
static json_t *run_action(struct client *c, const char *name, const char *usage, int argc, char **argv,
			  int *ret_rc)
{
	static const char *const allowed[] = {"--url", "--token", "--timeout", NULL};
	*ret_rc = EXIT_ERROR;
	if (client_start(c, name, usage, argc, argv, allowed, json_bool, ret_rc))
		return NULL;
	*ret_rc = EXIT_ERROR;
	const char *id = run_id_arg(c, argc, argv, allowed, 0, usage);
	if (!id)
		return NULL;
	char path[256];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/%s", id, name);
	json_t *run = client_call(c, "POST", path, NULL, NULL);
	if (!run)
		return NULL;
	*ret_rc = EXIT_OK;
	if (!c->json)
		return run;
	client_print_json(run);
	json_decref(run);
	return NULL;
}

int cli_rerun(struct app *app, int argc, char **argv)
{
	(void)app;
	struct client c = {0};
	int rc;
	json_t *run = run_action(&c, "rerun", rerun_usage, argc, argv, &rc);
	if (!run)
		return rc;
	print_new_run(&c, run, false);
	json_decref(run);
	return EXIT_OK;
}

/* ---- revert ---- */

static const char revert_usage[] =
	"loadline revert ID [--dry-run] [--json] [--url URL]\n"
	"  Undoes the run (POST /api/v1/imports/runs/ID/revert): a new run removes the Loads it created\n"
	"  and gives what it updated its prior values back, except records a later run changed since\n"
	"  (skipped, changed_since). --dry-run makes the revert run without writing anything: its\n"
	"  counts say what the undo would do. Prints the new run's id, state and page.\n";

int cli_revert(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const allowed[] = {"--url", "--token", "--timeout", NULL};
	static const char *const bools[] = {"--json", "--dry-run", NULL};
	struct client c = {0};
	int rc;
	if (client_start(&c, "revert", revert_usage, argc, argv, allowed, bools, &rc))
		return rc;
	const char *id = run_id_arg(&c, argc, argv, allowed, 0, revert_usage);
	char path[256], url[2048];
	if (!id || (snprintf(path, sizeof path, "/api/v1/imports/runs/%s/revert", id), client_url(&c, path, url,
											sizeof url)))
		return EXIT_ERROR;
	struct hc_request rq = {.method = "POST", .url = url, .token = c.token, .dry_run = flag(argc, argv, "--dry-run")};
	struct hc_response res;
	if (client_request(&c, &rq, &res))
		return EXIT_ERROR;
	json_t *run = res.status == 202 ? json_loads(buf_str(&res.body), 0, NULL) : NULL;
	if (!run)
		client_problem(&c, &res);
	hc_response_done(&res);
	if (!run)
		return EXIT_ERROR;
	if (c.json)
		client_print_json(run);
	else
		print_new_run(&c, run, rq.dry_run);
	json_decref(run);
	return EXIT_OK;
}

/* ---- cancel ---- */

static const char cancel_usage[] =
	"loadline cancel ID [--json] [--url URL]\n"
	"  Stops a QUEUED or RUNNING run (POST /api/v1/imports/runs/ID/cancel): it ends CANCELLED after\n"
	"  the batch it is writing; what it committed stays and can be undone with `loadline revert ID`.\n"
	"  Prints the run's id, state and counts. Exit 1 when the run had already finished.\n";

int cli_cancel(struct app *app, int argc, char **argv)
{
	(void)app;
	struct client c = {0};
	int rc;
	json_t *run = run_action(&c, "cancel", cancel_usage, argc, argv, &rc);
	if (!run)
		return rc;
	char t1[128], t2[64];
	json_t *n = json_object_get(run, "counts");
	printf("%s %s\n", T(jstr(run, "id"), t1), T(jstr(run, "state"), t2));
	printf("committed before it stopped: %d succeeded, %d failed, %d skipped\n", jint(n, "succeeded"),
	       jint(n, "failed"), jint(n, "skipped"));
	if (jint(n, "succeeded") > 0)
		printf("to undo them: loadline revert %s\n", t1);
	json_decref(run);
	return EXIT_OK;
}

/* ---- whoami ---- */

static const char whoami_usage[] =
	"loadline whoami [--json] [--url URL]\n"
	"  Checks the token against the server (GET /api/v1/whoami): the organization, the key's\n"
	"  name and prefix, when it was last used. Exit 1 when the token is refused.\n";

int cli_whoami(struct app *app, int argc, char **argv)
{
	(void)app;
	static const char *const allowed[] = {"--url", "--token", "--timeout", NULL};
	struct client c = {0};
	int rc;
	if (client_start(&c, "whoami", whoami_usage, argc, argv, allowed, json_bool, &rc))
		return rc;
	json_t *k = client_get_json(&c, "/api/v1/whoami");
	if (!k)
		return EXIT_ERROR;
	if (c.json) {
		client_print_json(k);
	} else {
		char t1[256], t2[128], t3[64], t4[64];
		json_t *org = json_object_get(k, "organization");
		printf("server:       %s\n", T(c.base, t1));
		printf("organization: %s (%s)\n", T(jstr(org, "name"), t1), T(jstr(org, "id"), t2));
		printf("api key:      %s (%s..., %s)\n", T(jstr(k, "name"), t1), T(jstr(k, "prefix"), t3),
		       T(jstr(k, "id"), t2));
		printf("last used:    %s\n", *jstr(k, "lastUsedAt") ? T(jstr(k, "lastUsedAt"), t4) : "never");
	}
	json_decref(k);
	return EXIT_OK;
}
