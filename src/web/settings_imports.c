/* Settings → Imports (PRODUCT §15, admins): the organization's default
 * commit policy, which a push without ?commit= gets. */
#include <string.h>

#include "app/app.h"
#include "store/settings.h"
#include "web/page.h"

static void imports(struct web_req *w)
{
	char policy[8];
	if (store_org_commit_policy(w->app->store, w->session->org.id, policy)) {
		web_unavailable(w);
		return;
	}
	struct tmpl_var v[] = {
		T_HTML("tabs", settings_tabs(w, "imports")),
		T_TEXT("notice", web_query(w, "saved") ? "Saved. Imports from now on follow this default." : NULL),
		T_FLAG("partial", strcmp(policy, "all") != 0),
		T_TEXT("csrf", web_csrf_token(w)),
	};
	struct web_page_opts o = {.nav = NAV_SETTINGS};
	web_page(w, 200, "Imports settings", tmpl_render(w->a, "settings_imports.html", v, sizeof v / sizeof v[0]), &o);
}

const struct web_handler page_settings_imports = {imports};

static void imports_post(struct web_req *w)
{
	const char *c = web_field(w, "commit");
	if (!c || (strcmp(c, "all") && strcmp(c, "partial"))) {
		web_error(w, 400, "Choose a policy", "Choose partial or all or nothing, then press Save.");
		return;
	}
	if (store_org_set_commit_policy(w->app->store, w->session->org.id, c)) {
		web_unavailable(w);
		return;
	}
	web_redirect(w, "/settings/imports?saved=1");
}

const struct web_handler page_settings_imports_post = {imports_post};
