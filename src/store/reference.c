/* Customers and branches (reference.h). */
#include "reference.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "migrations.h"
#include "runs.h"
#include "store_internal.h"
#include "textkey.h"

const char *ref_noun(enum ref_kind k)
{
	return k == REF_CUSTOMER ? "customer" : "branch";
}

const char *ref_prefix(enum ref_kind k)
{
	return k == REF_CUSTOMER ? "cus" : "brn";
}

static const char *table(enum ref_kind k)
{
	return k == REF_CUSTOMER ? "customers" : "branches";
}

/* The oldest record with name key key, into ret_id; CODE_NOT_FOUND. */
static enum code by_key(struct db *db, enum ref_kind k, const char *org_id, const char *key, char ret_id[ID_MAX])
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE org_id = $1 AND name_key = $2 ORDER BY created_at, id LIMIT 1",
		 table(k));
	struct db_param p[] = {P_TXT(org_id), P_TXT(key)};
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, 2, &r);
	if (rc)
		return rc;
	rc = db_one_row(rc, r);
	if (!rc)
		cell_copy(r, 0, 0, ret_id, ID_MAX);
	db_res_free(r);
	return rc;
}

enum code store_ref_create(struct store *st, enum ref_kind k, const char *org_id, const char *name,
			   char ret_id[ID_MAX], char ret_existing[ID_MAX])
{
	/* NFKC can make one character many ("\ufdfa" is 18). */
	char key[NAME_MAX_LEN * 4 * 18 + 1], sql[160];
	text_ref_key(name, key, sizeof key);
	struct store_tx *tx;
	enum code rc = store_tx_begin(st, &tx);
	if (rc)
		return rc;
	/* The per-name lock makes check-then-insert atomic on PostgreSQL too
	 * (SQLite's write transaction already is). */
	int64_t lock = store_key_hash(org_id, k == REF_CUSTOMER ? 'c' : 'b', key);
	struct db *db = store_tx_db(tx);
	if ((rc = store_tx_lock_keys(tx, &lock, 1)) || (rc = by_key(db, k, org_id, key, ret_existing)) != CODE_NOT_FOUND) {
		store_tx_abort(tx);
		return rc ? rc : CODE_DUPLICATE_NAME;
	}
	id_new(ref_prefix(k), ret_id);
	snprintf(sql, sizeof sql, "INSERT INTO %s (id, org_id, name, name_key, created_at) VALUES ($1, $2, $3, $4, $5)",
		 table(k));
	struct db_param p[] = {P_TXT(ret_id), P_TXT(org_id), P_TXT(name), P_TXT(key), P_INT(now_ms())};
	if ((rc = db_exec(db, sql, p, 5, NULL))) {
		store_tx_abort(tx);
		return rc;
	}
	return store_tx_commit(tx);
}

enum code store_ref_find(struct store *st, enum ref_kind k, const char *org_id, const char *name, char ret_id[ID_MAX])
{
	char key[NAME_MAX_LEN * 4 * 18 + 1];
	text_ref_key(name, key, sizeof key);
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = by_key(db, k, org_id, key, ret_id);
	store_release(st, db);
	return rc;
}

static enum code ref_list(struct store *st, struct arena *a, const char *sql, struct db_param *p, int n,
			  struct ref_rec *ret, int max, int *ret_n)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, n, &r);
	store_release(st, db);
	if (rc)
		return rc;
	*ret_n = 0;
	for (int i = 0; i < db_res_rows(r) && i < max; i++) {
		struct ref_rec *x = &ret[(*ret_n)++];
		cell_copy(r, i, 0, x->id, sizeof x->id);
		x->name = arena_strdup(a, db_res_get(r, i, 1));
		x->created_at = db_res_int(r, i, 2);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_ref_get(struct store *st, struct arena *a, enum ref_kind k, const char *org_id, const char *id,
			struct ref_rec *ret)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT id, name, created_at FROM %s WHERE org_id = $1 AND id = $2", table(k));
	struct db_param p[] = {P_TXT(org_id), P_TXT(id)};
	int n = 0;
	enum code rc = ref_list(st, a, sql, p, 2, ret, 1, &n);
	return rc ? rc : n ? CODE_OK : CODE_NOT_FOUND;
}

enum code store_ref_search(struct store *st, struct arena *a, enum ref_kind k, const char *org_id, const char *key,
			   int64_t after_created, const char *after_id, int limit, struct ref_rec *ret, int *ret_n)
{
	/* A substring of the name key; LIKE wildcards in it are escaped. */
	char *pattern = arena_alloc(a, strlen(key) * 2 + 3), *o = pattern;
	*o++ = '%';
	for (const char *s = key; *s; s++) {
		if (*s == '%' || *s == '_' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '%';
	char sql[300];
	snprintf(sql, sizeof sql, "SELECT id, name, created_at FROM %s WHERE org_id = $1 AND name_key LIKE $2 ESCAPE '\\' "
		 "AND ($5 = 0 OR created_at > $3 OR (created_at = $3 AND id > $4)) ORDER BY created_at, id LIMIT $6",
		 table(k));
	struct db_param p[] = {P_TXT(org_id), P_TXT(pattern), P_INT(after_created), P_TXT(after_id ? after_id : ""),
			       P_INT(after_id ? 1 : 0), P_INT(limit)};
	return ref_list(st, a, sql, p, 6, ret, limit, ret_n);
}

/* One table's keys; rows whose key is unchanged are left alone. */
static enum code rekey_table(struct db *db, enum ref_kind k)
{
	char sql[120];
	snprintf(sql, sizeof sql, "SELECT id, name, name_key FROM %s", table(k));
	struct db_res *r;
	enum code rc = db_exec(db, sql, NULL, 0, &r);
	if (rc)
		return rc;
	snprintf(sql, sizeof sql, "UPDATE %s SET name_key = $1 WHERE id = $2", table(k));
	static char key[NAME_MAX_LEN * 4 * 18 + 1];   /* migrations run one at a time, under a lock */
	for (int i = 0; !rc && i < db_res_rows(r); i++) {
		text_ref_key(db_res_get(r, i, 1), key, sizeof key);
		if (strcmp(key, db_res_get(r, i, 2))) {
			struct db_param p[] = {P_TXT(key), P_TXT(db_res_get(r, i, 0))};
			rc = db_exec(db, sql, p, 2, NULL);
		}
	}
	db_res_free(r);
	return rc;
}

enum code migrate_reference_keys(struct db *db)
{
	enum code rc = rekey_table(db, REF_CUSTOMER);
	return rc ? rc : rekey_table(db, REF_BRANCH);
}
