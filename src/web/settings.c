/* Settings → API keys (mint, list, revoke) and Settings → Communications
 * (the "Bulk import mapping approvals" recipients); Settings → Column
 * mapping is learned.c, Settings → Webhooks webhooks.c. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "base/config.h"
#include "base/log.h"
#include "store/outbox.h"
#include "store/settings.h"
#include "web/page.h"

#define KEY_NAME_MAX 200
#define MAX_RECIPIENTS 50

const struct html *settings_tabs(struct web_req *w, const char *current)
{
	struct tmpl_var v[] = {T_FLAG("keys", !strcmp(current, "keys")), T_FLAG("comms", !strcmp(current, "comms")),
			       T_FLAG("hooks", !strcmp(current, "hooks")), T_FLAG("learned", !strcmp(current, "learned")),
			       T_FLAG("admin", web_is_admin(w))};
	return tmpl_render(w->a, "settings_tabs.html", v, sizeof v / sizeof v[0]);
}

static void settings(struct web_req *w)
{
	web_redirect(w, "/settings/api-keys");
}

const struct web_handler page_settings = {settings};

/* ---- API keys ---- */

struct key_rows {
	struct web_req *w;
	struct html_list *rows;
	int n;
};

static void key_row(const struct api_key *k, void *ctx)
{
	struct key_rows *kr = ctx;
	struct arena *a = kr->w->a;
	struct tmpl_var v[] = {
		T_TEXT("id", k->id),
		T_TEXT("name", k->name),
		T_TEXT("prefix", k->prefix),
		T_TEXT("created", web_time(a, k->created_at)),
		T_TEXT("last_used", k->last_used_at ? web_time(a, k->last_used_at) : "never"),
		T_TEXT("revoked", k->revoked_at ? web_time(a, k->revoked_at) : NULL),
		T_FLAG("admin", web_is_admin(kr->w)),
		T_TEXT("csrf", web_csrf_token(kr->w)),
	};
	html_list_add(kr->rows, tmpl_render(a, "key_row.html", v, sizeof v / sizeof v[0]));
	kr->n++;
}

/* The keys page; minted/minted_name after a mint (the only time a token is
 * ever shown), error and the typed name after a refused one. */
static void keys_render(struct web_req *w, int status, const char *minted, const char *minted_name,
			const char *error, const char *name)
{
	struct key_rows kr = {w, html_list_new(w->a), 0};
	if (store_key_list(w->app->store, w->session->org.id, key_row, &kr)) {
		web_unavailable(w);
		return;
	}
	const char *notice = web_query(w, "revoked") ? "The key was revoked; requests with it now get 401." : NULL;
	struct tmpl_var v[] = {
		T_HTML("tabs", settings_tabs(w, "keys")),
		T_TEXT("notice", minted ? NULL : notice),
		T_TEXT("minted", minted),
		T_TEXT("minted_name", minted_name),
		T_TEXT("base_url", w->app->cfg.base_url),
		T_FLAG("admin", web_is_admin(w)),
		T_TEXT("org_name", w->session->org.name),
		T_TEXT("error", error),
		T_TEXT("name", name),
		T_TEXT("csrf", web_csrf_token(w)),
		T_FLAG("empty", kr.n == 0),
		T_HTML("rows", html_list_done(kr.rows)),
	};
	struct web_page_opts o = {.nav = NAV_SETTINGS};
	web_page(w, status, "API keys", tmpl_render(w->a, "keys.html", v, sizeof v / sizeof v[0]), &o);
}

static void keys(struct web_req *w)
{
	keys_render(w, 200, NULL, NULL, NULL, NULL);
}

const struct web_handler page_keys = {keys};

/* s without leading and trailing ASCII whitespace (arena copy). */
static char *trim(struct arena *a, const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return arena_strndup(a, s, n);
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void keys_mint(struct web_req *w)
{
	const char *raw = web_field(w, "name");
	char *name = trim(w->a, raw ? raw : "");
	if (!*name || utf8_chars(name) > KEY_NAME_MAX) {
		keys_render(w, 400, NULL, NULL, "Give the key a name of 1 to 200 characters, so you can tell keys apart.",
			    name);
		return;
	}
	char token[TOKEN_LEN + 1];
	struct api_key k;
	if (store_key_create(w->app->store, w->session->org.id, name, token, &k)) {
		web_unavailable(w);
		return;
	}
	log_json("info", "api key minted", json_pack("{s:s,s:s,s:s}", "keyId", k.id, "orgId", k.org_id, "userId",
						      w->session->user.id));
	/* Answered here, not redirected: the token must not pass through a URL
	 * or be stored anywhere to show it on another request. */
	keys_render(w, 200, token, k.name, NULL, NULL);
}

const struct web_handler page_keys_mint = {keys_mint};

static void keys_revoke(struct web_req *w)
{
	enum code rc = store_key_revoke(w->app->store, w->session->org.id, web_param(w, "id"));
	if (web_store_answered(w, rc))
		return;
	log_json("info", "api key revoked", json_pack("{s:s,s:s,s:s}", "keyId", web_param(w, "id"), "orgId",
						       w->session->org.id, "userId", w->session->user.id));
	web_redirect(w, "/settings/api-keys?revoked=1");
}

const struct web_handler page_keys_revoke = {keys_revoke};

/* ---- Communications ---- */

static const char *join(struct arena *a, const char *const *v, int n, const char *sep)
{
	const char *s = "";
	for (int i = 0; i < n; i++)
		s = arena_printf(a, "%s%s%s", s, i ? sep : "", v[i]);
	return s;
}

static void comms_render(struct web_req *w, int status, const char *error, const char *typed)
{
	const char *configured[MAX_RECIPIENTS];
	int n = 0;
	const char *all = NULL;
	if (store_approvers_configured(w->app->store, w->a, w->session->org.id, configured, MAX_RECIPIENTS, &n) ||
	    store_approver_list(w->app->store, w->a, w->session->org.id, &all)) {
		web_unavailable(w);
		return;
	}
	const char *notice = web_query(w, "saved") ? "Saved. The next approval emails go to these recipients." : NULL;
	struct tmpl_var v[] = {
		T_HTML("tabs", settings_tabs(w, "comms")),
		T_TEXT("notice", notice),
		T_TEXT("org_name", w->session->org.name),
		T_FLAG("configured", n > 0),
		T_TEXT("admins", n > 0 ? NULL : all),
		T_TEXT("error", error),
		T_TEXT("recipients", typed ? typed : join(w->a, configured, n, "\n")),
		T_FLAG("admin", web_is_admin(w)),
		T_TEXT("csrf", web_csrf_token(w)),
		T_FLAG("no_smtp", !*w->app->cfg.smtp_url),
	};
	struct web_page_opts o = {.nav = NAV_SETTINGS};
	web_page(w, status, "Communications", tmpl_render(w->a, "comms.html", v, sizeof v / sizeof v[0]), &o);
}

static void comms(struct web_req *w)
{
	comms_render(w, 200, NULL, NULL);
}

const struct web_handler page_comms = {comms};

/* A plausible address: local@domain, no spaces, at most 254 bytes.  Mail
 * servers are the judge of more; this catches typos like a missing "@". */
static bool plausible_email(const char *s)
{
	const char *at = strchr(s, '@');
	size_t n = strlen(s);
	if (!at || at == s || !at[1] || strchr(at + 1, '@') || n > EMAIL_MAX_LEN)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == '<' || *p == '>' || *p == '"' || *p == ',' || *p == ';' || *p == 0x7f)
			return false;
	return true;
}

/* Splits the textarea on commas, semicolons and whitespace, dropping
 * duplicates (case-insensitively).  Returns NULL with *ret_error set when an
 * entry is not an address or there are too many. */
static const char **parse_recipients(struct arena *a, const char *text, int *ret_n, const char **ret_error)
{
	const char **out = arena_alloc(a, sizeof(char *) * (MAX_RECIPIENTS + 1));
	int n = 0;
	char *copy = arena_strdup(a, text);
	for (char *p = copy; *p;) {
		size_t skip = strspn(p, ", ;\t\r\n");
		p += skip;
		size_t len = strcspn(p, ", ;\t\r\n");
		if (!len)
			break;
		char *item = arena_strndup(a, p, len);
		p += len;
		if (!plausible_email(item)) {
			*ret_error = arena_printf(a, "“%s” is not an email address.", item);
			return NULL;
		}
		bool dup = false;
		for (int i = 0; i < n; i++)
			dup |= !strcasecmp(out[i], item);
		if (dup)
			continue;
		if (n == MAX_RECIPIENTS) {
			*ret_error = "At most 50 recipients; use a mailing list address for more.";
			return NULL;
		}
		out[n++] = item;
	}
	*ret_n = n;
	return out;
}

static void comms_post(struct web_req *w)
{
	const char *text = web_field(w, "recipients");
	const char *error = NULL;
	int n = 0;
	const char **emails = parse_recipients(w->a, text ? text : "", &n, &error);
	if (!emails) {
		comms_render(w, 400, error, text);
		return;
	}
	if (store_set_approvers(w->app->store, w->session->org.id, emails, n)) {
		web_unavailable(w);
		return;
	}
	log_json("info", "approvers set", json_pack("{s:s,s:s,s:i}", "orgId", w->session->org.id, "userId",
						    w->session->user.id, "count", n));
	web_redirect(w, "/settings/communications?saved=1");
}

const struct web_handler page_comms_post = {comms_post};
