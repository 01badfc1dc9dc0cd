/* Corrected rows (corrections.h). */
#include "corrections.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/csv_write.h"
#include "base/text.h"
#include "import/intake.h"
#include "import/readfile.h"
#include "import/results.h"
#include "sheet/sheet.h"

/* The corrected file is at most this big (a failed row rarely passes a few KB). */
#define CORRECTIONS_FILE_MAX (64u << 20)

/* ---- the failed rows, from the results ---- */

/* "C12" -> 2; -1 when there are no letters. */
static int col_of_cell(const char *cell)
{
	int col = 0, n = 0;
	for (; cell && *cell >= 'A' && *cell <= 'Z' && n < 4; cell++, n++)
		col = col * 26 + (*cell - 'A' + 1);
	return n ? col - 1 : -1;
}

struct collect {
	struct arena *a;
	struct failed_list *f;
	int cap;
};

static const char *dup_or_null(struct arena *a, json_t *v)
{
	return json_is_string(v) ? arena_strdup(a, json_string_value(v)) : NULL;
}

static void on_failed(int row_index, const char *body, void *ctx)
{
	struct collect *c = ctx;
	if (c->f->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		struct failed_item *rows = arena_alloc(c->a, sizeof(*rows) * (size_t)c->cap);
		if (c->f->n)
			memcpy(rows, c->f->rows, sizeof(*rows) * (size_t)c->f->n);
		c->f->rows = rows;
	}
	struct failed_item *it = &c->f->rows[c->f->n++];
	json_t *j = json_loads(body, 0, NULL), *errs = json_object_get(j, "errors"), *e;
	it->row = (unsigned)row_index;
	it->nerrors = (int)json_array_size(errs);
	it->errors = arena_alloc(c->a, sizeof(*it->errors) * (size_t)(it->nerrors + 1));
	size_t i;
	json_array_foreach(errs, i, e) {
		struct failed_error *fe = &it->errors[i];
		fe->code = dup_or_null(c->a, json_object_get(e, "code"));
		fe->col = col_of_cell(json_string_value(json_object_get(e, "cell")));
		fe->column = dup_or_null(c->a, json_object_get(e, "column"));
		fe->value = dup_or_null(c->a, json_object_get(e, "value"));
		fe->message = dup_or_null(c->a, json_object_get(e, "message"));
	}
	json_decref(j);
}

enum code corrections_failed(struct store *st, struct arena *a, const char *run_id, const char *docs_url,
			     struct failed_list *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct collect c = {a, ret, 0};
	bool more = true;
	enum code rc = CODE_OK;
	while (more && !rc)
		rc = results_page(st, run_id, "failed", ret->n ? (int)ret->rows[ret->n - 1].row : 0, 500,
				  docs_url ? docs_url : "", on_failed, &c, &more);
	return rc;
}

const struct failed_item *corrections_find(const struct failed_list *f, unsigned row)
{
	size_t lo = 0, hi = (size_t)f->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->rows[mid].row == row)
			return &f->rows[mid];
		if (f->rows[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- reading the stored upload ---- */

struct opened {
	unsigned char *data;
	struct sheet *sh;
};

static void opened_close(struct opened *o)
{
	sheet_free(o->sh);
	free(o->data);
}

/* Opens orig's stored upload as its run read it (the one reader entry
 * point), with its row limit lifted to what the run already read. */
static enum code open_upload(struct store *st, struct arena *a, const struct run *run, struct opened *ret)
{
	memset(ret, 0, sizeof(*ret));
	size_t len = 0;
	enum code rc = store_run_file(st, run->id, &ret->data, &len);
	if (rc)
		return rc == CODE_NOT_FOUND ? CODE_UPLOAD_EXPIRED : rc;
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	if (run->row_count > 0)
		lim.max_rows = (size_t)run->row_count + 1;
	sheet_lift_shared_caps(&lim);   /* as the import read it, with the table in memory */
	struct import_read rd;
	import_read_for_run(&rd, st, a, run);
	const char *msg = NULL;
	rc = import_sheet_open(&rd, ret->data, len, &lim, &ret->sh, &msg, NULL);
	if (rc) {
		free(ret->data);
		ret->data = NULL;
	}
	return rc;
}

/* Row r's first n cells, "" past its end, in a. */
static const char **row_cells(struct arena *a, const struct sheet_row *r, size_t n)
{
	const char **cells = arena_alloc(a, sizeof(char *) * (n + 1));
	for (size_t j = 0; j < n; j++)
		cells[j] = arena_strdup(a, j < r->ncells ? r->cells[j] : "");
	return cells;
}

enum code corrections_grid(struct store *st, struct arena *a, const struct run *run, const struct failed_list *f,
			   unsigned after, int limit, struct failed_grid *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct opened o;
	enum code rc = open_upload(st, a, run, &o);
	if (rc)
		return rc;
	const struct sheet_row *h = sheet_header(o.sh), *r;
	ret->ncols = h->ncells;
	ret->header = row_cells(a, h, h->ncells);
	ret->items = arena_alloc(a, sizeof(*ret->items) * (size_t)(limit + 1));
	ret->cells = arena_alloc(a, sizeof(*ret->cells) * (size_t)(limit + 1));
	while ((rc = sheet_next_row(o.sh, &r)) == CODE_OK && r) {
		const struct failed_item *it = r->number > after ? corrections_find(f, r->number) : NULL;
		if (!it)
			continue;
		if (ret->n == limit) {
			ret->next_after = ret->items[ret->n - 1]->row;
			break;
		}
		ret->items[ret->n] = it;
		ret->cells[ret->n++] = row_cells(a, r, ret->ncols);
	}
	opened_close(&o);
	return rc;
}

/* ---- the request ---- */

static bool cell_ok(const char *s, size_t len)
{
	return len <= CORRECTIONS_CELL_MAX && strlen(s) == len && text_utf8_valid(s);
}

static int by_row(const void *x, const void *y)
{
	unsigned a = ((const struct correction_row *)x)->row, b = ((const struct correction_row *)y)->row;
	return a < b ? -1 : a > b;
}

/* One {"rowIndex", "cells"} element; NULL when fine, else why not. */
static const char *row_from_json(struct arena *a, json_t *e, size_t i, struct correction_row *r)
{
	json_t *ri = json_object_get(e, "rowIndex"), *cells = json_object_get(e, "cells");
	if (!json_is_integer(ri) || json_integer_value(ri) < 1 || json_integer_value(ri) > SHEET_MAX_ROW_NUMBER)
		return arena_printf(a, "rows[%zu].rowIndex must be a row number of the file (a positive integer).", i);
	if (!json_is_object(cells) || json_object_size(cells) == 0)
		return arena_printf(a, "rows[%zu].cells must be an object of header texts to cell texts.", i);
	r->row = (unsigned)json_integer_value(ri);
	r->ncells = (int)json_object_size(cells);
	r->headers = arena_alloc(a, sizeof(char *) * (size_t)r->ncells);
	r->texts = arena_alloc(a, sizeof(char *) * (size_t)r->ncells);
	const char *k;
	json_t *v;
	int j = 0;
	json_object_foreach(cells, k, v) {
		if (!json_is_string(v) || !cell_ok(json_string_value(v), json_string_length(v)))
			return arena_printf(a, "rows[%zu].cells[\"%s\"] must be a string of at most %d bytes "
					    "without NUL characters.", i, k, CORRECTIONS_CELL_MAX);
		r->headers[j] = arena_strdup(a, k);
		r->texts[j++] = arena_strdup(a, json_string_value(v));
	}
	return NULL;
}

enum code corrections_from_json(struct arena *a, json_t *body, struct corrections *ret, const char **ret_why)
{
	memset(ret, 0, sizeof(*ret));
	json_t *rows = json_object_get(body, "rows");
	size_t n = json_array_size(rows);
	*ret_why = !json_is_array(rows) || n == 0 ? "Send rows: a non-empty list of {\"rowIndex\", \"cells\"}."
		 : n > CORRECTIONS_MAX_ROWS ? arena_printf(a, "At most %d rows per correction; send the rest in "
							   "another one.", CORRECTIONS_MAX_ROWS) : NULL;
	if (*ret_why)
		return CODE_INVALID_CORRECTION;
	ret->rows = arena_alloc(a, sizeof(*ret->rows) * n);
	ret->n = (int)n;
	for (size_t i = 0; i < n; i++)
		if ((*ret_why = row_from_json(a, json_array_get(rows, i), i, &ret->rows[i])))
			return CODE_INVALID_CORRECTION;
	qsort(ret->rows, n, sizeof(*ret->rows), by_row);
	for (size_t i = 1; i < n; i++)
		if (ret->rows[i].row == ret->rows[i - 1].row) {
			*ret_why = arena_printf(a, "rowIndex %u is listed twice; send each row once.", ret->rows[i].row);
			return CODE_INVALID_CORRECTION;
		}
	return CODE_OK;
}

/* ---- the corrected file ---- */

/* The column of header text h, -1 when the header has none (blank headers
 * name nothing). */
static int header_col(const struct sheet_row *hdr, const char *h)
{
	if (!*h)
		return -1;
	for (size_t j = 0; j < hdr->ncells; j++)
		if (!strcmp(hdr->cells[j], h))
			return (int)j;
	return -1;
}

/* The column of cell j of r; NULL when the file has it, else why not. */
static const char *column_of(struct arena *a, const struct sheet_row *hdr, const struct correction_row *r, int j,
			     int *ret)
{
	if (r->cols) {
		*ret = r->cols[j];
		return *ret >= 0 && (size_t)*ret < hdr->ncells ? NULL
		       : arena_printf(a, "Row %u: the file has no column %d.", r->row, *ret + 1);
	}
	*ret = header_col(hdr, r->headers[j]);
	return *ret >= 0 ? NULL : arena_printf(a, "The file has no column headed \"%s\"; name cells by the header "
					       "texts of the file's header row.", r->headers[j]);
}

/* Checks every row and cell of c against the failed rows and the file's
 * header; *ret_cols gets each row's column indexes. */
static const char *check(struct arena *a, const struct corrections *c, const struct failed_list *f,
			 const struct sheet_row *hdr, int ***ret_cols)
{
	int **cols = arena_alloc(a, sizeof(int *) * (size_t)(c->n + 1));
	for (int i = 0; i < c->n; i++) {
		const struct correction_row *r = &c->rows[i];
		if (!corrections_find(f, r->row))
			return arena_printf(a, "Row %u is not a failed row of this run; correct only rows listed "
					    "in its failed results.", r->row);
		cols[i] = arena_alloc(a, sizeof(int) * (size_t)(r->ncells + 1));
		for (int j = 0; j < r->ncells; j++) {
			const char *why = column_of(a, hdr, r, j, &cols[i][j]);
			if (why)
				return why;
		}
	}
	*ret_cols = cols;
	return NULL;
}

struct writer {
	struct buf b;
	unsigned line;      /* the row number of the next record */
	int rows;           /* corrected rows written */
	bool full;
};

/* Writes cells as the record numbered `number`, after blank lines for the
 * rows in between. */
static void put_record(struct writer *w, unsigned number, const char *const *cells, size_t n)
{
	for (; w->line < number && !w->full; w->line++)
		w->full |= csv_row_end(&w->b) != 0;
	for (size_t j = 0; j < n && !w->full; j++)
		w->full |= csv_cell(&w->b, cells[j], j == 0) != 0;
	if (n == 0)
		w->full |= csv_cell(&w->b, "", true) != 0;
	w->full |= csv_row_end(&w->b) != 0;
	w->line++;
}

/* Row r as corrected by cr (columns cols): written unless nothing changed
 * and only changes count. */
static void put_corrected(struct arena *a, struct writer *w, const struct sheet_row *r, const struct correction_row *cr,
			  const int *cols, size_t width, bool changed_only)
{
	size_t n = r->ncells > width ? r->ncells : width;
	const char **cells = arena_alloc(a, sizeof(char *) * (n + 1));
	for (size_t j = 0; j < n; j++)
		cells[j] = j < r->ncells ? r->cells[j] : "";
	bool changed = false;
	for (int k = 0; k < cr->ncells; k++) {
		changed |= strcmp(cells[cols[k]], cr->texts[k]) != 0;
		cells[cols[k]] = cr->texts[k];
	}
	if (changed_only && !changed)
		return;
	put_record(w, r->number, cells, n);
	w->rows++;
}

/* The corrected file: the header at its row number, then the corrected
 * rows at theirs.  *ret_why when a row or header is unknown. */
static enum code write_file(struct arena *a, struct sheet *sh, const struct corrections *c,
			   const struct failed_list *f, struct writer *w, const char **ret_why)
{
	const struct sheet_row *hdr = sheet_header(sh), *r;
	int **cols = NULL;
	if ((*ret_why = check(a, c, f, hdr, &cols)))
		return CODE_INVALID_CORRECTION;
	buf_init(&w->b, CORRECTIONS_FILE_MAX);
	w->line = 1;
	/* UTF-8 with a BOM: the reader takes it as UTF-8 whatever the cells. */
	buf_puts(&w->b, "\xEF\xBB\xBF");
	put_record(w, hdr->number, (const char *const *)hdr->cells, hdr->ncells);
	enum code rc;
	int next = 0;
	while (next < c->n && (rc = sheet_next_row(sh, &r)) == CODE_OK && r) {
		while (next < c->n && c->rows[next].row < r->number)
			next++;   /* not read as a data row (cannot be: it failed) */
		if (next < c->n && c->rows[next].row == r->number) {
			put_corrected(a, w, r, &c->rows[next], cols[next], hdr->ncells, c->changed_only);
			next++;
		}
	}
	if (w->full)
		return CODE_TOO_LARGE;
	if (w->rows == 0) {
		*ret_why = "No cell was changed: change a cell of a failed row, then import the corrected rows.";
		return CODE_INVALID_CORRECTION;
	}
	return CODE_OK;
}

enum code corrections_create(struct store *st, struct arena *a, const struct run *orig, const struct corrections *c,
			     const struct correction_opts *o, struct run *ret, char ret_existing_id[ID_MAX],
			     const char **ret_why)
{
	*ret_why = NULL;
	if (run_upload_expired(orig, o->keep_uploads_ms, now_ms()))
		return CODE_UPLOAD_EXPIRED;
	struct failed_list f;
	enum code rc = corrections_failed(st, a, orig->id, NULL, &f);
	struct opened op = {0};
	if (!rc)
		rc = open_upload(st, a, orig, &op);
	if (rc)
		return rc;
	/* The rows in file order (the web form's come in any order). */
	struct corrections sorted = *c;
	sorted.rows = arena_alloc(a, sizeof(*sorted.rows) * (size_t)(c->n + 1));
	if (c->n)
		memcpy(sorted.rows, c->rows, sizeof(*sorted.rows) * (size_t)c->n);
	qsort(sorted.rows, (size_t)c->n, sizeof(*sorted.rows), by_row);
	struct writer w = {0};
	unsigned header_row = sheet_header_row(op.sh);
	rc = write_file(a, op.sh, &sorted, &f, &w, ret_why);
	opened_close(&op);
	if (!rc) {
		char fingerprint[DIGEST_HEX];
		intake_fingerprint(w.b.data, w.b.len, fingerprint);
		struct intake in = {.org_id = orig->org_id, .file_name = orig->file_name, .dry_run = o->dry_run,
				    .format = SHEET_CSV, .fingerprint = fingerprint, .staging_ttl_ms = o->staging_ttl_ms,
				    .header_row = header_row, .correction_of = orig->id, .created_by = o->created_by,
				    /* as a rerun: the original's commit policy */
				    .commit_policy = *orig->commit_policy ? orig->commit_policy : NULL};
		rc = intake_create_run(st, a, &in, w.b.data, w.b.len, ret, ret_existing_id);
	}
	buf_done(&w.b);
	return rc;
}
