/* Imports: the organization's runs, one run with its results per bucket,
 * and the download of all results as formula-safe CSV. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/url.h"
#include "import/fixup.h"
#include "import/problems.h"
#include "import/results.h"
#include "store/reference.h"
#include "store/runs.h"
#include "base/csv_write.h"
#include "web/failed_edit.h"
#include "web/page.h"
#include "web/run_progress.h"

#define RUNS_PER_PAGE 50
#define RESULTS_PER_PAGE 50
/* A run has at most 750 rows, each in at most two buckets. */
#define CSV_MAX (32u << 20)
/* Pages of a run still working reload themselves this often. */
#define REFRESH_S 2

static const char *const buckets[4] = {"succeeded", "warnings", "failed", "skipped"};
static const char *const bucket_labels[4] = {"Succeeded", "Warnings", "Failed", "Skipped"};

/* A PARTIAL run with no failed row imported every row: it reads as what
 * it is, as `loadline push` says it ("imported with 3 warnings"), not as
 * an amber PARTIAL (issue 30 item 5).  The state stays in data-state. */
static bool warnings_only(const struct run *r)
{
	return r->state == RUN_PARTIAL && r->counts[COUNT_FAILED] == 0;
}

static const char *state_label(struct arena *a, const struct run *r)
{
	if (!warnings_only(r))
		return run_state_name(r->state);
	int n = r->counts[COUNT_WARNINGS];
	return arena_printf(a, "Imported with %d warning%s", n, n == 1 ? "" : "s");
}

static const char *state_class(const struct run *r)
{
	switch (r->state) {
	case RUN_SUCCEEDED: return "ok";
	case RUN_PARTIAL: return warnings_only(r) ? "ok" : "warn";
	case RUN_FAILED: case RUN_CANCELLED: return "bad";
	case RUN_SKIPPED: return "quiet";
	default: return "busy";
	}
}

static bool awaits_review(const struct run *r)
{
	return run_awaits_review(r);
}

/* Who made the run (PRODUCT §15): a person's email, or "API token
 * <name>"; "—" for runs made before it was kept. */
static const char *who(struct arena *a, const struct run *r)
{
	json_t *by = *r->created_by ? json_loads(r->created_by, 0, NULL) : NULL;
	const char *type = json_string_value(json_object_get(by, "type"));
	const char *email = json_string_value(json_object_get(by, "email"));
	const char *name = json_string_value(json_object_get(by, "name"));
	const char *out = !type ? "—" : !strcmp(type, "user") ? arena_strdup(a, email ? email : "")
		: arena_printf(a, "API token %s", name ? name : "");
	json_decref(by);
	return out;
}

static const struct html *run_row(struct web_req *w, const struct run *r)
{
	struct arena *a = w->a;
	struct tmpl_var v[] = {
		T_TEXT("id", r->id),
		T_TEXT("file_name", r->file_name),
		T_FLAG("dry", r->dry_run),
		T_TEXT("state", state_label(a, r)),
		T_TEXT("state_name", run_state_name(r->state)),
		T_TEXT("state_class", state_class(r)),
		T_FLAG("review", awaits_review(r)),
		T_TEXT("rows", r->row_count >= 0 ? web_int(a, r->row_count) : "—"),
		T_TEXT("succeeded", web_int(a, r->counts[COUNT_SUCCEEDED])),
		T_TEXT("warnings", web_int(a, r->counts[COUNT_WARNINGS])),
		T_TEXT("failed", web_int(a, r->counts[COUNT_FAILED])),
		T_TEXT("skipped", web_int(a, r->counts[COUNT_SKIPPED])),
		T_TEXT("created", web_time(a, r->created_at)),
		T_TEXT("created_iso", web_time_iso(a, r->created_at)),
		T_TEXT("created_by", who(a, r)),
		T_FLAG("revert", *r->revert_of),
	};
	return tmpl_render(a, "run_row.html", v, sizeof v / sizeof v[0]);
}

/* ?before=<created_at>_<id>: the page after that run (newest first).
 * error: "Import a file" was refused; it shows next to the file input,
 * with the dry-run choice kept. */
static void render_imports(struct web_req *w, int status, const char *error)
{
	int64_t after_created = 0;
	const char *after_id = NULL, *before = web_query(w, "before");
	if (before) {
		char *us = strchr(before, '_');
		after_created = strtoll(before, NULL, 10);
		after_id = us ? us + 1 : "";
	}
	struct run *runs = arena_alloc(w->a, sizeof(struct run) * (RUNS_PER_PAGE + 1));
	int n = 0;
	if (store_run_list(w->app->store, w->session->org.id, after_created, after_id, RUNS_PER_PAGE + 1, runs, &n)) {
		web_unavailable(w);
		return;
	}
	struct html_list *rows = html_list_new(w->a);
	for (int i = 0; i < n && i < RUNS_PER_PAGE; i++)
		html_list_add(rows, run_row(w, &runs[i]));
	const char *older = NULL;
	if (n > RUNS_PER_PAGE) {
		const struct run *last = &runs[RUNS_PER_PAGE - 1];
		older = arena_printf(w->a, "%lld_%s", (long long)last->created_at, last->id);
	}
	struct tmpl_var v[] = {
		T_TEXT("csrf", web_csrf_token(w)),
		T_TEXT("max_mb", arena_printf(w->a, "%.1f", (double)w->app->cfg.max_file_bytes / 1048576.0)),
		T_TEXT("max_rows", web_int(w->a, w->app->cfg.max_rows)),
		T_FLAG("empty", n == 0 && !before),
		T_HTML("rows", html_list_done(rows)),
		T_TEXT("older", older),
		T_FLAG("newest", before != NULL),
		T_TEXT("file_error", error),
		T_FLAG("dry_checked", error && web_field(w, "dry_run") && *web_field(w, "dry_run")),
	};
	struct web_page_opts o = {.nav = NAV_IMPORTS};
	web_page(w, status, "Imports", tmpl_render(w->a, "imports.html", v, sizeof v / sizeof v[0]), &o);
}

static void list(struct web_req *w)
{
	render_imports(w, 200, NULL);
}

const struct web_handler page_imports = {list};

void web_imports_refused(struct web_req *w, int status, const char *error)
{
	render_imports(w, status, error);
}

/* ---- one run ---- */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* "column “Ship Date”, cell C12, field loadDate" */
static const char *issue_where(struct arena *a, json_t *e)
{
	const char *col = jstr(e, "column"), *cell = jstr(e, "cell"), *field = jstr(e, "field");
	const char *s = "";
	if (field)
		s = arena_printf(a, "%s", field);
	if (col)
		s = arena_printf(a, "%s%scolumn “%s”", s, *s ? " · " : "", col);
	if (cell)
		s = arena_printf(a, "%s%scell %s", s, *s ? " · " : "", cell);
	return *s ? s : NULL;
}

static const struct html *issues(struct arena *a, json_t *list, bool warn)
{
	struct html_list *l = html_list_new(a);
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		struct tmpl_var v[] = {
			T_TEXT("code", jstr(e, "code")),
			T_TEXT("where", issue_where(a, e)),
			T_TEXT("value", jstr(e, "value")),
			T_TEXT("message", jstr(e, "message")),
			T_FLAG("warn", warn),
		};
		html_list_add(l, tmpl_render(a, "issue.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(l);
}

static const char *id_list(struct arena *a, json_t *ids)
{
	const char *s = "";
	size_t i;
	json_t *v;
	json_array_foreach(ids, i, v)
		if (json_is_string(v))
			s = arena_printf(a, "%s%s%s", s, *s ? ", " : "", json_string_value(v));
	return s;
}

/* The details cell of a result row, by what the bucket's entries carry. */
static const struct html *details(struct arena *a, json_t *o)
{
	json_t *list = json_object_get(o, "errors");
	if (json_is_array(list))
		return issues(a, list, false);
	list = json_object_get(o, "warnings");
	if (json_is_array(list))
		return issues(a, list, true);
	const char *reason = jstr(o, "reason");
	if (reason)
		return html_text(a, reason);
	json_t *ids = json_object_get(o, "createdRecordIds");
	if (json_is_array(ids) && json_array_size(ids))
		return html_text(a, arena_printf(a, "Wrote %s", id_list(a, ids)));
	return html_text(a, "—");
}

struct page_rows {
	struct web_req *w;
	struct html_list *rows;
	int n, last;
};

static void add_result(int row_index, const char *body, void *ctx)
{
	struct page_rows *p = ctx;
	struct arena *a = p->w->a;
	json_t *o = json_loads(body, 0, NULL);
	if (!o)
		return;
	json_t *src = json_object_get(o, "source");
	struct tmpl_var v[] = {
		T_TEXT("row", web_int(a, row_index)),
		T_TEXT("job_code", jstr(src, "jobCode")),
		T_TEXT("load_no", jstr(src, "loadNo")),
		T_TEXT("project", jstr(src, "projectName")),
		T_HTML("details", details(a, o)),
	};
	html_list_add(p->rows, tmpl_render(a, "result_row.html", v, sizeof v / sizeof v[0]));
	json_decref(o);
	p->n++;
	p->last = row_index;
}

static int bucket_index(const char *b)
{
	for (int i = 0; b && i < 4; i++)
		if (!strcmp(b, buckets[i]))
			return i;
	return -1;
}

/* Without ?bucket the page opens where attention is needed first. */
static int default_bucket(const struct run *r)
{
	if (r->counts[COUNT_FAILED])
		return COUNT_FAILED;
	if (r->counts[COUNT_WARNINGS])
		return COUNT_WARNINGS;
	if (r->counts[COUNT_SUCCEEDED] || !r->counts[COUNT_SKIPPED])
		return COUNT_SUCCEEDED;
	return COUNT_SKIPPED;
}

static const struct html *tabs(struct web_req *w, const struct run *r, int current)
{
	struct html_list *l = html_list_new(w->a);
	for (int i = 0; i < 4; i++) {
		struct tmpl_var v[] = {
			T_TEXT("id", r->id), T_TEXT("bucket", buckets[i]), T_TEXT("label", bucket_labels[i]),
			T_TEXT("count", web_int(w->a, r->counts[i])), T_FLAG("current", i == current),
		};
		html_list_add(l, tmpl_render(w->a, "tab.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(l);
}

/* What the reader decided (PRODUCT §14), after the format: "sheet
 * “Loads”, header in row 4, summary rows 58, 59 left out" — only what
 * differs from a plain file. */
static const char *frame_text(struct arena *a, const struct run *r, const char *s)
{
	json_t *d = *r->file_detail ? json_loads(r->file_detail, 0, NULL) : NULL;
	const char *sheet = json_string_value(json_object_get(d, "sheet"));
	json_int_t row = json_integer_value(json_object_get(d, "headerRow"));
	json_t *sum = json_object_get(d, "summaryRows");
	if (sheet && json_array_size(json_object_get(d, "sheets")) > 1)
		s = arena_printf(a, "%s, sheet “%s”", s, sheet);
	if (row > 1)
		s = arena_printf(a, "%s, header in row %lld", s, (long long)row);
	for (size_t i = 0; i < json_array_size(sum); i++)
		s = arena_printf(a, "%s%s%lld", s, i ? ", " : json_array_size(sum) > 1 ? ", summary rows " : ", summary row ",
				 (long long)json_integer_value(json_array_get(sum, i)));
	if (json_array_size(sum))
		s = arena_printf(a, "%s left out", s);
	json_decref(d);
	return s;
}

static const char *format_text(struct arena *a, const struct run *r)
{
	const char *s = r->file_format;
	if (*r->file_encoding)
		s = arena_printf(a, "%s, %s", s, r->file_encoding);
	static const char *const names[][2] = {{",", "comma"}, {";", "semicolon"}, {"\\t", "tab"}, {"|", "pipe"}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(r->file_delimiter, names[i][0]))
			s = arena_printf(a, "%s, %s-separated", s, names[i][1]);
	return frame_text(a, r, s);
}

/* ---- grouped problems (PRODUCT §11) ---- */

/* The run page shows this many groups; the API lists them all. */
#define GROUPS_SHOWN 20

/* "Rows 2, 3, 7", or "Rows 2, 3, …, 40, … (the first 20)" when there are more. */
static const char *first_rows(struct arena *a, const struct run_problem *p)
{
	const char *s = p->nrows == 1 ? "Row " : "Rows ";
	for (int i = 0; i < p->nrows; i++)
		s = arena_printf(a, "%s%s%d", s, i ? ", " : "", p->rows[i]);
	if (p->row_count > p->nrows)
		s = arena_printf(a, "%s, … (the first %d)", s, p->nrows);
	return s;
}

static const struct html *problem_item(struct web_req *w, const struct run *r, const struct run_problem *p,
				       bool upload_kept)
{
	struct arena *a = w->a;
	bool branch = p->fix_type && !strcmp(p->fix_type, "create_branch");
	const char *kind = branch ? "branch" : "customer";
	/* A missing customer or branch is said in a few words; other groups by their message. */
	const char *title = p->fix_name ? arena_printf(a, "No %s named “%s”", kind, p->fix_name) : p->message;
	/* Added since the run (here or on the Customers page): no button,
	 * what is left to do is importing the file again. */
	char found[ID_MAX];
	bool exists = p->fix_name && !store_ref_find(w->app->store, branch ? REF_BRANCH : REF_CUSTOMER,
						     w->session->org.id, p->fix_name, found);
	const char *where = p->field ? (p->column ? arena_printf(a, "%s · column “%s”", p->field, p->column) : p->field)
				     : p->column ? arena_printf(a, "column “%s”", p->column) : NULL;
	struct tmpl_var v[] = {
		T_TEXT("id", r->id), T_TEXT("title", title), T_FLAG("warn", !p->error),
		T_TEXT("rows", p->row_count == 1 ? "1 row" : arena_printf(a, "%s rows", web_int(a, p->row_count))),
		T_TEXT("code", p->code), T_TEXT("doc_url", p->doc_url), T_TEXT("severity", p->error ? "error" : "warning"),
		T_TEXT("where", where), T_TEXT("first_rows", first_rows(a, p)),
		T_TEXT("detail", p->fix_name ? p->message : NULL),
		T_TEXT("fix_name", exists ? NULL : p->fix_name), T_TEXT("fix_kind", kind), T_FLAG("exists", exists),
		T_TEXT("fix_page", branch ? "Branches" : "Customers"),
		T_FLAG("admin", web_is_admin(w)), T_TEXT("csrf", web_csrf_token(w)),
		/* "Set <column> in N rows" (PRODUCT §15): errors in a column, while the file is kept. */
		T_TEXT("set_column", p->error && p->column && !p->fix_name && upload_kept ? p->column : NULL),
		T_FLAG("has_value", p->value != NULL), T_TEXT("value", p->value), T_FLAG("dry", r->dry_run),
	};
	return tmpl_render(a, "problem.html", v, sizeof v / sizeof v[0]);
}

/* The run's problems grouped, the first GROUPS_SHOWN of them; *ret_n is
 * how many groups there are.  False when storage failed. */
static bool problem_list(struct web_req *w, const struct run *r, bool upload_kept, const struct html **ret, int *ret_n)
{
	struct run_problem **groups;
	int k = 0, n = 0;
	if (problems_page(w->app->store, w->a, r->id, w->app->cfg.docs_url, 0, GROUPS_SHOWN, &groups, &k, &n))
		return false;
	struct html_list *l = html_list_new(w->a);
	for (int i = 0; i < k; i++)
		html_list_add(l, problem_item(w, r, groups[i], upload_kept));
	*ret = html_list_done(l);
	*ret_n = n;
	return true;
}

/* The note after an admin's "Add customer" (?fixed=added|exists). */
static const char *fix_note(struct web_req *w)
{
	const char *fixed = web_query(w, "fixed"), *kind = web_query(w, "kind"), *name = web_query(w, "name");
	if (!fixed || !name || !kind || (strcmp(kind, "customer") && strcmp(kind, "branch")))
		return NULL;
	const char *again = "Import this file again to update its loads";
	if (!strcmp(fixed, "added"))
		return arena_printf(w->a, "Added %s “%s”. Rows naming it match it from now on. %s.", kind, name, again);
	return arena_printf(w->a, "A %s named “%s” exists already. %s.", kind, name, again);
}

/* Whether the run page shows per-row results: a finished run that has
 * them (a cancelled one keeps the rows it committed before it stopped,
 * §16) while they are kept; *ret_expired says they were deleted. */
static bool shows_results(struct web_req *w, const struct run *r, bool *ret_expired)
{
	bool any = r->counts[COUNT_SUCCEEDED] + r->counts[COUNT_FAILED] + r->counts[COUNT_SKIPPED] > 0;
	bool had = run_state_terminal(r->state) && r->state != RUN_FAILED && (r->state != RUN_CANCELLED || any);
	*ret_expired = had && run_results_expired(r, w->app->cfg.keep_results_ms, now_ms());
	return had && !*ret_expired;
}

/* Loads the run of the session's org; answers 404/503 and returns false. */
static bool load_run(struct web_req *w, struct run *r)
{
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), r);
	if (rc == CODE_NOT_FOUND)
		web_not_found(w);
	else if (rc)
		web_unavailable(w);
	return rc == CODE_OK;
}

/* The bucket shown (?bucket, else the run's default) and the row after
 * which its page starts (?after). */
static int page_position(struct web_req *w, const struct run *r, int *ret_after)
{
	int b = bucket_index(web_query(w, "bucket"));
	if (b < 0)
		b = default_bucket(r);
	const char *after_s = web_query(w, "after");
	int after = after_s ? (int)strtol(after_s, NULL, 10) : 0;
	*ret_after = after < 0 ? 0 : after;
	return b;
}

static void run_page(struct web_req *w)
{
	struct run r;
	if (!load_run(w, &r))
		return;
	struct arena *a = w->a;
	bool terminal = run_state_terminal(r.state), expired;
	bool results = shows_results(w, &r, &expired);
	/* Fix-up files and corrections are for runs that read their whole
	 * file: a cancelled run's failed rows are shown, not offered to fix. */
	bool fixable = results && r.state != RUN_CANCELLED;
	bool upload_gone = run_upload_expired(&r, w->app->cfg.keep_uploads_ms, now_ms());
	int after, b = page_position(w, &r, &after);
	struct page_rows p = {w, html_list_new(a), 0, 0};
	bool more = false;
	const struct html *problems = html_empty();
	int ngroups = 0;
	if (results && (!problem_list(w, &r, !upload_gone, &problems, &ngroups) ||
			results_page(w->app->store, r.id, buckets[b], after, RESULTS_PER_PAGE, w->app->cfg.docs_url,
				     add_result, &p, &more))) {
		web_unavailable(w);
		return;
	}
	struct tmpl_var v[] = {
		T_TEXT("id", r.id),
		T_TEXT("file_name", r.file_name),
		T_TEXT("state", state_label(a, &r)),
		T_TEXT("state_name", run_state_name(r.state)),
		T_TEXT("state_class", state_class(&r)),
		T_FLAG("dry", r.dry_run),
		T_TEXT("correction_of", *r.correction_of ? r.correction_of : NULL),
		T_FLAG("review", awaits_review(&r)),
		T_TEXT("working", !terminal && !awaits_review(&r) ? web_run_token(w, &r) : NULL),   /* its wait token */
		T_HTML("progress", run_progress_section(a, &r)),
		T_TEXT("expires", web_time(a, r.expires_at)),
		T_TEXT("expires_iso", r.expires_at ? web_time_iso(a, r.expires_at) : NULL),
		T_TEXT("error_code", r.state == RUN_FAILED ? r.error_code : NULL),
		T_TEXT("error_message", r.error_message),
		T_TEXT("rows", r.row_count >= 0 ? web_int(a, r.row_count) : "—"),
		T_TEXT("format", format_text(a, &r)),
		T_TEXT("created", web_time(a, r.created_at)),
		T_TEXT("created_iso", web_time_iso(a, r.created_at)),
		T_TEXT("finished", web_time(a, r.finished_at)),
		T_FLAG("results", results),
		T_FLAG("results_expired", expired),
		T_FLAG("rerun", terminal && !upload_gone),
		T_FLAG("already", web_query(w, "already") != NULL),
		T_TEXT("csrf", web_csrf_token(w)),
		T_TEXT("keep_results", web_duration(a, w->app->cfg.keep_results_ms)),
		T_TEXT("count_succeeded", web_int(a, r.counts[COUNT_SUCCEEDED])),
		T_TEXT("count_warnings", web_int(a, r.counts[COUNT_WARNINGS])),
		T_TEXT("count_failed", web_int(a, r.counts[COUNT_FAILED])),
		T_TEXT("count_skipped", web_int(a, r.counts[COUNT_SKIPPED])),
		T_FLAG("fixup", fixable && !upload_gone && r.counts[COUNT_FAILED] > 0),
		T_HTML("tabs", results ? tabs(w, &r, b) : html_empty()),
		T_HTML("problems", problems),
		T_FLAG("has_problems", ngroups > 0),
		T_TEXT("more_problems", ngroups > GROUPS_SHOWN ? arena_printf(a, "%d more groups are not shown here; "
			"GET /api/v1/imports/runs/%s/problems lists them all.", ngroups - GROUPS_SHOWN, r.id) : NULL),
		T_TEXT("fix_note", fix_note(w)),
		T_TEXT("bucket", buckets[b]),
		T_FLAG("empty_bucket", p.n == 0),
		T_HTML("result_rows", html_list_done(p.rows)),
		T_FLAG("first_page", after > 0),
		T_TEXT("next_after", more ? web_int(a, p.last) : NULL),
		T_HTML("fix_rows", fixable && !upload_gone && b == COUNT_FAILED && r.counts[COUNT_FAILED] > 0
			? failed_edit_section(w, &r) : html_empty()),
		T_TEXT("created_by", who(a, &r)),
		T_TEXT("revert_of", *r.revert_of ? r.revert_of : NULL),
		/* Undo (admins): a finished run that wrote something, while its
		 * results (and before-images) are kept. */
		T_FLAG("undo", web_is_admin(w) && results && !r.dry_run && r.counts[COUNT_SUCCEEDED] > 0),
		/* Cancel (admins): a run not finished yet, also one awaiting review. */
		T_FLAG("cancel", web_is_admin(w) && !terminal),
	};
	struct web_page_opts o = {.nav = NAV_IMPORTS, .refresh_s = !terminal && !awaits_review(&r) ? REFRESH_S : 0};
	web_page(w, 200, r.file_name, tmpl_render(a, "run.html", v, sizeof v / sizeof v[0]), &o);
}

const struct web_handler page_run = {run_page};

/* ---- CSV ---- */

static const char *const csv_header[] = {"bucket", "rowIndex", "jobCode", "loadNo", "projectName", "code", "field",
					  "column", "cell", "value", "message", "reason", "createdRecordIds"};

struct csv_ctx {
	struct arena *a;
	struct buf *b;
	const char *bucket;
	int last;
	bool failed;
};

static void csv_line(struct csv_ctx *c, int row_index, json_t *o, json_t *issue)
{
	json_t *src = json_object_get(o, "source");
	const char *cells[] = {
		c->bucket, web_int(c->a, row_index), jstr(src, "jobCode"), jstr(src, "loadNo"), jstr(src, "projectName"),
		jstr(issue, "code"), jstr(issue, "field"), jstr(issue, "column"), jstr(issue, "cell"), jstr(issue, "value"),
		jstr(issue, "message"), jstr(o, "reason"), id_list(c->a, json_object_get(o, "createdRecordIds")),
	};
	for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
		c->failed |= csv_cell(c->b, cells[i], i == 0) != 0;
	c->failed |= csv_row_end(c->b) != 0;
}

/* One line per error or warning; a row without any gets one line. */
static void csv_result(int row_index, const char *body, void *ctx)
{
	struct csv_ctx *c = ctx;
	c->last = row_index;
	json_t *o = json_loads(body, 0, NULL);
	if (!o)
		return;
	json_t *list = json_object_get(o, "errors");
	if (!json_is_array(list))
		list = json_object_get(o, "warnings");
	if (json_is_array(list) && json_array_size(list)) {
		size_t i;
		json_t *e;
		json_array_foreach(list, i, e)
			csv_line(c, row_index, o, e);
	} else {
		csv_line(c, row_index, o, NULL);
	}
	json_decref(o);
}

static void buf_cleanup(void *p)
{
	buf_done(p);
}

static void run_csv(struct web_req *w)
{
	struct run r;
	if (!load_run(w, &r))
		return;
	if (!run_state_terminal(r.state)) {
		web_error(w, 409, "Not finished yet", "Results exist once the run has finished. Reload its page in a moment.");
		return;
	}
	if (run_results_expired(&r, w->app->cfg.keep_results_ms, now_ms())) {
		web_error(w, 410, "Results deleted", "The per-row results of this run were deleted by retention; its counts "
			  "remain on its page. Import the file again for fresh results.");
		return;
	}
	struct buf *b = arena_alloc(w->a, sizeof(*b));
	buf_init(b, CSV_MAX);
	arena_cleanup(w->a, buf_cleanup, b);
	/* A byte-order mark makes Excel read the file as UTF-8. */
	buf_puts(b, "\xEF\xBB\xBF");
	struct csv_ctx c = {w->a, b, NULL, 0, false};
	for (size_t i = 0; i < sizeof csv_header / sizeof csv_header[0]; i++)
		csv_cell(b, csv_header[i], i == 0);
	csv_row_end(b);
	for (int k = 0; k < 4; k++) {
		c.bucket = buckets[k];
		c.last = 0;
		for (bool more = true; more && !c.failed;) {
			if (results_page(w->app->store, r.id, c.bucket, c.last, 500, w->app->cfg.docs_url, csv_result, &c, &more)) {
				web_unavailable(w);
				return;
			}
		}
	}
	if (c.failed) {
		web_error(w, 500, "Too large", "The results are too large to download at once.");
		return;
	}
	web_raw(w, 200, "text/csv; charset=utf-8", buf_str(b), b->len);
	http_add_header(w->req, w->res, "Content-Disposition",
			arena_printf(w->a, "attachment; filename=\"%s-results.csv\"", r.id));
	http_add_header(w->req, w->res, "Cache-Control", "no-store");
}

const struct web_handler page_run_csv = {run_csv};

/* The fix-up file (PRODUCT §9), as GET /api/v1/imports/runs/{id}/failed-rows
 * serves it. */
static void run_fixup(struct web_req *w)
{
	struct run r;
	if (!load_run(w, &r))
		return;
	if (!run_state_terminal(r.state) || r.state == RUN_FAILED || r.state == RUN_CANCELLED) {
		web_error(w, 409, "No rows to fix", "A fix-up file exists once the run has finished with per-row "
			  "results; a run that failed as a whole says why on its page.");
		return;
	}
	if (run_results_expired(&r, w->app->cfg.keep_results_ms, now_ms()) ||
	    run_upload_expired(&r, w->app->cfg.keep_uploads_ms, now_ms())) {
		web_error(w, 410, "File deleted", "The stored file or the results of this run were deleted by retention, "
			  "so no fix-up file can be made. Import the file again from your copy.");
		return;
	}
	struct fixup f;
	enum fixup_format format;
	if (fixup_format_parse(http_query(w->req, "format"), &format)) {
		web_error(w, 400, "Unknown format", "Failed rows are offered as CSV (format=csv) or XLSX (format=xlsx).");
		return;
	}
	if (web_store_answered(w, fixup_build(w->app->store, w->a, &r, format, &f)))
		return;
	web_raw(w, 200, f.content_type, (const char *)f.data, f.len);
	free(f.data);
	http_add_header(w->req, w->res, "Content-Disposition", content_disposition(w->a, f.file_name));
	http_add_header(w->req, w->res, "Cache-Control", "no-store");
}

const struct web_handler page_run_fixup = {run_fixup};
