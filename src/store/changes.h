/* What each run changed in each record (PRODUCT §15, issue 28): the rows of
 * record_changes (migration 16).  A run's Load inserts need none (the Load
 * says which run created it); an update keeps the prior values of the
 * columns it changed (op "update"), a revert that removes a record keeps
 * the whole row (op "remove") and one that puts a record back keeps
 * nothing (op "insert").  Values are JSON objects of column names.  The
 * rows go with the run's results (retention.c). */
#ifndef LOADLINE_STORE_CHANGES_H
#define LOADLINE_STORE_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "runs.h"

struct store_tx;

/* Records, in the run's transaction, that run_id changed the record
 * (kind "load" | "project" | "location"); before may be NULL (op insert). */
enum code store_change_add(struct store_tx *tx, const char *org_id, const char *run_id, const char *kind,
			   const char *record_id, const char *op, const char *before);

/* Records n updates at once (op "update"), a few statements in all:
 * kinds[i], ids[i], befores[i] (an import's updates, batched). */
#define STORE_CHANGE_BATCH 60
enum code store_changes_add_many(struct store_tx *tx, const char *org_id, const char *run_id,
				 const char *const *kinds, const char *const *ids, const char *const *befores, int n);

/* One change, as the history of a Load reads it. */
struct record_change {
	const char *run_id, *op, *before;   /* before: JSON text or NULL */
	const char *created_by;             /* the run's createdBy JSON, or NULL */
	bool by_revert;                     /* the run reverts another */
	int64_t at;
};

/* The Load's changes newest first (its org's only; runs whose results are
 * kept, keep_ms being LOADLINE_KEEP_RESULTS), in *ret (a); and the run
 * that created it (*ret_created: run_id, created_by and at set; run_id
 * NULL when unknown or expired). */
enum code store_load_changes(struct store *st, struct arena *a, const char *org_id, const char *load_id,
			     int64_t keep_ms, struct record_change **ret, int *ret_n, struct record_change *ret_created);

#endif
