/* The review screen of a staged run (PRODUCT.md §6-§7): one row per file
 * column with its header, sample values and a select of schema fields,
 * pre-set to the proposal; admins confirm with "Confirm mapping and import". */
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/log.h"
#include "import/review.h"
#include "sheet/sheet.h"
#include "web/page.h"

/* Sample cells can be long (notes); the screen shows their start. */
#define SAMPLE_CHARS 60

static const char *const group_labels[GROUP__COUNT] = {
	"Job and load", "Project pickup address", "Project dropoff address", "Load pickup address",
	"Load dropoff address",
};

/* s cut to at most max characters (whole UTF-8 sequences) with "…". */
static const char *shorten(struct arena *a, const char *s, size_t max)
{
	size_t chars = 0, i = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == max)
			return arena_printf(a, "%.*s…", (int)i, s);
	}
	return s;
}

/* A schema label up to its first ';' or ',' ("Weight, with an optional
 * unit" -> "Weight"): options stay narrow enough to read in a select. */
static const char *short_label(struct arena *a, const char *label)
{
	return arena_strndup(a, label, strcspn(label, ";,"));
}

static const struct html *option(struct arena *a, const char *value, const char *label, bool selected,
				 bool required)
{
	struct tmpl_var v[] = {T_TEXT("value", value), T_TEXT("label", label), T_FLAG("selected", selected),
			       T_FLAG("required", required)};
	return tmpl_render(a, "option.html", v, sizeof v / sizeof v[0]);
}

/* "Ignore" and every schema field, grouped as the schema groups them. */
static const struct html *field_options(struct arena *a, const char *chosen)
{
	struct html_list *all = html_list_new(a);
	html_list_add(all, option(a, "", "Ignore this column", !chosen || !*chosen, false));
	for (int g = 0; g < GROUP__COUNT; g++) {
		struct html_list *opts = html_list_new(a);
		for (int f = 0; f < FIELD__COUNT; f++) {
			const struct field_info *fi = field_info((enum field)f);
			if ((int)fi->group != g)
				continue;
			const char *label = arena_printf(a, "%s%s — %s", fi->name, fi->required ? " (required)" : "",
							 short_label(a, fi->label));
			html_list_add(opts, option(a, fi->name, label, chosen && !strcmp(chosen, fi->name),
						   fi->required));
		}
		struct tmpl_var v[] = {T_TEXT("label", group_labels[g]), T_HTML("options", html_list_done(opts))};
		html_list_add(all, tmpl_render(a, "optgroup.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(all);
}

static const struct html *samples(struct arena *a, const struct review *r, int col)
{
	struct html_list *l = html_list_new(a);
	for (int k = 0; k < r->nsamples; k++) {
		struct tmpl_var v[] = {T_TEXT("value", shorten(a, r->samples[k][col], SAMPLE_CHARS))};
		html_list_add(l, tmpl_render(a, "review_sample.html", v, 1));
	}
	return html_list_done(l);
}

static const char *field_or(enum field f)
{
	return f < FIELD__COUNT ? field_name(f) : "a field";
}

/* Why the column was proposed as it is (PRODUCT §14): from its name, a
 * synonym, what the organization learned, or its values; and for a column
 * left on "Ignore", why. */
static const char *why(struct arena *a, const struct proposal *p)
{
	const char *text = propose_reason_text(p->reason);
	const char *vals = p->values && *p->values ? arena_printf(a, " (%s)", p->values) : "";
	switch (p->reason) {
	case REASON_NAME: case REASON_SYNONYM: case REASON_FUZZY: case REASON_ADDRESS:
		return arena_printf(a, "From the header: %s.", text);
	case REASON_VALUES:
		return arena_printf(a, "From the values%s: %s.", vals, text);
	case REASON_GUESSED:
		return arena_printf(a, "Guessed from the values%s: no header names %s, a required field.", vals,
				    field_or(p->field));
	case REASON_LEARNED:
		return p->field == FIELD_NONE ? "Learned: an admin of your organization left this header on Ignore before."
					      : "Learned: an admin of your organization confirmed this header so before.";
	case REASON_CONFLICT:
		return arena_printf(a, "Ignored: another column fits %s better.", field_or(p->other));
	case REASON_MISFIT:
		return arena_printf(a, "Ignored: the header suggests %s, but its values%s cannot be one.",
				    field_or(p->other), vals);
	case REASON_TIMESTAMP:
	case REASON_IRRELEVANT:
	case REASON_NONE:
	default:
		return arena_printf(a, "Ignored: %s.", text);
	}
}

static const char *const reason_names[REASON__COUNT] = {
	"none", "name", "synonym", "fuzzy", "address", "values", "guessed", "learned", "irrelevant", "conflict",
	"misfit", "timestamp",
};

static const char *hint(const struct proposal *p)
{
	if (p->field != FIELD_NONE && p->confidence < 60 && p->reason != REASON_GUESSED)
		return "Loadline is unsure about this match: check it.";
	return NULL;
}

/* Required fields no column is mapped to, comma-separated ("" when none). */
static const char *missing_required(struct arena *a, const char *const *chosen, int ncols)
{
	const char *out = "";
	for (int f = 0; f < FIELD__COUNT; f++) {
		if (!field_required((enum field)f))
			continue;
		bool mapped = false;
		for (int j = 0; j < ncols; j++)
			mapped |= chosen[j] && !strcmp(chosen[j], field_name((enum field)f));
		if (!mapped)
			out = arena_printf(a, "%s%s%s", out, *out ? ", " : "", field_name((enum field)f));
	}
	return out;
}

static const struct html *columns(struct web_req *w, const struct review *r, const char *const *chosen)
{
	struct html_list *l = html_list_new(w->a);
	for (int j = 0; j < r->ncols; j++) {
		bool blank = r->headers[j][0] == '\0';
		struct tmpl_var v[] = {
			T_TEXT("i", web_int(w->a, j)),
			T_TEXT("header", r->headers[j]),
			T_FLAG("blank", blank),
			T_FLAG("unmapped", !chosen[j]),
			T_HTML("samples", samples(w->a, r, j)),
			T_HTML("options", blank ? html_empty() : field_options(w->a, chosen[j])),
			T_TEXT("hint", blank ? NULL : hint(&r->proposal[j])),
			T_TEXT("why", blank ? NULL : why(w->a, &r->proposal[j])),
			T_TEXT("reason", reason_names[r->proposal[j].reason < REASON__COUNT ? r->proposal[j].reason : 0]),
			T_FLAG("admin", web_is_admin(w)),
		};
		html_list_add(l, tmpl_render(w->a, "review_column.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(l);
}

/* "loadDate · column “Ship Date”" */
static const char *issue_where(struct arena *a, const struct review_issue *x)
{
	if (x->field && x->column)
		return arena_printf(a, "%s · column “%s”", x->field, x->column);
	return x->field ? x->field : x->column;
}

/* The preview table rows: how each sample row would validate. */
static const struct html *preview(struct web_req *w, const struct review *r, const char *const *chosen)
{
	struct review_row_check *checks = arena_alloc(w->a, sizeof(*checks) * (REVIEW_SAMPLES + 1));
	review_preview(w->a, r, chosen, checks);
	struct html_list *rows = html_list_new(w->a);
	for (int k = 0; k < r->nsamples; k++) {
		struct html_list *issues = html_list_new(w->a);
		for (int i = 0; i < checks[k].nissues; i++) {
			const struct review_issue *x = &checks[k].issues[i];
			struct tmpl_var v[] = {T_TEXT("code", x->code), T_TEXT("where", issue_where(w->a, x)),
					       T_TEXT("message", x->message), T_FLAG("warn", x->warning)};
			html_list_add(issues, tmpl_render(w->a, "issue.html", v, sizeof v / sizeof v[0]));
		}
		struct tmpl_var v[] = {T_TEXT("row", web_int(w->a, checks[k].row)), T_FLAG("ok", checks[k].nissues == 0),
				       T_HTML("issues", html_list_done(issues))};
		html_list_add(rows, tmpl_render(w->a, "preview_row.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(rows);
}

/* The review URL reading the file at row `row` (0: as now) of sheet `sheet`. */
static const char *review_href(struct web_req *w, const struct review *r, unsigned row, const char *sheet)
{
	const char *q = row ? arena_printf(w->a, "?headerRow=%u", row) : "";
	if (sheet)
		q = arena_printf(w->a, "%s%ssheet=%s", q, *q ? "&" : "?", web_url_encode(w->a, sheet));
	return arena_printf(w->a, "/imports/runs/%s/review%s", r->run.id, q);
}

/* A row's cells as one line: "Weekly Load Report · Printed 2026-11-20". */
static const char *row_text(struct arena *a, const char *const *cells, int n)
{
	const char *out = "";
	for (int j = 0; j < n; j++)
		if (cells[j] && *cells[j])
			out = arena_printf(a, "%s%s%s", out, *out ? " · " : "", shorten(a, cells[j], SAMPLE_CHARS));
	return out;
}

/* The rows above the header, the header itself and the first rows below
 * it, each but the header with "Use row N as the header" (PRODUCT §14). */
static const struct html *above_rows(struct web_req *w, const struct review *r)
{
	struct html_list *l = html_list_new(w->a);
	for (int i = 0; i <= r->nabove + r->nsamples; i++) {
		bool current = i == r->nabove, below = i > r->nabove;
		int k = i - r->nabove - 1;
		unsigned row = current ? r->header_row : below ? r->sample_rows[k] : r->above[i].number;
		const char *text = current ? row_text(w->a, r->headers, r->ncols)
				   : below ? row_text(w->a, r->samples[k], r->ncols)
					   : row_text(w->a, r->above[i].cells, r->above[i].ncells);
		struct tmpl_var v[] = {T_TEXT("row", web_int(w->a, row)), T_TEXT("text", text),
				       T_FLAG("current", current), T_TEXT("href", review_href(w, r, row, r->at_sheet))};
		html_list_add(l, tmpl_render(w->a, "review_above.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(l);
}

/* The workbook's visible sheets, the one read marked, the others links. */
static const struct html *sheet_links(struct web_req *w, const struct review *r)
{
	struct html_list *l = html_list_new(w->a);
	for (int i = 0; i < r->nsheets; i++) {
		bool current = r->sheet && !strcmp(r->sheet, r->sheets[i]);
		struct tmpl_var v[] = {T_TEXT("name", r->sheets[i]), T_FLAG("current", current),
				       T_TEXT("href", review_href(w, r, 0, r->sheets[i]))};
		html_list_add(l, tmpl_render(w->a, "review_sheet.html", v, sizeof v / sizeof v[0]));
	}
	return html_list_done(l);
}

static void render(struct web_req *w, int status, const struct review *r, const char *const *chosen,
		   const char *error, const struct html *preview_rows)
{
	bool open = !r->decided && !r->expired;
	struct tmpl_var v[] = {
		T_TEXT("run_id", r->run.id),
		T_TEXT("file_name", r->run.file_name),
		T_TEXT("rows", r->run.row_count >= 0 ? web_int(w->a, r->run.row_count) : "—"),
		T_TEXT("expires", web_time(w->a, r->run.expires_at)),
		T_TEXT("expires_iso", r->run.expires_at ? web_time_iso(w->a, r->run.expires_at) : NULL),
		T_TEXT("state", run_state_name(r->run.state)),
		T_FLAG("expired", !r->decided && r->expired),
		T_FLAG("decided", r->decided),
		T_FLAG("open", open),
		T_TEXT("error", error),
		T_TEXT("missing", open ? missing_required(w->a, chosen, r->ncols) : NULL),
		T_TEXT("csrf", web_csrf_token(w)),
		T_TEXT("ncols", web_int(w->a, r->ncols)),
		T_HTML("columns", open ? columns(w, r, chosen) : html_empty()),
		T_FLAG("admin", web_is_admin(w)),
		T_TEXT("org_name", w->session->org.name),
		T_HTML("preview", open && preview_rows ? preview_rows : html_empty()),
		T_TEXT("header_row", web_int(w->a, r->header_row)),
		T_FLAG("has_above", r->nabove > 0),
		T_HTML("above", open ? above_rows(w, r) : html_empty()),
		T_FLAG("has_sheets", open && r->nsheets > 1),
		T_HTML("sheets", open && r->nsheets > 1 ? sheet_links(w, r) : html_empty()),
		T_TEXT("at_row", r->at_header_row ? web_int(w->a, r->at_header_row) : ""),
		T_TEXT("at_sheet", r->at_sheet ? r->at_sheet : ""),
	};
	struct web_page_opts o = {.nav = NAV_IMPORTS};
	web_page(w, status, arena_printf(w->a, "Review %s", r->run.file_name),
		 tmpl_render(w->a, "review.html", v, sizeof v / sizeof v[0]), &o);
}

/* Loads the review; answers 404/503 itself and returns false.  A run whose
 * file no longer parses (it failed with a parse code) has nothing to review
 * and shows as decided. */
static bool load(struct web_req *w, struct review *r, bool post, const char **ret_error)
{
	*ret_error = NULL;
	const char *org = w->session->org.id, *id = web_param(w, "id");
	/* Where the admin chose to read the file: the page's query, or the
	 * form's hidden fields that carry it to the confirmation. */
	const char *row = post ? web_field(w, "headerRow") : web_query(w, "headerRow");
	const char *sheet = post ? web_field(w, "sheet") : web_query(w, "sheet");
	long n = row && *row ? strtol(row, NULL, 10) : 0;
	unsigned at = n > 0 && n <= (long)SHEET_MAX_ROW_NUMBER ? (unsigned)n : 0;
	enum code rc = review_load_at(w->app->store, w->a, w->app->cfg.max_rows, org, id, at,
				      sheet && *sheet ? sheet : NULL, r);
	/* A row or sheet the file cannot be read at: the file as the run
	 * reads it, and why the choice did not work. */
	if ((at || (sheet && *sheet)) && code_kind(rc) == CODE_KIND_PARSE) {
		*ret_error = at ? arena_printf(w->a, "Row %u cannot be the header (%s); the file is shown as Loadline "
					       "reads it.", at, code_name(rc))
				: "That worksheet cannot be read; the file is shown as Loadline reads it.";
		rc = review_load(w->app->store, w->a, w->app->cfg.max_rows, org, id, r);
	}
	if (rc == CODE_NOT_FOUND) {
		web_not_found(w);
		return false;
	}
	/* An outage is 503; any other store failure 500 (web_store_answered). */
	if (rc == CODE_SERVICE_UNAVAILABLE || rc == CODE_INTERNAL_ERROR) {
		web_store_answered(w, rc);
		return false;
	}
	if (rc) {
		memset(r, 0, sizeof(*r));
		if (web_store_answered(w, store_run_get(w->app->store, org, id, &r->run)))
			return false;
		r->decided = true;
	}
	return true;
}

static void review_get(struct web_req *w)
{
	struct review r;
	const char *error;
	if (!load(w, &r, false, &error))
		return;
	const char **chosen = arena_alloc(w->a, sizeof(char *) * ((size_t)r.ncols + 1));
	for (int j = 0; j < r.ncols; j++)
		chosen[j] = r.proposal[j].field != FIELD_NONE ? field_name(r.proposal[j].field) : NULL;
	/* The page opens with the proposal checked against the first rows. */
	render(w, 200, &r, chosen, error, r.decided || r.expired ? NULL : preview(w, &r, chosen));
}

const struct web_handler page_review_get = {review_get};

/* The fields chosen on the form, one per column (NULL = ignore). */
static const char **posted_fields(struct web_req *w, int ncols)
{
	const char **chosen = arena_alloc(w->a, sizeof(char *) * ((size_t)ncols + 1));
	for (int j = 0; j < ncols; j++) {
		const char *v = web_field(w, arena_printf(w->a, "col%d", j));
		chosen[j] = v && *v ? v : NULL;
	}
	return chosen;
}

static void review_post(struct web_req *w)
{
	struct review r;
	const char *error;
	if (!load(w, &r, true, &error))
		return;
	if (error) {
		render(w, 400, &r, posted_fields(w, r.ncols), error, NULL);
		return;
	}
	const char *n = web_field(w, "ncols");
	const char **chosen = posted_fields(w, r.ncols);
	if (!n || strtol(n, NULL, 10) != r.ncols) {
		render(w, 400, &r, chosen, "The form does not match this file's columns. Reload the page and try again.",
		       NULL);
		return;
	}
	/* "Check the first rows": nothing is stored, the page comes back with
	 * the choices kept and the preview (the script asks for it live). */
	const char *action = web_field(w, "action");
	if (action && !strcmp(action, "preview")) {
		render(w, 200, &r, chosen, NULL, preview(w, &r, chosen));
		return;
	}
	int released = 0;
	const char *msg = NULL;
	enum review_outcome outcome;
	struct review_at at = {.header_row = r.at_header_row, .sheet = r.at_sheet};
	enum code rc = review_confirm_at(w->app->store, w->a, w->app->cfg.max_rows, w->session->org.id, r.run.id, &at,
					 w->session->user.id, chosen, r.ncols, &released, &msg, &outcome);
	if (web_store_answered(w, rc))
		return;
	switch (outcome) {
	case REVIEW_CONFIRMED:
		app_hook_call(&w->app->run_queued);
		log_json("info", "mapping confirmed", json_pack("{s:s,s:s,s:i}", "runId", r.run.id, "userId",
								w->session->user.id, "released", released));
		web_redirect(w, arena_printf(w->a, "/imports/runs/%s", r.run.id));
		return;
	case REVIEW_REFUSED:
		render(w, 400, &r, chosen, msg, NULL);
		return;
	case REVIEW_EXPIRED:
		r.expired = true;
		render(w, 409, &r, chosen, NULL, NULL);
		return;
	case REVIEW_DECIDED:
		(void)store_run_get(w->app->store, w->session->org.id, r.run.id, &r.run);
		r.decided = true;
		render(w, 409, &r, chosen, NULL, NULL);
		return;
	}
}

const struct web_handler page_review_post = {review_post};
