/* Web sign-in state: server-side sessions and pending OpenID Connect logins.
 * Callers hand in the secret values (session id, OIDC state); only their
 * SHA-256 is stored, so a copy of the database opens no session. */
#ifndef LOADLINE_STORE_SESSIONS_H
#define LOADLINE_STORE_SESSIONS_H

#include <stdint.h>

#include "store.h"

#define SESSION_SECRET_LEN 43   /* base62 characters: ~256 bits */
#define OIDC_VALUE_LEN 43       /* state, nonce and PKCE verifier */
#define RETURN_TO_MAX 1024

struct web_session {
	struct user user;
	struct org org;
	char csrf[SESSION_SECRET_LEN + 1];
	char via[16];              /* "link" | "oidc" */
	int64_t created_at, expires_at;
};

/* Stores a new session for user (of org_id) until now + ttl_ms and writes
 * its id into ret_id and its CSRF secret into ret_csrf.  Also deletes
 * sessions and pending logins that expired more than a day ago. */
enum code store_session_create(struct store *st, const struct user *u, const char *via, int64_t ttl_ms,
			       char ret_id[SESSION_SECRET_LEN + 1], char ret_csrf[SESSION_SECRET_LEN + 1]);
/* The live session with this id, with its user and org as they are now:
 * CODE_NOT_FOUND when unknown, expired or revoked (or the user is gone). */
enum code store_session_get(struct store *st, const char *id, struct web_session *ret);
/* Revokes the session (idempotent; unknown ids are fine). */
enum code store_session_revoke(struct store *st, const char *id);

struct oidc_login {
	char nonce[OIDC_VALUE_LEN + 1];
	char code_verifier[OIDC_VALUE_LEN + 1];
	char return_to[RETURN_TO_MAX];
};

/* Records a pending login under state until now + ttl_ms. */
enum code store_oidc_login_create(struct store *st, const char *state, const struct oidc_login *l, int64_t ttl_ms);
/* Consumes the pending login of state: CODE_OK once, CODE_NOT_FOUND
 * afterwards, for unknown states and after expiry. */
enum code store_oidc_login_take(struct store *st, const char *state, struct oidc_login *ret);

#endif
