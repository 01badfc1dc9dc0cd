/* Mapping a row's cells to schema fields and normalizing them. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/digest.h"
#include "rows.h"

#define VALUE_EXCERPT_CHARS 200

char *cell_ref(struct arena *a, int col, unsigned row)
{
	char letters[8];
	int n = 0;
	unsigned c = (unsigned)col + 1;
	while (c > 0 && n < 7) {
		letters[n++] = (char)('A' + (c - 1) % 26);
		c = (c - 1) / 26;
	}
	char *out = arena_alloc(a, (size_t)n + 12);
	for (int i = 0; i < n; i++)
		out[i] = letters[n - 1 - i];
	snprintf(out + n, 12, "%u", row);
	return out;
}

static void add(struct arena *a, struct diag **list, int *n, int *cap, enum code c, enum field f, int col,
		const char *value, struct msg m)
{
	if (*n >= ROW_MAX_DIAGS)
		return;
	if (*n == *cap) {
		int more = *cap ? 2 * *cap : 4;
		more = more > ROW_MAX_DIAGS ? ROW_MAX_DIAGS : more;
		struct diag *grown = arena_alloc(a, sizeof(*grown) * (size_t)more);
		if (*n)
			memcpy(grown, *list, sizeof(*grown) * (size_t)*n);
		*list = grown;
		*cap = more;
	}
	(*list)[*n] = (struct diag){c, f, col, value, m};
	(*n)++;
}

void row_add_error(struct row *r, enum code c, enum field f, int col, const char *value, struct msg m)
{
	add(r->arena, &r->errors, &r->nerrors, &r->errors_cap, c, f, col, value, m);
}

void row_add_warning(struct row *r, enum code c, enum field f, int col, const char *value, struct msg m)
{
	add(r->arena, &r->warnings, &r->nwarnings, &r->warnings_cap, c, f, col, value, m);
}

void row_add_id(struct row *r, struct arena *a, const char *id)
{
	for (int i = 0; i < r->nids; i++)
		if (!strcmp(r->ids[i], id))
			return;
	if (r->nids < ROW_MAX_IDS)
		r->ids[r->nids++] = arena_strdup(a, id);
}

/* Does the cell end in a digit: a bare number, with no unit of its own? */
static bool bare_number(const char *s, size_t n)
{
	size_t t;
	s = norm_trim(s, n, &t);
	return t > 0 && s[t - 1] >= '0' && s[t - 1] <= '9';
}

/* The unit the header of field f's column names, when it applies: a bare
 * number with no weightUnit (PRODUCT §14: the cell's own unit, then the
 * weightUnit column, then the header). */
static enum weight_unit header_unit(const struct colmap *map, const struct row *out, enum field f,
				    enum weight_unit unit)
{
	int col = map->field_col[f];
	if (f != FIELD_WEIGHT || unit != WUNIT_NONE || !map->col_unit || col < 0 || !out->raw[f] ||
	    !bare_number(out->raw[f], out->raw_len[f]))
		return WUNIT_NONE;
	return (enum weight_unit)map->col_unit[col];
}

/* Checks one field; the weight needs the unit column's value first. */
static void check_field(struct arena *a, const struct colmap *map, struct row *out, enum field f,
			enum weight_unit unit)
{
	int col = map->field_col[f];
	enum norm_why why = NORM_WHY_NONE;
	const char *text = out->raw[f];
	size_t len = out->raw_len[f];
	if (map->decimal_comma && text && (f == FIELD_WEIGHT || f == FIELD_RATE))
		text = european_number(a, text, len, &len);
	enum weight_unit hu = header_unit(map, out, f, unit);
	enum code rc = norm_field(a, f, text, len, hu != WUNIT_NONE ? hu : unit, &out->v[f], &why);
	bool warn = !rc && f == FIELD_WEIGHT && !out->v[f].blank && out->v[f].converted;
	if (!rc && !warn)
		return;   /* the common case: no excerpt of the cell is needed */
	const char *value = out->raw[f] ? norm_excerpt(a, out->raw[f], out->raw_len[f], VALUE_EXCERPT_CHARS) : NULL;
	if (rc) {
		out->v[f].blank = true;
		row_add_error(out, rc, f, col, value, norm_msg(a, f, rc, why, out->raw[f], out->raw_len[f], NULL));
		return;
	}
	struct msg m = norm_msg(a, f, CODE_UNIT_NORMALIZED, why, out->raw[f], out->raw_len[f], out->v[f].text);
	if (hu != WUNIT_NONE) {
		m.arg[2] = norm_quote(a, map->headers[col], strlen(map->headers[col]), MSG_QUOTE_CHARS);
		static const char *const names[] = {[WUNIT_LB] = "pounds", [WUNIT_TON] = "short tons (2,000 lb)",
						    [WUNIT_TONNE] = "metric tonnes (2,204.62 lb)", [WUNIT_KG] = "kilograms"};
		m.arg[3] = hu <= WUNIT_KG && names[hu] ? names[hu] : norm_weight_unit_name(hu);
	}
	row_add_warning(out, CODE_UNIT_NORMALIZED, f, col, value, m);
}

static void content_hash(const struct row *r, char out[DIGEST_HEX])
{
	struct digest d;
	digest_init(&d);
	for (int f = 0; f < FIELD__COUNT; f++) {
		if (r->v[f].blank || !r->v[f].text)
			continue;
		const char *name = field_name((enum field)f);
		digest_update(&d, name, strlen(name) + 1);
		digest_update(&d, r->v[f].text, r->v[f].len + 1);
	}
	digest_final_hex(&d, out);
}

void row_check(struct arena *a, const struct colmap *map, const struct sheet_row *in, struct row *out)
{
	memset(out, 0, sizeof(*out));
	out->arena = a;
	out->number = in->number;
	for (int f = 0; f < FIELD__COUNT; f++) {
		int col = map->field_col[f];
		if (col < 0)
			continue;
		/* The reader reuses its row buffer: keep our own copy. */
		bool has = (size_t)col < in->ncells;
		out->raw_len[f] = has ? in->lens[col] : 0;
		out->raw[f] = arena_strndup(a, has ? in->cells[col] : "", out->raw_len[f]);
	}
	check_field(a, map, out, FIELD_WEIGHT_UNIT, WUNIT_NONE);
	enum weight_unit unit = out->v[FIELD_WEIGHT_UNIT].blank ? WUNIT_NONE
								: (enum weight_unit)out->v[FIELD_WEIGHT_UNIT].num;
	for (int f = 0; f < FIELD__COUNT; f++)
		if (f != FIELD_WEIGHT_UNIT)
			check_field(a, map, out, (enum field)f, unit);
	content_hash(out, out->content_hash);
	out->bucket = out->nerrors ? BUCKET_FAILED : BUCKET_SUCCEEDED;
}
