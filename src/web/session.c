/* Session cookies. */
#include "session.h"

#include <string.h>
#include <strings.h>

#include "app/app.h"

const char *cookie_value(struct arena *a, const char *header, const char *name)
{
	const char *h = header;
	size_t nl = strlen(name);
	while (h && *h) {
		while (*h == ' ' || *h == ';')
			h++;
		const char *end = strchr(h, ';');
		size_t len = end ? (size_t)(end - h) : strlen(h);
		if (len > nl && !strncmp(h, name, nl) && h[nl] == '=')
			return arena_strndup(a, h + nl + 1, len - nl - 1);
		h = end;
	}
	return NULL;
}

const char *web_cookie(const struct web_req *w, const char *name)
{
	return cookie_value(w->a, http_header(w->req, "Cookie"), name);
}

void web_set_cookie(struct web_req *w, const char *name, const char *value, const char *path, long max_age_s)
{
	bool secure = !strncasecmp(w->app->cfg.app_url, "https://", 8);
	const char *v = arena_printf(w->a, "%s=%s; Path=%s; Max-Age=%ld; HttpOnly; SameSite=Lax%s", name,
				     max_age_s > 0 ? value : "", path, max_age_s > 0 ? max_age_s : 0L,
				     secure ? "; Secure" : "");
	http_append_header(w->req, w->res, "Set-Cookie", v);
}

enum code web_session_load(struct web_req *w)
{
	w->session = NULL;
	const char *id = web_cookie(w, SESSION_COOKIE);
	if (!id || strlen(id) != SESSION_SECRET_LEN)
		return CODE_OK;
	struct web_session *s = arena_alloc(w->a, sizeof(*s));
	enum code rc = store_session_get(w->app->store, id, s);
	if (rc == CODE_NOT_FOUND)
		return CODE_OK;
	if (rc)
		return rc;
	memcpy(w->session_id, id, SESSION_SECRET_LEN + 1);
	w->session = s;
	return CODE_OK;
}

enum code web_session_start(struct web_req *w, const struct user *u, const char *via)
{
	if (w->session)
		web_session_end(w);
	char id[SESSION_SECRET_LEN + 1], csrf[SESSION_SECRET_LEN + 1];
	enum code rc = store_session_create(w->app->store, u, via, w->app->cfg.session_ttl_ms, id, csrf);
	if (rc)
		return rc;
	long max_age = (long)(w->app->cfg.session_ttl_ms / 1000);
	web_set_cookie(w, SESSION_COOKIE, id, "/", max_age > 0 ? max_age : 1);
	return CODE_OK;
}

void web_session_end(struct web_req *w)
{
	if (w->session)
		(void)store_session_revoke(w->app->store, w->session_id);
	w->session = NULL;
	w->session_id[0] = '\0';
	web_set_cookie(w, SESSION_COOKIE, "", "/", 0);
}
