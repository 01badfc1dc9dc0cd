/* The floors of the import benchmark (bench/bench_import.c): the same rows
 * an import writes, inserted raw, and the reads a no-op re-push needs.
 * Exists only for bench/ to measure those floors; the service never calls
 * it and it is not in the core library. */
#ifndef LOADLINE_BENCH_FLOOR_H
#define LOADLINE_BENCH_FLOOR_H

#include <stddef.h>

#include "base/codes.h"
#include "store/store.h"

/* Inserts, in one write transaction on one pooled connection, jobs
 * projects, sites named locations and rows loads (row i in project i % jobs,
 * picking up at site (7i) % sites and dropping off at (11i + 3) % sites, as
 * the bench's file does): plain INSERTs of values computed before the
 * transaction starts (ids, dates, a content hash), no look-ups, no per-row
 * results.  Job codes and site names carry a random salt, so repeated calls
 * never collide.  Returns CODE_OK, or the first storage error (the
 * transaction is rolled back). */
enum code store_bench_raw_insert(struct store *st, const char *org_id, int jobs, int rows, int sites);

/* The size of each result row of a run, read back for the next floor. */
struct bench_result_size {
	char bucket[16];
	int row_index;
	size_t len;
};

/* Every (bucket, row index, body length) of run_id's results, in *ret
 * (free it) and *ret_n. */
enum code store_bench_result_sizes(struct store *st, const char *run_id, struct bench_result_size **ret, int *ret_n);

/* The bytes run_id's upload takes as stored (deflated when that saved). */
enum code store_bench_upload_size(struct store *st, const char *run_id, size_t *ret);

/* The floor of what an import must write, not only its records (SQLite's
 * import verdict, issue 21): in one transaction
 * a run row and file_len bytes of stored upload, committed (as a POST
 * commits before its 202); then in a second transaction the same rows as
 * store_bench_raw_insert, one result row of each given size (filler text,
 * one INSERT each) and the run's end.  Values computed up front, no
 * look-ups, no JSON built. */
enum code store_bench_required_writes(struct store *st, const char *org_id, int jobs, int rows, int sites,
				      size_t file_len, const struct bench_result_size *sizes, int nsizes);

/* PostgreSQL only (CODE_OK without doing anything elsewhere; *ret_done
 * says whether it ran): the same projects, locations and loads as
 * store_bench_raw_insert, the way a bulk loader would write them — rows
 * streamed with COPY into a temporary staging table, then three set-based
 * upserts (projects, locations, loads joined to both), in one transaction. */
enum code store_bench_copy_floor(struct store *st, const char *org_id, int jobs, int rows, int sites, bool *ret_done);

/* The floor of a big import in batches (issue 29): rows loads of the big-file
 * bench's shape (about 20 a job, row i in job (7i) % jobs, so consecutive
 * rows are in different jobs, picking up and dropping off at two of sites
 * named locations), written batch rows to a transaction as the pipeline
 * commits them: the batch's new projects, its loads, one result row of
 * result_len bytes a row and the run's checkpoint — plain INSERTs of values
 * computed up front, no look-ups, no JSON built.  *ret_ms: the wall time of
 * the transactions alone. */
enum code store_bench_batched_floor(struct store *st, const char *org_id, int rows, int batch, int sites,
				    size_t result_len, double *ret_ms);

/* The no-op floor: in one read transaction, each of the org's projects
 * looked up by job code and each of its loads by (project, load number),
 * reading the content hash: what deciding that a re-pushed file changes
 * nothing needs at least. */
enum code store_bench_noop_reads(struct store *st, const char *org_id);

#endif
