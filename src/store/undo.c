/* Undoing a run's writes (undo.h). */
#include "undo.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "changes.h"
#include "store_internal.h"

/* The columns a whole-row snapshot keeps, per table: what a re-insert
 * needs to put the row back as it was. */
struct col {
	const char *name;
	bool integer;
};

struct table {
	const char *name, *kind;
	const struct col *cols;
	int ncols;
	bool has_last_run;   /* last_run_id says who wrote it last */
};

static const struct col load_cols[] = {
	{"id", 0}, {"org_id", 0}, {"project_id", 0}, {"load_no", 0}, {"load_date", 0}, {"material", 0},
	{"truck_type", 0}, {"ticket_no", 0}, {"weight_centilb", 1}, {"weight_unit", 0}, {"rate_cents", 1},
	{"notes", 0}, {"pickup_location_id", 0}, {"dropoff_location_id", 0}, {"content_hash", 0},
	{"last_run_id", 0}, {"created_run_id", 0}, {"created_at", 1}, {"updated_at", 1}};
static const struct col project_cols[] = {
	{"id", 0}, {"org_id", 0}, {"job_code", 0}, {"name", 0}, {"customer_id", 0}, {"branch_id", 0},
	{"project_manager_id", 0}, {"pickup_location_id", 0}, {"dropoff_location_id", 0}, {"created_at", 1},
	{"updated_at", 1}, {"created_run_id", 0}, {"last_run_id", 0}};
static const struct col location_cols[] = {
	{"id", 0}, {"org_id", 0}, {"name", 0}, {"name_key", 0}, {"street", 0}, {"city", 0}, {"state", 0},
	{"zip", 0}, {"address_key", 0}, {"created_by_run", 0}, {"created_at", 1}, {"import_created", 1},
	{"lat_e6", 1}, {"lon_e6", 1}, {"geocode_precision", 0}, {"geocode_source", 0}};

#define NCOLS(c) ((int)(sizeof c / sizeof c[0]))
static const struct table LOADS = {"loads", "load", load_cols, NCOLS(load_cols), true};
static const struct table PROJECTS = {"projects", "project", project_cols, NCOLS(project_cols), true};
static const struct table LOCATIONS = {"locations", "location", location_cols, NCOLS(location_cols), false};

static const char *cell(struct arena *a, const struct db_res *r, int i, int c)
{
	const char *v = db_res_get(r, i, c);
	return v ? arena_strdup(a, v) : NULL;
}

/* Rows of t matching where, each as a JSON object of its columns (and, for
 * Loads, "job_code": its Project's, which the locks need). */
static enum code snapshot(struct db *db, const struct table *t, const char *where, const struct db_param *p, int n,
			  json_t **ret)
{
	struct buf sql;
	buf_init(&sql, 1u << 16);
	buf_puts(&sql, "SELECT ");
	for (int i = 0; i < t->ncols; i++)
		buf_printf(&sql, "%s%s.%s", i ? ", " : "", t->name, t->cols[i].name);
	if (t == &LOADS)
		buf_puts(&sql, ", (SELECT job_code FROM projects WHERE projects.id = loads.project_id)");
	buf_printf(&sql, " FROM %s WHERE %s", t->name, where);
	struct db_res *r = NULL;
	enum code rc = db_exec(db, buf_str(&sql), p, n, &r);
	buf_done(&sql);
	*ret = json_array();
	for (int i = 0; !rc && i < db_res_rows(r); i++) {
		json_t *o = json_object();
		for (int c = 0; c < t->ncols; c++) {
			json_t *v = db_res_null(r, i, c) ? json_null()
				  : t->cols[c].integer ? json_integer(db_res_int(r, i, c)) : json_string(db_res_get(r, i, c));
			json_object_set_new(o, t->cols[c].name, v);
		}
		if (t == &LOADS && !db_res_null(r, i, t->ncols))
			json_object_set_new(o, "job_code", json_string(db_res_get(r, i, t->ncols)));
		json_array_append_new(*ret, o);
	}
	db_res_free(r);
	return rc;
}

static const char *jget(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static struct db_param jparam(json_t *v)
{
	if (json_is_integer(v))
		return P_INT(json_integer_value(v));
	return P_TXT(json_string_value(v));
}

static void add_item(struct arena *a, struct undo_report *u, const struct table *t, json_t *row,
		     enum undo_outcome o, const char *later)
{
	/* Projects and Locations removed because nothing uses them any more
	 * are counted, not listed. */
	if (t == &LOCATIONS || (t == &PROJECTS && o == UNDO_REMOVED)) {
		u->places_removed += o == UNDO_REMOVED;
		return;
	}
	if (u->n == u->cap) {
		int cap = u->cap ? u->cap * 2 : 64;
		struct undo_item *items = arena_alloc(a, sizeof(*items) * (size_t)cap);
		if (u->n)
			memcpy(items, u->items, sizeof(*items) * (size_t)u->n);
		u->items = items;
		u->cap = cap;
	}
	const char *id = jget(row, "id"), *no = jget(row, "load_no"), *job = jget(row, "job_code");
	u->items[u->n++] = (struct undo_item){t->kind, arena_strdup(a, id ? id : ""), no ? arena_strdup(a, no) : NULL,
					      job ? arena_strdup(a, job) : NULL, o, later ? arena_strdup(a, later) : NULL};
	if (o == UNDO_CHANGED_SINCE)
		u->changed_since++;
	else if (o == UNDO_REMOVED)
		u->removed++;
	else
		u->restored++;
}

#define CHANGE_BATCH 60   /* 3 + 4 × 60 parameters */

/* Records that run_id did op to the records rows[i] of t, with befores[i]
 * (NULL: nothing), a few statements in all. */
static enum code record_many(struct db *db, const char *org_id, const char *run_id, const struct table *t,
			     const char *op, json_t *rows, char **befores, int n)
{
	enum code rc = CODE_OK;
	struct buf sql;
	buf_init(&sql, 1u << 16);
	struct db_param p[3 + 4 * CHANGE_BATCH];
	for (int start = 0; start < n && !rc; start += CHANGE_BATCH) {
		int k = n - start < CHANGE_BATCH ? n - start : CHANGE_BATCH;
		buf_clear(&sql);
		buf_puts(&sql, "INSERT INTO record_changes (run_id, org_id, at, kind, record_id, op, before) VALUES ");
		p[0] = P_TXT(run_id);
		p[1] = P_TXT(org_id);
		p[2] = P_INT(now_ms());
		for (int i = 0; i < k; i++) {
			int b = 4 + 4 * i;
			p[3 + 4 * i] = P_TXT(t->kind);
			p[4 + 4 * i] = P_TXT(jget(json_array_get(rows, (size_t)(start + i)), "id"));
			p[5 + 4 * i] = P_TXT(op);
			p[6 + 4 * i] = P_TXT(befores ? befores[start + i] : NULL);
			buf_printf(&sql, "%s($1, $2, $3, $%d, $%d, $%d, $%d)", i ? ", " : "", b, b + 1, b + 2, b + 3);
		}
		rc = db_exec(db, buf_str(&sql), p, 3 + 4 * k, NULL);
	}
	buf_done(&sql);
	return rc;
}

/* Removes the rows of t (snapshots) whose last writer is orig, keeping
 * each whole in record_changes; the others changed since. */
static enum code remove_rows(struct db *db, struct arena *a, const char *org_id, const char *orig,
			     const char *run_id, const struct table *t, json_t *rows, struct undo_report *u)
{
	size_t n = json_array_size(rows);
	json_t *gone = json_array();
	char **befores = calloc(n + 1, sizeof(char *));
	int k = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array_get(rows, i);
		const char *last = jget(row, "last_run_id");
		if (t->has_last_run && (!last || strcmp(last, orig))) {
			add_item(a, u, t, row, UNDO_CHANGED_SINCE, last);
			continue;
		}
		add_item(a, u, t, row, UNDO_REMOVED, NULL);
		json_array_append(gone, row);
		befores[k++] = json_dumps(row, JSON_COMPACT);
	}
	enum code rc = record_many(db, org_id, run_id, t, "remove", gone, befores, k);
	char sql[128];
	snprintf(sql, sizeof sql, "DELETE FROM %s WHERE id = $1", t->name);
	for (int i = 0; !rc && i < k; i++) {
		struct db_param p[] = {P_TXT(jget(json_array_get(gone, (size_t)i), "id"))};
		rc = db_exec(db, sql, p, 1, NULL);
	}
	for (int i = 0; i < k; i++)
		free(befores[i]);
	free(befores);
	json_decref(gone);
	return rc;
}

/* orig updated the record (row, as it is now) from before: puts those
 * values back unless someone wrote it since, keeping the values it
 * replaces as this run's before-image. */
static enum code restore_row(struct db *db, struct arena *a, const char *org_id, const char *orig, const char *run_id,
			     const struct table *t, json_t *row, json_t *before, struct undo_report *u)
{
	const char *last = jget(row, "last_run_id");
	if (!last || strcmp(last, orig)) {
		add_item(a, u, t, row, UNDO_CHANGED_SINCE, last);
		return CODE_OK;
	}
	json_t *mine = json_object();
	struct buf sql;
	buf_init(&sql, 4096);
	buf_printf(&sql, "UPDATE %s SET last_run_id = $1, updated_at = $2", t->name);
	struct db_param p[40] = {P_TXT(run_id), P_INT(now_ms()), P_TXT(jget(row, "id"))};
	int np = 3;
	const char *k;
	json_t *v;
	json_object_foreach(before, k, v) {
		if (!json_object_get(row, k) || np >= 40)
			continue;   /* not a column of this table */
		json_object_set(mine, k, json_object_get(row, k));
		p[np++] = jparam(v);
		buf_printf(&sql, ", %s = $%d", k, np);
	}
	buf_puts(&sql, " WHERE id = $3");
	enum code rc = db_exec(db, buf_str(&sql), p, np, NULL);
	buf_done(&sql);
	char *text = json_dumps(mine, JSON_COMPACT);
	if (!rc)
		rc = store_change_add_db(db, org_id, run_id, t->kind, jget(row, "id"), "update", text);
	free(text);
	json_decref(mine);
	if (!rc)
		add_item(a, u, t, row, UNDO_RESTORED, NULL);
	return rc;
}

/* Who holds the natural key the removed row (snapshot) would take back,
 * in *ret_holder (its last writer, or "" when unknown); NULL: free. */
static enum code key_holder(struct db *db, struct arena *a, const struct table *t, json_t *row, const char **ret)
{
	const char *sql, *k1, *k2;
	if (t == &LOADS) {
		sql = "SELECT last_run_id FROM loads WHERE project_id = $1 AND load_no = $2";
		k1 = jget(row, "project_id"), k2 = jget(row, "load_no");
	} else if (t == &PROJECTS) {
		sql = "SELECT last_run_id FROM projects WHERE org_id = $1 AND job_code = $2";
		k1 = jget(row, "org_id"), k2 = jget(row, "job_code");
	} else if (jget(row, "name_key")) {
		sql = "SELECT '' FROM locations WHERE org_id = $1 AND import_created = 1 AND name_key = $2";
		k1 = jget(row, "org_id"), k2 = jget(row, "name_key");
	} else {
		sql = "SELECT '' FROM locations WHERE org_id = $1 AND import_created = 1 AND name_key IS NULL "
		      "AND address_key = $2";
		k1 = jget(row, "org_id"), k2 = jget(row, "address_key");
	}
	struct db_param p[] = {P_TXT(k1), P_TXT(k2)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, sql, p, 2, &r);
	*ret = NULL;
	if (!rc && db_res_rows(r) > 0)
		*ret = db_res_null(r, 0, 0) ? "" : cell(a, r, 0, 0);
	db_res_free(r);
	return rc;
}

/* orig removed the record (row: its snapshot): puts it back, as written
 * by run_id, unless its natural key was taken since. */
static enum code reinsert_row(struct db *db, struct arena *a, const char *org_id, const char *run_id,
			      const struct table *t, json_t *row, struct undo_report *u)
{
	const char *holder;
	enum code rc = key_holder(db, a, t, row, &holder);
	if (rc || holder) {
		if (!rc)
			add_item(a, u, t, row, UNDO_CHANGED_SINCE, *holder ? holder : NULL);
		return rc;
	}
	struct buf sql;
	buf_init(&sql, 4096);
	buf_printf(&sql, "INSERT INTO %s (", t->name);
	struct db_param p[40];
	for (int i = 0; i < t->ncols; i++) {
		const char *c = t->cols[i].name;
		buf_printf(&sql, "%s%s", i ? ", " : "", c);
		p[i] = t->has_last_run && !strcmp(c, "last_run_id") ? P_TXT(run_id) : jparam(json_object_get(row, c));
	}
	buf_puts(&sql, ") VALUES (");
	for (int i = 0; i < t->ncols; i++)
		buf_printf(&sql, "%s$%d", i ? ", " : "", i + 1);
	buf_putc(&sql, ')');
	rc = db_exec(db, buf_str(&sql), p, t->ncols, NULL);
	buf_done(&sql);
	if (!rc)
		rc = store_change_add_db(db, org_id, run_id, t->kind, jget(row, "id"), "insert", NULL);
	if (!rc)
		add_item(a, u, t, row, UNDO_RESTORED, NULL);
	return rc;
}

/* orig's record_changes of kind with op, each with the record as it is
 * now (NULL when gone). */
struct change_rows {
	json_t *befores;   /* array of before-images (null for op insert) */
	json_t *ids;       /* array of record ids */
};

static enum code changes_of(struct db *db, const char *orig, const char *kind, const char *op, struct change_rows *ret)
{
	struct db_param p[] = {P_TXT(orig), P_TXT(kind), P_TXT(op)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT record_id, before FROM record_changes WHERE run_id = $1 AND kind = $2 AND "
			       "op = $3 ORDER BY record_id", p, 3, &r);
	ret->befores = json_array();
	ret->ids = json_array();
	for (int i = 0; !rc && i < db_res_rows(r); i++) {
		const char *b = db_res_get(r, i, 1);
		json_array_append_new(ret->ids, json_string(db_res_get(r, i, 0)));
		json_array_append_new(ret->befores, b ? json_loads(b, 0, NULL) : json_null());
	}
	db_res_free(r);
	return rc;
}

static void change_rows_free(struct change_rows *c)
{
	json_decref(c->befores);
	json_decref(c->ids);
}

/* The record of kind with this id as it is now (a snapshot), or NULL. */
static enum code current(struct db *db, const struct table *t, const char *id, json_t **ret)
{
	struct db_param p[] = {P_TXT(id)};
	json_t *rows;
	char where[64];
	snprintf(where, sizeof where, "%s.id = $1", t->name);
	enum code rc = snapshot(db, t, where, p, 1, &rows);
	*ret = json_array_size(rows) ? json_incref(json_array_get(rows, 0)) : NULL;
	json_decref(rows);
	return rc;
}

/* The lock keys of the records the undo will touch, as imports lock them
 * (writer_lock_keys): job codes, and location name or address keys. */
static void add_key(int64_t **keys, int *n, int *cap, const char *org_id, char kind, const char *key)
{
	if (!key)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*keys = realloc(*keys, sizeof(int64_t) * (size_t)*cap);
		if (!*keys)
			abort();
	}
	(*keys)[(*n)++] = store_key_hash(org_id, kind, key);
}

static int cmp_keys(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static enum code lock_keys(struct store_tx *tx, const char *org_id, const char *orig)
{
	struct db *db = store_tx_db(tx);
	if (db_kind(db) != DB_POSTGRES)
		return CODE_OK;   /* a SQLite write transaction excludes every other writer */
	struct db_param p[] = {P_TXT(orig), P_TXT(org_id)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db,
		"SELECT 'j', p.job_code FROM loads l JOIN projects p ON p.id = l.project_id WHERE l.created_run_id = $1 "
		"AND l.org_id = $2 UNION SELECT 'j', job_code FROM projects WHERE created_run_id = $1 AND org_id = $2 "
		"UNION SELECT 'j', p.job_code FROM record_changes c JOIN loads l ON l.id = c.record_id JOIN projects p "
		"ON p.id = l.project_id WHERE c.run_id = $1 AND c.kind = 'load' UNION SELECT 'j', p.job_code FROM "
		"record_changes c JOIN projects p ON p.id = c.record_id WHERE c.run_id = $1 AND c.kind = 'project' "
		"UNION SELECT CASE WHEN name_key IS NULL THEN 'a' ELSE 'n' END, COALESCE(name_key, address_key) FROM "
		"locations WHERE created_by_run = $1 AND org_id = $2 UNION SELECT kind, before FROM record_changes "
		"WHERE run_id = $1 AND op = 'remove'", p, 2, &r);
	int64_t *keys = NULL;
	int n = 0, cap = 0;
	for (int i = 0; !rc && i < db_res_rows(r); i++) {
		const char *kind = db_res_get(r, i, 0), *v = db_res_get(r, i, 1);
		if (strlen(kind) == 1) {
			add_key(&keys, &n, &cap, org_id, kind[0], v);
			continue;
		}
		/* A row orig removed: the keys it would take back. */
		json_t *row = v ? json_loads(v, 0, NULL) : NULL;
		add_key(&keys, &n, &cap, org_id, 'j', jget(row, "job_code"));
		if (!strcmp(kind, "location"))
			add_key(&keys, &n, &cap, org_id, jget(row, "name_key") ? 'n' : 'a',
				jget(row, "name_key") ? jget(row, "name_key") : jget(row, "address_key"));
		json_decref(row);
	}
	db_res_free(r);
	if (!rc && n) {
		qsort(keys, (size_t)n, sizeof(int64_t), cmp_keys);
		rc = store_tx_lock_keys(tx, keys, n);
	}
	free(keys);
	return rc;
}

/* Puts back what orig removed (op remove: Locations, then Projects, then
 * Loads, so that references hold), then what it updated. */
static enum code undo_removals_and_updates(struct db *db, struct arena *a, const char *org_id, const char *orig,
					   const char *run_id, struct undo_report *u)
{
	static const struct table *const order[] = {&LOCATIONS, &PROJECTS, &LOADS};
	enum code rc = CODE_OK;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (int t = 0; t < 3 && !rc; t++) {
			struct change_rows c;
			rc = changes_of(db, orig, order[t]->kind, pass ? "update" : "remove", &c);
			for (size_t i = 0; !rc && i < json_array_size(c.ids); i++) {
				json_t *before = json_array_get(c.befores, i), *row = NULL;
				if (!pass) {
					rc = reinsert_row(db, a, org_id, run_id, order[t], before, u);
					continue;
				}
				rc = current(db, order[t], json_string_value(json_array_get(c.ids, i)), &row);
				if (!rc && row)
					rc = restore_row(db, a, org_id, orig, run_id, order[t], row, before, u);
				json_decref(row);
			}
			change_rows_free(&c);
		}
	}
	return rc;
}

/* Removes what orig created or put back (Loads, then Projects and
 * Locations nothing uses any more). */
static enum code undo_creations(struct db *db, struct arena *a, const char *org_id, const char *orig,
				const char *run_id, struct undo_report *u)
{
	static const struct {
		const struct table *t;
		const char *where;
	} steps[] = {
		{&LOADS, "(loads.created_run_id = $1 OR loads.id IN (SELECT record_id FROM record_changes WHERE "
			 "run_id = $1 AND kind = 'load' AND op = 'insert')) AND loads.org_id = $2"},
		{&PROJECTS, "(projects.created_run_id = $1 OR projects.id IN (SELECT record_id FROM record_changes WHERE "
			    "run_id = $1 AND kind = 'project' AND op = 'insert')) AND projects.org_id = $2 AND NOT EXISTS "
			    "(SELECT 1 FROM loads WHERE loads.project_id = projects.id)"},
		{&LOCATIONS, "(locations.created_by_run = $1 OR locations.id IN (SELECT record_id FROM record_changes "
			     "WHERE run_id = $1 AND kind = 'location' AND op = 'insert')) AND locations.org_id = $2 AND "
			     "NOT EXISTS (SELECT 1 FROM loads WHERE loads.pickup_location_id = locations.id OR "
			     "loads.dropoff_location_id = locations.id) AND NOT EXISTS (SELECT 1 FROM projects WHERE "
			     "projects.pickup_location_id = locations.id OR projects.dropoff_location_id = locations.id)"},
	};
	enum code rc = CODE_OK;
	for (size_t i = 0; i < 3 && !rc; i++) {
		struct db_param p[] = {P_TXT(orig), P_TXT(org_id)};
		json_t *rows = NULL;
		rc = snapshot(db, steps[i].t, steps[i].where, p, 2, &rows);
		if (!rc)
			rc = remove_rows(db, a, org_id, orig, run_id, steps[i].t, rows, u);
		json_decref(rows);
	}
	return rc;
}

enum code store_undo_run(struct store_tx *tx, struct arena *a, const char *org_id, const char *orig,
			 const char *run_id, struct undo_report *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct db *db = store_tx_db(tx);
	enum code rc = lock_keys(tx, org_id, orig);
	if (!rc)
		rc = undo_creations(db, a, org_id, orig, run_id, ret);
	if (!rc)
		rc = undo_removals_and_updates(db, a, org_id, orig, run_id, ret);
	return rc;
}
