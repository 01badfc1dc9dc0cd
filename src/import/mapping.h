/* Which mapping a file is read with: the organization's confirmed mapping
 * for its column shape, the published template (headers that are exactly
 * the schema's field names), or a proposal. */
#ifndef LOADLINE_IMPORT_MAPPING_H
#define LOADLINE_IMPORT_MAPPING_H

#include <stdbool.h>

#include "rows.h"
#include "store/store.h"

enum mapping_source { MAPPING_CONFIRMED, MAPPING_TEMPLATE, MAPPING_PROPOSED };

/* Resolves the mapping for header.  Returns CODE_OK or a storage error. */
enum code mapping_resolve(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
			  struct colmap *ret, char ret_shape[65], enum mapping_source *ret_source);
/* A colmap from a list of field names per column (NULL/unknown = ignore). */
void colmap_from_fields(struct arena *a, const struct sheet_row *header, const char *const *fields, struct colmap *ret);
/* The proposal as a colmap. */
void colmap_proposed(struct arena *a, const struct sheet_row *header, struct colmap *ret);
/* JSON texts (arena) of a colmap's fields and of the header cells. */
char *colmap_fields_json(struct arena *a, const struct colmap *map);
char *headers_json(struct arena *a, const struct sheet_row *header);
/* Parses a stored mapping (JSON array) into field names per column;
 * returns -1 when malformed or of another length than ncols. */
int mapping_parse(struct arena *a, const char *json, int ncols, const char ***ret_fields);

#endif
