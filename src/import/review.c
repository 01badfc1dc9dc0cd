/* Review data and confirmation of staged runs. */
#include "review.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "mapping.h"
#include "readfile.h"
#include "rows.h"
#include "store/shapes.h"

/* The columns the review maps: those of the run's shape, which leaves out a
 * fix-up file's `errors` column (mapping.h, shape_columns) -- unless the
 * run was staged under the whole header's key, as before issue 22. */
static size_t review_columns(const struct sheet_row *h, const char *staged_key)
{
	size_t ncols = shape_columns(h);
	char whole[SHAPE_KEY_SIZE];
	if (ncols < h->ncells) {
		shape_key(h->cells, h->lens, h->ncells, whole);
		if (!strcmp(whole, staged_key))
			return h->ncells;
	}
	return ncols;
}

/* What the review screen shows around the header: the rows above it (to
 * pick another) and the worksheets (to read another). */
static void frame_of(struct arena *a, const struct sheet *sh, struct review *r)
{
	r->header_row = sheet_header_row(sh);
	const struct sheet_row *const *above;
	r->nabove = (int)sheet_rows_above(sh, &above);
	r->above = arena_alloc(a, sizeof(*r->above) * ((size_t)r->nabove + 1));
	for (int i = 0; i < r->nabove; i++) {
		const struct sheet_row *row = above[i];
		r->above[i].number = row->number;
		r->above[i].ncells = (int)(row->ncells < REVIEW_ABOVE_CELLS ? row->ncells : REVIEW_ABOVE_CELLS);
		r->above[i].cells = arena_alloc(a, sizeof(char *) * ((size_t)r->above[i].ncells + 1));
		for (int j = 0; j < r->above[i].ncells; j++)
			r->above[i].cells[j] = arena_strndup(a, row->cells[j], row->lens[j] < 200 ? row->lens[j] : 200);
	}
	const char *const *names;
	r->nsheets = (int)sheet_names(sh, &names);
	r->sheets = arena_alloc(a, sizeof(char *) * ((size_t)r->nsheets + 1));
	for (int i = 0; i < r->nsheets; i++)
		r->sheets[i] = arena_strdup(a, names[i]);
	r->sheet = sheet_name(sh) ? arena_strdup(a, sheet_name(sh)) : NULL;
}

/* An arena copy of a data row's first ncols cells ("" past its end). */
static const struct sheet_row *copy_sample(struct arena *a, const struct sheet_row *row, size_t ncols)
{
	struct sheet_row *r = arena_alloc(a, sizeof(*r));
	const char **cells = arena_alloc(a, sizeof(char *) * (ncols + 1));
	size_t *lens = arena_alloc(a, sizeof(size_t) * (ncols + 1));
	for (size_t j = 0; j < ncols; j++) {
		cells[j] = j < row->ncells ? arena_strndup(a, row->cells[j], row->lens[j]) : "";
		lens[j] = j < row->ncells ? row->lens[j] : 0;
	}
	*r = (struct sheet_row){.number = row->number, .ncells = ncols, .cells = cells, .lens = lens};
	return r;
}

static enum code read_file(struct store *st, struct arena *a, int max_rows, struct review *r)
{
	unsigned char *data = NULL;
	size_t len = 0;
	enum code rc = store_run_file(st, r->run.id, &data, &len);
	if (rc)
		return rc;
	unsigned char *copy = arena_alloc(a, len + 1);
	memcpy(copy, data, len);
	free(data);
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = (size_t)max_rows;
	struct sheet *sh = NULL;
	const char *msg;
	struct import_read rd;
	import_read_for_run(&rd, st, a, &r->run);
	if (r->at_header_row)
		rd.header_row = r->at_header_row;
	if (r->at_sheet)
		rd.sheet = r->at_sheet;
	if ((rc = import_sheet_open(&rd, copy, len, &lim, &sh, &msg, NULL))) {
		sheet_free(sh);
		return rc;
	}
	frame_of(a, sh, r);
	r->delimiter = sheet_info(sh)->delimiter;
	const struct sheet_row *h = sheet_header(sh);
	size_t ncols = review_columns(h, r->run.shape_key);
	/* Read at another row or sheet, the shape is that header's. */
	if (r->at_header_row || r->at_sheet) {
		ncols = shape_columns(h);
		shape_key(h->cells, h->lens, ncols, r->shape_key);
	} else
		snprintf(r->shape_key, sizeof r->shape_key, "%s", r->run.shape_key);
	r->ncols = (int)ncols;
	r->headers = arena_alloc(a, sizeof(char *) * (ncols + 1));
	for (size_t j = 0; j < ncols; j++)
		r->headers[j] = arena_strndup(a, h->cells[j], h->lens[j]);
	/* The proposal's values evidence: the first data rows, read ahead,
	 * cut to the reviewed columns (arena copies: they outlive the sheet). */
	const struct sheet_row *const *ahead;
	size_t nrows = sheet_samples(sh, &ahead);
	const struct sheet_row **rows = arena_alloc(a, sizeof(*rows) * (nrows + 1));
	for (size_t k = 0; k < nrows; k++)
		rows[k] = copy_sample(a, ahead[k], ncols);
	for (size_t k = 0; k < nrows && k < REVIEW_SAMPLES; k++) {
		r->sample_rows[k] = rows[k]->number;
		r->samples[r->nsamples++] = (const char **)rows[k]->cells;
	}
	struct propose_input in = {rows, nrows, NULL, 0};
	struct propose_learned *learned;
	if ((rc = mapping_learned(st, a, r->run.org_id, &learned, &in.nlearned))) {
		sheet_free(sh);
		return rc;
	}
	in.learned = learned;
	r->proposal = arena_alloc(a, sizeof(struct proposal) * (ncols + 1));
	propose_mapping_with(h->cells, h->lens, ncols, &in, r->proposal);
	sheet_free(sh);
	return CODE_OK;
}

enum code review_load(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
		      struct review *ret)
{
	return review_load_at(st, a, max_rows, org_id, run_id, 0, NULL, ret);
}

enum code review_load_at(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			 unsigned header_row, const char *sheet, struct review *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->at_header_row = header_row;
	ret->at_sheet = sheet && *sheet ? sheet : NULL;
	enum code rc = store_run_get(st, org_id, run_id, &ret->run);
	if (rc)
		return rc;
	ret->decided = !(ret->run.staged && ret->run.state == RUN_QUEUED);
	ret->expired = ret->run.staged && ret->run.expires_at <= now_ms();
	return read_file(st, a, max_rows, ret);
}

/* False (with a message) when a field is unknown or chosen twice. */
static bool fields_acceptable(struct arena *a, const char *const *fields, int ncols, const char **ret_message)
{
	bool used[FIELD__COUNT] = {0};
	for (int j = 0; j < ncols; j++) {
		if (!fields[j] || !*fields[j])
			continue;
		enum field f = field_from_name(fields[j]);
		if (f == FIELD_NONE) {
			*ret_message = arena_printf(a, "\"%s\" is not a field of the jobs schema.", fields[j]);
			return false;
		}
		if (used[f]) {
			*ret_message = arena_printf(a, "%s is chosen for two columns; map each field to one column.", fields[j]);
			return false;
		}
		used[f] = true;
	}
	return true;
}

/* Each header as the admin left it (PRODUCT §14 "Learning from
 * confirmations"): mapped, changed or ignored. */
static const struct learned_header *learned_of(struct arena *a, const struct colmap *map, int ncols)
{
	struct learned_header *l = arena_alloc(a, sizeof(*l) * ((size_t)ncols + 1));
	for (int j = 0; j < ncols; j++) {
		enum field f = map->col_field[j];
		l[j] = (struct learned_header){propose_header_key(a, map->headers[j], strlen(map->headers[j])),
					       map->headers[j], f < FIELD__COUNT ? field_name(f) : NULL, NULL, 0};
	}
	return l;
}

enum code review_confirm(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			 const char *user_id, const char *const *fields, int ncols, int *ret_released,
			 const char **ret_message, enum review_outcome *ret_outcome)
{
	struct review_at at = {0};
	return review_confirm_at(st, a, max_rows, org_id, run_id, &at, user_id, fields, ncols, ret_released,
				 ret_message, ret_outcome);
}

enum code review_confirm_at(struct store *st, struct arena *a, int max_rows, const char *org_id, const char *run_id,
			    const struct review_at *at, const char *user_id, const char *const *fields, int ncols,
			    int *ret_released, const char **ret_message, enum review_outcome *ret_outcome)
{
	struct review r;
	*ret_message = NULL;
	*ret_outcome = REVIEW_REFUSED;
	enum code rc = review_load_at(st, a, max_rows, org_id, run_id, at->header_row, at->sheet, &r);
	if (rc)
		return rc;
	if (r.decided) {
		*ret_message = arena_printf(a, "Run %s is %s and no longer waits for a mapping.", run_id,
					    run_state_name(r.run.state));
		*ret_outcome = REVIEW_DECIDED;
		return CODE_OK;
	}
	if (r.expired) {
		*ret_outcome = REVIEW_EXPIRED;
		return CODE_OK;
	}
	if (ncols != r.ncols) {
		*ret_message = arena_printf(a, "The file has %d columns; a mapping for %d was sent.", r.ncols, ncols);
		return CODE_OK;
	}
	if (!fields_acceptable(a, fields, ncols, ret_message))
		return CODE_OK;
	struct sheet_row h = {.ncells = (size_t)ncols, .cells = r.headers};
	size_t *lens = arena_alloc(a, sizeof(size_t) * ((size_t)ncols + 1));
	for (int j = 0; j < ncols; j++)
		lens[j] = strlen(r.headers[j]);
	h.lens = lens;
	struct colmap map;
	colmap_from_fields(a, &h, fields, &map);
	/* Read at another header row or sheet: the run is read so from now on,
	 * under that header's shape, which the confirmation then releases. */
	if ((at->header_row || at->sheet) &&
	    (rc = store_run_reread(st, org_id, run_id, (int)r.header_row, r.sheet, r.shape_key)))
		return rc;
	rc = store_shape_confirm(st, org_id, r.shape_key, headers_json(a, &h), colmap_fields_json(a, &map),
				 user_id, (int)r.header_row, learned_of(a, &map, ncols), ncols, ret_released);
	if (!rc) {
		*ret_outcome = REVIEW_CONFIRMED;
		store_run_changed(st, NULL);   /* this run and its shape's other runs lose nextAction */
	}
	return rc;
}

static void add_issues(struct arena *a, const struct colmap *map, const struct diag *d, int n, bool warning,
		       struct review_row_check *out)
{
	for (int i = 0; i < n; i++) {
		struct review_issue *x = &out->issues[out->nissues++];
		x->code = code_name(d[i].code);
		x->field = d[i].field < FIELD__COUNT ? field_name(d[i].field) : NULL;
		x->column = d[i].col >= 0 ? map->headers[d[i].col] : NULL;
		x->message = msg_render(a, d[i].code, d[i].field, &d[i].msg);
		x->warning = warning;
	}
}

void review_preview(struct arena *a, const struct review *r, const char *const *fields, struct review_row_check *ret)
{
	struct sheet_row h = {.ncells = (size_t)r->ncols, .cells = r->headers};
	size_t *lens = arena_alloc(a, sizeof(size_t) * ((size_t)r->ncols + 1));
	for (int j = 0; j < r->ncols; j++)
		lens[j] = strlen(r->headers[j]);
	h.lens = lens;
	/* Unknown names are ignored: the form may send anything. */
	const char **known = arena_alloc(a, sizeof(char *) * ((size_t)r->ncols + 1));
	for (int j = 0; j < r->ncols; j++)
		known[j] = fields[j] && field_from_name(fields[j]) != FIELD_NONE ? fields[j] : NULL;
	struct colmap map;
	colmap_from_fields(a, &h, known, &map);
	struct sheet_info info = {.delimiter = r->delimiter};
	colmap_read_units(a, &map, &info);
	for (int k = 0; k < r->nsamples; k++) {
		size_t *cl = arena_alloc(a, sizeof(size_t) * ((size_t)r->ncols + 1));
		for (int j = 0; j < r->ncols; j++)
			cl[j] = strlen(r->samples[k][j]);
		struct sheet_row in = {.number = r->sample_rows[k], .ncells = (size_t)r->ncols, .cells = r->samples[k],
				       .lens = cl};
		struct row *row = arena_alloc(a, sizeof(*row));
		row_check(a, &map, &in, row);
		ret[k].row = row->number;
		ret[k].nissues = 0;
		ret[k].issues = arena_alloc(a, sizeof(struct review_issue) * (size_t)(row->nerrors + row->nwarnings + 1));
		add_issues(a, &map, row->errors, row->nerrors, false, &ret[k]);
		add_issues(a, &map, row->warnings, row->nwarnings, true, &ret[k]);
	}
}
