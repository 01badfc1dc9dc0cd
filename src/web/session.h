/* Browser sessions: the session cookie and its server-side record
 * (store/sessions.h).  The cookie holds only a random id; it is HttpOnly,
 * SameSite=Lax, Path=/, and Secure when the app URL is https. */
#ifndef LOADLINE_WEB_SESSION_H
#define LOADLINE_WEB_SESSION_H

#include "base/codes.h"
#include "web/page.h"

#define SESSION_COOKIE "ll_session"

/* Loads the session named by the request's cookie into w->session (NULL
 * when there is none, or it expired or was revoked).  Returns CODE_OK or a
 * storage error. */
enum code web_session_load(struct web_req *w);
/* Signs u in: a new session (never a reused id) and its cookie, both
 * lasting LOADLINE_SESSION_TTL (12 hours; no sliding renewal).  Any session
 * the browser had before is revoked. */
enum code web_session_start(struct web_req *w, const struct user *u, const char *via);
/* Signs out: revokes the session and clears the cookie. */
void web_session_end(struct web_req *w);

/* The value of cookie name in a Cookie header (NULL header allowed), or
 * NULL; a pure function so that it can be fuzzed. */
const char *cookie_value(struct arena *a, const char *header, const char *name);
/* The value of cookie name in the request, or NULL. */
const char *web_cookie(const struct web_req *w, const char *name);
/* Sets (max_age_s > 0) or clears (0) a cookie with this module's flags. */
void web_set_cookie(struct web_req *w, const char *name, const char *value, const char *path, long max_age_s);

#endif
