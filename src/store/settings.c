/* Organization settings. */
#include "settings.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "store_internal.h"

enum code store_approvers_configured(struct store *st, struct arena *a, const char *org_id, const char **ret,
				     int max, int *ret_n)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id), P_INT(max)};
	enum code rc = store_exec1(st, "SELECT email FROM approvers WHERE org_id = $1 ORDER BY email LIMIT $2",
				   p, 2, &r);
	if (rc)
		return rc;
	int n = db_res_rows(r);
	for (int i = 0; i < n; i++)
		ret[i] = arena_strdup(a, db_res_get(r, i, 0));
	*ret_n = n;
	db_res_free(r);
	return CODE_OK;
}

enum code store_org_commit_policy(struct store *st, const char *org_id, char ret[8])
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT commit_policy FROM orgs WHERE id = $1", p, 1, &r);
	if (rc)
		return rc;
	const char *v = db_res_rows(r) == 1 ? db_res_get(r, 0, 0) : NULL;
	snprintf(ret, 8, "%s", v && !strcmp(v, "all") ? "all" : "partial");
	db_res_free(r);
	return CODE_OK;
}

enum code store_org_set_commit_policy(struct store *st, const char *org_id, const char *policy)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(!strcmp(policy, "all") ? "all" : "partial")};
	return store_exec1(st, "UPDATE orgs SET commit_policy = $2 WHERE id = $1", p, 2, NULL);
}

enum code store_secret(struct store *st, const char *name, unsigned char *ret, size_t len)
{
	if (len > 64)
		return CODE_INTERNAL_ERROR;
	unsigned char fresh[64];
	char hex[129];
	randombytes_buf(fresh, len);
	sodium_bin2hex(hex, sizeof hex, fresh, len);
	struct db_param ins[] = {P_TXT(name), P_TXT(hex), P_INT(now_ms())};
	enum code rc = store_exec1(st, "INSERT INTO secrets (name, value, created_at) VALUES ($1, $2, $3) "
				   "ON CONFLICT (name) DO NOTHING", ins, 3, NULL);
	if (rc)
		return rc;
	struct db_res *r;
	struct db_param sel[] = {P_TXT(name)};
	rc = store_exec1(st, "SELECT value FROM secrets WHERE name = $1", sel, 1, &r);
	if (rc)
		return rc;
	const char *v = db_one_row(rc, r) ? NULL : db_res_get(r, 0, 0);
	size_t got = 0;
	if (!v || sodium_hex2bin(ret, len, v, strlen(v), NULL, &got, NULL) || got != len)
		rc = CODE_INTERNAL_ERROR;
	db_res_free(r);
	return rc;
}
