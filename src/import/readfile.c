/* Opening an upload the one way every part of an import reads it (the
 * pipeline, staging, the review screen, fix-ups, `loadline inspect`): the
 * same header row, the same worksheet, the same summary rows.  The sheet
 * layer finds them; this module lends it the mapping rules as a judge. */
#include "readfile.h"

#include <string.h>
#include <strings.h>

#include "import/propose.h"
#include "mapping.h"
#include "store/shapes.h"

/* The samples the sheet reads ahead are the proposal's values evidence. */
_Static_assert(SHEET_SAMPLE_ROWS >= PROPOSE_SAMPLE_ROWS, "sheet_samples reads what the proposal reads");

/* Bare words of an address group's parts: under a group row's label
 * ("Pickup" over Name / City / State) they take the group's meaning. */
static bool part_word(const char *p, size_t n)
{
	static const char *const words[] = {"name", "street", "address", "address 1", "address1", "addr", "city",
					    "town", "state", "st", "province", "zip", "zip code", "zipcode", "postal code",
					    "postcode", "location", "company", "site", "facility"};
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == ':'))
		n--;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && !strncasecmp(p, words[i], n))
			return true;
	return false;
}

static unsigned char role_of(enum field f)
{
	switch (f) {
	case FIELD_JOB_CODE:
	case FIELD_LOAD_NO:
		return SHEET_COL_FIELD | SHEET_COL_KEY;
	case FIELD_LOAD_DATE:
		return SHEET_COL_FIELD | SHEET_COL_DATE;
	case FIELD_WEIGHT:
	case FIELD_RATE:
		return SHEET_COL_FIELD | SHEET_COL_NUMERIC;
	default:
		return field_part(f) != PART_NONE ? SHEET_COL_FIELD | SHEET_COL_PART : SHEET_COL_FIELD;
	}
}

/* The judge's view of one open: the reading, and what the organization
 * learned (read once). */
struct judging {
	const struct import_read *r;
	struct propose_input in;
};

/* Does an ignored column's header still read as a header: one that lost
 * its field to another column, one the organization confirmed as
 * "Ignore", a timestamp beside a load date? */
static bool recognized(const struct proposal *p)
{
	return p->conflict || p->reason == REASON_CONFLICT || p->reason == REASON_LEARNED ||
	       p->reason == REASON_TIMESTAMP || p->reason == REASON_MISFIT;
}

/* The judge (sheet.h): the proposal's reading of each cell as a header
 * (by the header rules and the organization's learned headers; values
 * are no evidence here: the rows below are not known to be data yet),
 * and whether the organization confirmed this shape (or it is the
 * published template). */
static bool judge(void *arg, const struct sheet_row *row, unsigned char *roles)
{
	const struct judging *jg = arg;
	const struct import_read *r = jg->r;
	size_t ncols = shape_columns(row);
	struct proposal *p = arena_alloc(r->a, sizeof(*p) * (ncols + 1));
	propose_mapping_with(row->cells, row->lens, ncols, &jg->in, p);
	for (size_t j = 0; j < ncols; j++) {
		if (p[j].field != FIELD_NONE)
			roles[j] = role_of(p[j].field);
		else if (recognized(&p[j]))
			roles[j] = SHEET_COL_FIELD;
		if (part_word(row->cells[j], row->lens[j]))
			roles[j] |= SHEET_COL_PART;
	}
	if (shape_is_template(row->cells, row->lens, ncols))
		return true;
	if (!r->st || !r->org_id)
		return false;
	char key[SHAPE_KEY_SIZE];
	shape_key(row->cells, row->lens, ncols, key);
	const char *stored = NULL;
	return store_shape_mapping(r->st, r->a, r->org_id, key, &stored) == CODE_OK;
}

enum code import_sheet_open(const struct import_read *r, const void *data, size_t len, const struct sheet_limits *lim,
			    struct sheet **ret_sheet, const char **ret_msg, struct sheet_info *ret_info)
{
	struct judging jg = {.r = r};
	if (r->st && r->org_id) {
		struct propose_learned *learned = NULL;
		enum code lrc = mapping_learned(r->st, r->a, r->org_id, &learned, &jg.in.nlearned);
		if (lrc) {
			/* Storage trouble: the caller retries, as for the mapping. */
			if (ret_msg)
				*ret_msg = "the organization's learned headers cannot be read right now";
			*ret_sheet = NULL;
			return lrc;
		}
		jg.in.learned = learned;
	}
	struct sheet_judge j = {.judge = judge, .arg = &jg};
	struct sheet_options o = {.header_row = r->header_row, .sheet = r->sheet && *r->sheet ? r->sheet : NULL,
				  .judge = &j};
	const char *msg = "";
	enum code rc = sheet_open_opts(data, len, lim, &o, ret_sheet, &msg, ret_info);
	if (ret_msg)
		*ret_msg = msg;
	return rc;
}

void import_read_for_run(struct import_read *r, struct store *st, struct arena *a, const struct run *run)
{
	memset(r, 0, sizeof(*r));
	r->st = st;
	r->a = a;
	r->org_id = run->org_id;
	r->header_row = run->opt_header_row > 0 ? (unsigned)run->opt_header_row : 0;
	r->sheet = *run->opt_sheet ? run->opt_sheet : NULL;
	/* A processed run already decided: read its file as it did (a shape
	 * confirmed since must not move a fix-up's header). */
	json_t *d = *run->file_detail ? json_loads(run->file_detail, 0, NULL) : NULL;
	json_int_t row = json_integer_value(json_object_get(d, "headerRow"));
	const char *sheet = json_string_value(json_object_get(d, "sheet"));
	if (row > 0 && row <= SHEET_MAX_ROW_NUMBER)
		r->header_row = (unsigned)row;
	if (sheet)
		r->sheet = arena_strdup(a, sheet);
	json_decref(d);
}

/* A JSON string array of the visible worksheets, cut to what fits. */
static json_t *names_json(const struct sheet *s)
{
	const char *const *names;
	size_t n = sheet_names(s, &names), bytes = 0;
	json_t *arr = json_array();
	for (size_t i = 0; i < n && bytes < 1000; i++) {
		json_array_append_new(arr, json_string(names[i]));
		bytes += strlen(names[i]) + 4;
	}
	return arr;
}

char *import_file_detail(struct arena *a, const struct sheet *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "headerRow", json_integer(sheet_header_row(s)));
	const char *name = sheet_name(s);
	json_object_set_new(o, "sheet", name ? json_string(name) : json_null());
	json_object_set_new(o, "sheets", names_json(s));
	const unsigned *rows;
	size_t n = sheet_summary_rows(s, &rows);
	json_t *sum = json_array();
	/* At most 100 listed: a file has a few; the store keeps the list short. */
	for (size_t i = 0; i < n && i < 100; i++)
		json_array_append_new(sum, json_integer(rows[i]));
	json_object_set_new(o, "summaryRows", sum);
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	char *out = arena_strdup(a, text ? text : "{}");
	free(text);
	return strlen(out) < RUN_FILE_DETAIL_MAX ? out : NULL;
}
