/* Orchestration of a run: parse, check, write, results, outcome. */
#include "pipeline.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/strmap.h"
#include "mapping.h"
#include "metrics/metrics.h"
#include "problems.h"
#include "readfile.h"
#include "results.h"
#include "revert.h"
#include "rows.h"
#include "store/records.h"
#include "writer.h"

struct parsed {
	struct sheet *sheet;
	struct colmap map;
	struct row *rows;
	int nrows, cap;
	char encoding[16], delimiter[4];
	const char *detail;   /* file_detail JSON (readfile.h), NULL until read */
};

/* CPU time of the calling thread, ms: what the worker itself spent, apart
 * from waiting (for the database, or for a core on a busy machine). */
static double thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Seconds since a worker first claimed the run (the run-duration metric). */
static double run_seconds(const struct run *run)
{
	return run->started_at > 0 ? (double)(now_ms() - run->started_at) / 1000.0 : 0;
}

static enum code fail_run(struct store *st, const struct run *run, const char *owner, enum code c,
			  const char *message, const struct parsed *p)
{
	struct run_move m = {.to = RUN_FAILED, .owner = owner, .error_code = code_name(c),
			     .error_message = message, .row_count = -1, .finish = true,
			     .file_encoding = p && *p->encoding ? p->encoding : NULL,
			     .file_delimiter = p && *p->delimiter ? p->delimiter : NULL};
	bool moved;
	enum code rc = store_run_move(st, run->id, &m, &moved);
	if (moved) {
		metrics_run("FAILED", run_seconds(run), NULL);
		log_json("info", "run failed", json_pack("{s:s,s:s,s:b,s:s}", "runId", run->id, "orgId", run->org_id,
			 "dryRun", run->dry_run, "code", code_name(c)));
	}
	return rc;
}

/* Reads the whole file (at most max_rows rows) into checked rows, mapped
 * with the org's confirmed mapping of its shape (or the template, or, for
 * a dry run of a new shape, the proposal). */
/* The next free row, growing the array by doubling: a one-row file takes
 * one row's memory, not max_rows'.  realloc, not the arena: a row is a few
 * kB, and zeroing and copying every doubling was 7% of a run's CPU (each
 * row is cleared by row_check anyway).  Freed by pipeline_run. */
static struct row *next_row(struct parsed *p)
{
	if (p->nrows == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		struct row *rows = realloc(p->rows, sizeof(struct row) * (size_t)cap);
		if (!rows)
			abort();
		p->rows = rows;
		p->cap = cap;
	}
	return &p->rows[p->nrows++];
}

static enum code parse(struct store *st, const struct pipeline_opts *o, const struct run *run, struct arena *a,
		       const unsigned char *data, size_t len, struct parsed *p, const char **ret_msg)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = (size_t)o->max_rows;
	struct import_read rd;
	import_read_for_run(&rd, st, a, run);
	enum code rc = import_sheet_open(&rd, data, len, &lim, &p->sheet, ret_msg, NULL);
	if (rc)
		return rc;
	const struct sheet_info *info = sheet_info(p->sheet);
	snprintf(p->encoding, sizeof p->encoding, "%s", info->encoding ? info->encoding : "");
	if (info->delimiter)
		snprintf(p->delimiter, sizeof p->delimiter, "%s", info->delimiter == '\t' ? "\\t" : (char[]){info->delimiter, 0});
	char shape[65];
	enum mapping_source source;
	/* The values evidence: the first data rows, read ahead (and still
	 * delivered below). */
	const struct sheet_row *const *samples;
	size_t nsamples = sheet_samples(p->sheet, &samples);
	if ((rc = mapping_resolve(st, a, run->org_id, sheet_header(p->sheet), samples, nsamples, &p->map, shape,
				  &source)))
		return rc;
	colmap_read_units(a, &p->map, info);
	const struct sheet_row *in;
	while ((rc = sheet_next_row(p->sheet, &in)) == CODE_OK && in) {
		if (p->nrows >= o->max_rows) {
			rc = CODE_TOO_MANY_ROWS;
			break;
		}
		row_check(a, &p->map, in, next_row(p));
	}
	if (rc)
		*ret_msg = sheet_message(p->sheet);
	else
		p->detail = import_file_detail(a, p->sheet);
	return rc;
}

/* In-file duplicates: the same (jobCode, loadNo) as an earlier row without
 * errors (first_seen maps the key to that row). */
static bool in_file_duplicate(struct arena *a, struct parsed *p, struct strmap *first_seen, int i)
{
	struct row *r = &p->rows[i];
	const char *job = r->v[FIELD_JOB_CODE].text, *no = r->v[FIELD_LOAD_NO].text;
	char *key = arena_printf(a, "%s\x1f%s", job, no);
	struct row *e = strmap_get(first_seen, key);
	if (!e) {
		strmap_put(first_seen, key, r);
		return false;
	}
	if (!strcmp(e->content_hash, r->content_hash)) {
		r->bucket = BUCKET_SKIPPED;
		r->reason = "duplicate_in_file";
	} else {
		r->bucket = BUCKET_FAILED;
		struct msg m = {MSG_KEY_CONFLICT, {arena_printf(a, "%u", e->number),
						   norm_quote(a, job, strlen(job), MSG_QUOTE_CHARS),
						   norm_quote(a, no, strlen(no), MSG_QUOTE_CHARS)}};
		row_add_error(r, CODE_UNIQUE_VIOLATION, FIELD_LOAD_NO, p->map.field_col[FIELD_LOAD_NO],
			      norm_excerpt(a, r->raw[FIELD_LOAD_NO], r->raw_len[FIELD_LOAD_NO], 200), m);
	}
	return true;
}

static enum code write_rows(struct store_tx *tx, struct arena *a, const struct pipeline_opts *o,
			    const struct run *run, struct parsed *p)
{
	struct write_ctx w = {.tx = tx, .a = a, .org_id = run->org_id, .run_id = run->id, .map = &p->map, .geo = o->geo};
	writer_init(&w);
	enum code lrc = writer_lock_keys(&w, p->rows, p->nrows);
	if (!lrc)
		lrc = writer_prefetch(&w, p->rows, p->nrows);
	if (lrc)
		return lrc;
	struct strmap *first_seen = strmap_new(a), *jobs_written = strmap_new(a);
	for (int i = 0; i < p->nrows; i++) {
		struct row *r = &p->rows[i];
		if (r->bucket == BUCKET_FAILED || in_file_duplicate(a, p, first_seen, i))
			continue;
		/* The first row of a job sets the Project's fields (PRODUCT §5);
		 * when it is skipped, the Project already has them, and the
		 * job's later rows leave it as it is. */
		const char *job = r->v[FIELD_JOB_CODE].text;
		enum code rc = writer_row(&w, r, strmap_get(jobs_written, job) == NULL);
		if (rc)
			return rc;
		strmap_put(jobs_written, job, r);
		if (o->debug_row_delay_ms)
			usleep((useconds_t)o->debug_row_delay_ms * 1000);
	}
	return writer_flush(&w);
}

static void tally(const struct parsed *p, int counts[4])
{
	memset(counts, 0, sizeof(int) * 4);
	for (int i = 0; i < p->nrows; i++) {
		const struct row *r = &p->rows[i];
		counts[r->bucket == BUCKET_SUCCEEDED ? COUNT_SUCCEEDED : r->bucket == BUCKET_FAILED ? COUNT_FAILED
												: COUNT_SKIPPED]++;
		if (r->bucket == BUCKET_SUCCEEDED && r->nwarnings)
			counts[COUNT_WARNINGS]++;
	}
}

/* An all-or-nothing run with failed rows (PRODUCT §15): FAILED with
 * ROWS_FAILED; the rows it would have written are counted as not
 * committed and left out of its results (they wrote nothing), the failed
 * and skipped rows kept as usual. */
static void refuse(struct arena *a, struct parsed *p, int counts[4], struct run_move *m)
{
	m->to = RUN_FAILED;
	m->error_code = code_name(CODE_ROWS_FAILED);
	m->error_message = arena_printf(a, "%d of %d rows failed, so nothing was written (all-or-nothing); "
					"%d rows would otherwise have been written.", counts[COUNT_FAILED], p->nrows,
					counts[COUNT_SUCCEEDED]);
	m->not_committed = counts[COUNT_SUCCEEDED];
	int k = 0;
	for (int i = 0; i < p->nrows; i++)
		if (p->rows[i].bucket != BUCKET_SUCCEEDED)
			p->rows[k++] = p->rows[i];
	p->nrows = k;
	counts[COUNT_SUCCEEDED] = counts[COUNT_WARNINGS] = 0;
}

/* Where a run's transaction spends its time (the "run finished" log
 * line): from its start (after any wait for the write lock) to its
 * commit, and its parts: the rows, the final state with the results
 * (built and stored), the commit. */
struct txn_times {
	double txn, rows, results, commit;
};

/* Writes the rows, their results and the outcome in one transaction.
 * *ret_committed tells whether it committed: a run cancelled, timed out or
 * taken over meanwhile is rolled back (CODE_OK, nothing written).  *wall
 * and *cpu (the thread's) say where its time went. */
static enum code commit_run(struct store *st, struct arena *a, const struct pipeline_opts *o, const struct run *run,
			    const char *owner, struct parsed *p, int counts[4], bool *ret_committed,
			    struct txn_times *wall, struct txn_times *cpu)
{
	*ret_committed = false;
	struct store_tx *tx = NULL;
	enum code rc = store_tx_begin(st, &tx);
	if (rc)
		return rc;
	double t0 = mono_ms(), c0 = thread_cpu_ms();
	bool all = !strcmp(run->commit_policy, "all");
	if ((run->dry_run || all) && (rc = store_tx_savepoint(tx)))
		goto fail;
	if ((rc = write_rows(tx, a, o, run, p)))
		goto fail;
	double t1 = mono_ms(), c1 = thread_cpu_ms();
	tally(p, counts);
	/* A dry run has done every read and write the live run would; undo the
	 * writes and keep what it learned.  An all-or-nothing run with a
	 * failed row undoes them too, in the same transaction: nothing of it
	 * was ever visible. */
	bool refused = all && counts[COUNT_FAILED] > 0;
	if ((run->dry_run || refused) && (rc = store_tx_rollback_savepoint(tx)))
		goto fail;
	struct run_move m = {.to = run_outcome(counts[0], counts[1], counts[2], counts[3]), .owner = owner,
			     .counts = counts, .file_encoding = p->encoding,
			     .file_delimiter = *p->delimiter ? p->delimiter : NULL, .row_count = p->nrows, .finish = true,
			     .file_detail = p->detail};
	if (refused)
		refuse(a, p, counts, &m);
	bool moved;
	rc = store_run_move_tx(tx, run->id, &m, &moved);
	if (!rc && !moved) {
		/* Cancelled, timed out or reclaimed meanwhile: write nothing. */
		store_tx_abort(tx);
		return CODE_OK;
	}
	if (rc)
		goto fail;
	/* The move proved the run exists and is still ours, and holds its row
	 * until the commit: its results need no further check per row (on
	 * PostgreSQL, run_results has no foreign key: migration 8). */
	if ((rc = results_save(tx, a, run, &p->map, p->rows, p->nrows)) ||
	    (rc = problems_store_rows(tx, a, run->id, &p->map, p->rows, p->nrows)))
		goto fail;
	double t2 = mono_ms(), c2 = thread_cpu_ms();
	rc = store_tx_commit(tx);
	*ret_committed = rc == CODE_OK;
	double t4 = mono_ms(), c4 = thread_cpu_ms();
	*wall = (struct txn_times){t4 - t0, t1 - t0, t2 - t1, t4 - t2};
	*cpu = (struct txn_times){c4 - c0, c1 - c0, c2 - c1, c4 - c2};
	return rc;
fail:
	store_tx_abort(tx);
	return rc;
}

enum code pipeline_run(struct store *st, const struct pipeline_opts *o, const struct run *run, const char *owner)
{
	/* A revert run has no file: it undoes another run's writes. */
	if (*run->revert_of)
		return revert_run(st, run, owner);
	unsigned char *data = NULL;
	size_t len = 0;
	enum code rc = store_run_file(st, run->id, &data, &len);
	if (rc == CODE_NOT_FOUND)
		return fail_run(st, run, owner, CODE_EMPTY_FILE, "The uploaded file is missing.", NULL);
	if (rc)
		return rc;
	struct arena *a = arena_new();
	struct parsed p = {0};
	const char *msg = NULL;
	double tp = mono_ms(), cp = thread_cpu_ms();
	rc = parse(st, o, run, a, data, len, &p, &msg);
	double parse_ms = mono_ms() - tp, parse_cpu = thread_cpu_ms() - cp;
	if (rc == CODE_SERVICE_UNAVAILABLE || rc == CODE_INTERNAL_ERROR) {
		/* storage trouble while resolving the mapping: retried */
	} else if (rc) {
		/* Only parse-level codes may end a run; anything else the reader
		 * says about a file the upload accepted is a malformed file. */
		if (code_kind(rc) != CODE_KIND_PARSE)
			rc = strcmp(run->file_format, "xlsx") ? CODE_MALFORMED_CSV : CODE_MALFORMED_XLSX;
		rc = fail_run(st, run, owner, rc, msg, &p);
	} else {
		int counts[4];
		double t0 = mono_ms();
		struct txn_times wall = {0}, cpu = {0};
		bool committed;
		rc = commit_run(st, a, o, run, owner, &p, counts, &committed, &wall, &cpu);
		if (!rc && !committed)
			log_json("info", "run abandoned: cancelled, timed out or taken over meanwhile; nothing written",
				 json_pack("{s:s,s:s,s:b}", "runId", run->id, "orgId", run->org_id, "dryRun", run->dry_run));
		if (!rc && committed) {
			metrics_run(run_state_name(run_outcome(counts[0], counts[1], counts[2], counts[3])),
				    run_seconds(run), counts);
			log_json("info", "run finished", json_pack("{s:s,s:s,s:s,s:o,s:b,s:i,s:i,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:o}",
				 "runId", run->id, "orgId", run->org_id, "state", run_state_name(run_outcome(counts[0],
				 counts[1], counts[2], counts[3])), "fileName", log_json_str(run->file_name),
				 "dryRun", run->dry_run, "rows", p.nrows, "succeeded", counts[0],
				 "warnings", counts[1], "failed", counts[2], "skipped", counts[3], "ms", mono_ms() - t0,
				 "txnMs", wall.txn, "parseMs", parse_ms, "rowsMs", wall.rows, "resultsMs", wall.results,
				 "commitMs", wall.commit, "cpuMs", json_pack("{s:f,s:f,s:f,s:f,s:f}", "parse", parse_cpu,
				 "txn", cpu.txn, "rows", cpu.rows, "results", cpu.results, "commit", cpu.commit)));
		}
	}
	sheet_free(p.sheet);
	free(p.rows);
	arena_free(a);
	free(data);
	return rc;
}
