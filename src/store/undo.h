/* Undoing a run's writes (PRODUCT §15 "Undo an import"), in the revert
 * run's transaction: the store side of import/revert.c.
 *
 * What run `orig` did is read back from what it left: the Loads, Projects
 * and Locations it created (created_run_id / created_by_run) and its
 * record_changes (updates with their before-images, removals with whole
 * rows, re-insertions).  Each is undone unless a later run changed the
 * record since (its last_run_id is no longer orig): then it stays, and
 * the item names that run.  Every undo is itself recorded in
 * record_changes under the revert run, so that reverting the revert
 * re-applies.  Projects and Locations orig created are removed once
 * nothing uses them. */
#ifndef LOADLINE_STORE_UNDO_H
#define LOADLINE_STORE_UNDO_H

#include <stdbool.h>

#include "base/arena.h"
#include "runs.h"

struct store_tx;

enum undo_outcome { UNDO_REMOVED, UNDO_RESTORED, UNDO_CHANGED_SINCE };

/* One Load (or Project) the undo touched, for the revert run's results. */
struct undo_item {
	const char *kind;           /* "load" | "project" */
	const char *id, *load_no, *job_code;
	enum undo_outcome outcome;
	const char *later_run;      /* UNDO_CHANGED_SINCE: the run that changed it */
};

struct undo_report {
	struct undo_item *items;
	int n, cap;
	int removed, restored, changed_since;   /* Loads and Projects */
	int places_removed;                     /* Projects and Locations nothing used any more */
};

/* Undoes orig's writes as run_id, in tx (org_id's records only), after
 * locking, on PostgreSQL, the natural keys concerned in the order imports
 * lock them (writer_lock_keys): a revert and an import of the same Loads
 * wait for each other.  *ret lists what was done (in a). */
enum code store_undo_run(struct store_tx *tx, struct arena *a, const char *org_id, const char *orig,
			 const char *run_id, struct undo_report *ret);

#endif
