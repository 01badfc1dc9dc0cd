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

void colmap_proposed(struct arena *a, const struct sheet_row *header, struct colmap *ret)
{
	colmap_init(a, header, ret);
	struct proposal *p = arena_alloc(a, sizeof(*p) * (header->ncells + 1));
	propose_mapping(header->cells, header->lens, header->ncells, p);
	for (int j = 0; j < ret->ncols; j++)
		if (p[j].field != FIELD_NONE)
			assign(ret, j, p[j].field);
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

/* True when the last header is `errors`: the column a fix-up file adds
 * (import/fixup.h), which never feeds a field. */
static bool fixup_errors_column(const struct sheet_row *h)
{
	if (h->ncells < 2)
		return false;
	size_t n = h->lens[h->ncells - 1];
	const char *s = h->cells[h->ncells - 1];
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 6 && !strncasecmp(s, "errors", 6);
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

enum code mapping_resolve(struct store *st, struct arena *a, const char *org_id, const struct sheet_row *header,
			  struct colmap *ret, char ret_shape[65], enum mapping_source *ret_source)
{
	/* A fix-up file is the shape it was made from plus `errors`: it maps
	 * as that shape, so that pushing it again needs no review. */
	size_t ncols = header->ncells - (fixup_errors_column(header) ? 1 : 0);
	enum code rc = stored_mapping(st, a, org_id, header, header->ncells, ret, ret_shape);
	if (rc == CODE_NOT_FOUND && ncols < header->ncells)
		rc = stored_mapping(st, a, org_id, header, ncols, ret, ret_shape);
	if (rc == CODE_OK) {
		*ret_source = MAPPING_CONFIRMED;
		return CODE_OK;
	}
	if (rc != CODE_NOT_FOUND)
		return rc;
	shape_key(header->cells, header->lens, header->ncells, ret_shape);
	colmap_proposed(a, header, ret);
	if (ncols < header->ncells) {
		int last = (int)ncols;
		if (ret->col_field[last] < FIELD__COUNT)
			ret->field_col[ret->col_field[last]] = -1;
		ret->col_field[last] = FIELD_NONE;
	}
	*ret_source = shape_is_template(header->cells, header->lens, header->ncells) ||
		      (ncols < header->ncells && shape_is_template(header->cells, header->lens, ncols))
		      ? MAPPING_TEMPLATE : MAPPING_PROPOSED;
	return CODE_OK;
}
