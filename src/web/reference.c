/* Customers and Branches: the reference data rows are matched against
 * (PRODUCT §8).  Members list and search; admins add, with the same name
 * rule as POST /api/v1/customers (DUPLICATE_NAME), here or with the button
 * of a LOOKUP_MISS group on a run's page (PRODUCT §11). */
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "model/names.h"
#include "model/normalize.h"
#include "store/reference.h"
#include "store/runs.h"
#include "web/page.h"

#define PER_PAGE 50
#define QUERY_MAX 200

struct kind_words {
	const char *title, *noun, *plural, *path, *intro;
};

static const struct kind_words words[] = {
	[REF_CUSTOMER] = {"Customers", "customer", "customers", "/customers",
			  "Customers a file's customer column is matched against, ignoring case and surrounding "
			  "spaces. A row naming a customer that is not here still imports, with a LOOKUP_MISS warning."},
	[REF_BRANCH] = {"Branches", "branch", "branches", "/branches",
			"Branches a file's branch column is matched against, ignoring case and surrounding spaces. "
			"A row naming a branch that is not here still imports, with a LOOKUP_MISS warning."},
};

static enum ref_kind kind_of(const struct web_req *w)
{
	return !strncmp(w->req->path, "/branches", 9) ? REF_BRANCH : REF_CUSTOMER;
}

static const struct html *row(struct arena *a, const struct ref_rec *r)
{
	struct tmpl_var v[] = {T_TEXT("name", r->name), T_TEXT("id", r->id), T_TEXT("added", web_time(a, r->created_at))};
	return tmpl_render(a, "reference_row.html", v, sizeof v / sizeof v[0]);
}

/* The list page; error and typed after a refused add. */
static void render(struct web_req *w, int status, const char *error, const char *typed)
{
	enum ref_kind k = kind_of(w);
	const struct kind_words *kw = &words[k];
	const char *q = web_query(w, "q");
	if (!q || strlen(q) > QUERY_MAX)
		q = "";
	int64_t after_created;
	const char *after_id;
	web_after(w, &after_created, &after_id);
	char *key = name_ref_key(w->a, q, strlen(q));
	struct ref_rec *recs = arena_alloc(w->a, sizeof(*recs) * (PER_PAGE + 1));
	int n = 0;
	if (store_ref_search(w->app->store, w->a, k, w->session->org.id, key ? key : "", after_created, after_id,
			     PER_PAGE + 1, recs, &n)) {
		web_unavailable(w);
		return;
	}
	struct html_list *rows = html_list_new(w->a);
	for (int i = 0; i < n && i < PER_PAGE; i++)
		html_list_add(rows, row(w->a, &recs[i]));
	const char *more = NULL;
	if (n > PER_PAGE)
		more = arena_printf(w->a, "%lld_%s", (long long)recs[PER_PAGE - 1].created_at, recs[PER_PAGE - 1].id);
	int shown = n < PER_PAGE ? n : PER_PAGE;
	size_t tl;
	const char *t = norm_trim(q, strlen(q), &tl);
	const char *summary = tl ? arena_printf(w->a, "%d %s “%.*s”%s.", shown,
					       shown == 1 ? arena_printf(w->a, "%s matches", kw->noun)
							  : arena_printf(w->a, "%s match", kw->plural),
					       (int)tl, t, more ? " so far" : "")
				 : arena_printf(w->a, "%d %s%s.", shown, shown == 1 ? kw->noun : kw->plural,
						more ? " on this page" : "");
	const char *added = web_query(w, "added");
	struct tmpl_var v[] = {
		T_TEXT("title", kw->title), T_TEXT("noun", kw->noun), T_TEXT("plural", kw->plural),
		T_TEXT("path", kw->path), T_TEXT("intro", kw->intro),
		T_TEXT("notice", added && !error ? arena_printf(w->a, "Added. Rows naming it now match it.") : NULL),
		T_FLAG("admin", web_is_admin(w)),
		T_TEXT("error", error), T_TEXT("typed", typed),
		T_TEXT("csrf", web_csrf_token(w)),
		T_TEXT("q", q), T_TEXT("q_url", web_url_encode(w->a, q)),
		T_TEXT("summary", summary),
		T_FLAG("empty", n == 0),
		T_HTML("rows", html_list_done(rows)),
		T_TEXT("more", more),
	};
	struct web_page_opts o = {.nav = k == REF_CUSTOMER ? NAV_CUSTOMERS : NAV_BRANCHES};
	web_page(w, status, kw->title, tmpl_render(w->a, "reference.html", v, sizeof v / sizeof v[0]), &o);
}

static void list(struct web_req *w)
{
	render(w, 200, NULL, NULL);
}

const struct web_handler page_reference = {list};

/* The posted name trimmed (*ret); false when it is not 1 to 200
 * characters on one line (the rule of POST /api/v1/customers). */
static bool posted_name(struct web_req *w, char **ret)
{
	const char *raw = web_field(w, "name");
	size_t len;
	const char *t = norm_trim(raw ? raw : "", raw ? strlen(raw) : 0, &len);
	char *name = *ret = arena_strndup(w->a, t, len);
	size_t chars = 0;
	bool control = false;
	for (size_t i = 0; i < len; i++) {
		chars += ((unsigned char)name[i] & 0xC0) != 0x80;
		control |= (unsigned char)name[i] < 0x20 || name[i] == 0x7f;
	}
	return len && chars <= NAME_MAX_LEN && !control;
}

static void add(struct web_req *w)
{
	enum ref_kind k = kind_of(w);
	char *name;
	if (!posted_name(w, &name)) {
		render(w, 400, "Give a name of 1 to 200 characters on one line, as it appears in your files.", name);
		return;
	}
	char id[ID_MAX], existing[ID_MAX] = "";
	enum code rc = store_ref_create(w->app->store, k, w->session->org.id, name, id, existing);
	if (rc == CODE_DUPLICATE_NAME) {
		render(w, 409, arena_printf(w->a, "A %s with this name already exists (%s); names match ignoring case, "
					    "surrounding spaces and look-alike characters.", words[k].noun, existing), name);
		return;
	}
	if (web_store_answered(w, rc))
		return;
	web_redirect(w, arena_printf(w->a, "%s?added=1&q=%s", words[k].path, web_url_encode(w->a, name)));
}

const struct web_handler page_reference_add = {add};

/* POST /imports/runs/{id}/fix (PRODUCT §11 "Run page"): the one button in a
 * LOOKUP_MISS group of the run page adds the missing customer or branch,
 * exactly as the Customers page and POST /api/v1/customers do, then
 * returns to the run page, whose note suggests importing the file again.
 * A name that exists already is not an error here: the note says so. */
static void fix(struct web_req *w)
{
	struct run r;
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), &r);
	if (web_store_answered(w, rc))
		return;
	const char *kind = web_field(w, "kind");
	char *name;
	if (!kind || (strcmp(kind, "customer") && strcmp(kind, "branch")) || !posted_name(w, &name)) {
		web_error(w, 400, "Nothing to add", "The form names no customer or branch to add. Go back to the run "
			  "page and use the button in the problem's group.");
		return;
	}
	enum ref_kind k = !strcmp(kind, "branch") ? REF_BRANCH : REF_CUSTOMER;
	char id[ID_MAX], existing[ID_MAX] = "";
	rc = store_ref_create(w->app->store, k, w->session->org.id, name, id, existing);
	if (rc && rc != CODE_DUPLICATE_NAME && web_store_answered(w, rc))
		return;
	web_redirect(w, arena_printf(w->a, "/imports/runs/%s?fixed=%s&kind=%s&name=%s#fix-note", r.id,
				     rc == CODE_DUPLICATE_NAME ? "exists" : "added", kind, web_url_encode(w->a, name)));
}

const struct web_handler page_run_fix = {fix};
