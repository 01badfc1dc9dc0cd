/* Edit failed rows in the browser (PRODUCT §15): the Failed tab's table of
 * the file's own columns, one form per page of 50 rows, failing cells
 * marked with their messages; "Import corrected rows" and the problem
 * groups' "Set <column> in N rows" make a run of the corrected rows
 * (import/corrections.h).  static/app.js adds the keyboard (Enter moves
 * down, Escape cancels an edit); everything works without it. */
#include "web/failed_edit.h"

#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "import/corrections.h"
#include "import/intake.h"
#include "store/runs.h"

#define FIX_ROWS_PER_PAGE 50

/* ---- the table ---- */

/* The messages of row it's errors in column col ("" when none); col -1:
 * the errors that point at no column. */
static const char *messages_at(struct arena *a, const struct failed_item *it, int col)
{
	const char *s = "";
	for (int i = 0; i < it->nerrors; i++)
		if (it->errors[i].col == col)
			s = arena_printf(a, "%s%s%s", s, *s ? " " : "", it->errors[i].message ? it->errors[i].message : "");
	return s;
}

static const struct html *cell_html(struct arena *a, const struct failed_grid *g, int i, size_t j)
{
	const struct failed_item *it = g->items[i];
	const char *msg = messages_at(a, it, (int)j);
	const char *header = *g->header[j] ? g->header[j] : arena_printf(a, "column %zu", j + 1);
	struct tmpl_var v[] = {
		T_TEXT("name", arena_printf(a, "r%u.%zu", it->row, j)), T_TEXT("value", g->cells[i][j]),
		T_TEXT("label", arena_printf(a, "Row %u, %s", it->row, header)), T_TEXT("msg", *msg ? msg : NULL),
		T_TEXT("msg_id", arena_printf(a, "m%u-%zu", it->row, j)),
	};
	return tmpl_render_text(a, "<td{{#msg}} class=\"cell-bad\"{{/msg}}><input class=\"cell\" name=\"{{name}}\" "
		"value=\"{{value}}\" aria-label=\"{{label}}\"{{#msg}} aria-invalid=\"true\" aria-describedby=\"{{msg_id}}\""
		"{{/msg}}>{{#msg}}<div class=\"cell-msg\" id=\"{{msg_id}}\">{{msg}}</div>{{/msg}}</td>",
		v, sizeof v / sizeof v[0]);
}

static const struct html *row_html(struct arena *a, const struct failed_grid *g, int i)
{
	struct html_list *cells = html_list_new(a);
	for (size_t j = 0; j < g->ncols; j++)
		html_list_add(cells, cell_html(a, g, i, j));
	const char *whole = messages_at(a, g->items[i], -1);
	struct tmpl_var v[] = {
		T_TEXT("row", web_int(a, g->items[i]->row)), T_TEXT("whole", *whole ? whole : NULL),
		T_HTML("cells", html_list_done(cells)),
	};
	return tmpl_render_text(a, "<tr><th scope=\"row\" class=\"num\">{{row}}{{#whole}}<div class=\"cell-msg\">"
				"{{whole}}</div>{{/whole}}</th>{{cells}}</tr>\n", v, sizeof v / sizeof v[0]);
}

static const struct html *head_html(struct arena *a, const struct failed_grid *g)
{
	struct html_list *l = html_list_new(a);
	for (size_t j = 0; j < g->ncols; j++) {
		struct tmpl_var v[] = {T_TEXT("h", g->header[j])};
		html_list_add(l, tmpl_render_text(a, "<th scope=\"col\">{{h}}</th>", v, 1));
	}
	return html_list_done(l);
}

const struct html *failed_edit_section(struct web_req *w, const struct run *r)
{
	struct arena *a = w->a;
	const char *after_s = web_query(w, "fix_after");
	long after = after_s ? strtol(after_s, NULL, 10) : 0;
	struct failed_list f;
	struct failed_grid g;
	if (corrections_failed(w->app->store, a, r->id, w->app->cfg.docs_url, &f) ||
	    corrections_grid(w->app->store, a, r, &f, after > 0 ? (unsigned)after : 0, FIX_ROWS_PER_PAGE, &g) ||
	    g.n == 0)
		return html_empty();
	struct html_list *rows = html_list_new(a);
	for (int i = 0; i < g.n; i++)
		html_list_add(rows, row_html(a, &g, i));
	struct tmpl_var v[] = {
		T_TEXT("id", r->id), T_TEXT("csrf", web_csrf_token(w)), T_FLAG("dry", r->dry_run),
		T_HTML("head", head_html(a, &g)), T_HTML("rows", html_list_done(rows)),
		T_TEXT("next", g.next_after ? web_int(a, g.next_after) : NULL), T_FLAG("first", after > 0),
		T_TEXT("shown", web_int(a, g.n)),
	};
	return tmpl_render(a, "failed_edit.html", v, sizeof v / sizeof v[0]);
}

/* ---- the posts ---- */

/* "r12.3" -> row 12, column 3; false for any other name. */
static bool cell_name(const char *name, unsigned *ret_row, int *ret_col)
{
	char *end;
	if (name[0] != 'r' || name[1] < '1' || name[1] > '9')
		return false;
	unsigned long row = strtoul(name + 1, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9' || row > 1048576)
		return false;
	long col = strtol(end + 1, &end, 10);
	if (*end || col < 0 || col >= 16384)
		return false;
	*ret_row = (unsigned)row;
	*ret_col = (int)col;
	return true;
}

struct posted {
	unsigned row;
	int col;
	const char *text;
};

static int by_row_col(const void *x, const void *y)
{
	const struct posted *a = x, *b = y;
	return a->row != b->row ? (a->row < b->row ? -1 : 1) : (a->col > b->col) - (a->col < b->col);
}

/* The table's form: every cell shown comes back (named r<row>.<col>); rows
 * none of whose cells changed are left out by corrections_create. */
static const char *from_table(struct web_req *w, struct corrections *c)
{
	struct posted *p = arena_alloc(w->a, sizeof(*p) * (size_t)(w->form.n + 1));
	int n = 0;
	for (int i = 0; i < w->form.n; i++) {
		const struct form_field *fl = &w->form.fields[i];
		if (!cell_name(fl->name, &p[n].row, &p[n].col))
			continue;
		if (strlen(fl->value) > CORRECTIONS_CELL_MAX)
			return "A cell is longer than 32,767 bytes.";
		p[n++].text = fl->value;
	}
	qsort(p, (size_t)n, sizeof(*p), by_row_col);
	c->rows = arena_alloc(w->a, sizeof(*c->rows) * (size_t)(n + 1));
	c->changed_only = true;
	for (int i = 0, j; i < n; i = j) {
		for (j = i; j < n && p[j].row == p[i].row; j++)
			;
		if (c->n == FIX_ROWS_PER_PAGE)
			return "At most 50 rows at a time: import this page's corrections first.";
		struct correction_row *r = &c->rows[c->n++];
		int *cols = arena_alloc(w->a, sizeof(int) * (size_t)(j - i));
		r->texts = arena_alloc(w->a, sizeof(char *) * (size_t)(j - i));
		r->row = p[i].row;
		r->ncells = j - i;
		r->headers = NULL;
		r->cols = cols;
		for (int k = i; k < j; k++) {
			cols[k - i] = p[k].col;
			r->texts[k - i] = p[k].text;
		}
	}
	return c->n ? NULL : "The form has no cells.";
}

/* Does error e belong to the group the form names (code, column, value)? */
static bool in_group(struct web_req *w, const struct failed_error *e)
{
	const char *code = web_field(w, "group_code"), *column = web_field(w, "group_column");
	const char *value = web_field(w, "group_value");
	bool has_value = web_field(w, "group_has_value") != NULL;
	return e->code && !strcmp(e->code, code) && e->col >= 0 && e->column && column && !strcmp(e->column, column) &&
	       (has_value ? e->value && value && !strcmp(e->value, value) : !e->value);
}

/* "Set <column> in N rows": the one value in that column of every failed
 * row of the group. */
static const char *from_group(struct web_req *w, const struct failed_list *f, struct corrections *c)
{
	const char *value = web_field(w, "value");
	if (!value || strlen(value) > CORRECTIONS_CELL_MAX)
		return "Type the value to set, at most 32,767 bytes.";
	c->rows = arena_alloc(w->a, sizeof(*c->rows) * (size_t)(f->n + 1));
	c->changed_only = true;
	for (int i = 0; i < f->n; i++)
		for (int k = 0; k < f->rows[i].nerrors; k++)
			if (in_group(w, &f->rows[i].errors[k])) {
				struct correction_row *r = &c->rows[c->n++];
				memset(r, 0, sizeof(*r));
				r->row = f->rows[i].row;
				int *col = arena_alloc(w->a, sizeof(int));
				*col = f->rows[i].errors[k].col;
				r->cols = col;
				r->texts = arena_alloc(w->a, sizeof(char *));
				r->texts[0] = value;
				r->ncells = 1;
				break;
			}
	return c->n ? NULL : "No failed row of this run has that problem any more.";
}

/* The run, when it has failed rows to correct; else answered. */
static bool correctable(struct web_req *w, struct run *r)
{
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), r);
	if (web_store_answered(w, rc))
		return false;
	int64_t now = now_ms();
	if (!run_state_terminal(r->state) || r->state == RUN_FAILED || r->state == RUN_CANCELLED)
		web_error(w, 409, "Nothing to correct", "This run has no failed rows to correct (yet).");
	else if (run_results_expired(r, w->app->cfg.keep_results_ms, now))
		web_error(w, 410, "Results deleted (RESULTS_EXPIRED)", "The per-row results of this run were deleted by "
			  "retention. Import the file again from your copy.");
	else if (run_upload_expired(r, w->app->cfg.keep_uploads_ms, now))
		web_error(w, 410, "File deleted (UPLOAD_EXPIRED)", "The stored file of this run was deleted by retention. "
			  "Import the file again from your copy with Import a file.");
	else
		return true;
	return false;
}

static void post_corrections(struct web_req *w)
{
	struct run orig;
	if (!correctable(w, &orig))
		return;
	struct failed_list f;
	struct corrections c = {0};
	const char *why = NULL;
	enum code rc = CODE_OK;
	if (web_field(w, "group_code")) {
		rc = corrections_failed(w->app->store, w->a, orig.id, w->app->cfg.docs_url, &f);
		if (web_store_answered(w, rc))
			return;
		why = from_group(w, &f, &c);
	} else {
		why = from_table(w, &c);
	}
	struct run run;
	char existing[ID_MAX] = "";
	const char *dry = web_field(w, "dry_run");
	struct correction_opts o = {.dry_run = dry && *dry, .keep_uploads_ms = w->app->cfg.keep_uploads_ms,
				    .staging_ttl_ms = w->app->cfg.staging_ttl_ms,
				    .created_by = intake_who_user(w->a, w->session->user.id, w->session->user.email)};
	if (!why)
		rc = corrections_create(w->app->store, w->a, &orig, &c, &o, &run, existing, &why);
	if (why || rc == CODE_INVALID_CORRECTION) {
		web_error(w, 400, "Nothing imported", why ? why : "The corrections could not be read.");
		return;
	}
	if (rc == CODE_IMPORT_IN_PROGRESS) {
		web_redirect(w, arena_printf(w->a, "/imports/runs/%s?already=1", existing));
		return;
	}
	if (rc == CODE_UPLOAD_EXPIRED) {
		web_error(w, 410, "File deleted (UPLOAD_EXPIRED)", "The stored file of this run was deleted by retention.");
		return;
	}
	if (web_store_answered(w, rc))
		return;
	app_hook_call(&w->app->run_queued);
	web_redirect(w, arena_printf(w->a, "/imports/runs/%s", run.id));
}

const struct web_handler page_run_corrections = {post_corrections};
