/* Writing checked rows into Projects, Loads and Locations (internal). */
#ifndef LOADLINE_IMPORT_WRITER_H
#define LOADLINE_IMPORT_WRITER_H

#include <stdbool.h>

#include "base/strmap.h"
#include "store/records.h"
#include "rows.h"

struct store_tx;
struct geocoder;

struct write_ctx {
	struct store_tx *tx;
	struct arena *a;
	const char *org_id, *run_id;
	const struct colmap *map;
	const struct geocoder *geo;   /* geocodes the locations it creates; NULL = none */
	bool project_touched;     /* set by writer_row: the Project was created or updated */
	/* Per-run caches (valid inside the run's transaction): Projects by job
	 * code, look-ups by kind + key, locations by address key and by name
	 * key.  Most rows of a file repeat a job, a customer and an address. */
	struct strmap *projects, *lookups, *by_address, *by_name;
	/* Work done once per distinct cell text, not once per row: match keys
	 * of names and addresses, look-up outcomes with their warning texts. */
	struct strmap *names, *addresses, *looked_up[3];
	/* Loads not inserted yet: written STORE_LOAD_BATCH to a statement by
	 * writer_flush (nothing in the run reads a Load it wrote itself). */
	struct load_rec *pending;
	int npending;
	/* Projects not inserted yet: inserted before the pending Loads. */
	struct project_rec *new_projects;
	int nnew_projects, max_new_projects;
	/* Locations to create, inserted before the pending Projects. */
	struct location_rec *new_locs;
	const char **new_loc_names, **new_loc_addresses;
	int nnew_locs, max_new_locs;
	/* Before-images of the updates written so far, stored by writer_flush
	 * (STORE_CHANGE_BATCH at most): who did what (PRODUCT §15). */
	const char **chg_kinds, **chg_ids, **chg_befores;
	int nchg;
	/* Loads of existing Projects by "projectId\x1floadNo", when prefetched. */
	struct strmap *loads;
};

/* Sets up the caches of w (in w->a). */
void writer_init(struct write_ctx *w);

/* Writes row r (already checked, no errors, not an in-file duplicate).
 * first_of_job: no earlier row of this file reached the writer for this
 * job, so this row sets the job's Project fields (PRODUCT §5).
 * Sets r->bucket (SUCCEEDED or SKIPPED), warnings and ids.  Returns a
 * storage error code, which aborts the run attempt. */
enum code writer_row(struct write_ctx *w, struct row *r, bool first_of_job);
/* Looks up at once, after writer_lock_keys, what the rows will need: their
 * Projects, their named locations and the Loads their keys already have. */
enum code writer_prefetch(struct write_ctx *w, const struct row *rows, int n);

/* Writes what writer_row left pending; call before the transaction goes on
 * to anything else. */
enum code writer_flush(struct write_ctx *w);

/* Locks, in one global order, every natural key the rows will write (job
 * codes; location names or addresses), before any row is written: imports
 * sharing keys wait for each other instead of deadlocking.  PostgreSQL
 * only: a SQLite write transaction already excludes every other writer. */
enum code writer_lock_keys(struct write_ctx *w, const struct row *rows, int n);

/* Creates (or finds, when a concurrent import just made it) the location of
 * group g of row r; name_key NULL for an unnamed one. */
enum code writer_create_location(struct write_ctx *w, struct row *r, enum field_group g, const char *name_key,
				 const char **ret_id);

#endif
