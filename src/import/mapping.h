/* Which mapping a file is read with: the organization's confirmed mapping
 * for its column shape, the published template (headers that are exactly
 * the schema's field names), or a proposal. */
#ifndef LOADLINE_IMPORT_MAPPING_H
#define LOADLINE_IMPORT_MAPPING_H

#include <stdbool.h>

#include "import/propose.h"
#include "rows.h"
#include "store/store.h"

enum mapping_source { MAPPING_CONFIRMED, MAPPING_TEMPLATE, MAPPING_PROPOSED };

/* Resolves the mapping for header; samples[0..nsamples) are the first data
 * rows after it (at most PROPOSE_SAMPLE_ROWS are read; sheet_samples()
 * gives them), the values evidence of a proposal, which also reads what
 * the organization learned.  Returns CODE_OK or a storage error. */
enum code mapping_resolve(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
			  const struct sheet_row *const *samples, size_t nsamples, struct colmap *ret,
			  char ret_shape[65], enum mapping_source *ret_source);
/* What the organization learned from confirmations, as the proposal reads
 * it (arena-owned).  Returns CODE_OK or a storage error. */
enum code mapping_learned(struct store *st, struct arena *a, const char *org_id, struct propose_learned **ret,
			  size_t *ret_n);
/* How many of header's columns its column shape covers: all but the
 * `errors` column a fix-up file ends with (PRODUCT §11; an older fix-up
 * of a fix-up has several, all dropped), never fewer than one.  The
 * shape key, the proposal and the review see only these; mapping_resolve
 * also finds the original file's mapping when wider rows gave the fix-up
 * blank-headed columns before `errors`. */
size_t shape_columns(const struct sheet_row *header);
/* A colmap from a list of field names per column (NULL/unknown = ignore). */
void colmap_from_fields(struct arena *a, const struct sheet_row *header, const char *const *fields, struct colmap *ret);
/* The proposal as a colmap (in: samples and learned headers, may be NULL). */
void colmap_proposed(struct arena *a, const struct sheet_row *header, const struct propose_input *in,
		     struct colmap *ret);
/* The same for the first ncols columns only; the others are ignored. */
void colmap_proposed_cols(struct arena *a, const struct sheet_row *header, size_t ncols,
			  const struct propose_input *in, struct colmap *ret);
/* JSON texts (arena) of a colmap's fields and of the header cells. */
char *colmap_fields_json(struct arena *a, const struct colmap *map);
char *headers_json(struct arena *a, const struct sheet_row *header);
/* Parses a stored mapping (JSON array) into field names per column;
 * returns -1 when malformed or of another length than ncols. */
int mapping_parse(struct arena *a, const char *json, int ncols, const char ***ret_fields);

#endif
