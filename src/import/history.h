/* Who did what (PRODUCT §15): the before-images a run keeps of what it
 * updates, and the history of a Load read back from them.
 *
 * A record's "columns" are a JSON object of its database column names and
 * values (strings, integers or null): the form record_changes keeps
 * (store/changes.h) and a revert writes back.  Only the changed columns of
 * an update are kept, so that history and undo stay within the ≤ 1 KB per
 * imported row budget; the values a change led to are not stored but
 * recovered by walking the history back from the record as it is now. */
#ifndef LOADLINE_IMPORT_HISTORY_H
#define LOADLINE_IMPORT_HISTORY_H

#include <jansson.h>

#include "store/changes.h"
#include "store/records.h"

struct store_tx;

/* The writable columns of a Load / a Project (new references). */
json_t *history_load_columns(const struct load_rec *l);
json_t *history_project_columns(const struct project_rec *p);

/* The before-image of an update of the record from old to now: the old
 * values of the columns that differ, as compact JSON in a, or NULL when
 * none does.  The writer keeps it with the run (store_changes_add_many). */
const char *history_load_before(struct arena *a, const struct load_rec *old, const struct load_rec *now);
const char *history_project_before(struct arena *a, const struct project_rec *old, const struct project_rec *now);

/* The items of GET /api/v1/loads/{id}/history, newest first: load_change
 * objects of the Load as it is now (cur), its changes c[0..n) newest first
 * and its creation (created->run_id NULL: unknown or expired). */
json_t *history_load_json(const struct load_rec *cur, const struct record_change *c, int n,
			  const struct record_change *created);

#endif
