/* Settings → Webhooks (PRODUCT §12, §17), for admins: the organization's
 * endpoints (add: the secret shown once; edit URL and events; enable,
 * disable; rotate the secret, the new one shown once; delete; "Send test
 * event") and the last 50 delivery attempts with the start of each
 * answer, each with "Resend". */
#include <sodium.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/ids.h"
#include "base/log.h"
#include "store/webhooks.h"
#include "web/page.h"
#include "webhook/webhook.h"

#define LOG_ROWS 50

struct rows {
	struct web_req *w;
	struct html_list *list;
	int n;
};

static void endpoint_row(const struct webhook_endpoint *e, void *ctx)
{
	struct rows *r = ctx;
	struct arena *a = r->w->a;
	struct tmpl_var v[] = {
		T_TEXT("id", e->id),
		T_TEXT("url", e->url),
		T_TEXT("events", e->events),
		T_TEXT("disabled", e->disabled_at ? web_time(a, e->disabled_at) : NULL),
		T_TEXT("failing", e->failing_since ? web_time(a, e->failing_since) : NULL),
		T_TEXT("rotated", e->previous_until > now_ms() ? web_time(a, e->previous_until) : NULL),
		T_FLAG("ev_staged", strstr(e->events, "import_run.staged") != NULL),
		T_FLAG("ev_completed", strstr(e->events, "import_run.completed") != NULL),
		T_TEXT("csrf", web_csrf_token(r->w)),
	};
	html_list_add(r->list, tmpl_render(a, "webhook_row.html", v, sizeof v / sizeof v[0]));
	r->n++;
}

static void log_row(const struct webhook_log *l, void *ctx)
{
	struct rows *r = ctx;
	struct arena *a = r->w->a;
	struct tmpl_var v[] = {
		T_TEXT("at", web_time(a, l->at)),
		T_TEXT("type", l->type),
		T_TEXT("event_id", l->event_id),
		T_TEXT("endpoint_id", l->endpoint_id),
		T_TEXT("attempt", web_int(a, l->attempt)),
		T_FLAG("ok", !l->error),
		T_TEXT("status", l->status ? web_int(a, l->status) : "no answer"),
		T_TEXT("error", l->error),
		T_TEXT("duration", web_duration(a, l->duration_ms)),
		T_TEXT("response", l->response_body),
		T_TEXT("csrf", web_csrf_token(r->w)),
	};
	html_list_add(r->list, tmpl_render(a, "webhook_log_row.html", v, sizeof v / sizeof v[0]));
	r->n++;
}

/* The page; secret after an add or a rotation (the only time it is
 * shown; rotated says which), error and the typed URL after a refused one. */
static void render_page(struct web_req *w, int status, const char *secret, bool rotated, const char *error,
			const char *url)
{
	struct rows eps = {w, html_list_new(w->a), 0}, log = {w, html_list_new(w->a), 0};
	const char *org = w->session->org.id;
	if (store_webhook_endpoint_list(w->app->store, w->a, org, endpoint_row, &eps) ||
	    store_webhook_log(w->app->store, w->a, org, LOG_ROWS, log_row, &log)) {
		web_unavailable(w);
		return;
	}
	const char *notice = web_query(w, "deleted") ? "The endpoint was deleted; nothing more is sent to it."
			   : web_query(w, "queued") ? "Queued: it is sent within seconds and appears below."
			   : web_query(w, "enabled") ? "The endpoint is enabled: events are sent to it again."
			   : web_query(w, "disabled") ? "The endpoint is disabled: nothing is sent to it until you enable it."
			   : web_query(w, "saved") ? "The endpoint was saved."
			   : NULL;
	struct tmpl_var v[] = {
		T_HTML("tabs", settings_tabs(w, "hooks")),
		T_TEXT("notice", secret ? NULL : notice),
		T_TEXT("secret", secret),
		T_FLAG("rotated", rotated),
		T_TEXT("org_name", w->session->org.name),
		T_TEXT("error", error),
		T_TEXT("url", url),
		T_TEXT("csrf", web_csrf_token(w)),
		T_FLAG("empty", eps.n == 0),
		T_HTML("rows", html_list_done(eps.list)),
		T_FLAG("no_log", log.n == 0),
		T_HTML("log", html_list_done(log.list)),
	};
	struct web_page_opts o = {.nav = NAV_SETTINGS};
	web_page(w, status, "Webhooks", tmpl_render(w->a, "webhooks.html", v, sizeof v / sizeof v[0]), &o);
}

static void render(struct web_req *w, int status, const char *secret, const char *error, const char *url)
{
	render_page(w, status, secret, false, error, url);
}

static void page(struct web_req *w)
{
	render(w, 200, NULL, NULL, NULL);
}

const struct web_handler page_webhooks = {page};

/* The URL and events of an add or edit form: why they cannot be saved
 * (NULL: they can), and the events as stored. */
static const char *form_endpoint(struct web_req *w, const char *url, const char **ret_events)
{
	bool staged = web_field(w, "ev_staged") != NULL, completed = web_field(w, "ev_completed") != NULL;
	const char *why = webhook_url_check(url, w->app->cfg.webhook_allow_http);
	if (!why && !w->app->cfg.webhook_allow_private)
		why = webhook_url_deliverable(url);   /* never deliverable: refused now (issue 27 item 16) */
	if (!why && !staged && !completed)
		why = "Choose at least one event.";
	*ret_events = staged && completed ? "import_run.staged,import_run.completed"
		      : staged ? "import_run.staged" : "import_run.completed";
	return why;
}

static void add(struct web_req *w)
{
	const char *url = web_field(w, "url"), *events;
	const char *why = form_endpoint(w, url, &events);
	if (why) {
		render(w, 400, NULL, why, url);
		return;
	}
	struct webhook_endpoint e = {.url = url, .created_at = now_ms(), .events = events};
	id_new("whe", e.id);
	snprintf(e.org_id, sizeof e.org_id, "%s", w->session->org.id);
	webhook_new_secret(e.secret);
	enum code rc = store_webhook_endpoint_create(w->app->store, &e, WEBHOOK_ENDPOINTS_MAX);
	if (rc == CODE_WEBHOOK_ENDPOINT_LIMIT) {
		render(w, 409, NULL, "This organization already has 16 webhook endpoints, the most it may have: "
		       "delete one it no longer uses first.", url);
		return;
	} else if (rc) {
		web_unavailable(w);
		return;
	}
	log_json("info", "webhook endpoint added", json_pack("{s:s,s:s,s:s}", "endpointId", e.id, "orgId", e.org_id,
							      "userId", w->session->user.id));
	/* Answered here, not redirected: the secret must not pass through a URL. */
	render(w, 200, e.secret, NULL, NULL);
}

const struct web_handler page_webhooks_add = {add};

static void delete_one(struct web_req *w)
{
	enum code rc = store_webhook_endpoint_delete(w->app->store, w->session->org.id, web_param(w, "id"));
	if (web_store_answered(w, rc))
		return;
	log_json("info", "webhook endpoint deleted", json_pack("{s:s,s:s,s:s}", "endpointId", web_param(w, "id"),
								"orgId", w->session->org.id, "userId", w->session->user.id));
	web_redirect(w, "/settings/webhooks?deleted=1");
}

const struct web_handler page_webhooks_delete = {delete_one};

static void test(struct web_req *w)
{
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_get(w->app->store, w->a, w->session->org.id, web_param(w, "id"), &e);
	if (!rc)
		rc = store_webhook_test(w->app->store, w->session->org.id, e.id);
	if (web_store_answered(w, rc))
		return;
	web_redirect(w, "/settings/webhooks?queued=1");
}

const struct web_handler page_webhooks_test = {test};

static void resend(struct web_req *w)
{
	const char *event = web_field(w, "event");
	enum code rc = store_webhook_resend(w->app->store, w->session->org.id, event ? event : "", web_param(w, "id"));
	if (web_store_answered(w, rc))
		return;
	web_redirect(w, "/settings/webhooks?queued=1");
}

const struct web_handler page_webhooks_resend = {resend};

/* Applies one change to the endpoint of the path and says so; false after
 * answering a failure. */
static bool change(struct web_req *w, const struct webhook_endpoint_change *c, const char *what)
{
	struct webhook_endpoint e;
	enum code rc = store_webhook_endpoint_update(w->app->store, w->a, w->session->org.id, web_param(w, "id"), c,
						     &e);
	if (web_store_answered(w, rc))
		return false;
	log_json("info", "webhook endpoint changed", json_pack("{s:s,s:s,s:s,s:s}", "endpointId", e.id, "orgId",
		 e.org_id, "userId", w->session->user.id, "change", what));
	return true;
}

static void enable(struct web_req *w)
{
	struct webhook_endpoint_change c = {.enabled = 1};
	if (change(w, &c, "enabled"))
		web_redirect(w, "/settings/webhooks?enabled=1");
}

const struct web_handler page_webhooks_enable = {enable};

static void disable(struct web_req *w)
{
	struct webhook_endpoint_change c = {.enabled = 0};
	if (change(w, &c, "disabled"))
		web_redirect(w, "/settings/webhooks?disabled=1");
}

const struct web_handler page_webhooks_disable = {disable};

static void edit(struct web_req *w)
{
	const char *url = web_field(w, "url"), *events;
	const char *why = form_endpoint(w, url, &events);
	if (why) {
		render(w, 400, NULL, why, NULL);
		return;
	}
	struct webhook_endpoint_change c = {.url = url, .events = events, .enabled = -1};
	if (change(w, &c, "url and events"))
		web_redirect(w, "/settings/webhooks?saved=1");
}

const struct web_handler page_webhooks_edit = {edit};

static void rotate(struct web_req *w)
{
	char secret[WEBHOOK_SECRET_MAX];
	webhook_new_secret(secret);
	enum code rc = store_webhook_rotate_secret(w->app->store, w->session->org.id, web_param(w, "id"), secret,
						   now_ms() + WEBHOOK_SECRET_OVERLAP_MS);
	if (web_store_answered(w, rc))
		return;
	log_json("info", "webhook secret rotated", json_pack("{s:s,s:s,s:s}", "endpointId", web_param(w, "id"),
		 "orgId", w->session->org.id, "userId", w->session->user.id));
	/* Answered here, not redirected: the secret must not pass through a URL. */
	render_page(w, 200, secret, true, NULL, NULL);
	sodium_memzero(secret, sizeof secret);
}

const struct web_handler page_webhooks_rotate = {rotate};
