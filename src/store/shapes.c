/* Column shapes. */
#include "shapes.h"

#include "base/clock.h"
#include "store_internal.h"

enum code store_shape_mapping(struct store *st, struct arena *a, const char *org_id, const char *shape_key,
			      const char **ret_mapping)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id), P_TXT(shape_key)};
	enum code rc = store_exec1(st, "SELECT mapping FROM shapes WHERE org_id = $1 AND shape_key = $2", p, 2, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		*ret_mapping = arena_strdup(a, db_res_get(r, 0, 0));
	db_res_free(r);
	return rc;
}

enum code store_shape_confirm(struct store *st, const char *org_id, const char *shape_key, const char *headers_json,
			      const char *mapping_json, const char *user_id, int header_row, int *ret_released)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	int64_t now = now_ms();
	enum code rc = db_begin_write(db);
	struct db_param p[] = {P_TXT(org_id), P_TXT(shape_key), P_TXT(headers_json), P_TXT(mapping_json),
			       P_TXT(user_id), P_INT(now), header_row > 0 ? P_INT(header_row) : P_NULL};
	if (!rc)
		rc = db_exec(db, "INSERT INTO shapes (org_id, shape_key, headers, mapping, confirmed_by, confirmed_at, "
			     "header_row) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (org_id, shape_key) DO UPDATE SET "
			     "mapping = excluded.mapping, headers = excluded.headers, "
			     "confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at, "
			     "header_row = excluded.header_row", p, 7, NULL);
	/* Released runs stay QUEUED (no state change): they lose nextAction and
	 * become claimable. */
	struct db_param u[] = {P_TXT(org_id), P_TXT(shape_key), P_INT(now)};
	struct db_res *r = NULL;
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET staged = 0, updated_at = $3 WHERE org_id = $1 AND shape_key = $2 "
			     "AND staged = 1 AND state = 'QUEUED' AND expires_at > $3 RETURNING id", u, 3, &r);
	if (!rc)
		*ret_released = db_res_rows(r);
	db_res_free(r);
	if (!rc && *ret_released)
		runs_notify(db);
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}
