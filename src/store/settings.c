/* Organization settings. */
#include "settings.h"

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
