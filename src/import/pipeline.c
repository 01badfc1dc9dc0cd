/* Orchestration of a run: read, check, write and keep results batch by
 * batch, then the outcome (PRODUCT §16). */
#include "pipeline.h"

#include <errno.h>
#include <stdint.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/spool.h"
#include "keyset.h"
#include "mapping.h"
#include "metrics/metrics.h"
#include "readfile.h"
#include "results.h"
#include "revert.h"
#include "rows.h"
#include "store/records.h"
#include "problems.h"
#include "writer.h"

/* A run's reading of its file, kept across its batches: the sheet, the
 * mapping (in the run's arena), and of the rows already read only what
 * the rules need (keyset.h). */
struct stream {
	struct arena *a;            /* the run's: mapping, reader options */
	struct import_read rd;
	struct sheet_limits lim;
	struct sheet *sheet;
	struct colmap map;
	char encoding[16], delimiter[4];
	const char *detail;         /* file_detail JSON (readfile.h), NULL until the end */
	int rows_total;             /* data rows of the file, -1 until counted */
	int rows_read;              /* data rows read so far (skipped ones of a resumed run too) */
	bool eof;
	struct keyset *first_seen;  /* jobCode\x1floadNo -> first row without errors, its content */
	struct keyset *jobs;        /* job codes of rows that reached the writer */
	/* The problem groups of the batches committed so far (in a), stored
	 * when the run ends (import/problems.h); NULL until a batch that is
	 * not the last committed, or in a resumed run, whose earlier batches
	 * are grouped from their stored results instead. */
	struct problem_tally *tally;
	bool resumed;
	struct spool *spool;        /* the upload's, when it is read from one (big files); NULL */
};

/* One batch: its rows and the arena (reset between batches) that holds
 * their texts, the writer's caches and the results being built. */
struct batch {
	struct arena *a;
	struct row *rows;
	int n, cap;
};

/* Where a run's time went (the "run finished" log line), summed over its
 * batches: reading and checking rows, and its transactions from their
 * start (after any wait for the write lock) to their commits, with their
 * parts: the rows, the checkpoint or final state with the results, the
 * commit. */
struct txn_times {
	double txn, rows, results, commit;
};

/* What a run has done so far in this attempt. */
struct progress {
	int counts[4];              /* of the rows committed (and the batch being committed) */
	int64_t started;            /* this attempt's start (ms) */
	int rows_at_start;          /* rows_done when it started (a resumed run's checkpoint) */
	int64_t notified;           /* the last run-changed notification (mono ms) */
	int batches;
	int analyzed_at;            /* rows_read when the statistics were last refreshed */
	double parse_ms, parse_cpu;
	struct txn_times wall, cpu;
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
			  const char *message, const struct stream *s)
{
	struct run_move m = {.to = RUN_FAILED, .owner = owner, .error_code = code_name(c),
			     .error_message = message, .row_count = -1, .finish = true,
			     .file_encoding = s && *s->encoding ? s->encoding : NULL,
			     .file_delimiter = s && *s->delimiter ? s->delimiter : NULL};
	bool moved;
	enum code rc = store_run_move(st, run->id, &m, &moved);
	if (moved) {
		metrics_run("FAILED", run_seconds(run), NULL);
		log_json("info", "run failed", json_pack("{s:s,s:s,s:b,s:s}", "runId", run->id, "orgId", run->org_id,
			 "dryRun", run->dry_run, "code", code_name(c)));
	}
	return rc;
}

/* Opens the file and resolves its mapping: the org's confirmed mapping of
 * its shape (or the template, or, for a dry run of a new shape, the
 * proposal). */
static enum code stream_open(struct store *st, const struct pipeline_opts *o, const struct run *run,
			     const unsigned char *data, size_t len, struct stream *s, const char **ret_msg)
{
	sheet_limits_default(&s->lim);
	s->lim.max_rows = (size_t)o->max_rows;
	s->lim.spool_dir = o->spool_dir;   /* a big workbook's shared strings spill there */
	if (s->spool) {
		s->lim.drop = spool_forget_hook;   /* the whole-file checks hold none of it */
		s->lim.drop_arg = s->spool;
	}
	import_read_for_run(&s->rd, st, s->a, run);
	enum code rc = import_sheet_open(&s->rd, data, len, &s->lim, &s->sheet, ret_msg, NULL);
	if (rc)
		return rc;
	const struct sheet_info *info = sheet_info(s->sheet);
	snprintf(s->encoding, sizeof s->encoding, "%s", info->encoding ? info->encoding : "");
	if (info->delimiter)
		snprintf(s->delimiter, sizeof s->delimiter, "%s", info->delimiter == '\t' ? "\\t" : (char[]){info->delimiter, 0});
	char shape[65];
	enum mapping_source source;
	/* The values evidence: the first data rows, read ahead (and still
	 * delivered by sheet_next_row). */
	const struct sheet_row *const *samples;
	size_t nsamples = sheet_samples(s->sheet, &samples);
	if ((rc = mapping_resolve(st, s->a, run->org_id, sheet_header(s->sheet), samples, nsamples, &s->map, shape,
				  &source)))
		return rc;
	colmap_read_units(s->a, &s->map, info);
	return CODE_OK;
}

/* Counts the file's data rows with a reader of its own, before the first
 * batch commits: a file that cannot be read to its end (too many rows,
 * broken past the first batch) fails the run with nothing written, as
 * before batches, and the progress knows its total.  Holds no row. */
static enum code stream_count(struct stream *s, const unsigned char *data, size_t len, int max_rows,
			      const char **ret_msg)
{
	struct sheet *sh = NULL;
	enum code rc = import_sheet_open(&s->rd, data, len, &s->lim, &sh, ret_msg, NULL);
	int n = 0;
	const struct sheet_row *in;
	while (!rc && !(rc = sheet_next_row(sh, &in)) && in) {
		if (++n > max_rows)
			rc = CODE_TOO_MANY_ROWS;
		if (s->spool && n % 4096 == 0)
			spool_forget(s->spool);   /* a pass over a big file holds none of it */
	}
	if (s->spool)
		spool_forget(s->spool);
	if (rc && sh)
		*ret_msg = arena_strdup(s->a, sheet_message(sh));
	sheet_free(sh);
	if (!rc) {
		s->rows_total = n;
		keyset_reserve(s->first_seen, (size_t)n);   /* at most a key a row, never doubled */
	}
	return rc;
}

/* The batch's next free row, growing its array by doubling (a one-row file
 * takes one row's memory).  realloc, not the arena: a row is ~2 kB, and
 * the array is kept from batch to batch. */
static struct row *batch_next(struct batch *b)
{
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 16;
		struct row *rows = realloc(b->rows, sizeof(struct row) * (size_t)cap);
		if (!rows)
			abort();
		b->rows = rows;
		b->cap = cap;
	}
	return &b->rows[b->n++];
}

/* Empties the batch for the next one (the array stays). */
static void batch_clear(struct batch *b)
{
	arena_reset(b->a);
	b->n = 0;
}

/* Reads the next data row into the batch, checked; *ret NULL at the end
 * (then the file detail is known). */
static enum code stream_next(struct stream *s, struct batch *b, int max_rows, struct row **ret, const char **ret_msg)
{
	*ret = NULL;
	if (s->eof)
		return CODE_OK;
	const struct sheet_row *in;
	enum code rc = sheet_next_row(s->sheet, &in);
	if (!rc && in && s->rows_read >= max_rows)
		rc = CODE_TOO_MANY_ROWS;
	if (rc) {
		*ret_msg = sheet_message(s->sheet);
		return rc;
	}
	if (!in) {
		s->eof = true;
		s->detail = import_file_detail(s->a, s->sheet);
		return CODE_OK;
	}
	s->rows_read++;
	*ret = batch_next(b);
	row_check(b->a, &s->map, in, *ret);
	return CODE_OK;
}

/* Fills the batch up to limit rows; reaching the counted total reads on to
 * the end, so that the last batch knows it is the last. */
static enum code batch_fill(struct stream *s, struct batch *b, int limit, int max_rows, const char **ret_msg)
{
	struct row *r = NULL;
	enum code rc = CODE_OK;
	while (b->n < limit && !s->eof && !(rc = stream_next(s, b, max_rows, &r, ret_msg)))
		;
	if (!rc && !s->eof && s->rows_total >= 0 && s->rows_read >= s->rows_total)
		rc = stream_next(s, b, max_rows, &r, ret_msg);
	return rc;
}

/* 32 bits of a row's content hash (hex), for the in-file duplicate test. */
static uint32_t content32(const char *hex)
{
	char head[9];
	memcpy(head, hex, 8);
	head[8] = 0;
	return (uint32_t)strtoul(head, NULL, 16);
}

/* The in-file rules (PRODUCT §5) for a checked row: one with errors goes
 * no further; a repeat of an earlier row's (jobCode, loadNo) is skipped
 * as duplicate_in_file (same content) or fails with UNIQUE_VIOLATION
 * naming that row (other content).  Returns whether r goes on to the
 * writer; remembers its key when it is the first. */
static bool track_key(struct stream *s, struct arena *a, struct row *r)
{
	if (r->bucket == BUCKET_FAILED)
		return false;
	const char *job = r->v[FIELD_JOB_CODE].text, *no = r->v[FIELD_LOAD_NO].text;
	uint32_t content = content32(r->content_hash), first, first_content;
	if (!keyset_put(s->first_seen, keyset_hash(job, no), r->number, content, &first, &first_content))
		return true;
	if (first_content == content) {
		r->bucket = BUCKET_SKIPPED;
		r->reason = "duplicate_in_file";
	} else {
		r->bucket = BUCKET_FAILED;
		struct msg m = {MSG_KEY_CONFLICT, {arena_printf(a, "%u", first),
						   norm_quote(a, job, strlen(job), MSG_QUOTE_CHARS),
						   norm_quote(a, no, strlen(no), MSG_QUOTE_CHARS)}};
		row_add_error(r, CODE_UNIQUE_VIOLATION, FIELD_LOAD_NO, s->map.field_col[FIELD_LOAD_NO],
			      norm_excerpt(a, r->raw[FIELD_LOAD_NO], r->raw_len[FIELD_LOAD_NO], 200), m);
	}
	return false;
}

/* Whether r is the first row of its job to reach the writer: it sets the
 * Project's fields (PRODUCT §5; when it is skipped, the Project already
 * has them, and the job's later rows leave it as it is). */
static bool first_of_job(struct stream *s, const struct row *r)
{
	return !keyset_put(s->jobs, keyset_hash(r->v[FIELD_JOB_CODE].text, NULL), 0, 0, NULL, NULL);
}

/* A resumed run (PRODUCT §16): the rows its earlier attempts committed
 * (up to row number upto) are read and checked again but not written,
 * only to rebuild what the rules keep of them.  The first row past upto
 * is left in the batch. */
static enum code stream_skip(struct stream *s, struct batch *b, unsigned upto, int max_rows, const char **ret_msg)
{
	struct row *r = NULL;
	enum code rc;
	while (!(rc = stream_next(s, b, max_rows, &r, ret_msg)) && r && r->number <= upto) {
		if (track_key(s, b->a, r))
			first_of_job(s, r);
		batch_clear(b);
	}
	return rc;
}

static enum code write_batch(struct store_tx *tx, const struct pipeline_opts *o, const struct run *run,
			     struct stream *s, struct batch *b)
{
	struct write_ctx w = {.tx = tx, .a = b->a, .org_id = run->org_id, .run_id = run->id, .map = &s->map,
			      .geo = o->geo};
	writer_init(&w);
	enum code rc = writer_lock_keys(&w, b->rows, b->n);
	if (!rc)
		rc = writer_prefetch(&w, b->rows, b->n);
	for (int i = 0; !rc && i < b->n; i++) {
		struct row *r = &b->rows[i];
		if (!track_key(s, b->a, r))
			continue;
		rc = writer_row(&w, r, first_of_job(s, r));
		if (o->debug_row_delay_ms)
			usleep((useconds_t)o->debug_row_delay_ms * 1000);
	}
	return rc ? rc : writer_flush(&w);
}

static void tally(const struct batch *b, int counts[4])
{
	for (int i = 0; i < b->n; i++) {
		const struct row *r = &b->rows[i];
		counts[r->bucket == BUCKET_SUCCEEDED ? COUNT_SUCCEEDED : r->bucket == BUCKET_FAILED ? COUNT_FAILED
												: COUNT_SKIPPED]++;
		if (r->bucket == BUCKET_SUCCEEDED && r->nwarnings)
			counts[COUNT_WARNINGS]++;
	}
}

/* An all-or-nothing run with failed rows (PRODUCT §15): FAILED with
 * ROWS_FAILED; the rows it would have written are counted as not
 * committed and left out of its results (they wrote nothing), the failed
 * and skipped rows kept as usual.  Such a run is one batch. */
static void refuse(struct arena *a, struct batch *b, int counts[4], struct run_move *m)
{
	m->to = RUN_FAILED;
	m->error_code = code_name(CODE_ROWS_FAILED);
	m->error_message = arena_printf(a, "%d of %d rows failed, so nothing was written (all-or-nothing); "
					"%d rows would otherwise have been written.", counts[COUNT_FAILED], b->n,
					counts[COUNT_SUCCEEDED]);
	m->not_committed = counts[COUNT_SUCCEEDED];
	int k = 0;
	for (int i = 0; i < b->n; i++)
		if (b->rows[i].bucket != BUCKET_SUCCEEDED)
			b->rows[k++] = b->rows[i];
	b->n = k;
	counts[COUNT_SUCCEEDED] = counts[COUNT_WARNINGS] = 0;
}

/* Rows per second of this attempt. */
static int rows_per_second(const struct stream *s, const struct progress *pg)
{
	int64_t ms = now_ms() - pg->started;
	return ms > 0 ? (int)((int64_t)(s->rows_read - pg->rows_at_start) * 1000 / ms) : 0;
}

/* A batch that is not the last: its checkpoint and the counts so far,
 * while the run is still RUNNING under our lease (*ret_ours), then the
 * batch's results. */
static enum code checkpoint_tx(struct store_tx *tx, const struct run *run, const char *owner,
			       struct stream *s, const struct batch *b, const struct progress *pg,
			       bool *ret_ours)
{
	struct run_checkpoint c = {.owner = owner, .rows_done = s->rows_read,
				   .last_row = b->n ? b->rows[b->n - 1].number : run->ckpt_row,
				   .rows_per_second = rows_per_second(s, pg), .counts = pg->counts,
				   .row_count = s->rows_total};
	enum code rc = store_run_checkpoint_tx(tx, run->id, &c, ret_ours);
	/* The checkpoint proved the run exists and is still ours, and holds
	 * its row until the commit: its results need no further check per row
	 * (on PostgreSQL, run_results has no foreign key: migration 8). */
	if (!rc && *ret_ours)
		rc = results_save(tx, b->a, run, &s->map, b->rows, b->n);
	if (!rc && *ret_ours && !s->resumed) {
		if (!s->tally)
			s->tally = results_tally_new(s->a, &s->map, "");
		results_tally_rows(s->tally, b->rows, b->n);
	}
	return rc;
}

/* The run's problem groups, stored once as it ends (after its last
 * results): a run of one batch groups its rows in memory, a run of
 * several adds its last batch to the tally of the others, a resumed run
 * reads its stored results back. */
static enum code store_problems(struct store_tx *tx, struct arena *a, const struct run *run,
				const struct stream *s, const struct batch *b)
{
	if (s->resumed)
		return problems_store(tx, a, run->id);
	if (!s->tally)
		return problems_store_rows(tx, a, run->id, &s->map, b->rows, b->n);
	results_tally_rows(s->tally, b->rows, b->n);
	return problems_store_tally(tx, a, run->id, s->tally);
}

/* The final step: the run's last transaction moves it to its outcome, with
 * the last batch and its results (a dry run, and a commit=all run, are
 * that one batch: undo says their writes were made under a savepoint,
 * rolled back here when the run is dry or refused).  What must happen
 * once when a run ends, in the same transaction, belongs at the end of
 * this function, where every result of the run is stored.  *ret_moved is
 * false when the run was moved or taken over meanwhile: nothing more is
 * done, and the caller rolls back. */
static enum code finish_run_tx(struct store_tx *tx, struct arena *a, const struct run *run, const char *owner,
			       const struct stream *s, struct batch *b, int counts[4], bool undo, bool *ret_moved)
{
	bool refused = !strcmp(run->commit_policy, "all") && counts[COUNT_FAILED] > 0;
	enum code rc;
	if (undo && (run->dry_run || refused) && (rc = store_tx_rollback_savepoint(tx)))
		return rc;
	struct run_move m = {.to = run_outcome(counts[0], counts[1], counts[2], counts[3]), .owner = owner,
			     .counts = counts, .file_encoding = s->encoding,
			     .file_delimiter = *s->delimiter ? s->delimiter : NULL, .row_count = s->rows_read,
			     .finish = true, .file_detail = s->detail};
	if (refused)
		refuse(a, b, counts, &m);
	if ((rc = store_run_move_tx(tx, run->id, &m, ret_moved)) || !*ret_moved)
		return rc;
	/* As for a checkpoint: the move proved the run is ours. */
	if ((rc = results_save(tx, a, run, &s->map, b->rows, b->n)))
		return rc;
	return store_problems(tx, a, run, s, b);
}

/* Commits one batch: its writes, its results and the checkpoint (or, for
 * the last, the outcome) in one transaction, which proves the run is
 * still ours and RUNNING.  *ret_ours false: it was not (cancelled, timed
 * out or taken over), and this batch was rolled back. */
static enum code commit_batch(struct store *st, const struct pipeline_opts *o, const struct run *run,
			      const char *owner, struct stream *s, struct batch *b, struct progress *pg, bool *ret_ours)
{
	*ret_ours = false;
	struct store_tx *tx = NULL;
	enum code rc = store_tx_begin(st, &tx);
	if (rc)
		return rc;
	double t0 = mono_ms(), c0 = thread_cpu_ms();
	bool undo = s->eof && pg->batches == 0 && (run->dry_run || !strcmp(run->commit_policy, "all"));
	if (undo && (rc = store_tx_savepoint(tx)))
		goto fail;
	if ((rc = write_batch(tx, o, run, s, b)))
		goto fail;
	double t1 = mono_ms(), c1 = thread_cpu_ms();
	tally(b, pg->counts);
	rc = s->eof ? finish_run_tx(tx, b->a, run, owner, s, b, pg->counts, undo, ret_ours)
		    : checkpoint_tx(tx, run, owner, s, b, pg, ret_ours);
	if (!rc && !*ret_ours) {
		store_tx_abort(tx);
		return CODE_OK;
	}
	if (rc)
		goto fail;
	double t2 = mono_ms(), c2 = thread_cpu_ms();
	rc = store_tx_commit(tx);
	double t3 = mono_ms(), c3 = thread_cpu_ms();
	pg->wall = (struct txn_times){pg->wall.txn + t3 - t0, pg->wall.rows + t1 - t0, pg->wall.results + t2 - t1,
				      pg->wall.commit + t3 - t2};
	pg->cpu = (struct txn_times){pg->cpu.txn + c3 - c0, pg->cpu.rows + c1 - c0, pg->cpu.results + c2 - c1,
				     pg->cpu.commit + c3 - c2};
	pg->batches++;
	*ret_ours = rc == CODE_OK;
	return rc;
fail:
	store_tx_abort(tx);
	return rc;
}

/* Tells long polls of the run's progress (its ETag changed): after the
 * first batch, then at most every PROGRESS_NOTIFY_MS. */
#define PROGRESS_NOTIFY_MS 200
static void progress_changed(struct store *st, const struct run *run, struct progress *pg)
{
	int64_t t = mono_ms();
	if (pg->batches == 1 || t - pg->notified >= PROGRESS_NOTIFY_MS) {
		pg->notified = t;
		store_run_changed(st, run->id);
	}
}

/* The planner's statistics of the Loads, refreshed as a big import grows
 * the table: after STATS_FIRST_ROWS rows, then each time it has doubled
 * what it had written at the last refresh (a dozen times in a million
 * rows, ~50 ms each). */
#define STATS_FIRST_ROWS 10000
static void refresh_statistics(struct store *st, const struct stream *s, struct progress *pg)
{
	int since = s->rows_read - pg->analyzed_at;
	if (since >= STATS_FIRST_ROWS && since >= pg->analyzed_at) {
		store_refresh_statistics(st);
		pg->analyzed_at = s->rows_read;
	}
}

/* The next batch's size: the configured one at most, halved while a batch
 * takes over BATCH_MAX_MS (slow rows: others would wait, and the progress
 * would stall), doubled back once one takes under a quarter of it. */
#define BATCH_MAX_MS 1000.0
static int next_limit(int limit, int most, double took_ms)
{
	if (took_ms > BATCH_MAX_MS && limit > 1)
		return limit / 2;
	if (took_ms < BATCH_MAX_MS / 4 && limit < most)
		return limit * 2 < most ? limit * 2 : most;
	return limit;
}

/* Reads and commits the file batch by batch from the run's checkpoint,
 * until the run is settled (*ret_ours) or no longer ours (!*ret_ours).  A
 * dry run and a commit=all run are one batch.  *ret_read_failed says the
 * code is the file's (it cannot be read), else a transient failure. */
static enum code stream_run(struct store *st, const struct pipeline_opts *o, const struct run *run,
			    const char *owner, const unsigned char *data, size_t len, struct stream *s, struct batch *b,
			    struct progress *pg, const char **ret_msg, bool *ret_read_failed, bool *ret_ours)
{
	bool one = run->dry_run || !strcmp(run->commit_policy, "all");
	int most = one ? o->max_rows + 1 : o->batch_rows > 0 ? o->batch_rows : PIPELINE_BATCH_ROWS, limit = most;
	enum code rc = CODE_OK;
	*ret_ours = true;
	double tp = mono_ms(), cp = thread_cpu_ms();
	if (run->ckpt_row > 0)
		rc = stream_skip(s, b, run->ckpt_row, o->max_rows, ret_msg);
	while (!rc && *ret_ours) {
		if (!(rc = batch_fill(s, b, limit, o->max_rows, ret_msg)) && !s->eof && s->rows_total < 0)
			rc = stream_count(s, data, len, o->max_rows, ret_msg);
		pg->parse_ms += mono_ms() - tp;
		pg->parse_cpu += thread_cpu_ms() - cp;
		if (rc) {
			*ret_read_failed = true;
			break;
		}
		double tb = mono_ms();
		if ((rc = commit_batch(st, o, run, owner, s, b, pg, ret_ours)) || !*ret_ours || s->eof)
			break;
		limit = next_limit(limit, most, mono_ms() - tb);
		progress_changed(st, run, pg);
		refresh_statistics(st, s, pg);
		store_yield_to_writers(st);
		batch_clear(b);
		if (s->spool)
			spool_forget(s->spool);   /* the rows read so far leave resident memory */
		tp = mono_ms();
		cp = thread_cpu_ms();
	}
	return rc;
}

static void log_finished(const struct run *run, const struct stream *s, const struct progress *pg, double t0)
{
	const int *counts = pg->counts;
	metrics_run(run_state_name(run_outcome(counts[0], counts[1], counts[2], counts[3])), run_seconds(run),
		    counts);
	log_json("info", "run finished", json_pack("{s:s,s:s,s:s,s:o,s:b,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:o}",
		 "runId", run->id, "orgId", run->org_id, "state", run_state_name(run_outcome(counts[0], counts[1],
		 counts[2], counts[3])), "fileName", log_json_str(run->file_name), "dryRun", run->dry_run,
		 "rows", s->rows_read,
		 "batches", pg->batches, "succeeded", counts[0], "warnings", counts[1], "failed", counts[2],
		 "skipped", counts[3], "ms", mono_ms() - t0, "txnMs", pg->wall.txn, "parseMs", pg->parse_ms,
		 "rowsMs", pg->wall.rows, "resultsMs", pg->wall.results, "commitMs", pg->wall.commit,
		 "cpuMs", json_pack("{s:f,s:f,s:f,s:f,s:f}", "parse", pg->parse_cpu, "txn", pg->cpu.txn,
				    "rows", pg->cpu.rows, "results", pg->cpu.results, "commit", pg->cpu.commit)));
}

/* A file the reader gave up on: the run fails with the file's code, or is
 * retried when storage failed while resolving the mapping. */
static enum code read_failed(struct store *st, const struct run *run, const char *owner, enum code rc,
			     const char *msg, const struct stream *s)
{
	if (rc == CODE_SERVICE_UNAVAILABLE || rc == CODE_INTERNAL_ERROR)
		return rc;
	/* Only parse-level codes may end a run; anything else the reader says
	 * about a file the upload accepted is a malformed file. */
	if (code_kind(rc) != CODE_KIND_PARSE)
		rc = strcmp(run->file_format, "xlsx") ? CODE_MALFORMED_CSV : CODE_MALFORMED_XLSX;
	return fail_run(st, run, owner, rc, msg, s);
}

/* The run's upload: in memory (*ret_data, freed by the caller), or for a
 * big one, inflated into spool and mapped (*ret_data is its mapping; the
 * caller closes spool).  As store_run_file. */
static enum code load_upload(struct store *st, const struct pipeline_opts *o, const struct run *run,
			     struct spool *spool, unsigned char **ret_data, size_t *ret_len)
{
	if (!o->spool_dir || run->file_size <= (int64_t)PIPELINE_SPOOL_BYTES)
		return store_run_file(st, run->id, ret_data, ret_len);
	if (spool_open(spool, o->spool_dir, SIZE_MAX / 2)) {
		log_json("error", "cannot open a spool file for a big upload", json_pack("{s:s,s:s}", "dir",
			 o->spool_dir, "cause", strerror(errno)));
		return CODE_SERVICE_UNAVAILABLE;
	}
	enum code rc = store_run_file_spool(st, run->id, spool);
	if (!rc && spool_map(spool))
		rc = CODE_SERVICE_UNAVAILABLE;
	if (rc) {
		spool_close(spool);
		spool->fd = -1;
		return rc;
	}
	*ret_data = spool->map ? spool->map : (unsigned char *)"";
	*ret_len = spool->len;
	return CODE_OK;
}

enum code pipeline_run(struct store *st, const struct pipeline_opts *o, const struct run *run, const char *owner)
{
	/* A revert run has no file: it undoes another run's writes. */
	if (*run->revert_of)
		return revert_run(st, run, owner);
	unsigned char *data = NULL;
	size_t len = 0;
	struct spool spool = {.fd = -1};
	enum code rc = load_upload(st, o, run, &spool, &data, &len);
	if (rc == CODE_NOT_FOUND)
		return fail_run(st, run, owner, CODE_EMPTY_FILE, "The uploaded file is missing.", NULL);
	if (rc)
		return rc;
	double t0 = mono_ms();
	struct stream s = {.a = arena_new(), .rows_total = -1, .first_seen = keyset_new(), .jobs = keyset_new(),
			   .spool = spool.fd >= 0 ? &spool : NULL};
	struct batch b = {.a = arena_new()};
	struct progress pg = {.started = now_ms()};
	if (run->ckpt_row > 0) {
		/* Resumed: the counts and total of what was committed. */
		memcpy(pg.counts, run->counts, sizeof pg.counts);
		pg.rows_at_start = run->rows_done;
		s.rows_total = run->row_count;
		keyset_reserve(s.first_seen, run->row_count > 0 ? (size_t)run->row_count : 0);
		s.resumed = true;
	}
	const char *msg = NULL;
	bool failed_read = false, ours = false;
	double tp = mono_ms(), cp = thread_cpu_ms();
	if ((rc = stream_open(st, o, run, data, len, &s, &msg)))
		failed_read = true;
	pg.parse_ms = mono_ms() - tp;
	pg.parse_cpu = thread_cpu_ms() - cp;
	if (!rc)
		rc = stream_run(st, o, run, owner, data, len, &s, &b, &pg, &msg, &failed_read, &ours);
	if (failed_read)
		rc = read_failed(st, run, owner, rc, msg, &s);
	else if (!rc && !ours)
		log_json("info", "run abandoned: cancelled, timed out or taken over meanwhile; its current batch rolled back, the batches before it stay",
			 json_pack("{s:s,s:s,s:b,s:i}", "runId", run->id, "orgId", run->org_id, "dryRun", run->dry_run,
				   "batches", pg.batches));
	else if (!rc)
		log_finished(run, &s, &pg, t0);
	sheet_free(s.sheet);
	keyset_free(s.first_seen);
	keyset_free(s.jobs);
	free(b.rows);
	arena_free(b.a);
	arena_free(s.a);
	if (spool.fd >= 0)
		spool_close(&spool);
	else
		free(data);
	return rc;
}
