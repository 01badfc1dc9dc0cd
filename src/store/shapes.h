/* Confirmed column mappings per organization and column shape. */
#ifndef LOADLINE_STORE_SHAPES_H
#define LOADLINE_STORE_SHAPES_H

#include "base/arena.h"
#include "store.h"

/* The confirmed mapping (JSON array text: a field name or null per column,
 * arena-owned) of a shape; CODE_NOT_FOUND when the org never confirmed it. */
enum code store_shape_mapping(struct store *st, struct arena *a, const char *org_id, const char *shape_key,
			      const char **ret_mapping);
/* Stores (or replaces) the mapping of a shape, with the header row its
 * file had it at (0: not recorded), and releases every run of the org
 * staged with that shape whose deadline has not passed, in one
 * transaction.  *ret_released counts the runs released. */
enum code store_shape_confirm(struct store *st, const char *org_id, const char *shape_key, const char *headers_json,
			      const char *mapping_json, const char *user_id, int header_row, int *ret_released);

#endif
