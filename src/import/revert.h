/* Undo an import (PRODUCT §15): a revert run takes back what another run
 * wrote.  It is a run like any other — QUEUED, claimed by a worker, one
 * transaction, results, webhooks — whose work is store_undo_run
 * (store/undo.h) instead of a file: the Loads the run created are removed,
 * what it updated gets its prior values back, unless changed since (then
 * the row is skipped with reason changed_since naming the later run).
 * Reverting a revert re-applies. */
#ifndef LOADLINE_IMPORT_REVERT_H
#define LOADLINE_IMPORT_REVERT_H

#include <stdbool.h>

#include "base/arena.h"
#include "store/runs.h"

/* Creates the QUEUED revert run of orig (its revertOf), asked for by
 * created_by (intake_who_*).  CODE_IMPORT_IN_PROGRESS with
 * ret_existing_id while another revert of orig is QUEUED or RUNNING. */
enum code revert_create(struct store *st, const struct run *orig, bool dry_run, const char *created_by,
			struct run *ret, char ret_existing_id[ID_MAX]);

struct undo_report;
/* What a revert of orig would do now, without writing anything (the undo
 * in a transaction that is rolled back): the web app's confirmation. */
enum code revert_preview(struct store *st, struct arena *a, const struct run *orig, struct undo_report *ret);

/* Processes the claimed revert run (pipeline_run's counterpart): the undo,
 * its results and its outcome in one transaction; a dry run rolls the
 * undo back and keeps its results and counts. */
enum code revert_run(struct store *st, const struct run *run, const char *owner);

#endif
