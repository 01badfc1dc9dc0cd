/* Projects, Loads and Locations: what an import writes (inside a run's
 * transaction) and what the read endpoints return.  Strings in the records
 * are owned by the arena passed in; NULL means SQL NULL (unset). */
#ifndef LOADLINE_STORE_RECORDS_H
#define LOADLINE_STORE_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "runs.h"

struct project_rec {
	char id[ID_MAX];
	const char *job_code, *name;
	const char *customer_id, *branch_id, *project_manager_id;
	const char *pickup_location_id, *dropoff_location_id;
	int64_t created_at, updated_at;
};

struct load_rec {
	char id[ID_MAX];
	const char *project_id, *job_code, *load_no, *load_date;
	const char *material, *truck_type, *ticket_no, *notes, *weight_unit;
	bool has_weight, has_rate;
	int64_t weight_centilb, rate_cents;
	const char *pickup_location_id, *dropoff_location_id;
	const char *content_hash;
	int64_t created_at, updated_at;
};

/* Where a location is: coordinates when geo_precision is not "none";
 * geo_source names the geocoder that tried (NULL: never geocoded). */
struct location_geo {
	bool has_coords;
	int64_t lat_e6, lon_e6;         /* millionths of a degree */
	const char *precision;          /* "zip" | "street" | "none" */
	const char *source;
};

struct location_rec {
	char id[ID_MAX];
	const char *name, *street, *city, *state, *zip;
	struct location_geo geo;
	int64_t created_at;
};

/* In a run's transaction.  Finders return CODE_NOT_FOUND when absent. */
enum code store_project_find(struct store_tx *tx, struct arena *a, const char *org_id, const char *job_code,
			     struct project_rec *ret);
/* run_id: the run writing it (created_run_id / last_run_id: who did what). */
enum code store_project_insert(struct store_tx *tx, const char *org_id, const char *run_id,
			       const struct project_rec *p);
enum code store_project_update(struct store_tx *tx, const char *run_id, const struct project_rec *p);
enum code store_load_find(struct store_tx *tx, struct arena *a, const char *project_id, const char *load_no,
			  struct load_rec *ret);
enum code store_load_insert(struct store_tx *tx, const char *org_id, const char *run_id, const struct load_rec *l);
/* Inserts n Loads, STORE_LOAD_BATCH to a statement. */
#define STORE_LOAD_BATCH 36   /* 3 + 14 × 36 parameters: within db_pg.c's 512 */
enum code store_load_insert_many(struct store_tx *tx, const char *org_id, const char *run_id,
				 const struct load_rec *l, int n);
enum code store_load_update(struct store_tx *tx, const char *run_id, const struct load_rec *l);

/* Batched forms for a whole file, a few statements instead of one per row.
 * The statements' IN lists come in a few fixed lengths (padded by repeating
 * the last value), so that each length is prepared once per connection. */
/* The org's Projects with any of the n job codes, in *ret (a), *ret_n of them. */
enum code store_projects_find_many(struct store_tx *tx, struct arena *a, const char *org_id,
				   const char *const *job_codes, int n, struct project_rec **ret, int *ret_n);
/* Inserts n Projects (ids set), a few statements in all. */
enum code store_projects_insert_many(struct store_tx *tx, const char *org_id, const char *run_id,
				     const struct project_rec *p, int n);
/* The Loads with any of the n (distinct) keys (project_ids[i], load_nos[i]),
 * in *ret (a), a few statements in all. */
enum code store_loads_find_pairs(struct store_tx *tx, struct arena *a, const char *const *project_ids,
				 const char *const *load_nos, int n, struct load_rec **ret, int *ret_n);
/* The org's locations whose name key is any of the n keys, ordered by name
 * key, then oldest first; (*ret_keys)[i] is the name key of (*ret)[i]. */
enum code store_locations_by_names(struct store_tx *tx, struct arena *a, const char *org_id,
				   const char *const *name_keys, int n, struct location_rec **ret,
				   const char ***ret_keys, int *ret_n);

/* Oldest customer/branch (table "customers"/"branches") whose name key is key. */
enum code store_lookup_named(struct store_tx *tx, const char *table, const char *org_id, const char *key,
			     char ret_id[ID_MAX]);
/* A user of the org whose name key or email key is key. */
enum code store_lookup_user(struct store_tx *tx, const char *org_id, const char *key, char ret_id[ID_MAX]);

/* Oldest location with this address key. */
enum code store_location_by_address(struct store_tx *tx, const char *org_id, const char *address_key,
				    char ret_id[ID_MAX]);
/* Up to max locations named key, oldest first; *ret_n is how many (capped). */
enum code store_locations_by_name(struct store_tx *tx, struct arena *a, const char *org_id, const char *name_key,
				  struct location_rec *ret, int max, int *ret_n);
/* The org's locations with any of the n address keys, by key then oldest
 * first: (*ret_ids)[i] has key (*ret_keys)[i]. */
enum code store_locations_by_addresses(struct store_tx *tx, struct arena *a, const char *org_id,
				       const char *const *address_keys, int n, const char ***ret_ids,
				       const char ***ret_keys, int *ret_n);
/* Inserts n import-made locations (ids set; name_keys[i] NULL for an
 * unnamed one), skipping any whose name or address key an import-made
 * location already has; *ret_created is how many were inserted. */
enum code store_locations_create_import_many(struct store_tx *tx, const char *org_id, const struct location_rec *loc,
					     const char *const *name_keys, const char *const *address_keys, int n,
					     const char *run_id, int *ret_created);
/* Creates an import-made location unless one with the same name key (named)
 * or address key (unnamed) exists, atomically even across processes; gives
 * the id of the one created or found, and whether it was created. */
enum code store_location_create_import(struct store_tx *tx, const char *org_id, const struct location_rec *loc,
				       const char *name_key, const char *address_key, const char *run_id,
				       char ret_id[ID_MAX], bool *ret_created);

/* Reads for the API (CODE_NOT_FOUND outside the org). */
enum code store_load_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			 struct load_rec *ret);
enum code store_project_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			    struct project_rec *ret);
enum code store_location_get(struct store *st, struct arena *a, const char *org_id, const char *id,
			     struct location_rec *ret);
/* Address search: name_key prefix, or text in street/city/zip; oldest first
 * after the cursor (created_at, id). */
enum code store_locations_search(struct store *st, struct arena *a, const char *org_id, const char *name_key,
				 const char *text, int64_t after_created, const char *after_id, int limit,
				 struct location_rec *ret, int *ret_n);

#endif
