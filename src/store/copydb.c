/* SQLite → PostgreSQL copy and SQLite online backup (copydb.h).
 *
 * The copy is generic over the schema: the tables and columns are read
 * from the source (sqlite_master, pragma_table_info), ordered so that a
 * table comes after the tables its foreign keys name, and checked against
 * the target that the same migrations built.  So a migration added later
 * needs nothing here. */
#include "copydb.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "store_internal.h"

#define COPY_PAGE 500
/* A table with a blob column (stored uploads: up to 1 MiB a part, tens
 * of MB a value stored before migration 21) is read a few rows a page. */
#define COPY_PAGE_BLOBS 4

struct table {
	const char *name;
	int ncols;
	const char **cols;
	bool *blob;
	const char **deps;   /* tables its foreign keys reference */
	int ndeps;
	bool placed;
};

struct copy {
	struct arena *a;
	struct db *src, *dst;
	char *err;
	size_t errlen;
};

static enum code fail(struct copy *c, enum code rc, const char *what, struct db *db)
{
	snprintf(c->err, c->errlen, "%s%s%s", what, db ? ": " : "", db ? db_errmsg(db) : "");
	return rc ? rc : CODE_INTERNAL_ERROR;
}

/* "name" quoted as an SQL identifier (a " inside doubled). */
static const char *ident(struct arena *a, const char *name)
{
	size_t n = strlen(name), k = 0;
	char *out = arena_alloc(a, 2 * n + 3);
	out[k++] = '"';
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			out[k++] = '"';
		out[k++] = *p;
	}
	out[k++] = '"';
	out[k] = '\0';
	return out;
}

/* One column list of a table as "c1", "c2", ... */
static const char *col_list(struct arena *a, const struct table *t)
{
	const char *s = "";
	for (int i = 0; i < t->ncols; i++)
		s = arena_printf(a, "%s%s%s", s, i ? ", " : "", ident(a, t->cols[i]));
	return s;
}

/* The column names and blob flags of one source table, and what its
 * foreign keys reference. */
static enum code describe(struct copy *c, struct table *t)
{
	struct db_param p[] = {P_TXT(t->name)};
	struct db_res *r = NULL;
	enum code rc = db_exec(c->src, "SELECT name, upper(type) FROM pragma_table_info($1) ORDER BY cid", p, 1, &r);
	if (rc)
		return fail(c, rc, "reading the source's columns", c->src);
	t->ncols = db_res_rows(r);
	t->cols = arena_alloc(c->a, sizeof(char *) * (size_t)(t->ncols + 1));
	t->blob = arena_alloc(c->a, sizeof(bool) * (size_t)(t->ncols + 1));
	for (int i = 0; i < t->ncols; i++) {
		t->cols[i] = arena_strdup(c->a, db_res_get(r, i, 0));
		t->blob[i] = strstr(db_res_get(r, i, 1) ? db_res_get(r, i, 1) : "", "BLOB") != NULL;
	}
	db_res_free(r);
	rc = db_exec(c->src, "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list($1)", p, 1, &r);
	if (rc)
		return fail(c, rc, "reading the source's foreign keys", c->src);
	t->ndeps = db_res_rows(r);
	t->deps = arena_alloc(c->a, sizeof(char *) * (size_t)(t->ndeps + 1));
	for (int i = 0; i < t->ndeps; i++)
		t->deps[i] = arena_strdup(c->a, db_res_get(r, i, 0));
	db_res_free(r);
	return CODE_OK;
}

static bool placed(const struct table *ts, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ts[i].name, name))
			return ts[i].placed;
	return true;   /* not copied (schema_migrations): nothing to wait for */
}

/* Orders ts so that every table follows the tables it references. */
static enum code order(struct copy *c, struct table *ts, int n)
{
	struct table *out = arena_alloc(c->a, sizeof(*out) * (size_t)(n + 1));
	for (int k = 0; k < n; k++) {
		int pick = -1;
		for (int i = 0; i < n && pick < 0; i++) {
			bool ready = !ts[i].placed;
			for (int d = 0; ready && d < ts[i].ndeps; d++)
				ready = !strcmp(ts[i].deps[d], ts[i].name) || placed(ts, n, ts[i].deps[d]);
			if (ready)
				pick = i;
		}
		if (pick < 0)
			return fail(c, CODE_INTERNAL_ERROR, "the source's foreign keys form a cycle", NULL);
		ts[pick].placed = true;
		out[k] = ts[pick];
	}
	memcpy(ts, out, sizeof(*out) * (size_t)n);
	return CODE_OK;
}

static enum code source_tables(struct copy *c, struct table **ret, int *ret_n)
{
	struct db_res *r = NULL;
	enum code rc = db_exec(c->src, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
			       "'sqlite_%' AND name <> 'schema_migrations' ORDER BY name", NULL, 0, &r);
	if (rc)
		return fail(c, rc, "listing the source's tables", c->src);
	int n = db_res_rows(r);
	struct table *ts = arena_alloc(c->a, sizeof(*ts) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		ts[i] = (struct table){.name = arena_strdup(c->a, db_res_get(r, i, 0))};
	db_res_free(r);
	for (int i = 0; i < n && !rc; i++)
		rc = describe(c, &ts[i]);
	if (!rc)
		rc = order(c, ts, n);
	*ret = ts;
	*ret_n = n;
	return rc;
}

/* ---- checks on the target ---- */

static enum code one_int(struct db *db, const char *sql, const struct db_param *p, int np, int64_t *ret)
{
	struct db_res *r = NULL;
	enum code rc = db_exec(db, sql, p, np, &r);
	rc = db_one_row(rc, r);   /* after db_exec: r is its output */
	if (!rc)
		*ret = db_res_int(r, 0, 0);
	db_res_free(r);
	return rc;
}

static enum code target_empty(struct copy *c)
{
	int64_t n = -1;
	enum code rc = one_int(c->dst, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
			       "current_schema()", NULL, 0, &n);
	if (rc)
		return fail(c, rc, "reading the target's tables", c->dst);
	if (n)
		return fail(c, CODE_INVALID_REQUEST, "the target database is not empty (it has tables): copy-db fills only an "
			    "empty database, so nothing is overwritten; create a new one (createdb) and name it in --to",
			    NULL);
	return CODE_OK;
}

static const char *versions(struct arena *a, struct db *db)
{
	struct db_res *r = NULL;
	if (db_exec(db, "SELECT version FROM schema_migrations ORDER BY version", NULL, 0, &r))
		return NULL;
	const char *s = "";
	for (int i = 0; i < db_res_rows(r); i++)
		s = arena_printf(a, "%s%s%s", s, i ? "," : "", db_res_get(r, i, 0));
	db_res_free(r);
	return s;
}

/* Same migrations applied on both sides, and every source column present
 * in the target's table of the same name. */
static enum code same_schema(struct copy *c, const struct table *ts, int n)
{
	const char *vs = versions(c->a, c->src), *vt = versions(c->a, c->dst);
	if (!vs || !vt || strcmp(vs, vt))
		return fail(c, CODE_INVALID_REQUEST, arena_printf(c->a, "the source has migrations %s and the target %s: run "
			    "`loadline migrate` on the source with this binary first", vs ? vs : "?", vt ? vt : "?"), NULL);
	for (int i = 0; i < n; i++) {
		int64_t found = 0;
		for (int k = 0; k < ts[i].ncols; k++) {
			struct db_param p[] = {P_TXT(ts[i].name), P_TXT(ts[i].cols[k])};
			enum code rc = one_int(c->dst, "SELECT COUNT(*) FROM information_schema.columns WHERE "
					       "table_schema = current_schema() AND table_name = $1 AND column_name = $2",
					       p, 2, &found);
			if (rc || !found)
				return fail(c, rc ? rc : CODE_INVALID_REQUEST, arena_printf(c->a, "the target has no column %s.%s",
					    ts[i].name, ts[i].cols[k]), rc ? c->dst : NULL);
		}
	}
	return CODE_OK;
}

/* ---- rows ---- */

/* Adds row i's cells [first, first + n) to the order-free checksum:
 * SHA-256 over each cell as (NULL marker | length + bytes), its first 16
 * bytes added as two 64-bit lanes. */
static void digest_row(const struct db_res *r, int i, int first, int n, uint64_t sum[2])
{
	crypto_hash_sha256_state st;
	crypto_hash_sha256_init(&st);
	for (int k = first; k < first + n; k++) {
		unsigned char head[9] = {db_res_null(r, i, k) ? 0xFF : 0x01};
		uint64_t len = db_res_null(r, i, k) ? 0 : db_res_len(r, i, k);
		for (int b = 0; b < 8; b++)
			head[1 + b] = (unsigned char)(len >> (8 * b));
		crypto_hash_sha256_update(&st, head, sizeof head);
		if (len)
			crypto_hash_sha256_update(&st, (const unsigned char *)db_res_get(r, i, k), len);
	}
	unsigned char out[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_final(&st, out);
	for (int lane = 0; lane < 2; lane++) {
		uint64_t v = 0;
		for (int b = 0; b < 8; b++)
			v |= (uint64_t)out[lane * 8 + b] << (8 * b);
		sum[lane] += v;
	}
}

static enum code insert_row(struct copy *c, const struct table *t, const char *sql, const struct db_res *r, int i)
{
	struct db_param *p = arena_alloc(c->a, sizeof(*p) * (size_t)(t->ncols + 1));
	for (int k = 0; k < t->ncols; k++) {
		int col = k + 1;   /* after rowid */
		if (db_res_null(r, i, col))
			p[k] = P_NULL;
		else if (t->blob[k])
			p[k] = P_BLOB(db_res_get(r, i, col), db_res_len(r, i, col));
		else
			p[k] = P_TXTN(db_res_get(r, i, col), db_res_len(r, i, col));
	}
	enum code rc = db_exec(c->dst, sql, p, t->ncols, NULL);
	return rc ? fail(c, rc, arena_printf(c->a, "copying a row of %s", t->name), c->dst) : CODE_OK;
}

/* Copies one table by rowid pages; its row count and checksum as read. */
static enum code copy_table(struct copy *c, const struct table *t, int64_t *ret_rows, uint64_t sum[2])
{
	const char *cols = col_list(c->a, t);
	int page = COPY_PAGE;
	for (int k = 0; k < t->ncols; k++)
		if (t->blob[k])
			page = COPY_PAGE_BLOBS;
	const char *sel = arena_printf(c->a, "SELECT rowid, %s FROM %s WHERE rowid > $1 ORDER BY rowid LIMIT %d", cols,
				       ident(c->a, t->name), page);
	const char *ins = arena_printf(c->a, "INSERT INTO %s (%s) VALUES (", ident(c->a, t->name), cols);
	for (int k = 0; k < t->ncols; k++)
		ins = arena_printf(c->a, "%s%s$%d", ins, k ? ", " : "", k + 1);
	ins = arena_printf(c->a, "%s)", ins);
	int64_t last = 0;
	*ret_rows = 0;
	for (;;) {
		struct db_param p[] = {P_INT(last)};
		struct db_res *r = NULL;
		enum code rc = db_exec(c->src, sel, p, 1, &r);
		if (rc)
			return fail(c, rc, arena_printf(c->a, "reading %s", t->name), c->src);
		int n = db_res_rows(r);
		for (int i = 0; i < n && !rc; i++) {
			digest_row(r, i, 1, t->ncols, sum);
			rc = insert_row(c, t, ins, r, i);
		}
		if (n)
			last = db_res_int(r, n - 1, 0);
		db_res_free(r);
		*ret_rows += n;
		if (rc || n < page)
			return rc;
	}
}

/* Reads one target table back through a cursor: its count and checksum. */
static enum code read_back(struct copy *c, const struct table *t, int64_t *ret_rows, uint64_t sum[2])
{
	enum code rc = db_begin(c->dst);
	const char *decl = arena_printf(c->a, "DECLARE copydb_check NO SCROLL CURSOR FOR SELECT %s FROM %s",
					col_list(c->a, t), ident(c->a, t->name));
	if (!rc)
		rc = db_exec(c->dst, decl, NULL, 0, NULL);
	*ret_rows = 0;
	while (!rc) {
		struct db_res *r = NULL;
		rc = db_exec(c->dst, "FETCH 1000 FROM copydb_check", NULL, 0, &r);
		int n = rc ? 0 : db_res_rows(r);
		for (int i = 0; i < n; i++)
			digest_row(r, i, 0, t->ncols, sum);
		db_res_free(r);
		*ret_rows += n;
		if (!n)
			break;
	}
	if (rc) {
		db_rollback(c->dst);
		return fail(c, rc, arena_printf(c->a, "reading %s back", t->name), c->dst);
	}
	db_rollback(c->dst);   /* read only: nothing to keep */
	return CODE_OK;
}

static void hex128(const uint64_t sum[2], char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)sum[1], (unsigned long long)sum[0]);
}

/* Copies every table in one target transaction from one source snapshot,
 * keeping each table's count and checksum as read. */
static enum code copy_all(struct copy *c, struct table *ts, int n, struct copy_table *out)
{
	enum code rc = db_begin(c->src);
	if (!rc && (rc = db_begin_write(c->dst)))
		db_rollback(c->src);
	if (rc)
		return fail(c, rc, "starting the copy", c->dst);
	for (int i = 0; i < n && !rc; i++) {
		uint64_t sum[2] = {0, 0};
		out[i].name = ts[i].name;
		rc = copy_table(c, &ts[i], &out[i].rows, sum);
		hex128(sum, out[i].checksum);
	}
	db_rollback(c->src);
	if (rc) {
		db_rollback(c->dst);
		return rc;
	}
	return (rc = db_commit(c->dst)) ? fail(c, rc, "committing the copy", c->dst) : CODE_OK;
}

static enum code verify(struct copy *c, struct table *ts, int n, const struct copy_table *want,
			copy_report_fn *report, void *ctx)
{
	for (int i = 0; i < n; i++) {
		uint64_t sum[2] = {0, 0};
		struct copy_table got = {.name = ts[i].name};
		enum code rc = read_back(c, &ts[i], &got.rows, sum);
		if (rc)
			return rc;
		hex128(sum, got.checksum);
		if (got.rows != want[i].rows || strcmp(got.checksum, want[i].checksum))
			return fail(c, CODE_INTERNAL_ERROR, arena_printf(c->a, "verification failed for %s: %lld rows "
				    "copied, %lld read back (checksum %s, read back %s)", ts[i].name,
				    (long long)want[i].rows, (long long)got.rows, want[i].checksum, got.checksum), NULL);
		if (report)
			report(&got, ctx);
	}
	return CODE_OK;
}

static enum code copy_into(struct copy *c, struct store *dst, copy_report_fn *report, void *ctx)
{
	struct table *ts = NULL;
	int n = 0;
	enum code rc = target_empty(c);
	if (!rc && (rc = store_migrate(dst, c->err, c->errlen)))
		return rc;
	if (!rc)
		rc = source_tables(c, &ts, &n);
	if (!rc)
		rc = same_schema(c, ts, n);
	struct copy_table *want = arena_alloc(c->a, sizeof(*want) * (size_t)(n + 1));
	if (!rc)
		rc = copy_all(c, ts, n, want);
	if (!rc)
		rc = verify(c, ts, n, want, report, ctx);
	return rc;
}

enum code store_copy_db(struct store *src, const char *to_url, copy_report_fn *report, void *ctx, char *err,
			size_t errlen)
{
	if (store_kind(src) != DB_SQLITE) {
		snprintf(err, errlen, "copy-db copies a SQLite installation (--db sqlite:PATH); this one is PostgreSQL");
		return CODE_INVALID_REQUEST;
	}
	struct store *dst = NULL;
	/* Two connections: the copy holds one while store_migrate takes another. */
	enum code rc = store_open(to_url, 2, &dst, err, errlen);
	if (rc)
		return rc;
	if (store_kind(dst) != DB_POSTGRES) {
		store_close(dst);
		snprintf(err, errlen, "--to must name a PostgreSQL database (postgres://...)");
		return CODE_INVALID_REQUEST;
	}
	struct copy c = {.a = arena_new(), .src = store_acquire(src), .dst = store_acquire(dst), .err = err,
			 .errlen = errlen};
	rc = c.src && c.dst ? copy_into(&c, dst, report, ctx) : fail(&c, CODE_SERVICE_UNAVAILABLE,
								    "a database is unreachable", NULL);
	if (c.src)
		store_release(src, c.src);
	if (c.dst)
		store_release(dst, c.dst);
	arena_free(c.a);
	store_close(dst);
	return rc;
}

/* ---- backup ---- */

static enum code check_backup(const char *path, char *err, size_t errlen)
{
	struct db *db = NULL;
	char url[4200];
	snprintf(url, sizeof url, "sqlite:%s", path);
	enum code rc = db_open(url, NULL, &db, err, errlen);
	if (rc)
		return rc;
	struct db_res *r = NULL;
	rc = db_exec(db, "PRAGMA integrity_check", NULL, 0, &r);
	rc = db_one_row(rc, r);
	if (rc || strcmp(db_res_get(r, 0, 0) ? db_res_get(r, 0, 0) : "", "ok")) {
		snprintf(err, errlen, "the backup does not pass integrity_check: %s",
			 rc ? db_errmsg(db) : db_res_get(r, 0, 0) ? db_res_get(r, 0, 0) : "");
		rc = CODE_INTERNAL_ERROR;
	}
	db_res_free(r);
	int64_t n = 0;
	if (!rc && (one_int(db, "SELECT COUNT(*) FROM schema_migrations", NULL, 0, &n) || n < 1)) {
		snprintf(err, errlen, "the backup has no schema_migrations: not a Loadline database");
		rc = CODE_INTERNAL_ERROR;
	}
	db_close(db);
	return rc;
}

enum code store_backup(struct store *st, const char *path, int64_t *ret_bytes, char *err, size_t errlen)
{
	struct stat sb;
	if (store_kind(st) != DB_SQLITE) {
		snprintf(err, errlen, "backup copies a SQLite database; back up PostgreSQL with pg_dump "
			 "(docs/operations.md, \"Backups\")");
		return CODE_INVALID_REQUEST;
	}
	if (!stat(path, &sb)) {
		snprintf(err, errlen, "%s exists: name a new file (a backup never overwrites one)", path);
		return CODE_INVALID_REQUEST;
	}
	struct db *db = store_acquire(st);
	if (!db) {
		snprintf(err, errlen, "database unreachable");
		return CODE_SERVICE_UNAVAILABLE;
	}
	struct db_param p[] = {P_TXT(path)};
	enum code rc = db_exec(db, "VACUUM INTO $1", p, 1, NULL);
	if (rc)
		snprintf(err, errlen, "writing %s: %s", path, db_errmsg(db));
	store_release(st, db);
	if (!rc)
		rc = check_backup(path, err, errlen);
	*ret_bytes = !rc && !stat(path, &sb) ? (int64_t)sb.st_size : 0;
	return rc;
}
