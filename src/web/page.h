/* What every page module of the web app sees (internal to src/web): the
 * request state, the form, the signed-in user, and the ways to answer. */
#ifndef LOADLINE_WEB_PAGE_H
#define LOADLINE_WEB_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "base/buf.h"
#include "http/http.h"
#include "http/router.h"
#include "store/sessions.h"
#include "web/form.h"
#include "web/tmpl.h"

/* Who may use a route.  Signed-out requests to a member or admin route are
 * sent to the sign-in page; a member on an admin route gets 403. */
enum web_access { WEB_PUBLIC, WEB_MEMBER, WEB_ADMIN };

struct web_req {
	const struct app *app;             /* store, configuration, sign-in (src/app/app.h) */
	struct http_request *req;
	struct http_response *res;
	struct arena *a;                   /* the request's */
	struct route_params params;
	const struct web_handler *handler;
	const char *route;                 /* the matched pattern, or NULL */
	int64_t hold_until;                /* a held request's deadline (run_wait.c), 0 */
	enum web_access access;
	struct web_session *session;       /* NULL when signed out */
	char session_id[SESSION_SECRET_LEN + 1];
	struct buf body;                   /* form posts, capped */
	struct web_upload *upload;         /* "Import a file": the streamed multipart body */
	bool body_too_large;
	struct form form;
};

struct web_handler {
	void (*fn)(struct web_req *w);
};

/* ---- answers ---- */

/* Which item of the main navigation a page belongs to. */
enum web_nav { NAV_NONE, NAV_IMPORTS, NAV_LOCATIONS, NAV_CUSTOMERS, NAV_BRANCHES, NAV_SETTINGS };

struct web_page_opts {
	enum web_nav nav;
	int refresh_s;        /* > 0: the page reloads itself after that many seconds */
};

/* Answers with body inside the layout (header, navigation, sign-out). */
void web_page(struct web_req *w, int status, const char *title, const struct html *body,
	      const struct web_page_opts *opts);
/* 303 See Other to location (a path of this app). */
void web_redirect(struct web_req *w, const char *location);
/* An error page: status, a title and one sentence saying what to do. */
void web_error(struct web_req *w, int status, const char *title, const char *message);
void web_not_found(struct web_req *w);
/* 503 when storage failed. */
void web_unavailable(struct web_req *w);
/* Answers a failed store call and returns true (NOT_FOUND: 404; database
 * unreachable: 503; anything else: 500, logged); false when rc is OK. */
bool web_store_answered(struct web_req *w, enum code rc);
/* Answers with bytes as they are (downloads, static files). */
void web_raw(struct web_req *w, int status, const char *content_type, const char *data, size_t len);

/* ---- request ---- */

/* A route parameter, a query parameter (NULL when absent or not valid
 * UTF-8), a form field (NULL when absent). */
const char *web_param(const struct web_req *w, const char *name);
const char *web_query(const struct web_req *w, const char *name);
const char *web_field(const struct web_req *w, const char *name);
/* ?after=<created_at>_<id>: where a page of a list ordered by (created_at,
 * id) starts (0 and NULL when absent). */
void web_after(const struct web_req *w, int64_t *ret_created, const char **ret_id);
bool web_is_admin(const struct web_req *w);
/* The CSRF token forms of this session carry ("" when signed out). */
const char *web_csrf_token(const struct web_req *w);

/* ---- formatting ---- */

/* "2026-11-21 15:04 UTC", or "—" for 0. */
const char *web_time(struct arena *a, int64_t ms);
/* ISO 8601 for <time datetime>. */
const char *web_time_iso(struct arena *a, int64_t ms);
const char *web_int(struct arena *a, long long v);
/* A duration as people say it: "90 days", "36 hours", "2 seconds". */
const char *web_duration(struct arena *a, int64_t ms);
/* s with every byte outside A-Z a-z 0-9 - . _ ~ / percent-encoded, for a
 * query parameter value. */
const char *web_url_encode(struct arena *a, const char *s);
/* next when it is a path of this app ("/x", not "//host" or a URL), else
 * "/imports": sign-in never redirects elsewhere. */
const char *web_safe_next(const char *next);

/* The sign-in page with an error (signin.c; the SSO flow ends there too). */
void signin_render(struct web_req *w, int status, const char *error);

/* Pages (one file each): the handlers the route table in web.c names. */
extern const struct web_handler page_home, page_static;
extern const struct web_handler page_signin, page_link_get, page_link_post, page_oidc_start,
	page_oidc_callback, page_logout;
extern const struct web_handler page_imports, page_run, page_run_csv;
extern const struct web_handler page_review_get, page_review_post;
extern const struct web_handler page_keys, page_keys_mint, page_keys_revoke, page_settings,
	page_comms, page_comms_post;
extern const struct web_handler page_learned, page_learned_forget;
/* The run page's long-poll token: a digest of the run resource, changed
 * whenever GET /api/v1/imports/runs/{id} changes (run_wait.c). */
struct run;
const char *web_run_token(struct web_req *w, const struct run *r);
extern const struct web_handler page_run_wait;
/* The Imports page answered with status after "Import a file" was refused
 * (issue 30): error next to the file input, the dry-run choice kept. */
void web_imports_refused(struct web_req *w, int status, const char *error);
extern const struct web_handler page_webhooks, page_webhooks_add, page_webhooks_delete, page_webhooks_test,
	page_webhooks_resend, page_webhooks_enable, page_webhooks_disable, page_webhooks_edit, page_webhooks_rotate;
/* The Settings tabs, current being "keys", "comms", "learned", "hooks" or "imports". */
const struct html *settings_tabs(struct web_req *w, const char *current);
extern const struct web_handler page_locations;
extern const struct web_handler page_run_fixup;
extern const struct web_handler page_import_upload, page_run_rerun, page_template;
extern const struct web_handler page_reference, page_reference_add, page_run_fix;
extern const struct web_handler page_run_undo_get, page_run_undo;
extern const struct web_handler page_run_cancel;
extern const struct web_handler page_settings_imports, page_settings_imports_post;

#endif
