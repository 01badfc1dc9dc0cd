/* The web app's request pipeline: the route table, the session and CSRF
 * gates every page passes, and the ways a page answers. */
#include "web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/url.h"
#include "web/assets.h"
#include "web/csrf.h"
#include "web/failed_edit.h"
#include "web/page.h"
#include "web/session.h"
#include "web/upload.h"

/* Form posts are small: the largest is a review of 100 columns. */
#define FORM_BODY_MAX (64 * 1024)

#define R(method, pattern, page, access) {method, pattern, (void *)&page, access}

/* The whole app at a glance.  Access: WEB_PUBLIC pages check what they
 * need themselves (sign-in); the gates in finish() enforce the others. */
static const struct route routes[] = {
	R("GET", "/", page_home, WEB_MEMBER),
	R("GET", "/static/{name}", page_static, WEB_PUBLIC),
	R("GET", "/login", page_signin, WEB_PUBLIC),
	R("GET", "/login/link", page_link_get, WEB_PUBLIC),
	R("POST", "/login/link", page_link_post, WEB_PUBLIC),
	R("GET", "/login/oidc", page_oidc_start, WEB_PUBLIC),
	R("GET", "/login/oidc/callback", page_oidc_callback, WEB_PUBLIC),
	R("POST", "/logout", page_logout, WEB_MEMBER),
	R("GET", "/imports", page_imports, WEB_MEMBER),
	R("POST", "/imports", page_import_upload, WEB_MEMBER),
	R("GET", "/imports/template", page_template, WEB_MEMBER),
	R("GET", "/imports/runs/{id}", page_run, WEB_MEMBER),
	R("GET", "/imports/runs/{id}/wait", page_run_wait, WEB_MEMBER),
	R("POST", "/imports/runs/{id}/rerun", page_run_rerun, WEB_MEMBER),
	R("POST", "/imports/runs/{id}/corrections", page_run_corrections, WEB_MEMBER),
	R("GET", "/imports/runs/{id}/undo", page_run_undo_get, WEB_ADMIN),
	R("POST", "/imports/runs/{id}/undo", page_run_undo, WEB_ADMIN),
	R("POST", "/imports/runs/{id}/cancel", page_run_cancel, WEB_ADMIN),
	R("POST", "/imports/runs/{id}/fix", page_run_fix, WEB_ADMIN),
	R("GET", "/imports/runs/{id}/results.csv", page_run_csv, WEB_MEMBER),
	R("GET", "/imports/runs/{id}/failed-rows", page_run_fixup, WEB_MEMBER),
	R("GET", "/imports/runs/{id}/review", page_review_get, WEB_MEMBER),
	R("POST", "/imports/runs/{id}/review", page_review_post, WEB_ADMIN),
	R("GET", "/settings", page_settings, WEB_MEMBER),
	R("GET", "/settings/api-keys", page_keys, WEB_MEMBER),
	R("POST", "/settings/api-keys", page_keys_mint, WEB_ADMIN),
	R("POST", "/settings/api-keys/{id}/revoke", page_keys_revoke, WEB_ADMIN),
	R("GET", "/settings/communications", page_comms, WEB_MEMBER),
	R("POST", "/settings/communications", page_comms_post, WEB_ADMIN),
	R("GET", "/settings/column-mapping", page_learned, WEB_ADMIN),
	R("POST", "/settings/column-mapping/forget", page_learned_forget, WEB_ADMIN),
	R("GET", "/settings/imports", page_settings_imports, WEB_ADMIN),
	R("POST", "/settings/imports", page_settings_imports_post, WEB_ADMIN),
	R("GET", "/settings/webhooks", page_webhooks, WEB_ADMIN),
	R("POST", "/settings/webhooks", page_webhooks_add, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/delete", page_webhooks_delete, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/test", page_webhooks_test, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/resend", page_webhooks_resend, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/enable", page_webhooks_enable, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/disable", page_webhooks_disable, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/edit", page_webhooks_edit, WEB_ADMIN),
	R("POST", "/settings/webhooks/{id}/rotate-secret", page_webhooks_rotate, WEB_ADMIN),
	R("GET", "/locations", page_locations, WEB_MEMBER),
	R("GET", "/customers", page_reference, WEB_MEMBER),
	R("POST", "/customers", page_reference_add, WEB_ADMIN),
	R("GET", "/branches", page_reference, WEB_MEMBER),
	R("POST", "/branches", page_reference_add, WEB_ADMIN),
};

/* ---- answers ---- */

/* Every page: no framing by other sites, no inline script or style, no
 * third-party anything, and nothing leaks through the Referer. */
static void security_headers(struct web_req *w)
{
	http_add_header(w->req, w->res, "Content-Security-Policy",
			"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
	http_add_header(w->req, w->res, "X-Content-Type-Options", "nosniff");
	http_add_header(w->req, w->res, "X-Frame-Options", "DENY");
	http_add_header(w->req, w->res, "Referrer-Policy", "same-origin");
}

void web_raw(struct web_req *w, int status, const char *content_type, const char *data, size_t len)
{
	http_respond(w->req, w->res, status, content_type, data, len);
	security_headers(w);
}

static const char *role_name(const struct web_session *s)
{
	return s->user.role == ROLE_ADMIN ? "admin" : "member";
}

void web_page(struct web_req *w, int status, const char *title, const struct html *body,
	      const struct web_page_opts *opts)
{
	static const struct web_page_opts none = {0};
	if (!opts)
		opts = &none;
	const struct web_session *s = w->session;
	struct tmpl_var v[] = {
		T_TEXT("title", title),
		T_HTML("body", body),
		T_FLAG("signed_in", s != NULL),
		T_TEXT("user_name", s ? s->user.name : NULL),
		T_TEXT("user_email", s ? s->user.email : NULL),
		T_TEXT("role", s ? role_name(s) : NULL),
		T_TEXT("org_name", s ? s->org.name : NULL),
		T_TEXT("csrf", web_csrf_token(w)),
		T_FLAG("nav_imports", opts->nav == NAV_IMPORTS),
		T_FLAG("nav_locations", opts->nav == NAV_LOCATIONS),
		T_FLAG("nav_customers", opts->nav == NAV_CUSTOMERS),
		T_FLAG("nav_branches", opts->nav == NAV_BRANCHES),
		T_FLAG("nav_settings", opts->nav == NAV_SETTINGS),
		T_TEXT("refresh", opts->refresh_s > 0 ? web_int(w->a, opts->refresh_s) : NULL),
	};
	const struct html *page = tmpl_render(w->a, "layout.html", v, sizeof v / sizeof v[0]);
	web_raw(w, status, "text/html; charset=utf-8", html_str(page), html_len(page));
	/* Pages show an organization's data: never kept by caches. */
	http_add_header(w->req, w->res, "Cache-Control", "no-store");
}

void web_redirect(struct web_req *w, const char *location)
{
	web_raw(w, 303, "text/plain; charset=utf-8", "", 0);
	http_add_header(w->req, w->res, "Location", location);
	http_add_header(w->req, w->res, "Cache-Control", "no-store");
}

void web_error(struct web_req *w, int status, const char *title, const char *message)
{
	struct tmpl_var v[] = {
		T_TEXT("title", title),
		T_TEXT("message", message),
		T_TEXT("status", web_int(w->a, status)),
		T_FLAG("signed_in", w->session != NULL),
	};
	web_page(w, status, title, tmpl_render(w->a, "error.html", v, sizeof v / sizeof v[0]), NULL);
}

void web_not_found(struct web_req *w)
{
	web_error(w, 404, "Not found", "There is nothing at this address in your organization. "
		  "Check the link, or start again from Imports.");
}

void web_unavailable(struct web_req *w)
{
	web_error(w, 503, "Service unavailable", "The database did not answer. Try again in a few seconds.");
	http_add_header(w->req, w->res, "Retry-After", "5");
}

bool web_store_answered(struct web_req *w, enum code rc)
{
	if (rc == CODE_OK)
		return false;
	if (rc == CODE_NOT_FOUND) {
		web_not_found(w);
		return true;
	}
	struct store_failure f = store_last_failure();
	log_json("error", "store failure", json_pack("{s:s,s:s,s:s,s:s,s:b}", "requestId", w->req->request_id,
		 "path", w->req->path, "code", code_name(rc), "cause", f.message, "diskFull", f.disk_full));
	if (rc == CODE_SERVICE_UNAVAILABLE)
		web_unavailable(w);
	else
		web_error(w, 500, "Something went wrong", "The request failed on our side and was logged; "
			  "trying again will not help. Tell your administrator the time it happened.");
	return true;
}

/* ---- request ---- */

const char *web_param(const struct web_req *w, const char *name)
{
	return route_param(&w->params, name);
}

const char *web_query(const struct web_req *w, const char *name)
{
	const char *v = http_query(w->req, name);
	return v && form_text_ok(v, strlen(v)) ? v : NULL;
}

void web_after(const struct web_req *w, int64_t *ret_created, const char **ret_id)
{
	const char *after = web_query(w, "after");
	*ret_created = 0;
	*ret_id = NULL;
	if (after) {
		const char *us = strchr(after, '_');
		*ret_created = strtoll(after, NULL, 10);
		*ret_id = us ? us + 1 : "";
	}
}

const char *web_field(const struct web_req *w, const char *name)
{
	return form_get(&w->form, name);
}

bool web_is_admin(const struct web_req *w)
{
	return w->session && w->session->user.role == ROLE_ADMIN;
}

const char *web_csrf_token(const struct web_req *w)
{
	return w->session ? w->session->csrf : "";
}

/* ---- formatting ---- */

const char *web_time(struct arena *a, int64_t ms)
{
	if (!ms)
		return "—";
	char iso[TIME_ISO_MAX];
	time_iso(ms, iso);
	/* "2026-11-21T15:04:05.123Z" -> "2026-11-21 15:04 UTC" */
	return arena_printf(a, "%.10s %.5s UTC", iso, iso + 11);
}

const char *web_time_iso(struct arena *a, int64_t ms)
{
	char iso[TIME_ISO_MAX];
	time_iso(ms, iso);
	return arena_strdup(a, iso);
}

const char *web_int(struct arena *a, long long v)
{
	return arena_printf(a, "%lld", v);
}

const char *web_duration(struct arena *a, int64_t ms)
{
	static const struct {
		int64_t ms;
		const char *one, *many;
	} units[] = {{86400000, "day", "days"}, {3600000, "hour", "hours"}, {60000, "minute", "minutes"},
		     {1000, "second", "seconds"}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (ms >= units[i].ms && ms % units[i].ms == 0)
			return arena_printf(a, "%lld %s", (long long)(ms / units[i].ms),
					    ms == units[i].ms ? units[i].one : units[i].many);
	return arena_printf(a, "%lld ms", (long long)ms);
}

const char *web_url_encode(struct arena *a, const char *s)
{
	return url_encode(a, s, "/");
}

const char *web_safe_next(const char *next)
{
	if (!next || next[0] != '/' || next[1] == '/' || next[1] == '\\' || strlen(next) >= RETURN_TO_MAX)
		return "/imports";
	for (const unsigned char *p = (const unsigned char *)next; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			return "/imports";
	return next;
}

/* ---- the pipeline ---- */

static bool is_form(const char *ct)
{
	static const char want[] = "application/x-www-form-urlencoded";
	return ct && !strncasecmp(ct, want, sizeof want - 1) &&
	       (ct[sizeof want - 1] == '\0' || ct[sizeof want - 1] == ';');
}

static void body_cleanup(void *p)
{
	buf_done(p);
}

/* The path without a trailing slash ("/imports/" is "/imports"). */
static const char *route_path(struct arena *a, const char *path)
{
	size_t n = strlen(path);
	if (n > 1 && path[n - 1] == '/')
		return arena_strndup(a, path, n - 1);
	return path;
}

static void to_signin(struct web_req *w);

/* Whether the request comes from another site: Sec-Fetch-Site says so, or
 * an Origin that is not the app's. */
static bool cross_site(struct web_req *w)
{
	const char *site = http_header(w->req, "Sec-Fetch-Site"), *origin = http_header(w->req, "Origin");
	if (site && !strcmp(site, "cross-site"))
		return true;
	if (!origin || !strcmp(origin, "null"))
		return origin != NULL;
	const char *app = w->app->cfg.app_url;
	size_t n = strlen(origin);
	/* app_url is the origin, maybe with a path after it. */
	return strncmp(app, origin, n) || (app[n] && app[n] != '/');
}

/* The gates of "Import a file" before its body is read (issue 27 item 7):
 * signed in (the role: any member), and not posted from another site;
 * the form's CSRF token is checked again with the rest of the form.  An
 * anonymous or cross-site upload is answered at once and its file never
 * spooled. */
static bool upload_gates(struct web_req *w)
{
	if (!w->session) {
		to_signin(w);
		return false;
	}
	if (cross_site(w)) {
		web_error(w, 403, "Forbidden", "This form was posted from another site (FORBIDDEN). "
			  "Go back, reload the page and try again.");
		return false;
	}
	return true;
}

struct web_req *web_begin(struct http_request *req, struct http_response *res)
{
	struct web_req *w = arena_alloc(req->arena, sizeof(*w));
	w->app = req->app;
	w->req = req;
	w->res = res;
	w->a = req->arena;
	buf_init(&w->body, FORM_BODY_MAX);
	arena_cleanup(w->a, body_cleanup, &w->body);
	const char *method = strcmp(req->method, "HEAD") ? req->method : "GET";
	const struct route *r = NULL;
	char allow[64];
	enum route_result m = router_match(routes, sizeof routes / sizeof routes[0], method,
					   route_path(w->a, req->path), &r, &w->params, allow, sizeof allow);
	if (m == ROUTE_FOUND)
		w->route = r->pattern;
	/* A page of failed rows to correct is the one larger form. */
	if (m == ROUTE_FOUND && r->handler == (const void *)&page_run_corrections)
		w->body.max = FAILED_EDIT_FORM_MAX;
	/* Static files are the same for everyone: no session look-up. */
	bool is_static = m == ROUTE_FOUND && r->handler == (const void *)&page_static;
	if (!is_static && web_session_load(w)) {
		web_unavailable(w);
		return w;
	}
	if (m == ROUTE_NO_PATH) {
		web_not_found(w);
		return w;
	}
	if (m == ROUTE_NO_METHOD) {
		web_error(w, 405, "Method not allowed", "This page cannot be used that way.");
		http_add_header(req, res, "Allow", allow);
		return w;
	}
	w->handler = r->handler;
	w->access = (enum web_access)r->flags;
	/* A POST without a body has no Content-Type; it is an empty form (and
	 * fails the CSRF check like any other). */
	const char *ct = http_header(req, "Content-Type");
	bool upload = r->handler == (const void *)&page_import_upload;
	if (upload && !upload_gates(w))
		return w;   /* answered before a byte of the file is read */
	if (upload && ct && !strncasecmp(ct, "multipart/form-data", 19)) {
		if (!web_upload_begin(w, ct))
			web_error(w, 400, "Bad form", "The file could not be read from the form. Reload the page and try again.");
	} else if (!strcmp(method, "POST") && ct && !is_form(ct)) {
		web_error(w, 415, "Unsupported form", "Forms are posted as application/x-www-form-urlencoded.");
	}
	return w;
}

const char *web_route(const struct web_req *w)
{
	return w->route ? w->route : "unmatched";
}

void web_body(struct web_req *w, const char *data, size_t size)
{
	if (w->res->answered || w->body_too_large)
		return;
	if (w->upload) {
		web_upload_feed(w, data, size);
		return;
	}
	if (buf_append(&w->body, data, size)) {
		w->body_too_large = true;
		web_error(w, 413, "Form too large", "This form is larger than Loadline accepts.");
	}
}

/* Where the sign-in page should send the user back to afterwards. */
static void to_signin(struct web_req *w)
{
	bool get = strcmp(w->req->method, "POST") != 0;
	web_redirect(w, get && strcmp(w->req->path, "/")
			       ? arena_printf(w->a, "/login?next=%s", web_url_encode(w->a, w->req->path))
			       : "/login");
}

/* The gates, in order: signed in, CSRF token, role. */
static bool allowed(struct web_req *w)
{
	if (w->access == WEB_PUBLIC)
		return true;
	if (!w->session) {
		to_signin(w);
		return false;
	}
	snprintf(w->req->org_id, sizeof w->req->org_id, "%s", w->session->org.id);
	if (!strcmp(w->req->method, "POST") && !csrf_check(w)) {
		web_error(w, 403, "Forbidden", "This form did not carry a valid security token (FORBIDDEN). "
			  "Go back, reload the page and try again.");
		return false;
	}
	if (w->access == WEB_ADMIN && !web_is_admin(w)) {
		web_error(w, 403, "Forbidden", "Only an organization admin can do this (FORBIDDEN). "
			  "Ask an admin of your organization.");
		return false;
	}
	return true;
}

void web_finish(struct web_req *w)
{
	if (w->res->answered)
		return;
	if (w->upload ? web_upload_end(w) != 0
		      : !strcmp(w->req->method, "POST") && form_parse(w->a, buf_str(&w->body), w->body.len, &w->form)) {
		web_error(w, 400, "Bad form", "The form could not be read. Reload the page and try again.");
		return;
	}
	if (!allowed(w))
		return;
	w->handler->fn(w);
}

/* ---- small pages ---- */

static void home(struct web_req *w)
{
	web_redirect(w, "/imports");
}

const struct web_handler page_home = {home};

static void static_asset(struct web_req *w)
{
	const struct web_asset *a = web_asset_find(web_param(w, "name"), true);
	if (!a) {
		web_not_found(w);
		return;
	}
	const char *inm = http_header(w->req, "If-None-Match");
	if (inm && strstr(inm, a->etag))
		web_raw(w, 304, NULL, NULL, 0);
	else
		web_raw(w, 200, a->content_type, a->data, a->len);
	http_add_header(w->req, w->res, "ETag", a->etag);
	http_add_header(w->req, w->res, "Cache-Control", "public, max-age=300");
}

const struct web_handler page_static = {static_asset};
