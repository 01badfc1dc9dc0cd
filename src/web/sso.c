/* Single sign-on: the browser side of the OpenID Connect authorization code
 * flow (auth/oidc.h does the protocol).  /login/oidc starts it with a fresh
 * state, nonce and PKCE verifier, stored server-side and bound to this
 * browser by a short-lived cookie; /login/oidc/callback checks the state
 * against that cookie, uses the stored login once, redeems the code,
 * verifies the ID token (completed from UserInfo when it carries no email)
 * and signs in the user whose verified email it names. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "auth/oidc.h"
#include "base/config.h"
#include "base/ids.h"
#include "base/log.h"
#include "store/sessions.h"
#include "web/page.h"
#include "web/session.h"

#define STATE_COOKIE "ll_oidc"
#define STATE_COOKIE_PATH "/login/oidc"
#define LOGIN_TTL_MS (10LL * 60 * 1000)

static const char *redirect_uri(const struct web_req *w)
{
	return arena_printf(w->a, "%s/login/oidc/callback", w->app->cfg.app_url);
}

static void random_value(char out[OIDC_VALUE_LEN + 1])
{
	base62_random(out, OIDC_VALUE_LEN);
	out[OIDC_VALUE_LEN] = '\0';
}

/* Ends a failed sign-in on the sign-in page; the details go to the log
 * (with the request id), the user gets what they can act on. */
static void refuse(struct web_req *w, int status, const char *user_message, const char *detail)
{
	log_json("warn", "sso sign-in refused", json_pack("{s:s,s:s}", "requestId", w->req->request_id, "reason",
							  detail ? detail : user_message));
	web_set_cookie(w, STATE_COOKIE, "", STATE_COOKIE_PATH, 0);
	signin_render(w, status, user_message);
}

static void start(struct web_req *w)
{
	if (!oidc_configured(w->app->oidc)) {
		signin_render(w, 404, "Single sign-on is not configured on this server.");
		return;
	}
	char err[OIDC_ERR_MAX] = "";
	struct oidc_provider p;
	if (oidc_discover(w->app->oidc, &p, err)) {
		/* Nothing cached: the refresher is asking the provider (no HTTP
		 * thread waits for it), so a retry in a moment may succeed. */
		refuse(w, 503, "The sign-in provider has not answered yet. Try again in a moment.", err);
		http_add_header(w->req, w->res, "Retry-After", "2");
		return;
	}
	char state[OIDC_VALUE_LEN + 1];
	struct oidc_login l = {0};
	random_value(state);
	random_value(l.nonce);
	random_value(l.code_verifier);
	snprintf(l.return_to, sizeof l.return_to, "%s", web_safe_next(web_query(w, "next")));
	if (store_oidc_login_create(w->app->store, state, &l, LOGIN_TTL_MS)) {
		web_unavailable(w);
		return;
	}
	char challenge[OIDC_CHALLENGE_LEN + 1];
	oidc_pkce_challenge(l.code_verifier, challenge);
	web_set_cookie(w, STATE_COOKIE, state, STATE_COOKIE_PATH, (long)(LOGIN_TTL_MS / 1000));
	web_redirect(w, oidc_authorize_url(w->app->oidc, w->a, &p, redirect_uri(w), state, l.nonce, challenge));
}

const struct web_handler page_oidc_start = {start};

/* The state in the URL must be the one this browser was given. */
static bool state_matches(struct web_req *w, const char *state)
{
	const char *cookie = web_cookie(w, STATE_COOKIE);
	return state && cookie && strlen(state) == OIDC_VALUE_LEN && !strcmp(state, cookie);
}

/* Signs in the user the verified claims name. */
static void finish_signin(struct web_req *w, const struct oidc_claims *c, const char *return_to)
{
	if (!c->email_verified || !c->email[0]) {
		refuse(w, 403, "Your sign-in provider has not verified your email address, so Loadline cannot match "
			       "you to a user. Verify it with your provider, then sign in again.", "email not verified");
		return;
	}
	struct user u;
	enum code rc = store_user_by_email(w->app->store, c->email, &u);
	if (rc == CODE_NOT_FOUND) {
		char msg[400];
		snprintf(msg, sizeof msg, "No Loadline organization has a user with the email %s. Ask an admin of your "
			 "organization to add you.", c->email);
		refuse(w, 403, msg, "no user with that email");
		return;
	}
	if (rc || web_session_start(w, &u, "oidc")) {
		web_unavailable(w);
		return;
	}
	web_set_cookie(w, STATE_COOKIE, "", STATE_COOKIE_PATH, 0);
	snprintf(w->req->org_id, sizeof w->req->org_id, "%s", u.org_id);
	log_json("info", "signed in", json_pack("{s:s,s:s,s:s}", "userId", u.id, "orgId", u.org_id, "via", "oidc"));
	web_redirect(w, web_safe_next(return_to));
}

static void callback(struct web_req *w)
{
	const char *error = web_query(w, "error"), *state = web_query(w, "state");
	const char *code = web_query(w, "code"), *iss = web_query(w, "iss");
	char err[OIDC_ERR_MAX] = "";
	if (!oidc_configured(w->app->oidc)) {
		signin_render(w, 404, "Single sign-on is not configured on this server.");
		return;
	}
	if (error) {
		refuse(w, 400, "The sign-in provider did not sign you in. Try again.", error);
		return;
	}
	if (!state_matches(w, state)) {
		refuse(w, 400, "This sign-in did not start in this browser, or it was already used. Sign in again.",
		       "state does not match this browser's");
		return;
	}
	struct oidc_login l;
	enum code rc = store_oidc_login_take(w->app->store, state, &l);
	if (rc) {
		if (rc == CODE_NOT_FOUND)
			refuse(w, 400, "This sign-in expired or was already used. Sign in again.", "unknown or used state");
		else
			web_unavailable(w);
		return;
	}
	struct oidc_provider p;
	if ((rc = oidc_discover(w->app->oidc, &p, err))) {
		refuse(w, 503, "The sign-in provider did not answer. Try again in a minute.", err);
		return;
	}
	/* RFC 9207: a provider that names itself must be ours (mix-up attacks). */
	if (iss && strcmp(iss, p.issuer)) {
		refuse(w, 400, "The answer came from another sign-in provider. Sign in again.", "iss parameter mismatch");
		return;
	}
	const char *id_token = NULL, *access_token = NULL;
	struct oidc_claims claims;
	if (!code ||
	    (rc = oidc_redeem(w->app->oidc, w->a, &p, code, redirect_uri(w), l.code_verifier, &id_token, &access_token, err)) ||
	    (rc = oidc_verify(w->app->oidc, &p, id_token, l.nonce, &claims, err)) ||
	    (rc = oidc_userinfo(&p, access_token, &claims, err))) {
		bool down = rc == CODE_SERVICE_UNAVAILABLE;
		refuse(w, down ? 503 : 400, down ? "The sign-in provider did not answer. Try again in a minute."
						 : "Sign-in failed: the answer of the sign-in provider did not check out. "
						   "Sign in again.",
		       code ? err : "no code");
		return;
	}
	finish_signin(w, &claims, l.return_to);
}

const struct web_handler page_oidc_callback = {callback};
