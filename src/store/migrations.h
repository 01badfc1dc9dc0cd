/* The list of schema migrations (internal to src/store). */
#ifndef LOADLINE_STORE_MIGRATIONS_H
#define LOADLINE_STORE_MIGRATIONS_H

#include "db.h"

struct migration {
	int version;
	const char *name;
	const char *sql;
};

/* What SQL cannot compute (keys made by src/model): run after the sql of
 * the migration with the same version, in the same transaction. */
struct migration_step {
	int version;
	enum code (*run)(struct db *db);
};

extern const struct migration_step migration_steps[];
extern const int migration_steps_count;

/* The step of migration version, or NULL. */
const struct migration_step *migration_step_of(int version);

/* Migration 9 (reference.c): customers' and branches' name keys made
 * again by name_ref_key(). */
enum code migrate_reference_keys(struct db *db);

/* Migration 10 (results_legacy.c): full-JSON per-row results become
 * compact rows. */
enum code migrate_compact_results(struct db *db);

extern const struct migration migrations[];
extern const int migrations_count;

#endif
