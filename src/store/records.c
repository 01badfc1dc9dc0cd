/* Projects, Loads, Locations and the look-ups of an import. */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#include "base/clock.h"
#include "store_internal.h"

static const char *dup(struct arena *a, const struct db_res *r, int i, int c)
{
	return db_res_null(r, i, c) ? NULL : arena_strdup(a, db_res_get(r, i, c));
}

/* ---- projects ---- */

#define PROJECT_COLS "id, job_code, name, customer_id, branch_id, project_manager_id, " \
	"pickup_location_id, dropoff_location_id, created_at, updated_at"

static void row_to_project(struct arena *a, const struct db_res *r, int i, struct project_rec *p)
{
	memset(p, 0, sizeof(*p));
	cell_copy(r, i, 0, p->id, sizeof p->id);
	p->job_code = dup(a, r, i, 1);
	p->name = dup(a, r, i, 2);
	p->customer_id = dup(a, r, i, 3);
	p->branch_id = dup(a, r, i, 4);
	p->project_manager_id = dup(a, r, i, 5);
	p->pickup_location_id = dup(a, r, i, 6);
	p->dropoff_location_id = dup(a, r, i, 7);
	p->created_at = db_res_int(r, i, 8);
	p->updated_at = db_res_int(r, i, 9);
}

static enum code one_project(struct db *db, struct arena *a, const char *sql, struct db_param *p, int n,
			     struct project_rec *ret)
{
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, n, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_project(a, r, 0, ret);
	db_res_free(r);
	return rc;
}

enum code store_project_find(struct store_tx *tx, struct arena *a, const char *org_id, const char *job_code,
			     struct project_rec *ret)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(job_code)};
	return one_project(store_tx_db(tx), a, "SELECT " PROJECT_COLS " FROM projects WHERE org_id = $1 AND job_code = $2",
			   p, 2, ret);
}

enum code store_project_insert(struct store_tx *tx, const char *org_id, const char *run_id,
			       const struct project_rec *x)
{
	int64_t now = now_ms();
	struct db_param p[] = {P_TXT(x->id), P_TXT(org_id), P_TXT(x->job_code), P_TXT(x->name),
			       P_TXT(x->customer_id), P_TXT(x->branch_id), P_TXT(x->project_manager_id),
			       P_TXT(x->pickup_location_id), P_TXT(x->dropoff_location_id), P_INT(now), P_TXT(run_id)};
	return db_exec(store_tx_db(tx), "INSERT INTO projects (id, org_id, job_code, name, customer_id, branch_id, "
		       "project_manager_id, pickup_location_id, dropoff_location_id, created_at, updated_at, "
		       "created_run_id, last_run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $11)",
		       p, 11, NULL);
}

enum code store_project_update(struct store_tx *tx, const char *run_id, const struct project_rec *x)
{
	struct db_param p[] = {P_TXT(x->id), P_TXT(x->name), P_TXT(x->customer_id), P_TXT(x->branch_id),
			       P_TXT(x->project_manager_id), P_TXT(x->pickup_location_id),
			       P_TXT(x->dropoff_location_id), P_INT(now_ms()), P_TXT(run_id)};
	return db_exec(store_tx_db(tx), "UPDATE projects SET name = $2, customer_id = $3, branch_id = $4, "
		       "project_manager_id = $5, pickup_location_id = $6, dropoff_location_id = $7, updated_at = $8, "
		       "last_run_id = $9 WHERE id = $1", p, 9, NULL);
}

enum code store_project_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			    struct project_rec *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(id), P_TXT(org_id)};
	enum code rc = one_project(db, a, "SELECT " PROJECT_COLS " FROM projects WHERE id = $1 AND org_id = $2",
				   p, 2, ret);
	store_release(st, db);
	return rc;
}

/* ---- loads ---- */

#define LOAD_COLS "l.id, l.project_id, p.job_code, l.load_no, l.load_date, l.material, l.truck_type, " \
	"l.ticket_no, l.notes, l.weight_unit, l.weight_centilb, l.rate_cents, l.pickup_location_id, " \
	"l.dropoff_location_id, l.content_hash, l.created_at, l.updated_at"

static void row_to_load(struct arena *a, const struct db_res *r, int i, struct load_rec *l)
{
	memset(l, 0, sizeof(*l));
	cell_copy(r, i, 0, l->id, sizeof l->id);
	l->project_id = dup(a, r, i, 1);
	l->job_code = dup(a, r, i, 2);
	l->load_no = dup(a, r, i, 3);
	l->load_date = dup(a, r, i, 4);
	l->material = dup(a, r, i, 5);
	l->truck_type = dup(a, r, i, 6);
	l->ticket_no = dup(a, r, i, 7);
	l->notes = dup(a, r, i, 8);
	l->weight_unit = dup(a, r, i, 9);
	l->has_weight = !db_res_null(r, i, 10);
	l->weight_centilb = db_res_int(r, i, 10);
	l->has_rate = !db_res_null(r, i, 11);
	l->rate_cents = db_res_int(r, i, 11);
	l->pickup_location_id = dup(a, r, i, 12);
	l->dropoff_location_id = dup(a, r, i, 13);
	l->content_hash = dup(a, r, i, 14);
	l->created_at = db_res_int(r, i, 15);
	l->updated_at = db_res_int(r, i, 16);
}

static enum code one_load(struct db *db, struct arena *a, const char *where, struct db_param *p, int n,
			  struct load_rec *ret)
{
	char sql[1024];
	snprintf(sql, sizeof sql, "SELECT " LOAD_COLS " FROM loads l JOIN projects p ON p.id = l.project_id WHERE %s",
		 where);
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, n, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_load(a, r, 0, ret);
	db_res_free(r);
	return rc;
}

enum code store_load_find(struct store_tx *tx, struct arena *a, const char *project_id, const char *load_no,
			  struct load_rec *ret)
{
	struct db_param p[] = {P_TXT(project_id), P_TXT(load_no)};
	return one_load(store_tx_db(tx), a, "l.project_id = $1 AND l.load_no = $2", p, 2, ret);
}

static struct db_param opt_int(bool has, int64_t v)
{
	return has ? P_INT(v) : P_NULL;
}

#define LOAD_INSERT_COLS "INSERT INTO loads (id, org_id, project_id, load_no, load_date, material, " \
	"truck_type, ticket_no, weight_centilb, weight_unit, rate_cents, notes, pickup_location_id, " \
	"dropoff_location_id, content_hash, last_run_id, created_run_id, created_at, updated_at) VALUES "
#define LOAD_PARAMS 14   /* per row; org_id, run_id and the time are shared */

/* "($4, $1, $5, ..., $2, $3, $3), ..." for k rows. */
static void load_values(struct buf *sql, int k)
{
	for (int i = 0; i < k; i++) {
		int b = 4 + LOAD_PARAMS * i;   /* $b is the row's first parameter */
		buf_puts(sql, i ? ", ($" : "($");
		buf_put_int(sql, b);
		buf_puts(sql, ", $1");
		for (int j = 1; j < LOAD_PARAMS; j++) {
			buf_puts(sql, ", $");
			buf_put_int(sql, b + j);
		}
		buf_puts(sql, ", $2, $2, $3, $3)");
	}
}

/* The whole statement for k rows. */
static void load_sql(struct buf *sql, int k)
{
	buf_puts(sql, LOAD_INSERT_COLS);
	load_values(sql, k);
}

static _Atomic(char *) full_batch_sql;

enum code store_load_insert_many(struct store_tx *tx, const char *org_id, const char *run_id,
				 const struct load_rec *l, int n)
{
	enum code rc = CODE_OK;
	struct db_param *p = malloc(sizeof(struct db_param) * (size_t)(3 + LOAD_PARAMS * STORE_LOAD_BATCH));
	struct buf sql;
	buf_init(&sql, 1u << 20);
	if (!p)
		abort();
	for (int start = 0; start < n && !rc; start += STORE_LOAD_BATCH) {
		int k = n - start < STORE_LOAD_BATCH ? n - start : STORE_LOAD_BATCH;
		p[0] = P_TXT(org_id);
		p[1] = P_TXT(run_id);
		p[2] = P_INT(now_ms());
		for (int i = 0; i < k; i++) {
			const struct load_rec *x = &l[start + i];
			struct db_param *q = p + 3 + LOAD_PARAMS * i;
			q[0] = P_TXT(x->id);
			q[1] = P_TXT(x->project_id);
			q[2] = P_TXT(x->load_no);
			q[3] = P_TXT(x->load_date);
			q[4] = P_TXT(x->material);
			q[5] = P_TXT(x->truck_type);
			q[6] = P_TXT(x->ticket_no);
			q[7] = opt_int(x->has_weight, x->weight_centilb);
			q[8] = P_TXT(x->weight_unit);
			q[9] = opt_int(x->has_rate, x->rate_cents);
			q[10] = P_TXT(x->notes);
			q[11] = P_TXT(x->pickup_location_id);
			q[12] = P_TXT(x->dropoff_location_id);
			q[13] = P_TXT(x->content_hash);
		}
		const char *text = store_batch_sql(&full_batch_sql, &sql, load_sql, k, STORE_LOAD_BATCH);
		rc = db_exec(store_tx_db(tx), text, p, 3 + LOAD_PARAMS * k, NULL);
	}
	buf_done(&sql);
	free(p);
	return rc;
}

enum code store_load_insert(struct store_tx *tx, const char *org_id, const char *run_id, const struct load_rec *l)
{
	return store_load_insert_many(tx, org_id, run_id, l, 1);
}

enum code store_load_update(struct store_tx *tx, const char *run_id, const struct load_rec *l)
{
	struct db_param p[] = {
		P_TXT(l->id), P_TXT(l->load_date), P_TXT(l->material), P_TXT(l->truck_type), P_TXT(l->ticket_no),
		opt_int(l->has_weight, l->weight_centilb), P_TXT(l->weight_unit), opt_int(l->has_rate, l->rate_cents),
		P_TXT(l->notes), P_TXT(l->pickup_location_id), P_TXT(l->dropoff_location_id), P_TXT(l->content_hash),
		P_TXT(run_id), P_INT(now_ms())};
	return db_exec(store_tx_db(tx), "UPDATE loads SET load_date = $2, material = $3, truck_type = $4, "
		       "ticket_no = $5, weight_centilb = $6, weight_unit = $7, rate_cents = $8, notes = $9, "
		       "pickup_location_id = $10, dropoff_location_id = $11, content_hash = $12, last_run_id = $13, "
		       "updated_at = $14 WHERE id = $1", p, 14, NULL);
}

enum code store_load_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			 struct load_rec *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(id), P_TXT(org_id)};
	enum code rc = one_load(db, a, "l.id = $1 AND l.org_id = $2", p, 2, ret);
	store_release(st, db);
	return rc;
}

/* ---- batched forms ---- */

/* How many values an IN list of at least k gets: a few fixed lengths. */
static int in_len(int k)
{
	return k <= 8 ? 8 : k <= 32 ? 32 : k <= 128 ? 128 : 256;
}

/* Appends "($first, ..., $first+len-1)" to sql. */
static void in_list(struct buf *sql, int first, int len)
{
	buf_putc(sql, '(');
	for (int i = 0; i < len; i++) {
		buf_puts(sql, i ? ", $" : "$");
		buf_put_int(sql, first + i);
	}
	buf_putc(sql, ')');
}

/* Runs sql + IN list over vals in chunks; fn gets each chunk's result. */
static enum code each_chunk(struct db *db, const char *head, const char *tail, const char *fixed,
			    const char *const *vals, int n, void (*fn)(void *ctx, const struct db_res *r), void *ctx)
{
	struct db_param p[1 + 256];
	struct buf sql;
	buf_init(&sql, 1u << 20);
	enum code rc = CODE_OK;
	int np0 = fixed ? 1 : 0;
	for (int start = 0; start < n && !rc; start += 256) {
		int k = n - start < 256 ? n - start : 256, len = in_len(k);
		if (fixed)
			p[0] = P_TXT(fixed);
		for (int i = 0; i < len; i++)
			p[np0 + i] = P_TXT(vals[start + (i < k ? i : k - 1)]);
		buf_clear(&sql);
		buf_puts(&sql, head);
		in_list(&sql, np0 + 1, len);
		buf_puts(&sql, tail);
		struct db_res *r = NULL;
		rc = db_exec(db, buf_str(&sql), p, np0 + len, &r);
		if (!rc)
			fn(ctx, r);
		db_res_free(r);
	}
	buf_done(&sql);
	return rc;
}

struct gather {
	struct arena *a;
	void *items;
	const char **keys;
	int n, cap;
};

static void gather_projects(void *ctx, const struct db_res *r)
{
	struct gather *g = ctx;
	struct project_rec *out = g->items;
	for (int i = 0; i < db_res_rows(r) && g->n < g->cap; i++)
		row_to_project(g->a, r, i, &out[g->n++]);
}

enum code store_projects_find_many(struct store_tx *tx, struct arena *a, const char *org_id,
				   const char *const *job_codes, int n, struct project_rec **ret, int *ret_n)
{
	struct gather g = {a, arena_alloc(a, sizeof(struct project_rec) * (size_t)(n + 1)), NULL, 0, n};
	enum code rc = each_chunk(store_tx_db(tx), "SELECT " PROJECT_COLS " FROM projects WHERE org_id = $1 AND job_code IN ",
				  "", org_id, job_codes, n, gather_projects, &g);
	*ret = g.items;
	*ret_n = g.n;
	return rc;
}

#define PROJECT_BATCH 60   /* 3 + 8 × 60 parameters */

enum code store_projects_insert_many(struct store_tx *tx, const char *org_id, const char *run_id,
				     const struct project_rec *x, int n)
{
	struct db_param p[3 + 8 * PROJECT_BATCH];
	struct buf sql;
	buf_init(&sql, 1u << 20);
	enum code rc = CODE_OK;
	for (int start = 0; start < n && !rc; start += PROJECT_BATCH) {
		int k = n - start < PROJECT_BATCH ? n - start : PROJECT_BATCH;
		buf_clear(&sql);
		buf_puts(&sql, "INSERT INTO projects (id, org_id, job_code, name, customer_id, branch_id, "
			 "project_manager_id, pickup_location_id, dropoff_location_id, created_at, updated_at, "
			 "created_run_id, last_run_id) VALUES ");
		p[0] = P_TXT(org_id);
		p[1] = P_INT(now_ms());
		p[2] = P_TXT(run_id);
		for (int i = 0; i < k; i++) {
			const struct project_rec *y = &x[start + i];
			struct db_param *q = p + 3 + 8 * i;
			int b = 4 + 8 * i;
			q[0] = P_TXT(y->id);
			q[1] = P_TXT(y->job_code);
			q[2] = P_TXT(y->name);
			q[3] = P_TXT(y->customer_id);
			q[4] = P_TXT(y->branch_id);
			q[5] = P_TXT(y->project_manager_id);
			q[6] = P_TXT(y->pickup_location_id);
			q[7] = P_TXT(y->dropoff_location_id);
			buf_printf(&sql, "%s($%d, $1, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $2, $2, $3, $3)", i ? ", " : "", b,
				   b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7);
		}
		rc = db_exec(store_tx_db(tx), buf_str(&sql), p, 3 + 8 * k, NULL);
	}
	buf_done(&sql);
	return rc;
}

/* Appends "(l.project_id = $a AND l.load_no = $b) OR ..." for len pairs
 * whose parameters start at first. */
static void pair_list(struct buf *sql, int first, int len)
{
	for (int i = 0; i < len; i++) {
		buf_puts(sql, i ? " OR (l.project_id = $" : "(l.project_id = $");
		buf_put_int(sql, first + 2 * i);
		buf_puts(sql, " AND l.load_no = $");
		buf_put_int(sql, first + 2 * i + 1);
		buf_putc(sql, ')');
	}
}

struct load_key {
	const char *project_id, *load_no;
};

/* Keys spread over many Projects: up to 256 keys a statement, each an
 * index probe of UNIQUE (project_id, load_no) (SQLite's multi-index OR,
 * PostgreSQL's BitmapOr), padded to a few list lengths so that the
 * statements are reused.  A statement a Project made a batch of rows spread
 * over 2,000 Projects 2,000 round trips on PostgreSQL (issue 29); a VALUES
 * list of pairs joined to loads got a hash join over the whole table from
 * PostgreSQL's generic plan. */
static void gather_loads(void *ctx, const struct db_res *r)
{
	struct gather *g = ctx;
	struct load_rec *out = g->items;
	for (int i = 0; i < db_res_rows(r) && g->n < g->cap; i++)
		row_to_load(g->a, r, i, &out[g->n++]);
}

static enum code find_pairs_or(struct db *db, const struct load_key *keys, int n, struct gather *g)
{
	struct db_param p[2 * 256];
	struct buf sql;
	buf_init(&sql, 1u << 20);
	enum code rc = CODE_OK;
	for (int start = 0; start < n && !rc; start += 256) {
		int k = n - start < 256 ? n - start : 256, len = in_len(k);
		buf_clear(&sql);
		buf_puts(&sql, "SELECT " LOAD_COLS " FROM loads l JOIN projects p ON p.id = l.project_id WHERE ");
		pair_list(&sql, 1, len);
		for (int i = 0; i < len; i++) {
			const struct load_key *x = &keys[start + (i < k ? i : k - 1)];
			p[2 * i] = P_TXT(x->project_id);
			p[2 * i + 1] = P_TXT(x->load_no);
		}
		struct db_res *r = NULL;
		rc = db_exec(db, buf_str(&sql), p, 2 * len, &r);
		if (!rc)
			gather_loads(g, r);
		db_res_free(r);
	}
	buf_done(&sql);
	return rc;
}

static int by_project(const void *x, const void *y)
{
	return strcmp(((const struct load_key *)x)->project_id, ((const struct load_key *)y)->project_id);
}

/* Keys sharing their Projects (sorted by Project): one Project's key prefix
 * and an IN list, an index range a value. */
static enum code find_by_project(struct db *db, const struct load_key *keys, int n, struct gather *g)
{
	const char **nos = arena_alloc(g->a, sizeof(char *) * (size_t)(n + 1));
	enum code rc = CODE_OK;
	for (int i = 0, j; i < n && !rc; i = j) {
		int k = 0;
		for (j = i; j < n && !strcmp(keys[j].project_id, keys[i].project_id); j++)
			nos[k++] = keys[j].load_no;
		rc = each_chunk(db, "SELECT " LOAD_COLS " FROM loads l JOIN projects p ON p.id = l.project_id "
				"WHERE l.project_id = $1 AND l.load_no IN ", "", keys[i].project_id, nos, k, gather_loads, g);
	}
	return rc;
}

enum code store_loads_find_pairs(struct store_tx *tx, struct arena *a, const char *const *project_ids,
				 const char *const *load_nos, int n, struct load_rec **ret, int *ret_n)
{
	struct load_rec *out = arena_alloc(a, sizeof(struct load_rec) * (size_t)(n + 1));
	struct load_key *keys = arena_alloc(a, sizeof(*keys) * (size_t)(n + 1));
	int projects = 0;
	for (int i = 0; i < n; i++)
		keys[i] = (struct load_key){project_ids[i], load_nos[i]};
	qsort(keys, (size_t)n, sizeof(*keys), by_project);
	for (int i = 0; i < n; i++)
		projects += !i || strcmp(keys[i].project_id, keys[i - 1].project_id);
	/* A few keys a Project on average: the OR of pairs (a few statements
	 * in all); more: an IN list a Project, the cheaper plan when a batch's
	 * rows share their Projects (a 750-row re-push of 40 jobs took 3-6 ms
	 * longer on PostgreSQL, ~2.5 ms on SQLite, with the OR of pairs). */
	struct gather g = {a, out, NULL, 0, n};
	enum code rc = projects * 4 > n ? find_pairs_or(store_tx_db(tx), keys, n, &g)
					: find_by_project(store_tx_db(tx), keys, n, &g);
	*ret = out;
	*ret_n = g.n;
	return rc;
}

/* ---- look-ups ---- */

static enum code first_id(struct db *db, const char *sql, struct db_param *p, int n, char ret_id[ID_MAX])
{
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, n, &r);
	if (rc)
		return rc;
	if (db_res_rows(r) >= 1)
		cell_copy(r, 0, 0, ret_id, ID_MAX);
	else
		rc = CODE_NOT_FOUND;
	db_res_free(r);
	return rc;
}

enum code store_lookup_named(struct store_tx *tx, const char *table, const char *org_id, const char *key,
			     char ret_id[ID_MAX])
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE org_id = $1 AND name_key = $2 "
		 "ORDER BY created_at, id LIMIT 1", !strcmp(table, "branches") ? "branches" : "customers");
	struct db_param p[] = {P_TXT(org_id), P_TXT(key)};
	return first_id(store_tx_db(tx), sql, p, 2, ret_id);
}

enum code store_lookup_user(struct store_tx *tx, const char *org_id, const char *key, char ret_id[ID_MAX])
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(key)};
	return first_id(store_tx_db(tx), "SELECT id FROM users WHERE org_id = $1 AND (name_key = $2 OR email_key = $2) "
			"ORDER BY created_at, id LIMIT 1", p, 2, ret_id);
}

/* ---- locations ---- */

#define LOC_COLS "id, name, street, city, state, zip, created_at, lat_e6, lon_e6, geocode_precision, geocode_source"

static void row_to_loc(struct arena *a, const struct db_res *r, int i, struct location_rec *l)
{
	memset(l, 0, sizeof(*l));
	cell_copy(r, i, 0, l->id, sizeof l->id);
	l->name = dup(a, r, i, 1);
	l->street = dup(a, r, i, 2);
	l->city = dup(a, r, i, 3);
	l->state = dup(a, r, i, 4);
	l->zip = dup(a, r, i, 5);
	l->created_at = db_res_int(r, i, 6);
	l->geo.has_coords = !db_res_null(r, i, 7) && !db_res_null(r, i, 8);
	l->geo.lat_e6 = db_res_int(r, i, 7);
	l->geo.lon_e6 = db_res_int(r, i, 8);
	l->geo.precision = l->geo.has_coords ? dup(a, r, i, 9) : "none";
	l->geo.source = dup(a, r, i, 10);
}

enum code store_location_by_address(struct store_tx *tx, const char *org_id, const char *address_key,
				    char ret_id[ID_MAX])
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(address_key)};
	return first_id(store_tx_db(tx), "SELECT id FROM locations WHERE org_id = $1 AND address_key = $2 "
			"ORDER BY created_at, id LIMIT 1", p, 2, ret_id);
}

static enum code loc_list(struct db *db, struct arena *a, const char *sql, struct db_param *p, int n,
			  struct location_rec *ret, int max, int *ret_n)
{
	struct db_res *r;
	enum code rc = db_exec(db, sql, p, n, &r);
	if (rc)
		return rc;
	*ret_n = 0;
	for (int i = 0; i < db_res_rows(r) && i < max; i++)
		row_to_loc(a, r, i, &ret[(*ret_n)++]);
	db_res_free(r);
	return CODE_OK;
}

enum code store_locations_by_name(struct store_tx *tx, struct arena *a, const char *org_id, const char *name_key,
				  struct location_rec *ret, int max, int *ret_n)
{
	struct db_param p[] = {P_TXT(org_id), P_TXT(name_key), P_INT(max)};
	return loc_list(store_tx_db(tx), a, "SELECT " LOC_COLS " FROM locations WHERE org_id = $1 AND name_key = $2 "
			"ORDER BY created_at, id LIMIT $3", p, 3, ret, max, ret_n);
}

static void gather_locations(void *ctx, const struct db_res *r)
{
	struct gather *g = ctx;
	int rows = db_res_rows(r);
	if (g->n + rows > g->cap) {
		int cap = (g->n + rows) * 2;
		struct location_rec *items = arena_alloc(g->a, sizeof(struct location_rec) * (size_t)cap);
		const char **keys = arena_alloc(g->a, sizeof(char *) * (size_t)cap);
		if (g->n) {
			memcpy(items, g->items, sizeof(struct location_rec) * (size_t)g->n);
			memcpy(keys, g->keys, sizeof(char *) * (size_t)g->n);
		}
		g->items = items;
		g->keys = keys;
		g->cap = cap;
	}
	struct location_rec *out = g->items;
	for (int i = 0; i < rows; i++) {
		row_to_loc(g->a, r, i, &out[g->n]);
		g->keys[g->n++] = dup(g->a, r, i, 11);
	}
}

enum code store_locations_by_names(struct store_tx *tx, struct arena *a, const char *org_id,
				   const char *const *name_keys, int n, struct location_rec **ret,
				   const char ***ret_keys, int *ret_n)
{
	struct gather g = {a, NULL, NULL, 0, 0};
	enum code rc = each_chunk(store_tx_db(tx), "SELECT " LOC_COLS ", name_key FROM locations WHERE org_id = $1 AND name_key IN ",
				  " ORDER BY name_key, created_at, id", org_id, name_keys, n, gather_locations, &g);
	*ret = g.items;
	*ret_keys = g.keys;
	*ret_n = g.n;
	return rc;
}

#define LOC_BATCH 40   /* 3 + 12 × 40 parameters */

enum code store_locations_create_import_many(struct store_tx *tx, const char *org_id, const struct location_rec *loc,
					     const char *const *name_keys, const char *const *address_keys, int n,
					     const char *run_id, int *ret_created)
{
	struct db_param p[3 + 12 * LOC_BATCH];
	struct buf sql;
	buf_init(&sql, 1u << 20);
	enum code rc = CODE_OK;
	*ret_created = 0;
	for (int start = 0; start < n && !rc; start += LOC_BATCH) {
		int k = n - start < LOC_BATCH ? n - start : LOC_BATCH;
		buf_clear(&sql);
		buf_puts(&sql, "INSERT INTO locations (id, org_id, name, name_key, street, city, state, zip, address_key, "
			 "created_by_run, import_created, created_at, lat_e6, lon_e6, geocode_precision, geocode_source) VALUES ");
		p[0] = P_TXT(org_id);
		p[1] = P_TXT(run_id);
		p[2] = P_INT(now_ms());
		for (int i = 0; i < k; i++) {
			const struct location_rec *l = &loc[start + i];
			const struct location_geo *g = &l->geo;
			struct db_param *q = p + 3 + 12 * i;
			int b = 4 + 12 * i;
			q[0] = P_TXT(l->id);
			q[1] = P_TXT(l->name);
			q[2] = P_TXT(name_keys[start + i]);
			q[3] = P_TXT(l->street);
			q[4] = P_TXT(l->city);
			q[5] = P_TXT(l->state);
			q[6] = P_TXT(l->zip);
			q[7] = P_TXT(address_keys[start + i]);
			q[8] = g->has_coords ? P_INT(g->lat_e6) : P_NULL;
			q[9] = g->has_coords ? P_INT(g->lon_e6) : P_NULL;
			q[10] = P_TXT(g->precision ? g->precision : "none");
			q[11] = P_TXT(g->source);
			buf_printf(&sql, "%s($%d, $1, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $2, 1, $3, $%d, $%d, $%d, $%d)",
				   i ? ", " : "", b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10,
				   b + 11);
		}
		/* Either partial unique index (named, unnamed) may apply. */
		buf_puts(&sql, " ON CONFLICT DO NOTHING RETURNING id");
		struct db_res *r = NULL;
		rc = db_exec(store_tx_db(tx), buf_str(&sql), p, 3 + 12 * k, &r);
		if (!rc)
			*ret_created += db_res_rows(r);
		db_res_free(r);
	}
	buf_done(&sql);
	return rc;
}

static void gather_addresses(void *ctx, const struct db_res *r)
{
	struct gather *g = ctx;
	int rows = db_res_rows(r);
	if (g->n + rows > g->cap) {
		int cap = (g->n + rows) * 2;
		const char **items = arena_alloc(g->a, sizeof(char *) * (size_t)cap);
		const char **keys = arena_alloc(g->a, sizeof(char *) * (size_t)cap);
		if (g->n) {
			memcpy(items, g->items, sizeof(char *) * (size_t)g->n);
			memcpy(keys, g->keys, sizeof(char *) * (size_t)g->n);
		}
		g->items = items;
		g->keys = keys;
		g->cap = cap;
	}
	const char **ids = g->items;
	for (int i = 0; i < rows; i++) {
		ids[g->n] = dup(g->a, r, i, 1);
		g->keys[g->n++] = dup(g->a, r, i, 0);
	}
}

enum code store_locations_by_addresses(struct store_tx *tx, struct arena *a, const char *org_id,
				       const char *const *address_keys, int n, const char ***ret_ids,
				       const char ***ret_keys, int *ret_n)
{
	struct gather g = {a, NULL, NULL, 0, 0};
	enum code rc = each_chunk(store_tx_db(tx), "SELECT address_key, id FROM locations WHERE org_id = $1 AND address_key IN ",
				  " ORDER BY address_key, created_at, id", org_id, address_keys, n, gather_addresses, &g);
	*ret_ids = g.items;
	*ret_keys = g.keys;
	*ret_n = g.n;
	return rc;
}

enum code store_location_create_import(struct store_tx *tx, const char *org_id, const struct location_rec *loc,
				       const char *name_key, const char *address_key, const char *run_id,
				       char ret_id[ID_MAX], bool *ret_created)
{
	struct db *db = store_tx_db(tx);
	/* The conflict target names the partial unique index that applies, so a
	 * concurrent import's identical insert waits and then does nothing. */
	const char *target = name_key ? "(org_id, name_key) WHERE import_created = 1 AND name_key IS NOT NULL"
				      : "(org_id, address_key) WHERE import_created = 1 AND name_key IS NULL";
	char sql[800];
	snprintf(sql, sizeof sql, "INSERT INTO locations (id, org_id, name, name_key, street, city, state, zip, "
		 "address_key, created_by_run, import_created, created_at, lat_e6, lon_e6, geocode_precision, "
		 "geocode_source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, $11, $12, $13, $14, $15) "
		 "ON CONFLICT %s DO NOTHING RETURNING id", target);
	const struct location_geo *g = &loc->geo;
	struct db_param p[] = {P_TXT(loc->id), P_TXT(org_id), P_TXT(loc->name), P_TXT(name_key), P_TXT(loc->street),
			       P_TXT(loc->city), P_TXT(loc->state), P_TXT(loc->zip), P_TXT(address_key),
			       P_TXT(run_id), P_INT(now_ms()), g->has_coords ? P_INT(g->lat_e6) : P_NULL,
			       g->has_coords ? P_INT(g->lon_e6) : P_NULL, P_TXT(g->precision ? g->precision : "none"),
			       P_TXT(g->source)};
	enum code rc = first_id(db, sql, p, 15, ret_id);
	*ret_created = rc == CODE_OK;
	if (rc != CODE_NOT_FOUND)
		return rc;
	struct db_param q[] = {P_TXT(org_id), P_TXT(name_key ? name_key : address_key)};
	return first_id(db, name_key ? "SELECT id FROM locations WHERE org_id = $1 AND name_key = $2 AND import_created = 1"
				     : "SELECT id FROM locations WHERE org_id = $1 AND address_key = $2 AND "
				       "import_created = 1 AND name_key IS NULL", q, 2, ret_id);
}

enum code store_location_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			     struct location_rec *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(org_id), P_TXT(id)};
	int n = 0;
	enum code rc = loc_list(db, a, "SELECT " LOC_COLS " FROM locations WHERE org_id = $1 AND id = $2", p, 2, ret, 1, &n);
	store_release(st, db);
	return rc ? rc : n ? CODE_OK : CODE_NOT_FOUND;
}

enum code store_locations_search(struct store *st, struct arena *a, const char *org_id, const char *name_key,
				 const char *text, int64_t after_created, const char *after_id, int limit,
				 struct location_rec *ret, int *ret_n)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	/* Name: exact key or key prefix.  Address: case-insensitive substring of
	 * street, city or ZIP.  LIKE wildcards in the text are escaped. */
	char *pattern = arena_alloc(a, strlen(text) * 2 + 3), *o = pattern;
	*o++ = '%';
	for (const char *s = text; *s; s++) {
		if (*s == '%' || *s == '_' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '%';
	*o = '\0';
	char *prefix = arena_printf(a, "%s", name_key);
	char *pp = arena_alloc(a, strlen(prefix) * 2 + 2);
	o = pp;
	for (const char *s = prefix; *s; s++) {
		if (*s == '%' || *s == '_' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '%';
	*o = '\0';
	struct db_param p[] = {P_TXT(org_id), P_TXT(pp), P_TXT(pattern), P_INT(after_created), P_TXT(after_id ? after_id : ""),
			       P_INT(after_id ? 1 : 0), P_INT(limit)};
	enum code rc = loc_list(db, a, "SELECT " LOC_COLS " FROM locations WHERE org_id = $1 AND "
				"(name_key LIKE $2 ESCAPE '\\' OR LOWER(street) LIKE LOWER($3) ESCAPE '\\' OR "
				"LOWER(city) LIKE LOWER($3) ESCAPE '\\' OR zip LIKE $3 ESCAPE '\\') AND "
				"($6 = 0 OR created_at > $4 OR (created_at = $4 AND id > $5)) "
				"ORDER BY created_at, id LIMIT $7", p, 7, ret, limit, ret_n);
	store_release(st, db);
	return rc;
}
