/* The shared rate-limit budget (see store_rate_lease in store.h and
 * docs/design.md "Rate limit across processes").  One UPDATE per lease:
 * both SETs read the old row, so `granted` and `tat` agree; CASE instead of
 * GREATEST/LEAST keeps it one statement on SQLite and PostgreSQL. */
#include "store.h"
#include "store_internal.h"

#define BASE "(CASE WHEN tat > CAST($2 AS BIGINT) THEN tat ELSE CAST($2 AS BIGINT) END)"
#define FIT "((CAST($2 AS BIGINT) + CAST($4 AS BIGINT) - " BASE ") / CAST($3 AS BIGINT))"
#define GRANT "(CASE WHEN " FIT " < CAST($5 AS BIGINT) THEN " FIT " ELSE CAST($5 AS BIGINT) END)"

enum code store_rate_lease(struct store *st, const char *key_id, int64_t now, int64_t interval, int64_t span,
			   int want, int *ret_granted, int64_t *ret_tat)
{
	struct db_param p[] = {P_TXT(key_id), P_INT(now), P_INT(interval), P_INT(span), P_INT(want)};
	for (int attempt = 0; attempt < 2; attempt++) {
		struct db_res *r;
		enum code rc = store_exec1(st, "UPDATE rate_allowance SET granted = " GRANT ", tat = " BASE
					   " + " GRANT " * CAST($3 AS BIGINT) WHERE key_id = $1 RETURNING granted, tat",
					   p, 5, &r);
		if (rc) {
			db_res_free(r);
			return rc;
		}
		if (db_res_rows(r) == 1) {
			*ret_granted = (int)db_res_int(r, 0, 0);
			*ret_tat = db_res_int(r, 0, 1);
			db_res_free(r);
			return CODE_OK;
		}
		db_res_free(r);
		/* The token's first lease anywhere: create its row, then lease. */
		rc = store_exec1(st, "INSERT INTO rate_allowance (key_id, tat, granted) VALUES ($1, 0, 0) "
				 "ON CONFLICT (key_id) DO NOTHING", p, 1, &r);
		db_res_free(r);
		if (rc)
			return rc;
	}
	return CODE_INTERNAL_ERROR;
}
