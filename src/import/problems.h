/* A run's problem groups computed once, when the run ends (PRODUCT §16:
 * problems and the run page answer in ≤ 50 ms at 1,000,000 rows), and
 * served from storage (store/problems.h, migration 19). */
#ifndef LOADLINE_IMPORT_PROBLEMS_H
#define LOADLINE_IMPORT_PROBLEMS_H

#include "base/arena.h"
#include "import/results.h"

struct store;
struct store_tx;

/* Groups the problems of run_id's results as results_problems does, read
 * in tx (the run's final transaction, after its results are written), and
 * stores them there.  Call it once the run's last results are in. */
enum code problems_store(struct store_tx *tx, struct arena *a, const char *run_id);
/* The same for a run whose results are exactly rows (results_save's), grouped
 * in memory rather than read back: what a run written in one transaction
 * calls (a 750-row run's final step would spend ~3 ms reading back and
 * parsing its results).  A run written in batches groups what it stored
 * with problems_store. */
enum code problems_store_rows(struct store_tx *tx, struct arena *a, const char *run_id, const struct colmap *map,
			      const struct row *rows, int nrows);
/* The groups a run written in batches tallied as it went
 * (results_tally_new with docs_url "", results_tally_rows per batch),
 * stored in its final transaction: grouping a million stored results
 * back takes ~4 s (docs/benchmarks.md), too long to hold the write lock. */
enum code problems_store_tally(struct store_tx *tx, struct arena *a, const char *run_id, struct problem_tally *t);

/* The groups at positions after .. after+limit-1 (*ret in a, *ret_n of
 * them) and *ret_total, how many the run has: the stored ones, or for a
 * run that ended before they were stored, computed from its results
 * (results_problems).  docUrl is made under docs_url. */
enum code problems_page(struct store *st, struct arena *a, const char *run_id, const char *docs_url, int after,
			int limit, struct run_problem ***ret, int *ret_n, int *ret_total);

#endif
