/* Confirmed column mappings per organization and column shape. */
#ifndef LOADLINE_STORE_SHAPES_H
#define LOADLINE_STORE_SHAPES_H

#include <stdint.h>

#include "base/arena.h"
#include "store.h"

/* The confirmed mapping (JSON array text: a field name or null per column,
 * arena-owned) of a shape; CODE_NOT_FOUND when the org never confirmed it. */
enum code store_shape_mapping(struct store *st, struct arena *a, const char *org_id, const char *shape_key,
			      const char **ret_mapping);
/* One header as an admin confirmed it (PRODUCT §14 "Learning from
 * confirmations"): its name key (propose_header_key), its text as in the
 * file, and the field it was left on (NULL: "Ignore"). */
struct learned_header {
	const char *key, *header, *field;
	const char *learned_by;   /* user id; store_learned_list: the user's name or email */
	int64_t learned_at;       /* ms since the epoch */
};

/* Stores (or replaces) the mapping of a shape, with the header row its
 * file had it at (0: not recorded), learns each of its n headers
 * (learned[i]; learned_by and learned_at are set here; blank keys are
 * skipped, a header twice keeps the first) and releases every run of the
 * org staged with that shape whose deadline has not passed, in one
 * transaction.  *ret_released counts the runs released. */
enum code store_shape_confirm(struct store *st, const char *org_id, const char *shape_key, const char *headers_json,
			      const char *mapping_json, const char *user_id, int header_row,
			      const struct learned_header *learned, int n, int *ret_released);

/* What the org learned, newest first then by header (arena-owned array of
 * *ret_n entries; learned_by is the confirming user's name, else email). */
enum code store_learned_list(struct store *st, struct arena *a, const char *org_id, struct learned_header **ret,
			     int *ret_n);
/* Forgets one learned header; CODE_NOT_FOUND when the org has no such key. */
enum code store_learned_forget(struct store *st, const char *org_id, const char *key);

#endif
