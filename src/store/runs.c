/* Runs: creation with the file, reads, claims and leases, moves, results. */
#include "runs.h"
#include "base/spool.h"

#include <libdeflate.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "outbox.h"
#include "store_internal.h"

#define RUN_COLS "id, org_id, kind, state, dry_run, fingerprint, file_name, file_size, file_format, " \
	"file_encoding, file_delimiter, row_count, error_code, error_message, n_succeeded, n_warnings, " \
	"n_failed, n_skipped, staged, shape_key, expires_at, created_at, started_at, finished_at, " \
	"lease_owner, attempts, upload_deleted_at, results_deleted_at, opt_header_row, opt_sheet, file_detail, " \
	"correction_of, created_by, revert_of, commit_policy, n_not_committed, rows_done, ckpt_row, " \
	"rows_per_second"

static void row_to_run(const struct db_res *r, int i, struct run *x)
{
	memset(x, 0, sizeof(*x));
	cell_copy(r, i, 0, x->id, sizeof x->id);
	cell_copy(r, i, 1, x->org_id, sizeof x->org_id);
	cell_copy(r, i, 2, x->kind, sizeof x->kind);
	x->state = run_state_from_name(db_res_get(r, i, 3));
	x->dry_run = db_res_int(r, i, 4) != 0;
	cell_copy(r, i, 5, x->fingerprint, sizeof x->fingerprint);
	cell_copy(r, i, 6, x->file_name, sizeof x->file_name);
	x->file_size = db_res_int(r, i, 7);
	cell_copy(r, i, 8, x->file_format, sizeof x->file_format);
	cell_copy(r, i, 9, x->file_encoding, sizeof x->file_encoding);
	cell_copy(r, i, 10, x->file_delimiter, sizeof x->file_delimiter);
	x->row_count = db_res_null(r, i, 11) ? -1 : (int)db_res_int(r, i, 11);
	cell_copy(r, i, 12, x->error_code, sizeof x->error_code);
	cell_copy(r, i, 13, x->error_message, sizeof x->error_message);
	for (int k = 0; k < 4; k++)
		x->counts[k] = (int)db_res_int(r, i, 14 + k);
	x->staged = db_res_int(r, i, 18) != 0;
	cell_copy(r, i, 19, x->shape_key, sizeof x->shape_key);
	x->expires_at = db_res_int(r, i, 20);
	x->created_at = db_res_int(r, i, 21);
	x->started_at = db_res_int(r, i, 22);
	x->finished_at = db_res_int(r, i, 23);
	cell_copy(r, i, 24, x->lease_owner, sizeof x->lease_owner);
	x->attempts = (int)db_res_int(r, i, 25);
	x->upload_deleted_at = db_res_int(r, i, 26);
	x->results_deleted_at = db_res_int(r, i, 27);
	x->opt_header_row = (int)db_res_int(r, i, 28);
	cell_copy(r, i, 29, x->opt_sheet, sizeof x->opt_sheet);
	cell_copy(r, i, 30, x->file_detail, sizeof x->file_detail);
	cell_copy(r, i, 31, x->correction_of, sizeof x->correction_of);
	cell_copy(r, i, 32, x->created_by, sizeof x->created_by);
	cell_copy(r, i, 33, x->revert_of, sizeof x->revert_of);
	cell_copy(r, i, 34, x->commit_policy, sizeof x->commit_policy);
	x->not_committed = db_res_null(r, i, 35) ? -1 : (int)db_res_int(r, i, 35);
	x->rows_done = (int)db_res_int(r, i, 36);
	x->ckpt_row = (unsigned)db_res_int(r, i, 37);
	x->rows_per_second = (int)db_res_int(r, i, 38);
}

/* Past its time, or already deleted: a sweep may be up to
 * LOADLINE_SWEEP_INTERVAL late, and readers answer as if it were not. */
static bool past(const struct run *r, int64_t deleted_at, int64_t keep_ms, int64_t now)
{
	return deleted_at || (run_state_terminal(r->state) && r->finished_at && keep_ms > 0 &&
			      now >= r->finished_at + keep_ms);
}

bool run_results_expired(const struct run *r, int64_t keep_results_ms, int64_t now)
{
	return past(r, r->results_deleted_at, keep_results_ms, now);
}

bool run_upload_expired(const struct run *r, int64_t keep_uploads_ms, int64_t now)
{
	return past(r, r->upload_deleted_at, keep_uploads_ms, now);
}

static enum code find_active(struct db *db, const struct run *run, char ret_id[ID_MAX])
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(run->org_id), P_TXT(run->fingerprint)};
	enum code rc = db_exec(db, "SELECT id FROM runs WHERE org_id = $1 AND fingerprint = $2 "
			       "AND state IN ('QUEUED','RUNNING') ORDER BY created_at LIMIT 1", p, 2, &r);
	if (!rc && db_res_rows(r) == 1) {
		cell_copy(r, 0, 0, ret_id, ID_MAX);
		rc = CODE_IMPORT_IN_PROGRESS;
	}
	db_res_free(r);
	return rc;
}

/* The upload deflated, when that saves at least a tenth (a CSV shrinks to
 * a fifth or less; an XLSX file is a zip already and stays as it is):
 * stored uploads were ~190 bytes of every imported row (issue 21).  NULL
 * when not worth it.  Done before the write transaction begins. */
static unsigned char *deflate_upload(const void *file, size_t len, size_t *ret_len)
{
	if (len < 64)
		return NULL;
	/* Level 1: 0.18 ms for a 144 kB CSV against level 6's 0.6 ms, for
	 * 17 kB instead of 15 (docs/design.md, "Uploads"). */
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t cap = len - len / 10;
	unsigned char *out = c ? malloc(cap) : NULL;
	size_t n = out ? libdeflate_deflate_compress(c, file, len, out, cap) : 0;
	libdeflate_free_compressor(c);
	if (!n) {
		free(out);
		return NULL;
	}
	*ret_len = n;
	return out;
}

/* Deflates a big upload into out, a spool opened in u->spool_dir and
 * capped at nine tenths of it (zlib's raw deflate, which libdeflate and
 * the reader's inflater read): UPLOAD_PART bytes at a time, the upload's
 * pages dropped as it goes (issue 29).  0 with out mapped, or -1 with it
 * closed: it did not pay, or could not be written (then the upload is
 * stored as it is). */
static int deflate_to_spool(const struct upload_bytes *u, struct spool *out)
{
	if (!u->spool_dir || spool_open(out, u->spool_dir, u->len - u->len / 10))
		return -1;
	enum { OUT = 256 * 1024 };
	unsigned char *buf = malloc(OUT);
	z_stream z = {0};
	int zr = buf && deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK ? Z_OK : Z_MEM_ERROR;
	for (size_t off = 0; zr == Z_OK && off < u->len; off += UPLOAD_PART) {
		size_t n = u->len - off < UPLOAD_PART ? u->len - off : UPLOAD_PART;
		int flush = off + n == u->len ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = (unsigned char *)u->data + off;
		z.avail_in = (uInt)n;
		do {   /* zlib's usage: until the output buffer is left with room */
			z.next_out = buf;
			z.avail_out = OUT;
			zr = deflate(&z, flush);
			size_t got = OUT - z.avail_out;
			if (zr == Z_BUF_ERROR)
				zr = Z_OK;   /* no progress possible: not an error */
			if (got && spool_write(out, buf, got))
				zr = Z_ERRNO;   /* over the cap (it did not pay) or the disk is full */
		} while (zr == Z_OK && z.avail_out == 0);
		u->forget(u->arg);
	}
	if (buf)
		deflateEnd(&z);
	free(buf);
	if (zr != Z_STREAM_END || spool_map(out)) {
		spool_close(out);
		return -1;
	}
	return 0;
}

/* What is stored of an upload: one value (run_files.content), or parts
 * of UPLOAD_PART bytes (run_file_parts) read from a mapping whose pages
 * forget(arg) drops once written. */
struct stored_upload {
	const unsigned char *data;
	size_t len;
	int64_t raw_size;   /* what data inflates to; -1: data is the upload as it came */
	bool in_parts;
	unsigned char *z;   /* data deflated in memory, or NULL */
	struct spool zs;    /* data deflated into a spool, or fd -1 */
	void (*forget)(void *arg);
	void *arg;
};

static void stored_upload_prepare(const struct upload_bytes *u, struct stored_upload *s)
{
	*s = (struct stored_upload){.data = u->data, .len = u->len, .raw_size = -1, .zs = {.fd = -1}};
	size_t zlen = 0;
	if (u->forget && u->len > UPLOAD_PARTS_OVER) {
		s->in_parts = true;
		s->forget = u->forget;
		s->arg = u->arg;
		if (deflate_to_spool(u, &s->zs))
			return;
		s->data = s->zs.map;
		s->len = s->zs.len;
		s->forget = spool_forget_hook;
		s->arg = &s->zs;
	} else if ((s->z = deflate_upload(u->data, u->len, &zlen))) {
		s->data = s->z;
		s->len = zlen;
	} else {
		return;
	}
	s->raw_size = (int64_t)u->len;
}

static void stored_upload_done(struct stored_upload *s)
{
	free(s->z);
	spool_close(&s->zs);
}

/* The upload's row of run_files, and its parts after it: each a statement
 * of its own, its pages dropped once written. */
static enum code stored_upload_insert(struct db *db, const char *run_id, struct stored_upload *s)
{
	int64_t parts = s->in_parts ? (int64_t)((s->len + UPLOAD_PART - 1) / UPLOAD_PART) : 0;
	struct db_param f[] = {P_TXT(run_id), s->in_parts ? P_BLOB("", 0) : P_BLOB(s->data, s->len),
			       s->raw_size >= 0 ? P_INT(s->raw_size) : P_NULL, s->in_parts ? P_INT(parts) : P_NULL};
	enum code rc = db_exec(db, "INSERT INTO run_files (run_id, content, raw_size, parts) VALUES ($1, $2, $3, $4)",
			       f, 4, NULL);
	for (int64_t seq = 0; !rc && seq < parts; seq++) {
		size_t off = (size_t)seq * UPLOAD_PART, n = s->len - off < UPLOAD_PART ? s->len - off : UPLOAD_PART;
		struct db_param p[] = {P_TXT(run_id), P_INT(seq), P_BLOB(s->data + off, n)};
		rc = db_exec(db, "INSERT INTO run_file_parts (run_id, seq, content) VALUES ($1, $2, $3)", p, 3, NULL);
		s->forget(s->arg);
	}
	return rc;
}

enum code store_run_create(struct store *st, struct run *run, const void *file, size_t len,
			   char ret_existing_id[ID_MAX])
{
	struct upload_bytes u = {file, len, NULL, NULL, NULL};
	return store_run_create_upload(st, run, &u, ret_existing_id);
}

enum code store_run_create_upload(struct store *st, struct run *run, const struct upload_bytes *u,
				  char ret_existing_id[ID_MAX])
{
	struct stored_upload su;
	stored_upload_prepare(u, &su);
	struct db *db = store_acquire(st);
	if (!db) {
		stored_upload_done(&su);
		return CODE_SERVICE_UNAVAILABLE;
	}
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = find_active(db, run, ret_existing_id);
	struct db_param p[] = {
		P_TXT(run->id), P_TXT(run->org_id), P_TXT(run->kind), P_TXT(run_state_name(run->state)),
		P_INT(run->dry_run), P_TXT(run->fingerprint), P_TXT(run->file_name), P_INT(run->file_size),
		P_TXT(run->file_format), P_INT(run->created_at), P_INT(run->staged),
		P_TXT(*run->shape_key ? run->shape_key : NULL), run->expires_at ? P_INT(run->expires_at) : P_NULL,
		run->row_count >= 0 ? P_INT(run->row_count) : P_NULL,
		run->opt_header_row > 0 ? P_INT(run->opt_header_row) : P_NULL,
		P_TXT(*run->opt_sheet ? run->opt_sheet : NULL), P_TXT(*run->created_by ? run->created_by : NULL),
		P_TXT(*run->revert_of ? run->revert_of : NULL), P_TXT(*run->commit_policy ? run->commit_policy : NULL),
		P_TXT(*run->correction_of ? run->correction_of : NULL)};
	if (!rc)
		rc = db_exec(db, "INSERT INTO runs (id, org_id, kind, state, dry_run, fingerprint, file_name, "
			     "file_size, file_format, created_at, updated_at, staged, shape_key, expires_at, row_count, "
			     "opt_header_row, opt_sheet, created_by, revert_of, commit_policy, correction_of) "
			     "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $13, $14, $15, $16, $17, $18, "
			     "$19, $20)", p, 20, NULL);
	if (rc == CODE_INTERNAL_ERROR && db_last_was_conflict(db)) {
		/* Lost a race with an identical push: report that run. */
		db_rollback(db);
		rc = find_active(db, run, ret_existing_id);
		if (!rc)
			rc = CODE_SERVICE_UNAVAILABLE;   /* it finished meanwhile: let the client retry */
		store_release(st, db);
		stored_upload_done(&su);
		return rc;
	}
	if (!rc)
		rc = stored_upload_insert(db, run->id, &su);
	stored_upload_done(&su);
	if (!rc)
		runs_notify(db);   /* to process, or (staged) to triage */
	rc = db_finish(db, rc);
	if (rc == CODE_INTERNAL_ERROR)
		log_msg("error", "run create failed: %s", db_errmsg(db));
	store_release(st, db);
	return rc;
}

enum code store_run_get(struct store *st, const char *org_id, const char *id, struct run *ret)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(id), P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT " RUN_COLS " FROM runs WHERE id = $1 AND (CAST($2 AS TEXT) IS NULL OR org_id = $2)",
				   p, 2, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_run(r, 0, ret);
	db_res_free(r);
	return rc;
}

enum code store_run_list(struct store *st, const char *org_id, int64_t after_created,
			 const char *after_id, int limit, struct run *ret, int *ret_n)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id), P_INT(after_created), P_TXT(after_id ? after_id : ""), P_INT(limit),
			       P_INT(after_id ? 1 : 0)};
	enum code rc = store_exec1(st, "SELECT " RUN_COLS " FROM runs WHERE org_id = $1 AND "
				   "($5 = 0 OR created_at < $2 OR (created_at = $2 AND id < $3)) "
				   "ORDER BY created_at DESC, id DESC LIMIT $4", p, 5, &r);
	if (rc)
		return rc;
	int n = db_res_rows(r);
	for (int i = 0; i < n && i < limit; i++)
		row_to_run(r, i, &ret[i]);
	*ret_n = n < limit ? n : limit;
	db_res_free(r);
	return CODE_OK;
}

/* *ret (deflated) replaced by the raw_size bytes it inflates to. */
static enum code inflate_upload(unsigned char **ret, size_t *ret_len, int64_t raw_size)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	unsigned char *out = d && raw_size >= 0 ? malloc((size_t)raw_size + 1) : NULL;
	size_t got = 0;
	bool ok = out && libdeflate_deflate_decompress(d, *ret, *ret_len, out, (size_t)raw_size, &got) ==
			 LIBDEFLATE_SUCCESS && got == (size_t)raw_size;
	libdeflate_free_decompressor(d);
	free(*ret);
	*ret = NULL;
	if (!ok) {
		free(out);
		log_msg("error", "a stored upload does not inflate to its %lld bytes", (long long)raw_size);
		return CODE_INTERNAL_ERROR;
	}
	*ret = out;
	*ret_len = got;
	return CODE_OK;
}

/* Reads the parts of a stored upload in order, each handed to take(ctx,
 * bytes, n) (-1 from it stops: CODE_INTERNAL_ERROR); CODE_NOT_FOUND when
 * one is missing. */
static enum code each_part(struct store *st, const char *id, int64_t parts,
			   int (*take)(void *ctx, const unsigned char *p, size_t n), void *ctx)
{
	enum code rc = CODE_OK;
	for (int64_t seq = 0; !rc && seq < parts; seq++) {
		struct db_param p[] = {P_TXT(id), P_INT(seq)};
		struct db_res *r = NULL;
		const unsigned char *data = NULL;
		size_t n = 0;
		rc = store_exec1(st, "SELECT content FROM run_file_parts WHERE run_id = $1 AND seq = $2", p, 2, &r);
		rc = db_one_row(rc, r);
		if (!rc && db_res_blob_view(r, 0, 0, &data, &n))
			rc = CODE_NOT_FOUND;
		if (!rc && take(ctx, data, n))
			rc = CODE_INTERNAL_ERROR;
		db_res_free(r);
	}
	return rc;
}

static int take_into_buf(void *ctx, const unsigned char *p, size_t n)
{
	return buf_append(ctx, p, n);
}

/* The stored bytes of a run's upload, whole: its one value, or its parts
 * joined (*ret malloc'd). */
static enum code stored_bytes(struct store *st, const char *id, struct db_res *r, unsigned char **ret,
			      size_t *ret_len)
{
	if (db_res_null(r, 0, 2))
		return db_res_blob(r, 0, 0, ret, ret_len) ? CODE_NOT_FOUND : CODE_OK;
	struct buf b;
	buf_init(&b, SIZE_MAX / 2);
	enum code rc = each_part(st, id, db_res_int(r, 0, 2), take_into_buf, &b);
	if (!rc && buf_append(&b, "", 0))   /* data allocated even for no part: callers free *ret */
		rc = CODE_INTERNAL_ERROR;
	if (rc) {
		buf_done(&b);
		return rc;
	}
	*ret = (unsigned char *)buf_steal(&b, ret_len);
	return CODE_OK;
}

enum code store_run_file(struct store *st, const char *id, unsigned char **ret, size_t *ret_len)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(id)};
	enum code rc = store_exec1(st, "SELECT content, raw_size, parts FROM run_files WHERE run_id = $1", p, 1, &r);
	if ((rc = db_one_row(rc, r)))
		return rc;
	rc = stored_bytes(st, id, r, ret, ret_len);
	if (!rc && !db_res_null(r, 0, 1))
		rc = inflate_upload(ret, ret_len, db_res_int(r, 0, 1));
	db_res_free(r);
	return rc;
}

/* A stored upload inflated into a spool as its deflated bytes arrive, in
 * one piece or in parts. */
struct inflater {
	z_stream z;
	int zr;
	size_t total;   /* inflated bytes written */
};

static int inflater_init(struct inflater *f)
{
	*f = (struct inflater){.zr = Z_OK};
	return inflateInit2(&f->z, -15) == Z_OK ? 0 : -1;   /* raw deflate, as libdeflate wrote it */
}

/* Inflates the n bytes of in into s; -1 on a corrupt stream or a spool
 * that cannot be written. */
static int inflater_feed(struct inflater *f, const unsigned char *in, size_t n, struct spool *s)
{
	unsigned char out[64 * 1024];
	f->z.next_in = (unsigned char *)in;
	f->z.avail_in = (uInt)n;
	while (f->zr == Z_OK) {
		f->z.next_out = out;
		f->z.avail_out = sizeof out;
		f->zr = inflate(&f->z, Z_NO_FLUSH);
		size_t got = sizeof out - f->z.avail_out;
		if (f->zr == Z_BUF_ERROR && !got)   /* wants the next part */
			f->zr = Z_OK;
		if ((f->zr != Z_OK && f->zr != Z_STREAM_END) || (got && spool_write(s, out, got)))
			return -1;
		f->total += got;
		if (!got && f->z.avail_in == 0)
			break;
	}
	return 0;
}

/* 0 when the stream ended where it should; frees the inflater (also one
 * whose inflateInit2 failed). */
static int inflater_end(struct inflater *f)
{
	inflateEnd(&f->z);
	return f->zr == Z_STREAM_END ? 0 : -1;
}

/* Where a stored upload's bytes go as they are read: inflated into the
 * spool when it was stored deflated, written as they are otherwise. */
struct upload_sink {
	struct spool *s;
	bool deflated;
	struct inflater f;
	size_t raw;   /* bytes written to the spool */
};

static int sink_begin(struct upload_sink *k, struct spool *s, bool deflated)
{
	*k = (struct upload_sink){.s = s, .deflated = deflated};
	return deflated ? inflater_init(&k->f) : 0;
}

static int sink_take(struct upload_sink *k, const unsigned char *p, size_t n)
{
	if (k->deflated)
		return inflater_feed(&k->f, p, n, k->s);
	k->raw += n;
	return spool_write(k->s, p, n);
}

/* rc of the reading, then what the sink says at the end: a corrupt or
 * short upload is logged, a spool that could not be written is transient. */
static enum code sink_end(struct upload_sink *k, enum code rc, int64_t want)
{
	if (k->deflated) {
		if (inflater_end(&k->f) && !rc)
			rc = CODE_INTERNAL_ERROR;
		k->raw = k->f.total;
	}
	if (rc == CODE_INTERNAL_ERROR && k->s->error)
		rc = CODE_SERVICE_UNAVAILABLE;
	if (!rc && want >= 0 && (int64_t)k->raw != want)
		rc = CODE_INTERNAL_ERROR;
	if (rc == CODE_INTERNAL_ERROR)
		log_msg("error", "a stored upload does not inflate to its %lld bytes", (long long)want);
	return rc;
}

static int take_into_sink(void *ctx, const unsigned char *p, size_t n)
{
	return sink_take(ctx, p, n);
}

enum code store_run_file_spool(struct store *st, const char *id, struct spool *s)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(id)};
	enum code rc = store_exec1(st, "SELECT content, raw_size, parts FROM run_files WHERE run_id = $1", p, 1, &r);
	if ((rc = db_one_row(rc, r)))
		return rc;
	bool deflated = !db_res_null(r, 0, 1), in_parts = !db_res_null(r, 0, 2);
	int64_t want = deflated ? db_res_int(r, 0, 1) : -1, parts = in_parts ? db_res_int(r, 0, 2) : 0;
	const unsigned char *data = NULL;   /* in r: read once, not copied */
	size_t len = 0;
	struct upload_sink k;
	if (sink_begin(&k, s, deflated))
		rc = CODE_INTERNAL_ERROR;
	else if (in_parts)
		rc = CODE_OK;
	else if (db_res_blob_view(r, 0, 0, &data, &len))
		rc = CODE_NOT_FOUND;
	else if (sink_take(&k, data, len))
		rc = CODE_INTERNAL_ERROR;
	db_res_free(r);
	if (!rc && in_parts)
		rc = each_part(st, id, parts, take_into_sink, &k);
	return sink_end(&k, rc, want);   /* inflateEnd is safe after a failed inflateInit2 */
}

/* The one-statement claim both claims share: sets = the SET list, which =
 * the condition a claimable run meets (both may use $2 = now).  SQLite
 * runs it under its single writer lock, and PostgreSQL's SKIP LOCKED lets
 * concurrent workers pass each other by instead of claiming the same row. */
static enum code claim(struct store *st, const char *sets, const char *which, const char *owner, int64_t lease_ms,
		       struct run *ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	const char *lock = db_kind(db) == DB_POSTGRES ? " FOR UPDATE SKIP LOCKED" : "";
	char sql[2048];
	snprintf(sql, sizeof sql, "UPDATE runs SET lease_owner = $1, lease_until = $2 + $3%s WHERE id = (SELECT id "
		 "FROM runs WHERE %s ORDER BY created_at LIMIT 1%s) AND (%s) RETURNING " RUN_COLS, sets, which, lock,
		 which);
	struct db_param p[] = {P_TXT(owner), P_INT(now_ms()), P_INT(lease_ms)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, sql, p, 3, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_run(r, 0, ret);
	db_res_free(r);
	store_release(st, db);
	return rc;
}

enum code store_run_claim(struct store *st, const char *owner, int64_t lease_ms, struct run *ret)
{
	return claim(st, ", state = 'RUNNING', started_at = COALESCE(started_at, $2), attempts = attempts + 1, "
		     "updated_at = $2", "(state = 'QUEUED' AND staged = 0) OR (state = 'RUNNING' AND lease_until < $2)",
		     owner, lease_ms, ret);
}

enum code store_run_triage_claim(struct store *st, const char *owner, int64_t lease_ms, struct run *ret)
{
	/* The state stays QUEUED: triage is not processing. */
	return claim(st, "", "state = 'QUEUED' AND staged = 1 AND row_count IS NULL "
		     "AND (lease_until IS NULL OR lease_until < $2)", owner, lease_ms, ret);
}

enum code store_run_triaged(struct store *st, const char *id, const char *owner, int rows,
			    const struct outbox_mail *mail, bool *ret_done)
{
	*ret_done = false;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_INT(rows), P_TXT(id), P_TXT(owner)};
	struct db_res *r = NULL;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "UPDATE runs SET row_count = $1, lease_owner = NULL, lease_until = NULL "
			     "WHERE id = $2 AND lease_owner = $3 AND state = 'QUEUED' AND staged = 1 "
			     "AND row_count IS NULL RETURNING id, org_id", p, 3, &r);
	*ret_done = !rc && db_res_rows(r) == 1;
	/* Staged for review: the webhook event commits with the triage. */
	if (*ret_done)
		rc = webhook_enqueue_db(db, db_res_get(r, 0, 1), "import_run.staged", id, NULL, NULL);
	db_res_free(r);
	/* The approval mail exists only with its triaged run. */
	if (!rc && *ret_done && mail)
		rc = outbox_insert_db(db, mail);
	rc = db_finish(db, rc);
	if (rc)
		*ret_done = false;
	store_release(st, db);
	return rc;
}

enum code store_run_unstage(struct store *st, const char *id, const char *owner)
{
	/* updated_at starts the stuck-run clock of a claimable QUEUED run. */
	struct db_param p[] = {P_INT(now_ms()), P_TXT(id), P_TXT(owner)};
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_exec(db, "UPDATE runs SET staged = 0, expires_at = NULL, lease_owner = NULL, "
			       "lease_until = NULL, updated_at = $1 WHERE id = $2 AND lease_owner = $3 "
			       "AND state = 'QUEUED' AND staged = 1", p, 3, NULL);
	if (!rc)
		runs_notify(db);
	store_release(st, db);
	return rc;
}

enum code store_run_reread(struct store *st, const char *org_id, const char *id, int header_row, const char *sheet,
			   const char *shape_key)
{
	struct db_param p[] = {header_row > 0 ? P_INT(header_row) : P_NULL, P_TXT(sheet && *sheet ? sheet : NULL),
			       P_TXT(shape_key), P_INT(now_ms()), P_TXT(id), P_TXT(org_id)};
	return store_exec1(st, "UPDATE runs SET opt_header_row = $1, opt_sheet = $2, shape_key = $3, updated_at = $4 "
			   "WHERE id = $5 AND org_id = $6 AND state = 'QUEUED' AND staged = 1", p, 6, NULL);
}

enum code store_run_heartbeat(struct store *st, const char *id, const char *owner, int64_t lease_ms)
{
	struct db_param p[] = {P_INT(now_ms() + lease_ms), P_TXT(id), P_TXT(owner)};
	return store_exec1(st, "UPDATE runs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 "
			   "AND state = 'RUNNING'", p, 3, NULL);
}

enum code store_run_release(struct store *st, const char *id, const char *owner, int64_t retry_in_ms)
{
	struct db_param p[] = {P_INT(now_ms() + retry_in_ms), P_TXT(id), P_TXT(owner)};
	return store_exec1(st, "UPDATE runs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 "
			   "AND state = 'RUNNING'", p, 3, NULL);
}

static enum code run_move_db(struct db *db, const char *id, const struct run_move *m, bool *ret_moved)
{
	char sources[128], sql[2048];
	run_move_sources_sql(m->to, sources, sizeof sources);
	int64_t now = now_ms();
	const int zero[4] = {0};
	const int *c = m->counts ? m->counts : zero;
	snprintf(sql, sizeof sql,
		 "UPDATE runs SET state = $1, updated_at = $2, "
		 "error_code = COALESCE($3, error_code), error_message = COALESCE($4, error_message), "
		 "n_succeeded = CASE WHEN $5 = 1 THEN $6 ELSE n_succeeded END, "
		 "n_warnings = CASE WHEN $5 = 1 THEN $7 ELSE n_warnings END, "
		 "n_failed = CASE WHEN $5 = 1 THEN $8 ELSE n_failed END, "
		 "n_skipped = CASE WHEN $5 = 1 THEN $9 ELSE n_skipped END, "
		 "file_encoding = COALESCE($10, file_encoding), file_delimiter = COALESCE($11, file_delimiter), "
		 "row_count = CASE WHEN $12 >= 0 THEN $12 ELSE row_count END, "
		 "file_detail = COALESCE($16, file_detail), "
		 "n_not_committed = CASE WHEN $17 > 0 THEN $17 ELSE n_not_committed END, "
		 "finished_at = CASE WHEN $13 = 1 THEN $2 ELSE finished_at END, "
		 "lease_until = CASE WHEN $13 = 1 THEN NULL ELSE lease_until END "
		 "WHERE id = $14 AND state IN (%s) AND (CAST($15 AS TEXT) IS NULL OR lease_owner = $15) RETURNING id, "
		 "org_id", sources);
	struct db_param p[] = {
		P_TXT(run_state_name(m->to)), P_INT(now), P_TXT(m->error_code), P_TXT(m->error_message),
		P_INT(m->counts ? 1 : 0), P_INT(c[0]), P_INT(c[1]), P_INT(c[2]), P_INT(c[3]),
		P_TXT(m->file_encoding), P_TXT(m->file_delimiter), P_INT(m->row_count), P_INT(m->finish ? 1 : 0),
		P_TXT(id), P_TXT(m->owner), P_TXT(m->file_detail), P_INT(m->not_committed)};
	struct db_res *r = NULL;
	enum code rc = db_exec(db, sql, p, 17, &r);
	*ret_moved = !rc && db_res_rows(r) == 1;
	/* The webhook event commits with the move that it tells of. */
	if (*ret_moved && run_state_terminal(m->to))
		rc = webhook_enqueue_db(db, db_res_get(r, 0, 1), "import_run.completed", id, NULL, NULL);
	db_res_free(r);
	return rc;
}

enum code store_run_move(struct store *st, const char *id, const struct run_move *m, bool *ret_moved)
{
	*ret_moved = false;
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = run_move_db(db, id, m, ret_moved);
	rc = db_finish(db, rc);
	if (rc)
		*ret_moved = false;
	store_release(st, db);
	return rc;
}

enum code store_run_cancel(struct store *st, const char *id, bool *ret_moved)
{
	struct run_move m = {.to = RUN_CANCELLED, .row_count = -1, .finish = true};
	enum code rc = store_run_move(st, id, &m, ret_moved);
	if (!rc && *ret_moved)
		store_run_changed(st, id);
	return rc;
}

enum code store_run_ids(struct store *st, const char *sql, int64_t t, char (*ret_ids)[ID_MAX], int n, int *ret_n)
{
	struct db_res *r;
	struct db_param p[] = {P_INT(t), P_INT(n)};
	enum code rc = store_exec1(st, sql, p, 2, &r);
	if (rc)
		return rc;
	*ret_n = 0;
	for (int i = 0; i < db_res_rows(r) && i < n; i++)
		cell_copy(r, i, 0, ret_ids[(*ret_n)++], ID_MAX);
	db_res_free(r);
	return CODE_OK;
}

enum code store_runs_staging_expired(struct store *st, int64_t now, char (*ret_ids)[ID_MAX], int n, int *ret_n)
{
	return store_run_ids(st, "SELECT id FROM runs WHERE state = 'QUEUED' AND staged = 1 AND expires_at <= $1 "
		       "ORDER BY created_at LIMIT $2", now, ret_ids, n, ret_n);
}

enum code store_runs_timed_out(struct store *st, int64_t cutoff, char (*ret_ids)[ID_MAX], int n, int *ret_n)
{
	/* A QUEUED run's clock starts when it became claimable (creation, or
	 * release from review: updated_at); a RUNNING one's at its first claim. */
	return store_run_ids(st, "SELECT id FROM runs WHERE staged = 0 AND ((state = 'QUEUED' AND updated_at < $1) "
		       "OR (state = 'RUNNING' AND started_at < $1)) ORDER BY created_at LIMIT $2", cutoff, ret_ids, n,
		       ret_n);
}

/* ---- transactions ---- */

struct store_tx {
	struct store *st;
	struct db *db;
};

enum code store_tx_begin(struct store *st, struct store_tx **ret)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_begin_write(db);
	if (rc) {
		store_release(st, db);
		return rc;
	}
	struct store_tx *tx = calloc(1, sizeof(*tx));
	if (!tx)
		abort();
	tx->st = st;
	tx->db = db;
	*ret = tx;
	return CODE_OK;
}

enum code store_tx_commit(struct store_tx *tx)
{
	enum code rc = db_commit(tx->db);
	store_release(tx->st, tx->db);
	free(tx);
	return rc;
}

void store_tx_abort(struct store_tx *tx)
{
	if (!tx)
		return;
	db_rollback(tx->db);
	store_release(tx->st, tx->db);
	free(tx);
}

enum code store_tx_savepoint(struct store_tx *tx)
{
	return db_exec(tx->db, "SAVEPOINT run_writes", NULL, 0, NULL);
}

enum code store_tx_rollback_savepoint(struct store_tx *tx)
{
	return db_exec(tx->db, "ROLLBACK TO SAVEPOINT run_writes", NULL, 0, NULL);
}

bool store_tx_is_postgres(const struct store_tx *tx)
{
	return db_kind(tx->db) == DB_POSTGRES;
}

struct db *store_tx_db(struct store_tx *tx)
{
	return tx->db;
}

enum code store_run_move_tx(struct store_tx *tx, const char *id, const struct run_move *m, bool *ret_moved)
{
	return run_move_db(tx->db, id, m, ret_moved);
}

enum code store_run_checkpoint_tx(struct store_tx *tx, const char *id, const struct run_checkpoint *c,
				  bool *ret_ours)
{
	struct db_param p[] = {P_INT(c->rows_done), P_INT(c->last_row), P_INT(c->rows_per_second),
			       P_INT(c->counts[0]), P_INT(c->counts[1]), P_INT(c->counts[2]), P_INT(c->counts[3]),
			       P_INT(c->row_count), P_INT(now_ms()), P_TXT(id), P_TXT(c->owner)};
	struct db_res *r = NULL;
	enum code rc = db_exec(tx->db, "UPDATE runs SET rows_done = $1, ckpt_row = $2, rows_per_second = $3, "
			       "n_succeeded = $4, n_warnings = $5, n_failed = $6, n_skipped = $7, "
			       "row_count = CASE WHEN $8 >= 0 THEN $8 ELSE row_count END, updated_at = $9 "
			       "WHERE id = $10 AND state = 'RUNNING' AND lease_owner = $11 RETURNING id", p, 11, &r);
	*ret_ours = !rc && db_res_rows(r) == 1;
	db_res_free(r);
	return rc;
}

#define RESULT_BATCH 100

static const char result_head[] = "INSERT INTO run_results (run_id, bucket, row_index, warned, body) VALUES ";

/* The statement of k results: "... VALUES ($1, $2, $3, $4, $5), ($1, $6, ...". */
static void result_sql(struct buf *sql, int k)
{
	buf_puts(sql, result_head);
	for (int i = 0; i < k; i++)
		buf_printf(sql, "%s($1, $%d, $%d, $%d, $%d)", i ? ", " : "", 2 + 4 * i, 3 + 4 * i, 4 + 4 * i, 5 + 4 * i);
}

static _Atomic(char *) full_result_sql;

enum code store_results_add_all(struct store_tx *tx, const char *run_id, const struct result_entry *e, int n)
{
	struct db_param p[1 + 4 * RESULT_BATCH];
	struct buf sql;
	buf_init(&sql, 64 * 1024);
	enum code rc = CODE_OK;
	for (int start = 0; start < n && !rc; start += RESULT_BATCH) {
		int k = n - start < RESULT_BATCH ? n - start : RESULT_BATCH;
		p[0] = P_TXT(run_id);
		for (int i = 0; i < k; i++) {
			const struct result_entry *x = &e[start + i];
			p[1 + 4 * i] = P_TXT(x->bucket);
			p[2 + 4 * i] = P_INT(x->row_index);
			p[3 + 4 * i] = P_INT(x->warned);
			p[4 + 4 * i] = P_TXT(x->body);
		}
		const char *text = store_batch_sql(&full_result_sql, &sql, result_sql, k, RESULT_BATCH);
		rc = db_exec(tx->db, text, p, 1 + 4 * k, NULL);
	}
	buf_done(&sql);
	return rc;
}

enum code store_results_page(struct store *st, const char *run_id, const char *bucket, int after,
			     int limit, void (*fn)(int row_index, const char *body, void *ctx), void *ctx,
			     bool *ret_more)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(run_id), P_INT(after), P_INT(limit + 1), P_TXT(bucket)};
	/* The warnings bucket is the flagged succeeded rows (a committed row
	 * with warnings is stored once), read through their own partial index
	 * (migration 19): SQLite uses it only for a term written as its own,
	 * warned = 1. */
	enum code rc = !strcmp(bucket, "warnings")
		? store_exec1(st, "SELECT row_index, body FROM run_results WHERE run_id = $1 AND warned = 1 "
			      "AND row_index > $2 ORDER BY row_index LIMIT $3", p, 3, &r)
		: store_exec1(st, "SELECT row_index, body FROM run_results WHERE run_id = $1 AND bucket = $4 "
			      "AND row_index > $2 ORDER BY row_index LIMIT $3", p, 4, &r);
	if (rc)
		return rc;
	int n = db_res_rows(r);
	for (int i = 0; i < n && i < limit; i++)
		fn((int)db_res_int(r, i, 0), db_res_get(r, i, 1), ctx);
	*ret_more = n > limit;
	db_res_free(r);
	return CODE_OK;
}

#define PROBLEM_BATCH 500

/* One keyset walk of a run's results in row order, a batch at a time: the
 * failed rows (the primary key's range of bucket 'failed') or the flagged
 * rows (the partial index of migration 19).  A single walk over both
 * kinds (bucket = 'failed' OR warned = 1) had to sort the whole run for
 * every batch: quadratic, 12 s at 200,000 rows. */
struct walk {
	const char *sql;
	bool failed;
	struct db_res *r;
	int i, n, after;
	bool done;
};

/* The walk's next row ready at w->i, or w->done. */
static enum code walk_fill(struct store *st, struct db *db, const char *run_id, struct walk *w)
{
	if (w->r && w->i < w->n)
		return CODE_OK;
	db_res_free(w->r);
	w->r = NULL;
	if (w->done)
		return CODE_OK;
	struct db_param p[] = {P_TXT(run_id), P_INT(w->after), P_INT(PROBLEM_BATCH)};
	enum code rc = db ? db_exec(db, w->sql, p, 3, &w->r) : store_exec1(st, w->sql, p, 3, &w->r);
	if (rc)
		return rc;
	w->i = 0;
	w->n = db_res_rows(w->r);
	w->done = w->n < PROBLEM_BATCH;
	if (!w->n) {
		db_res_free(w->r);
		w->r = NULL;
		w->done = true;
	}
	return CODE_OK;
}

static int walk_row(const struct walk *w)
{
	return w->r ? (int)db_res_int(w->r, w->i, 0) : -1;
}

static enum code problem_rows(struct store *st, struct db *db, const char *run_id,
			      void (*fn)(int row_index, bool failed, const char *body, void *ctx), void *ctx)
{
	/* Row numbers are unique within a run (a row is stored once, in its
	 * bucket): the two walks merge into one in row order. */
	struct walk w[2] = {
		{.sql = "SELECT row_index, body FROM run_results WHERE run_id = $1 AND bucket = 'failed' "
			"AND row_index > $2 ORDER BY row_index LIMIT $3", .failed = true},
		{.sql = "SELECT row_index, body FROM run_results WHERE run_id = $1 AND warned = 1 "
			"AND row_index > $2 ORDER BY row_index LIMIT $3"},
	};
	enum code rc = CODE_OK;
	for (;;) {
		if ((rc = walk_fill(st, db, run_id, &w[0])) || (rc = walk_fill(st, db, run_id, &w[1])))
			break;
		int a = walk_row(&w[0]), b = walk_row(&w[1]);
		if (a < 0 && b < 0)
			break;
		struct walk *x = b < 0 || (a >= 0 && a < b) ? &w[0] : &w[1];
		x->after = walk_row(x);
		fn(x->after, x->failed, db_res_get(x->r, x->i, 1), ctx);
		x->i++;
	}
	db_res_free(w[0].r);
	db_res_free(w[1].r);
	return rc;
}

enum code store_results_problem_rows(struct store *st, const char *run_id,
				     void (*fn)(int row_index, bool failed, const char *body, void *ctx), void *ctx)
{
	return problem_rows(st, NULL, run_id, fn, ctx);
}

enum code store_results_problem_rows_tx(struct store_tx *tx, const char *run_id,
					void (*fn)(int row_index, bool failed, const char *body, void *ctx), void *ctx)
{
	return problem_rows(tx->st, tx->db, run_id, fn, ctx);
}

enum code store_run_set_result_columns(struct store_tx *tx, const char *run_id, const char *columns)
{
	struct db_param p[] = {P_TXT(run_id), P_TXT(columns)};
	return db_exec(tx->db, "UPDATE runs SET result_columns = $2 WHERE id = $1", p, 2, NULL);
}

static enum code result_columns(struct store *st, struct db *db, const char *run_id, char **ret)
{
	*ret = NULL;
	struct db_res *r;
	static const char sql[] = "SELECT result_columns FROM runs WHERE id = $1";
	struct db_param p[] = {P_TXT(run_id)};
	enum code rc = db ? db_exec(db, sql, p, 1, &r) : store_exec1(st, sql, p, 1, &r);
	if (rc)
		return rc;
	const char *s = db_res_rows(r) && !db_res_null(r, 0, 0) ? db_res_get(r, 0, 0) : NULL;
	if (s && !(*ret = strdup(s)))
		abort();
	db_res_free(r);
	return CODE_OK;
}

enum code store_run_result_columns(struct store *st, const char *run_id, char **ret)
{
	return result_columns(st, NULL, run_id, ret);
}

enum code store_run_result_columns_tx(struct store_tx *tx, const char *run_id, char **ret)
{
	return result_columns(tx->st, tx->db, run_id, ret);
}

int64_t store_key_hash(const char *org_id, char kind, const char *key)
{
	uint64_t h = 1469598103934665603ULL;
	const char *parts[] = {org_id, (char[]){kind, 0}, key};
	for (size_t i = 0; i < 3; i++)
		for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
	return (int64_t)h;
}

enum code store_tx_lock_keys(struct store_tx *tx, const int64_t *keys, int n)
{
	if (db_kind(tx->db) != DB_POSTGRES || n == 0)
		return CODE_OK;
	/* One round trip: the array is already sorted, and unnest yields its
	 * elements in order, so the locks are taken in that order. */
	struct buf b;
	buf_init(&b, (size_t)n * 24 + 8);
	buf_putc(&b, '{');
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s%lld", i ? "," : "", (long long)keys[i]);
	buf_putc(&b, '}');
	struct db_param p[] = {P_TXT(buf_str(&b))};
	enum code rc = db_exec(tx->db, "SELECT pg_advisory_xact_lock(k) FROM unnest(CAST($1 AS BIGINT[])) AS k",
			       p, 1, NULL);
	buf_done(&b);
	return rc;
}
