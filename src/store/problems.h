/* A run's problem groups, stored when the run ends (PRODUCT §11 "Problems,
 * grouped", §16 "at 1,000,000 rows"; migration 19): import/problems.c
 * builds them from the results and serves them. */
#ifndef LOADLINE_STORE_PROBLEMS_H
#define LOADLINE_STORE_PROBLEMS_H

#include <stdbool.h>

#include "base/codes.h"

struct store;
struct store_tx;

/* One stored group, in the order it is served. */
struct stored_problem {
	const char *code;
	bool error;                 /* severity error (a failed row), else warning */
	const char *field, *column, *value;   /* NULL when none */
	int row_count;
	const char *row_indexes;    /* JSON array of the first rows */
	const char *message;
	const char *fix_type, *fix_name;      /* NULL when no fix */
};

/* Stores the n groups of run_id (in tx, in their order) and their number
 * on the run, replacing any stored before. */
enum code store_problems_put(struct store_tx *tx, const char *run_id, const struct stored_problem *p, int n);

/* The stored groups at positions after .. after+limit-1, in order, to fn;
 * *ret_total is how many the run has, or -1 when its groups were never
 * stored (a run that ended before migration 19): then fn is not called. */
enum code store_problems_page(struct store *st, const char *run_id, int after, int limit,
			      void (*fn)(const struct stored_problem *p, void *ctx), void *ctx, int *ret_total);

#endif
