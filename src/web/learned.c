/* Settings → Column mapping (PRODUCT §14 "Learning from confirmations"):
 * what the organization learned from confirmed mappings (header, field,
 * when, by whom), and forgetting an entry.  Admins only (web.c). */
#include <string.h>

#include "app/app.h"
#include "base/log.h"
#include "store/shapes.h"
#include "web/page.h"

static void learned_render(struct web_req *w, const char *notice)
{
	struct learned_header *l;
	int n;
	if (store_learned_list(w->app->store, w->a, w->session->org.id, &l, &n)) {
		web_unavailable(w);
		return;
	}
	struct html_list *rows = html_list_new(w->a);
	for (int i = 0; i < n; i++) {
		struct tmpl_var v[] = {
			T_TEXT("header", *l[i].header ? l[i].header : "(blank)"), T_TEXT("field", l[i].field),
			T_TEXT("when", web_time(w->a, l[i].learned_at)), T_TEXT("by", l[i].learned_by),
			T_TEXT("key", l[i].key), T_TEXT("csrf", web_csrf_token(w)),
		};
		html_list_add(rows, tmpl_render(w->a, "learned_row.html", v, sizeof v / sizeof v[0]));
	}
	struct tmpl_var v[] = {
		T_HTML("tabs", settings_tabs(w, "learned")), T_TEXT("notice", notice),
		T_TEXT("org_name", w->session->org.name), T_FLAG("empty", n == 0),
		T_HTML("rows", html_list_done(rows)),
	};
	struct web_page_opts o = {.nav = NAV_SETTINGS};
	web_page(w, 200, "Column mapping", tmpl_render(w->a, "learned.html", v, sizeof v / sizeof v[0]), &o);
}

static void learned(struct web_req *w)
{
	learned_render(w, web_query(w, "forgot") ? "Forgotten. New files' columns with that header are proposed "
						   "from the header and values again." : NULL);
}

const struct web_handler page_learned = {learned};

static void learned_forget(struct web_req *w)
{
	const char *key = web_field(w, "key");
	enum code rc = store_learned_forget(w->app->store, w->session->org.id, key ? key : "");
	if (web_store_answered(w, rc))
		return;
	log_json("info", "learned header forgotten", json_pack("{s:s,s:s}", "orgId", w->session->org.id, "userId",
								 w->session->user.id));
	web_redirect(w, "/settings/column-mapping?forgot=1");
}

const struct web_handler page_learned_forget = {learned_forget};
