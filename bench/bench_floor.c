/* The import benchmark's floor: raw INSERTs of projects and loads in one
 * transaction through the db layer (see bench_floor.h). */
#include "bench_floor.h"

#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/ids.h"
#include "store/db_backend.h"
#include "store/store_internal.h"

/* The bulk-load floor needs libpq's COPY, which the db layer does not
 * offer: this bench-only file is the one exception to "only db_pg.c
 * includes libpq-fe.h". */
#include <libpq-fe.h>

struct floor_load {
	char id[ID_MAX];
	char load_no[16];
	char load_date[11];
	char ticket[16];
	char notes[64];
	char hash[65];
	int64_t weight_centilb, rate_cents;
	int job, pickup, dropoff;
};

struct floor_job {
	char id[ID_MAX];
	char code[48];
	char name[64];
};

struct floor_site {
	char id[ID_MAX];
	char name[48], key[48];
};

static enum code insert_all(struct db *db, const char *org_id, const struct floor_job *jobs, int njobs,
			    const struct floor_site *sites, int nsites, const struct floor_load *loads, int nrows,
			    int64_t now)
{
	enum code rc;
	for (int k = 0; k < nsites; k++) {
		const struct floor_site *x = &sites[k];
		struct db_param p[] = {P_TXT(x->id), P_TXT(org_id), P_TXT(x->name), P_TXT(x->key), P_TXT("100 Quarry Rd"),
				       P_TXT("Austin"), P_TXT("78701"), P_TXT(x->key), P_INT(now), P_INT(30271300),
				       P_INT(-97742600)};
		rc = db_exec(db, "INSERT INTO locations (id, org_id, name, name_key, street, city, zip, address_key, "
			     "import_created, created_at, lat_e6, lon_e6, geocode_precision, geocode_source) VALUES ($1, "
			     "$2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11, 'zip', 'us-zip-gazetteer')", p, 11, NULL);
		if (rc)
			return rc;
	}
	for (int j = 0; j < njobs; j++) {
		const struct floor_job *x = &jobs[j];
		struct db_param p[] = {P_TXT(x->id), P_TXT(org_id), P_TXT(x->code), P_TXT(x->name), P_NULL, P_NULL,
				       P_NULL, P_NULL, P_NULL, P_INT(now)};
		rc = db_exec(db, "INSERT INTO projects (id, org_id, job_code, name, customer_id, branch_id, "
			     "project_manager_id, pickup_location_id, dropoff_location_id, created_at, updated_at) "
			     "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)", p, 10, NULL);
		if (rc)
			return rc;
	}
	for (int i = 0; i < nrows; i++) {
		const struct floor_load *l = &loads[i];
		struct db_param q[] = {
			P_TXT(l->id), P_TXT(org_id), P_TXT(jobs[l->job].id), P_TXT(l->load_no), P_TXT(l->load_date),
			P_TXT("Crushed limestone"), P_NULL, P_TXT(l->ticket), P_INT(l->weight_centilb), P_TXT("lb"),
			P_INT(l->rate_cents), P_TXT(l->notes), P_TXT(sites[l->pickup].id), P_TXT(sites[l->dropoff].id),
			P_TXT(l->hash), P_NULL, P_INT(now)};
		rc = db_exec(db, "INSERT INTO loads (id, org_id, project_id, load_no, load_date, material, "
			     "truck_type, ticket_no, weight_centilb, weight_unit, rate_cents, notes, "
			     "pickup_location_id, dropoff_location_id, content_hash, last_run_id, created_at, "
			     "updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
			     "$15, $16, $17, $17)", q, 17, NULL);
		if (rc)
			return rc;
	}
	return CODE_OK;
}

/* prefix_ + ID_RANDOM_CHARS base62 characters taken from *rnd, like
 * id_new's but from one buffer of random bytes filled up front: id_new asks
 * the kernel once per character, which is not part of inserting rows. */
static void take_id(const char *prefix, const unsigned char **rnd, char out[ID_MAX])
{
	static const char b62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	size_t n = strlen(prefix);
	memcpy(out, prefix, n);
	out[n++] = '_';
	for (int i = 0; i < ID_RANDOM_CHARS; i++)
		out[n++] = b62[*(*rnd)++ % 62];
	out[n] = 0;
}

/* The floor's rows, computed before any transaction starts. */
struct floor_data {
	struct floor_job *jobs;
	struct floor_site *sites;
	struct floor_load *loads;
	int njobs, nsites, nrows;
};

static void floor_data_make(struct floor_data *d, int jobs, int rows, int sites)
{
	d->njobs = jobs;
	d->nsites = sites;
	d->nrows = rows;
	struct floor_job *pj = d->jobs = calloc((size_t)jobs, sizeof *pj);
	struct floor_site *ps = d->sites = calloc((size_t)sites, sizeof *ps);
	struct floor_load *pl = d->loads = calloc((size_t)rows, sizeof *pl);
	size_t nrnd = ((size_t)jobs + (size_t)sites + (size_t)rows + 1) * (ID_RANDOM_CHARS + 32);
	unsigned char *rbuf = malloc(nrnd);
	if (!pj || !ps || !pl || !rbuf)
		abort();
	randombytes_buf(rbuf, nrnd);
	const unsigned char *rnd = rbuf;
	char id[ID_MAX], salt[9];
	take_id("s", &rnd, id);
	memcpy(salt, id + 2, 8);   /* 8 random characters */
	salt[8] = 0;
	for (int j = 0; j < jobs; j++) {
		take_id("prj", &rnd, pj[j].id);
		snprintf(pj[j].code, sizeof pj[j].code, "F%d-%s", j, salt);
		snprintf(pj[j].name, sizeof pj[j].name, "Project F%d", j);
	}
	for (int k = 0; k < sites; k++) {
		take_id("loc", &rnd, ps[k].id);
		snprintf(ps[k].name, sizeof ps[k].name, "Site %d %s", k, salt);
		snprintf(ps[k].key, sizeof ps[k].key, "site %d %s", k, salt);
	}
	for (int i = 0; i < rows; i++) {
		struct floor_load *l = &pl[i];
		l->job = i % jobs;
		l->pickup = (i * 7) % sites;
		l->dropoff = (i * 11 + 3) % sites;
		take_id("load", &rnd, l->id);
		snprintf(l->load_no, sizeof l->load_no, "%d", i / jobs + 1);
		snprintf(l->load_date, sizeof l->load_date, "2026-%02u-%02u", (unsigned)i % 12u + 1u, (unsigned)i % 28u + 1u);
		snprintf(l->ticket, sizeof l->ticket, "%d", 3100000 + i);
		snprintf(l->notes, sizeof l->notes, "Gate code %d, call dispatch %s", 1000 + i, salt);
		sodium_bin2hex(l->hash, sizeof l->hash, rnd, 32);   /* a SHA-256's size */
		rnd += 32;
		l->weight_centilb = 4400000 + (int64_t)i * 100;
		l->rate_cents = 152751 + i % 100;
	}
	free(rbuf);
}

static void floor_data_free(struct floor_data *d)
{
	free(d->jobs);
	free(d->sites);
	free(d->loads);
}

enum code store_bench_raw_insert(struct store *st, const char *org_id, int jobs, int rows, int sites)
{
	if (jobs <= 0 || rows <= 0 || sites <= 0)
		return CODE_OK;
	struct floor_data d;
	floor_data_make(&d, jobs, rows, sites);
	int64_t now = now_ms();
	struct db *db = store_acquire(st);
	enum code rc = db ? db_begin_write(db) : CODE_SERVICE_UNAVAILABLE;
	if (!rc)
		rc = db_finish(db, insert_all(db, org_id, d.jobs, jobs, d.sites, sites, d.loads, rows, now));
	store_release(st, db);
	floor_data_free(&d);
	return rc;
}

enum code store_bench_result_sizes(struct store *st, const char *run_id, struct bench_result_size **ret, int *ret_n)
{
	*ret = NULL;
	*ret_n = 0;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(run_id)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT bucket, row_index, length(body) FROM run_results WHERE run_id = $1", p, 1, &r);
	store_release(st, db);
	int n = rc ? 0 : db_res_rows(r);
	struct bench_result_size *v = n ? calloc((size_t)n, sizeof *v) : NULL;
	if (n && !v)
		abort();
	for (int i = 0; i < n; i++) {
		snprintf(v[i].bucket, sizeof v[i].bucket, "%s", db_res_get(r, i, 0));
		v[i].row_index = (int)db_res_int(r, i, 1);
		v[i].len = (size_t)db_res_int(r, i, 2);
	}
	db_res_free(r);
	*ret = v;
	*ret_n = n;
	return rc;
}

enum code store_bench_upload_size(struct store *st, const char *run_id, size_t *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(run_id)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, "SELECT length(content) FROM run_files WHERE run_id = $1", p, 1, &r);
	rc = db_one_row(rc, r);
	store_release(st, db);
	*ret = rc ? 0 : (size_t)db_res_int(r, 0, 0);
	db_res_free(r);
	return rc;
}

/* The run row and its stored upload: what the POST commits before its 202. */
static enum code insert_run(struct db *db, const char *run_id, const char *org_id, const char *fingerprint,
			    const unsigned char *file, size_t file_len, int64_t now)
{
	struct db_param p[] = {P_TXT(run_id), P_TXT(org_id), P_TXT(fingerprint), P_INT(file_len), P_INT(now)};
	enum code rc = db_exec(db, "INSERT INTO runs (id, org_id, kind, state, dry_run, fingerprint, file_name, "
			       "file_size, file_format, file_encoding, file_delimiter, created_at, updated_at) VALUES ($1, "
			       "$2, 'jobs', 'RUNNING', 0, $3, 'floor.csv', $4, 'csv', 'utf-8', ',', $5, $5)", p, 5, NULL);
	struct db_param f[] = {P_TXT(run_id), P_BLOB(file, file_len)};
	if (!rc)
		rc = db_exec(db, "INSERT INTO run_files (run_id, content) VALUES ($1, $2)", f, 2, NULL);
	return rc;
}

/* Result rows of the given sizes, one statement each, and the run's end. */
static enum code insert_results(struct db *db, const char *run_id, const struct bench_result_size *sizes, int n,
				const char *body, int64_t now)
{
	enum code rc = CODE_OK;
	for (int i = 0; i < n && !rc; i++) {
		struct db_param p[] = {P_TXT(run_id), P_TXT(sizes[i].bucket), P_INT(sizes[i].row_index),
				       P_TXTN(body, sizes[i].len)};
		rc = db_exec(db, "INSERT INTO run_results (run_id, bucket, row_index, body) VALUES ($1, $2, $3, $4)", p, 4,
			     NULL);
	}
	struct db_param u[] = {P_TXT(run_id), P_INT(now)};
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET state = 'SUCCEEDED', finished_at = $2, updated_at = $2 WHERE id = $1", u, 2,
			     NULL);
	return rc;
}

enum code store_bench_required_writes(struct store *st, const char *org_id, int jobs, int rows, int sites,
				      size_t file_len, const struct bench_result_size *sizes, int nsizes)
{
	if (jobs <= 0 || rows <= 0 || sites <= 0)
		return CODE_OK;
	struct floor_data d;
	floor_data_make(&d, jobs, rows, sites);
	size_t body_len = 1;
	for (int i = 0; i < nsizes; i++)
		if (sizes[i].len > body_len)
			body_len = sizes[i].len;
	unsigned char *file = malloc(file_len + 1);
	char *body = malloc(body_len);
	if (!file || !body)
		abort();
	randombytes_buf(file, file_len + 1);
	for (size_t i = 0; i < body_len; i++)   /* printable, like JSON */
		body[i] = (char)('a' + file[i % (file_len + 1)] % 26);
	char run_id[ID_MAX], fingerprint[65];
	const unsigned char *rnd = file;
	take_id("run", &rnd, run_id);
	sodium_bin2hex(fingerprint, sizeof fingerprint, file, 32);
	int64_t now = now_ms();
	struct db *db = store_acquire(st);
	enum code rc = db ? db_begin_write(db) : CODE_SERVICE_UNAVAILABLE;
	if (!rc)
		rc = db_finish(db, insert_run(db, run_id, org_id, fingerprint, file, file_len, now));
	if (!rc)
		rc = db_begin_write(db);
	if (!rc) {
		enum code w = insert_all(db, org_id, d.jobs, jobs, d.sites, sites, d.loads, rows, now);
		if (!w)
			w = insert_results(db, run_id, sizes, nsizes, body, now);
		rc = db_finish(db, w);
	}
	store_release(st, db);
	free(body);
	free(file);
	floor_data_free(&d);
	return rc;
}

/* Row i's job in the big-file bench (bench/bench_bigfile.py). */
static int big_job(int i, int jobs)
{
	return (int)(((long long)i * 7) % jobs);
}

/* One batch of the batched floor: rows [from, to). */
static enum code batch_floor_one(struct db *db, const char *org_id, const char *run_id, const struct floor_data *d,
				 bool *job_written, int from, int to, const char *body, size_t body_len, int64_t now)
{
	enum code rc = CODE_OK;
	for (int i = from; i < to && !rc; i++) {
		const struct floor_load *l = &d->loads[i];
		if (!job_written[l->job]) {
			const struct floor_job *x = &d->jobs[l->job];
			struct db_param p[] = {P_TXT(x->id), P_TXT(org_id), P_TXT(x->code), P_TXT(x->name), P_INT(now)};
			rc = db_exec(db, "INSERT INTO projects (id, org_id, job_code, name, created_at, updated_at) "
				     "VALUES ($1, $2, $3, $4, $5, $5)", p, 5, NULL);
			job_written[l->job] = true;
		}
		struct db_param q[] = {
			P_TXT(l->id), P_TXT(org_id), P_TXT(d->jobs[l->job].id), P_TXT(l->load_no), P_TXT(l->load_date),
			P_TXT("Crushed limestone"), P_NULL, P_TXT(l->ticket), P_INT(l->weight_centilb), P_TXT("lb"),
			P_INT(l->rate_cents), P_TXT(l->notes), P_TXT(d->sites[l->pickup].id), P_TXT(d->sites[l->dropoff].id),
			P_TXT(l->hash), P_TXT(run_id), P_INT(now)};
		if (!rc)
			rc = db_exec(db, "INSERT INTO loads (id, org_id, project_id, load_no, load_date, material, "
				     "truck_type, ticket_no, weight_centilb, weight_unit, rate_cents, notes, "
				     "pickup_location_id, dropoff_location_id, content_hash, last_run_id, created_at, "
				     "updated_at, created_run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
				     "$12, $13, $14, $15, $16, $17, $17, $16)", q, 17, NULL);
		struct db_param r[] = {P_TXT(run_id), P_INT(i + 2), P_TXTN(body, body_len)};
		if (!rc)
			rc = db_exec(db, "INSERT INTO run_results (run_id, bucket, row_index, body) VALUES ($1, "
				     "'succeeded', $2, $3)", r, 3, NULL);
	}
	struct db_param c[] = {P_TXT(run_id), P_INT(to), P_INT(now)};
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET ckpt_row = $2, rows_done = $2, updated_at = $3 WHERE id = $1", c, 3,
			     NULL);
	return rc;
}

enum code store_bench_batched_floor(struct store *st, const char *org_id, int rows, int batch, int sites,
				    size_t result_len, double *ret_ms)
{
	*ret_ms = 0;
	int jobs = rows / 20 > 40 ? rows / 20 : 40;
	struct floor_data d;
	floor_data_make(&d, jobs, rows, sites);
	for (int i = 0; i < rows; i++) {
		d.loads[i].job = big_job(i, jobs);
		snprintf(d.loads[i].load_no, sizeof d.loads[i].load_no, "B%07d", i);
	}
	bool *job_written = calloc((size_t)jobs, sizeof(bool));
	char *body = malloc(result_len + 1);
	if (!job_written || !body)
		abort();
	memset(body, 'x', result_len);
	char run_id[ID_MAX];
	id_new_ordered("run", run_id);
	int64_t now = now_ms();
	struct db *db = store_acquire(st);
	enum code rc = db ? db_begin_write(db) : CODE_SERVICE_UNAVAILABLE;
	if (!rc)
		rc = db_finish(db, insert_run(db, run_id, org_id, "floor", (const unsigned char *)"x", 1, now));
	for (int k = 0; !rc && k < sites; k++) {   /* the named locations exist already, as after a first batch */
		const struct floor_site *x = &d.sites[k];
		struct db_param p[] = {P_TXT(x->id), P_TXT(org_id), P_TXT(x->name), P_TXT(x->key), P_INT(now)};
		rc = db_exec(db, "INSERT INTO locations (id, org_id, name, name_key, import_created, created_at) VALUES "
			     "($1, $2, $3, $4, 1, $5)", p, 5, NULL);
	}
	double t0 = mono_ms();
	for (int from = 0; !rc && from < rows; from += batch) {
		int to = from + batch < rows ? from + batch : rows;
		if (!(rc = db_begin_write(db)))
			rc = db_finish(db, batch_floor_one(db, org_id, run_id, &d, job_written, from, to, body, result_len,
							   now));
	}
	*ret_ms = mono_ms() - t0;
	store_release(st, db);
	free(body);
	free(job_written);
	floor_data_free(&d);
	return rc;
}

enum code store_bench_noop_reads(struct store *st, const char *org_id)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(org_id)};
	struct db_res *loads = NULL;
	/* The keys are known to the re-push from its file; read them here
	 * first (outside the timed transaction's purpose, but cheap). */
	enum code rc = db_exec(db, "SELECT p.job_code, l.load_no FROM loads l JOIN projects p ON p.id = l.project_id "
			       "WHERE l.org_id = $1", p, 1, &loads);
	if (!rc)
		rc = db_begin_write(db);
	for (int i = 0; !rc && i < db_res_rows(loads); i++) {
		struct db_param q[] = {P_TXT(org_id), P_TXT(db_res_get(loads, i, 0))};
		struct db_res *r = NULL;
		rc = db_exec(db, "SELECT id FROM projects WHERE org_id = $1 AND job_code = $2", q, 2, &r);
		if (!rc && db_res_rows(r) == 1) {
			struct db_param k[] = {P_TXT(db_res_get(r, 0, 0)), P_TXT(db_res_get(loads, i, 1))};
			struct db_res *h = NULL;
			rc = db_exec(db, "SELECT content_hash FROM loads WHERE project_id = $1 AND load_no = $2", k, 2, &h);
			db_res_free(h);
		}
		db_res_free(r);
	}
	rc = db_finish(db, rc);
	db_res_free(loads);
	store_release(st, db);
	return rc;
}

/* ---- PostgreSQL: COPY + set-based upserts ---- */

static enum code copy_rows(PGconn *c, const char *salt, int jobs, int rows, int sites)
{
	PGresult *r = PQexec(c, "COPY bench_stage (job_code, load_no, load_date, ticket, notes, weight, rate, pick, "
			     "dropoff, hash) FROM STDIN");
	bool ok = PQresultStatus(r) == PGRES_COPY_IN;
	PQclear(r);
	if (!ok)
		return CODE_INTERNAL_ERROR;
	char line[512];
	for (int i = 0; i < rows && ok; i++) {
		unsigned char h[32];
		char hex[65];
		randombytes_buf(h, sizeof h);
		sodium_bin2hex(hex, sizeof hex, h, sizeof h);
		int n = snprintf(line, sizeof line, "F%d-%s\t%d\t2026-%02u-%02u\t%d\tGate code %d, call dispatch %s\t"
				 "%lld\t%lld\tsite %d %s\tsite %d %s\t%s\n", i % jobs, salt, i / jobs + 1,
				 (unsigned)i % 12u + 1u, (unsigned)i % 28u + 1u, 3100000 + i, 1000 + i, salt,
				 4400000LL + i * 100LL, 152751LL + i % 100, (i * 7) % sites, salt, (i * 11 + 3) % sites,
				 salt, hex);
		ok = PQputCopyData(c, line, n) == 1;
	}
	ok = PQputCopyEnd(c, ok ? NULL : "aborted") == 1 && ok;
	while ((r = PQgetResult(c))) {
		ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
		PQclear(r);
	}
	return ok ? CODE_OK : CODE_INTERNAL_ERROR;
}

enum code store_bench_copy_floor(struct store *st, const char *org_id, int jobs, int rows, int sites, bool *ret_done)
{
	*ret_done = false;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	if (db_kind(db) != DB_POSTGRES) {
		store_release(st, db);
		return CODE_OK;
	}
	unsigned char rb[6];
	char salt[13];
	randombytes_buf(rb, sizeof rb);
	sodium_bin2hex(salt, sizeof salt, rb, sizeof rb);
	int64_t now = now_ms();
	struct db_param p[] = {P_TXT(org_id), P_INT(now)};
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "CREATE TEMP TABLE bench_stage (job_code TEXT, load_no TEXT, load_date TEXT, ticket TEXT, "
			     "notes TEXT, weight BIGINT, rate BIGINT, pick TEXT, dropoff TEXT, hash TEXT) ON COMMIT DROP",
			     NULL, 0, NULL);
	if (!rc)
		rc = copy_rows(db->conn, salt, jobs, rows, sites);
	if (!rc)
		rc = db_exec(db, "INSERT INTO projects (id, org_id, job_code, name, created_at, updated_at) "
			     "SELECT 'prj_' || substr(md5(job_code), 1, 22), $1, job_code, job_code, $2, $2 "
			     "FROM (SELECT DISTINCT job_code FROM bench_stage) j ON CONFLICT (org_id, job_code) DO NOTHING",
			     p, 2, NULL);
	if (!rc)
		rc = db_exec(db, "INSERT INTO locations (id, org_id, name, name_key, street, city, zip, address_key, "
			     "import_created, created_at, lat_e6, lon_e6, geocode_precision, geocode_source) "
			     "SELECT 'loc_' || substr(md5(k), 1, 22), $1, k, k, '100 Quarry Rd', 'Austin', '78701', k, 1, $2, "
			     "30271300, -97742600, 'zip', 'us-zip-gazetteer' FROM (SELECT pick AS k FROM bench_stage UNION "
			     "SELECT dropoff FROM bench_stage) s ON CONFLICT (org_id, name_key) WHERE import_created = 1 AND "
			     "name_key IS NOT NULL DO NOTHING", p, 2, NULL);
	if (!rc)
		rc = db_exec(db, "INSERT INTO loads (id, org_id, project_id, load_no, load_date, material, ticket_no, "
			     "weight_centilb, weight_unit, rate_cents, notes, pickup_location_id, dropoff_location_id, "
			     "content_hash, created_at, updated_at) "
			     "SELECT 'load_' || substr(md5(s.job_code || '/' || s.load_no), 1, 22), $1, pr.id, s.load_no, "
			     "s.load_date, 'Crushed limestone', s.ticket, s.weight, 'lb', s.rate, s.notes, lp.id, ld.id, s.hash, "
			     "$2, $2 FROM bench_stage s JOIN projects pr ON pr.org_id = $1 AND pr.job_code = s.job_code "
			     "JOIN locations lp ON lp.org_id = $1 AND lp.name_key = s.pick AND lp.import_created = 1 "
			     "JOIN locations ld ON ld.org_id = $1 AND ld.name_key = s.dropoff AND ld.import_created = 1 "
			     "ON CONFLICT (project_id, load_no) DO UPDATE SET load_date = EXCLUDED.load_date, "
			     "weight_centilb = EXCLUDED.weight_centilb, rate_cents = EXCLUDED.rate_cents, "
			     "notes = EXCLUDED.notes, content_hash = EXCLUDED.content_hash, updated_at = EXCLUDED.updated_at",
			     p, 2, NULL);
	rc = db_finish(db, rc);
	store_release(st, db);
	*ret_done = rc == CODE_OK;
	return rc;
}
