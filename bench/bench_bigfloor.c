/* The floor of a big import (issue 29): what a batched import of the
 * big-file bench's rows must commit at least, written raw through the db
 * layer in the pipeline's batches (bench/bench_floor.c,
 * store_bench_batched_floor).  bench/bench_bigfile.py runs it on a fresh
 * database of each backend and prints the import's rows/s against it.
 *
 *   bench_bigfloor URL ROWS [BATCH [RESULT_BYTES]]
 *
 * Prints one JSON object: {"rows", "batch", "ms", "rowsPerSecond"}, and on
 * PostgreSQL "copyRowsPerSecond": the same number of rows written the way a
 * bulk loader would, batch rows at a time (COPY into a temporary table and
 * three set-based upserts a batch, store_bench_copy_floor) — the floor a
 * set-based writer could reach. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "bench_floor.h"
#include "store/store.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_bigfloor URL ROWS [BATCH [RESULT_BYTES]]\n");
		return 2;
	}
	long rows = strtol(argv[2], NULL, 10), batch = argc > 3 ? strtol(argv[3], NULL, 10) : 2000;
	long result_len = argc > 4 ? strtol(argv[4], NULL, 10) : 200;
	if (rows < 1 || rows > 10000000 || batch < 1 || batch > rows || result_len < 1 || result_len > 100000) {
		fprintf(stderr, "bench_bigfloor: ROWS 1..10000000, BATCH 1..ROWS, RESULT_BYTES 1..100000\n");
		return 2;
	}
	struct store *st = NULL;
	struct org o;
	char err[512];
	if (ids_init() || store_open(argv[1], 2, &st, err, sizeof err) || store_migrate(st, err, sizeof err)) {
		fprintf(stderr, "bench_bigfloor: %s\n", err);
		return 1;
	}
	store_checkpoint_in_background(st);   /* as `loadline serve` does */
	double ms = 0;
	if (store_org_create(st, "Floor", &o) ||
	    store_bench_batched_floor(st, o.id, (int)rows, (int)batch, 60, (size_t)result_len, &ms)) {
		fprintf(stderr, "bench_bigfloor: the floor failed\n");
		return 1;
	}
	printf("{\"rows\": %ld, \"batch\": %ld, \"ms\": %.0f, \"rowsPerSecond\": %.0f", rows, batch, ms,
	       rows / (ms / 1000.0));
	if (store_is_postgres(st)) {
		bool done = true;
		double t0 = mono_ms();
		for (int from = 0; done && from < rows; from += batch)
			if (store_bench_copy_floor(st, o.id, batch / 20 > 1 ? (int)batch / 20 : 1, (int)batch, 60, &done))
				done = false;
		if (done)
			printf(", \"copyRowsPerSecond\": %.0f", rows / ((mono_ms() - t0) / 1000.0));
	}
	printf("}\n");
	store_close(st);
	return 0;
}
