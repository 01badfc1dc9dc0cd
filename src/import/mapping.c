/* Column mappings. */
#include "mapping.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import/propose.h"
#include "store/shapes.h"

static void colmap_init(struct arena *a, const struct sheet_row *header, struct colmap *ret)
{
	ret->ncols = (int)header->ncells;
	ret->col_unit = NULL;
	ret->decimal_comma = false;
	ret->headers = arena_alloc(a, sizeof(char *) * (header->ncells + 1));
	ret->col_field = arena_alloc(a, sizeof(enum field) * (header->ncells + 1));
	for (int f = 0; f < FIELD__COUNT; f++)
		ret->field_col[f] = -1;
	for (size_t j = 0; j < header->ncells; j++) {
		ret->headers[j] = arena_strndup(a, header->cells[j], header->lens[j]);
		ret->col_field[j] = FIELD_NONE;
	}
}

static void assign(struct colmap *m, int col, enum field f)
{
	/* One column per field: the first keeps it. */
	if (f >= FIELD__COUNT || m->field_col[f] >= 0)
		return;
	m->field_col[f] = col;
	m->col_field[col] = f;
}

void colmap_from_fields(struct arena *a, const struct sheet_row *header, const char *const *fields, struct colmap *ret)
{
	colmap_init(a, header, ret);
	for (int j = 0; j < ret->ncols; j++)
		if (fields[j])
			assign(ret, j, field_from_name(fields[j]));
}

void colmap_proposed_cols(struct arena *a, const struct sheet_row *header, size_t ncols,
			  const struct propose_input *in, struct colmap *ret)
{
	colmap_init(a, header, ret);
	struct proposal *p = arena_alloc(a, sizeof(*p) * (ncols + 1));
	propose_mapping_with(header->cells, header->lens, ncols, in, p);
	for (size_t j = 0; j < ncols; j++)
		if (p[j].field != FIELD_NONE)
			assign(ret, (int)j, p[j].field);
}

void colmap_proposed(struct arena *a, const struct sheet_row *header, const struct propose_input *in,
		     struct colmap *ret)
{
	colmap_proposed_cols(a, header, header->ncells, in, ret);
}

enum code mapping_learned(struct store *st, struct arena *a, const char *org_id, struct propose_learned **ret,
			  size_t *ret_n)
{
	struct learned_header *l;
	int n;
	enum code rc = store_learned_list(st, a, org_id, &l, &n);
	if (rc)
		return rc;
	struct propose_learned *out = arena_alloc(a, sizeof(*out) * ((size_t)n + 1));
	for (int i = 0; i < n; i++)
		out[i] = (struct propose_learned){l[i].key, l[i].field ? field_from_name(l[i].field) : FIELD_NONE};
	*ret = out;
	*ret_n = (size_t)n;
	return CODE_OK;
}

char *colmap_fields_json(struct arena *a, const struct colmap *map)
{
	json_t *arr = json_array();
	for (int j = 0; j < map->ncols; j++)
		json_array_append_new(arr, map->col_field[j] < FIELD__COUNT ? json_string(field_name(map->col_field[j]))
									    : json_null());
	char *s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	char *out = arena_strdup(a, s ? s : "[]");
	free(s);
	return out;
}

char *headers_json(struct arena *a, const struct sheet_row *header)
{
	json_t *arr = json_array();
	for (size_t j = 0; j < header->ncells; j++) {
		json_t *s = json_stringn(header->cells[j], header->lens[j]);
		json_array_append_new(arr, s ? s : json_string(""));
	}
	char *s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	char *out = arena_strdup(a, s ? s : "[]");
	free(s);
	return out;
}

int mapping_parse(struct arena *a, const char *text, int ncols, const char ***ret_fields)
{
	json_t *arr = json_loads(text, 0, NULL);
	if (!json_is_array(arr) || (int)json_array_size(arr) != ncols) {
		json_decref(arr);
		return -1;
	}
	const char **fields = arena_alloc(a, sizeof(char *) * ((size_t)ncols + 1));
	for (int j = 0; j < ncols; j++) {
		const char *s = json_string_value(json_array_get(arr, (size_t)j));
		fields[j] = s ? arena_strdup(a, s) : NULL;
	}
	json_decref(arr);
	*ret_fields = fields;
	return 0;
}

/* True when header cell j is `errors`: the column a fix-up file adds
 * (import/fixup.h), which never feeds a field. */
static bool errors_header(const struct sheet_row *h, size_t j)
{
	size_t n = h->lens[j];
	const char *s = h->cells[j];
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 6 && !strncasecmp(s, "errors", 6);
}

/* Blank as a shape key sees it (names.c trims all whitespace): for the
 * columns fixup.c adds, "" exactly; ASCII whitespace is enough here. */
static bool blank_header(const struct sheet_row *h, size_t j)
{
	for (size_t i = 0; i < h->lens[j]; i++)
		if (!memchr(" \t\r\n\v\f", h->cells[j][i], 6))
			return false;
	return true;
}

size_t shape_columns(const struct sheet_row *h)
{
	size_t n = h->ncells;
	while (n > 1 && errors_header(h, n - 1))
		n--;
	return n;
}

/* The stored mapping of the shape of the first ncols columns, into ret
 * (columns beyond ncols ignored); CODE_NOT_FOUND when there is none. */
static enum code stored_mapping(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
				size_t ncols, struct colmap *ret, char ret_shape[65])
{
	shape_key(header->cells, header->lens, ncols, ret_shape);
	const char *stored = NULL;
	enum code rc = store_shape_mapping(st, a, org_id, ret_shape, &stored);
	const char **fields;
	if (rc)
		return rc;
	if (mapping_parse(a, stored, (int)ncols, &fields))
		return CODE_NOT_FOUND;
	const char **all = arena_alloc(a, sizeof(char *) * (header->ncells + 1));
	memcpy(all, fields, sizeof(char *) * ncols);
	colmap_from_fields(a, header, all, ret);
	return CODE_OK;
}

/* The stored mapping of a fix-up file's shape: the shape it was made from.
 * Its `errors` columns are not part of it, and the blank-headed columns
 * right before them may be cells of rows wider than that file's header
 * (fixup.c gives them their own columns), so each shorter shape down to
 * the last non-blank header is tried, the longest first: the original
 * file's own blank headers keep their place. */
static enum code fixup_mapping(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
			       size_t ncols, struct colmap *ret, char ret_shape[65])
{
	enum code rc = CODE_NOT_FOUND;
	for (size_t n = ncols; n > 0; n--) {
		rc = stored_mapping(st, a, org_id, header, n, ret, ret_shape);
		if (rc != CODE_NOT_FOUND || !blank_header(header, n - 1))
			break;
	}
	return rc;
}

enum code mapping_resolve(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
			  const struct sheet_row *const *samples, size_t nsamples, struct colmap *ret,
			  char ret_shape[65], enum mapping_source *ret_source)
{
	/* A fix-up file is the shape it was made from plus `errors`: it maps
	 * as that shape, so that pushing it again needs no review.  A mapping
	 * confirmed for the whole header (before issue 22 a fix-up's shape
	 * kept its `errors` column) is still honoured first. */
	size_t ncols = shape_columns(header);
	enum code rc = stored_mapping(st, a, org_id, header, header->ncells, ret, ret_shape);
	if (rc == CODE_NOT_FOUND && ncols < header->ncells)
		rc = fixup_mapping(st, a, org_id, header, ncols, ret, ret_shape);
	if (rc == CODE_OK) {
		*ret_source = MAPPING_CONFIRMED;
		return CODE_OK;
	}
	if (rc != CODE_NOT_FOUND)
		return rc;
	shape_key(header->cells, header->lens, ncols, ret_shape);
	struct propose_learned *learned;
	size_t nlearned;
	if ((rc = mapping_learned(st, a, org_id, &learned, &nlearned)))
		return rc;
	struct propose_input in = {samples, nsamples, learned, nlearned};
	colmap_proposed_cols(a, header, ncols, &in, ret);
	*ret_source = shape_is_template(header->cells, header->lens, ncols) ? MAPPING_TEMPLATE : MAPPING_PROPOSED;
	return CODE_OK;
}
