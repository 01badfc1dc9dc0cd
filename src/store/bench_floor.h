/* The floor of the import benchmark (bench/bench_import.c): the same rows
 * an import writes, inserted raw.  Exists only for bench/ to measure that
 * floor; the service never calls it and it is not in the core library. */
#ifndef LOADLINE_STORE_BENCH_FLOOR_H
#define LOADLINE_STORE_BENCH_FLOOR_H

#include "base/codes.h"
#include "store/store.h"

/* Inserts jobs projects and jobs * loads_per_job loads for org_id in one
 * write transaction on one pooled connection: plain INSERTs of values
 * computed before the transaction starts (ids, dates, a content hash), no
 * look-ups, no per-row results.  Job codes are "F<n>-<random>", so repeated
 * calls never collide.  Returns CODE_OK, or the first storage error (the
 * transaction is rolled back). */
enum code store_bench_raw_insert(struct store *st, const char *org_id, int jobs, int loads_per_job);

#endif
