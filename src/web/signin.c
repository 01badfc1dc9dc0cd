/* Sign-in page, one-time sign-in links, sign-out. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "auth/token.h"
#include "base/config.h"
#include "base/log.h"
#include "web/csrf.h"
#include "web/page.h"
#include "web/session.h"

/* The sign-in page; notice/error come from the flows that end here. */
void signin_render(struct web_req *w, int status, const char *error)
{
	const char *next = web_query(w, "next");
	const char *notice = web_query(w, "signed_out") ? "You are signed out." : NULL;
	struct tmpl_var v[] = {
		T_FLAG("sso", w->app->cfg.oidc_issuer[0] != '\0'),
		T_TEXT("next", next ? web_url_encode(w->a, web_safe_next(next)) : NULL),
		T_TEXT("notice", notice),
		T_TEXT("error", error),
	};
	web_page(w, status, "Sign in", tmpl_render(w->a, "signin.html", v, sizeof v / sizeof v[0]), NULL);
}

static void signin(struct web_req *w)
{
	if (w->session && !web_query(w, "signed_out")) {
		web_redirect(w, web_safe_next(web_query(w, "next")));
		return;
	}
	signin_render(w, 200, NULL);
}

const struct web_handler page_signin = {signin};

static const char *bad_link =
	"This sign-in link is not valid: it was used already, it expired (links last 15 minutes), or it "
	"was copied incompletely. Ask an administrator for a new one.";

/* The link only shows a button: opening it must not use it up, because
 * mail and chat tools fetch links to preview them. */
static void link_get(struct web_req *w)
{
	const char *token = web_query(w, "token");
	if (!token || !token_link_well_formed(token, strlen(token))) {
		signin_render(w, 400, bad_link);
		return;
	}
	const char *next = web_query(w, "next");
	struct tmpl_var v[] = {
		T_TEXT("token", token),
		T_TEXT("next", web_safe_next(next)),
		T_TEXT("csrf_pre", csrf_pre_issue(w)),
	};
	web_page(w, 200, "Sign in", tmpl_render(w->a, "link.html", v, sizeof v / sizeof v[0]), NULL);
}

const struct web_handler page_link_get = {link_get};

static void link_post(struct web_req *w)
{
	if (!csrf_pre_check(w)) {
		web_error(w, 403, "Forbidden", "This form did not carry a valid security token (FORBIDDEN). "
			  "Open the sign-in link again.");
		return;
	}
	const char *token = web_field(w, "token");
	struct user u;
	enum code rc = token ? store_login_link_use(w->app->store, token, &u) : CODE_NOT_FOUND;
	if (rc == CODE_NOT_FOUND) {
		signin_render(w, 400, bad_link);
		return;
	}
	if (rc || web_session_start(w, &u, "link")) {
		web_unavailable(w);
		return;
	}
	web_set_cookie(w, "ll_csrf", "", "/login", 0);
	snprintf(w->req->org_id, sizeof w->req->org_id, "%s", u.org_id);
	log_json("info", "signed in", json_pack("{s:s,s:s,s:s}", "userId", u.id, "orgId", u.org_id, "via", "link"));
	web_redirect(w, web_safe_next(web_field(w, "next")));
}

const struct web_handler page_link_post = {link_post};

static void logout(struct web_req *w)
{
	web_session_end(w);
	web_redirect(w, "/login?signed_out=1");
}

const struct web_handler page_logout = {logout};
