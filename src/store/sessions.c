/* Web sessions and pending OpenID Connect logins. */
#include "sessions.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "store_internal.h"

/* Rows past their expiry are useless; they are deleted a day later so that
 * the table stays small without a sweeper of its own. */
#define PURGE_AFTER_MS (24LL * 3600 * 1000)

static void purge(struct store *st, int64_t now)
{
	struct db_param p[] = {P_INT(now - PURGE_AFTER_MS)};
	/* Best effort: a failed clean-up never fails a sign-in. */
	(void)store_exec1(st, "DELETE FROM web_sessions WHERE expires_at < $1", p, 1, NULL);
	(void)store_exec1(st, "DELETE FROM oidc_logins WHERE expires_at < $1", p, 1, NULL);
}

enum code store_session_create(struct store *st, const struct user *u, const char *via, int64_t ttl_ms,
			       char ret_id[SESSION_SECRET_LEN + 1], char ret_csrf[SESSION_SECRET_LEN + 1])
{
	char id[SESSION_SECRET_LEN + 1], csrf[SESSION_SECRET_LEN + 1], hash[TOKEN_HASH_HEX];
	base62_random(id, SESSION_SECRET_LEN);
	id[SESSION_SECRET_LEN] = '\0';
	base62_random(csrf, SESSION_SECRET_LEN);
	csrf[SESSION_SECRET_LEN] = '\0';
	sha256_hex(id, SESSION_SECRET_LEN, hash);
	int64_t now = now_ms();
	purge(st, now);
	struct db_param p[] = {P_TXT(hash), P_TXT(u->id), P_TXT(u->org_id), P_TXT(csrf), P_TXT(via), P_INT(now),
			       P_INT(now + ttl_ms)};
	enum code rc = store_exec1(st, "INSERT INTO web_sessions (id_hash, user_id, org_id, csrf_secret, via, "
				   "created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", p, 7, NULL);
	if (rc)
		return rc;
	memcpy(ret_id, id, sizeof id);
	memcpy(ret_csrf, csrf, sizeof csrf);
	return CODE_OK;
}

enum code store_session_get(struct store *st, const char *id, struct web_session *ret)
{
	if (strlen(id) != SESSION_SECRET_LEN)
		return CODE_NOT_FOUND;
	char hash[TOKEN_HASH_HEX];
	sha256_hex(id, SESSION_SECRET_LEN, hash);
	struct db_res *r;
	struct db_param p[] = {P_TXT(hash), P_INT(now_ms())};
	/* The user's role and organization are read on every request, so a
	 * demotion takes effect at once. */
	enum code rc = store_exec1(st, "SELECT s.csrf_secret, s.via, s.created_at, s.expires_at, u.id, u.org_id, "
				   "u.email, u.name, u.role, u.created_at, o.id, o.name, o.created_at "
				   "FROM web_sessions s JOIN users u ON u.id = s.user_id JOIN orgs o ON o.id = u.org_id "
				   "WHERE s.id_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 "
				   "AND u.org_id = s.org_id", p, 2, &r);
	if ((rc = db_one_row(rc, r))) {
		db_res_free(r);
		return rc;
	}
	memset(ret, 0, sizeof(*ret));
	cell_copy(r, 0, 0, ret->csrf, sizeof ret->csrf);
	cell_copy(r, 0, 1, ret->via, sizeof ret->via);
	ret->created_at = db_res_int(r, 0, 2);
	ret->expires_at = db_res_int(r, 0, 3);
	cell_copy(r, 0, 4, ret->user.id, sizeof ret->user.id);
	cell_copy(r, 0, 5, ret->user.org_id, sizeof ret->user.org_id);
	cell_copy(r, 0, 6, ret->user.email, sizeof ret->user.email);
	cell_copy(r, 0, 7, ret->user.name, sizeof ret->user.name);
	const char *role = db_res_get(r, 0, 8);
	ret->user.role = role && !strcmp(role, "admin") ? ROLE_ADMIN : ROLE_MEMBER;
	ret->user.created_at = db_res_int(r, 0, 9);
	cell_copy(r, 0, 10, ret->org.id, sizeof ret->org.id);
	cell_copy(r, 0, 11, ret->org.name, sizeof ret->org.name);
	ret->org.created_at = db_res_int(r, 0, 12);
	db_res_free(r);
	return CODE_OK;
}

enum code store_session_revoke(struct store *st, const char *id)
{
	char hash[TOKEN_HASH_HEX];
	sha256_hex(id, strlen(id), hash);
	struct db_param p[] = {P_INT(now_ms()), P_TXT(hash)};
	return store_exec1(st, "UPDATE web_sessions SET revoked_at = COALESCE(revoked_at, $1) WHERE id_hash = $2",
			   p, 2, NULL);
}

enum code store_oidc_login_create(struct store *st, const char *state, const struct oidc_login *l, int64_t ttl_ms)
{
	char hash[TOKEN_HASH_HEX];
	sha256_hex(state, strlen(state), hash);
	int64_t now = now_ms();
	struct db_param p[] = {P_TXT(hash), P_TXT(l->nonce), P_TXT(l->code_verifier), P_TXT(l->return_to),
			       P_INT(now), P_INT(now + ttl_ms)};
	return store_exec1(st, "INSERT INTO oidc_logins (state_hash, nonce, code_verifier, return_to, created_at, "
			   "expires_at) VALUES ($1, $2, $3, $4, $5, $6)", p, 6, NULL);
}

enum code store_oidc_login_take(struct store *st, const char *state, struct oidc_login *ret)
{
	char hash[TOKEN_HASH_HEX];
	sha256_hex(state, strlen(state), hash);
	struct db_res *r;
	int64_t now = now_ms();
	struct db_param p[] = {P_INT(now), P_TXT(hash)};
	/* One statement marks it used, so a replayed callback cannot win a race. */
	enum code rc = store_exec1(st, "UPDATE oidc_logins SET used_at = $1 WHERE state_hash = $2 "
				   "AND used_at IS NULL AND expires_at > $1 "
				   "RETURNING nonce, code_verifier, return_to", p, 2, &r);
	if ((rc = db_one_row(rc, r))) {
		db_res_free(r);
		return rc;
	}
	memset(ret, 0, sizeof(*ret));
	cell_copy(r, 0, 0, ret->nonce, sizeof ret->nonce);
	cell_copy(r, 0, 1, ret->code_verifier, sizeof ret->code_verifier);
	cell_copy(r, 0, 2, ret->return_to, sizeof ret->return_to);
	db_res_free(r);
	return CODE_OK;
}
