/* Column shapes. */
#include "shapes.h"

#include <string.h>

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

/* The learned headers of one confirmation; a header twice in the shape
 * keeps its first column's field (the one the proposal would use). */
static enum code learn(struct db *db, const char *org_id, const struct learned_header *l, int n, const char *user_id,
		       int64_t now)
{
	enum code rc = CODE_OK;
	for (int i = 0; i < n && !rc; i++) {
		bool dup = false;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(l[j].key, l[i].key);
		if (!*l[i].key || dup)
			continue;
		/* A confirmation from the command line has no user: who did it is
		 * said in words (Settings shows learned_by when no user joins). */
		struct db_param p[] = {P_TXT(org_id), P_TXT(l[i].key), P_TXT(l[i].header), P_TXT(l[i].field),
				       P_TXT(user_id ? user_id : "an operator (loadline admin confirm-run)"), P_INT(now)};
		rc = db_exec(db, "INSERT INTO learned_headers (org_id, header_key, header, field, learned_by, learned_at) "
			     "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (org_id, header_key) DO UPDATE SET "
			     "header = excluded.header, field = excluded.field, learned_by = excluded.learned_by, "
			     "learned_at = excluded.learned_at", p, 6, NULL);
	}
	return rc;
}

enum code store_shape_confirm(struct store *st, const char *org_id, const char *shape_key, const char *headers_json,
			      const char *mapping_json, const char *user_id, int header_row,
			      const struct learned_header *learned, int n, int *ret_released)
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
	if (!rc)
		rc = learn(db, org_id, learned, n, user_id, now);
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

enum code store_learned_list(struct store *st, struct arena *a, const char *org_id, struct learned_header **ret,
			     int *ret_n)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT l.header_key, l.header, l.field, COALESCE(NULLIF(u.name, ''), u.email, "
				   "l.learned_by), l.learned_at FROM learned_headers l LEFT JOIN users u ON "
				   "u.id = l.learned_by WHERE l.org_id = $1 ORDER BY l.learned_at DESC, l.header_key",
				   p, 1, &r);
	if (rc)
		return rc;
	int n = db_res_rows(r);
	struct learned_header *out = arena_alloc(a, sizeof(*out) * ((size_t)n + 1));
	for (int i = 0; i < n; i++) {
		out[i].key = arena_strdup(a, db_res_get(r, i, 0));
		out[i].header = arena_strdup(a, db_res_get(r, i, 1));
		out[i].field = db_res_null(r, i, 2) ? NULL : arena_strdup(a, db_res_get(r, i, 2));
		out[i].learned_by = arena_strdup(a, db_res_get(r, i, 3));
		out[i].learned_at = db_res_int(r, i, 4);
	}
	db_res_free(r);
	*ret = out;
	*ret_n = n;
	return CODE_OK;
}

enum code store_learned_forget(struct store *st, const char *org_id, const char *key)
{
	struct db_res *r = NULL;
	struct db_param p[] = {P_TXT(org_id), P_TXT(key)};
	enum code rc = store_exec1(st, "DELETE FROM learned_headers WHERE org_id = $1 AND header_key = $2 "
				   "RETURNING header_key", p, 2, &r);
	if (!rc && db_res_rows(r) == 0)
		rc = CODE_NOT_FOUND;
	db_res_free(r);
	return rc;
}
