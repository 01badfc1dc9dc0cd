/* The fix-up file of a run (fixup.h). */
#include "fixup.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "base/buf.h"
#include "base/csv_write.h"
#include "import/mapping.h"
#include "import/readfile.h"
#include "import/xlsx_out.h"
#include "import/results.h"
#include "sheet/sheet.h"

#define FIXUP_MAX_BYTES (64u << 20)

/* The failed rows' errors, by spreadsheet row number. */
struct failed {
	int n;
	unsigned *rows;          /* ascending */
	const char **errors;     /* "CODE: message; CODE: message" */
};

struct collect {
	struct arena *a;
	struct failed *f;
	int cap;
};

static void on_result(int row_index, const char *body, void *ctx)
{
	struct collect *c = ctx;
	json_t *j = json_loads(body, 0, NULL);
	struct buf b;
	buf_init(&b, 1u << 20);
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(j, "errors"), i, e) {
		buf_printf(&b, "%s%s: %s", i ? "; " : "", json_string_value(json_object_get(e, "code")) ?: "",
			   json_string_value(json_object_get(e, "message")) ?: "");
	}
	json_decref(j);
	if (c->f->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		unsigned *rows = arena_alloc(c->a, sizeof(unsigned) * (size_t)c->cap);
		const char **errs = arena_alloc(c->a, sizeof(char *) * (size_t)c->cap);
		if (c->f->n) {
			memcpy(rows, c->f->rows, sizeof(unsigned) * (size_t)c->f->n);
			memcpy(errs, c->f->errors, sizeof(char *) * (size_t)c->f->n);
		}
		c->f->rows = rows;
		c->f->errors = errs;
	}
	c->f->rows[c->f->n] = (unsigned)row_index;
	c->f->errors[c->f->n++] = arena_strdup(c->a, buf_str(&b));
	buf_done(&b);
}

static enum code failed_rows(struct store *st, struct arena *a, const char *run_id, struct failed *f)
{
	memset(f, 0, sizeof(*f));
	struct collect c = {a, f, 0};
	bool more = true;
	enum code rc = CODE_OK;
	while (more && !rc)
		rc = results_page(st, run_id, "failed", f->n ? (int)f->rows[f->n - 1] : 0, 500, "", on_result, &c,
				  &more);
	return rc;
}

/* The errors text of row number, or NULL when the row did not fail. */
static const char *errors_of(const struct failed *f, unsigned number)
{
	size_t lo = 0, hi = (size_t)f->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->rows[mid] == number)
			return f->errors[mid];
		if (f->rows[mid] < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- the columns ---- */

/* Where each cell of the file read goes in the fix-up file: the header's
 * first `keep` columns (all but the `errors` column of a fix-up it was
 * made from: that one is replaced, never kept beside the new one), then
 * the cells of rows wider than the header, in their own columns under
 * blank headers (ignored on import, PRODUCT §4), then `errors`, always
 * the last column of every row (PRODUCT §11). */
struct layout {
	size_t keep;     /* shape_columns() of the header */
	size_t header;   /* header cells of the file read */
	size_t width;    /* columns before `errors` */
};

/* Columns row r needs before `errors`. */
static size_t out_width(const struct layout *l, const struct sheet_row *r)
{
	if (r->ncells <= l->keep)
		return r->ncells;
	return l->keep + (r->ncells > l->header ? r->ncells - l->header : 0);
}

/* Cell j (< l->width) of row r in the fix-up file; "" past its end. */
static const char *out_cell(const struct layout *l, const struct sheet_row *r, size_t j)
{
	size_t from = j < l->keep ? j : l->header + (j - l->keep);
	return from < r->ncells ? r->cells[from] : "";
}

/* The next failed row and its errors text; *ret_row = NULL at the end. */
static enum code next_failed(struct sheet *sh, const struct failed *f, const struct sheet_row **ret_row,
			     const char **ret_errors)
{
	enum code rc;
	while ((rc = sheet_next_row(sh, ret_row)) == CODE_OK && *ret_row)
		if ((*ret_errors = errors_of(f, (*ret_row)->number)))
			return CODE_OK;
	return rc;
}

/* Reads the file once to learn how wide its failed rows are. */
static enum code measure(struct sheet *sh, const struct failed *f, struct layout *ret)
{
	const struct sheet_row *h = sheet_header(sh), *r;
	const char *errs;
	ret->keep = shape_columns(h);
	ret->header = h->ncells;
	ret->width = ret->keep;
	enum code rc;
	while ((rc = next_failed(sh, f, &r, &errs)) == CODE_OK && r)
		if (out_width(ret, r) > ret->width)
			ret->width = out_width(ret, r);
	return rc;
}

/* ---- CSV ---- */

struct csv_out {
	struct buf b;
	char delim;
	bool sbcs;           /* written back in enc, as it was read */
	enum sbcs enc;
};

static int put_text(struct csv_out *o, const char *s, size_t n)
{
	return o->sbcs ? utf8_to_sbcs(&o->b, o->enc, s, n) : buf_append(&o->b, s, n);
}

/* One cell: quoted when it holds the delimiter, a quote, a line break or
 * surrounding spaces (RFC 4180); formula-like text gets a leading
 * apostrophe, which spreadsheets show as text and do not save back. */
static int csv_put(struct csv_out *o, const char *s, bool first)
{
	if (!first && buf_putc(&o->b, o->delim))
		return -1;
	size_t n = strlen(s);
	bool quote = strchr(s, o->delim) || strpbrk(s, "\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '));
	if (quote && buf_putc(&o->b, '"'))
		return -1;
	if (csv_formula_like(s) && buf_putc(&o->b, '\''))
		return -1;
	for (const char *p = s; *p;) {
		const char *q = strchr(p, '"');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if (put_text(o, p, len) || (q && buf_puts(&o->b, "\"\"")))
			return -1;
		p += len + (q ? 1 : 0);
	}
	return quote ? buf_putc(&o->b, '"') : 0;
}

static int csv_row(struct csv_out *o, const struct layout *l, const struct sheet_row *r, const char *errors)
{
	for (size_t j = 0; j < l->width; j++)
		if (csv_put(o, out_cell(l, r, j), j == 0))
			return -1;
	return csv_put(o, errors, l->width == 0) || buf_puts(&o->b, "\r\n");
}

/* ---- the file ---- */

static const char *base_name(struct arena *a, const char *file_name, const char *ext)
{
	const char *name = *file_name ? file_name : "import";
	const char *dot = strrchr(name, '.');
	size_t n = dot && dot != name ? (size_t)(dot - name) : strlen(name);
	return arena_printf(a, "%.*s-failed-rows.%s", (int)n, name, ext);
}

static enum code build_csv(struct sheet *sh, const struct layout *l, const struct failed *f, struct fixup *ret)
{
	const struct sheet_info *info = sheet_info(sh);
	bool mac = info->encoding && !strcmp(info->encoding, "macintosh");
	struct csv_out o = {.delim = info->delimiter ? info->delimiter : ',',
			    .sbcs = mac || (info->encoding && !strcmp(info->encoding, "windows-1252")),
			    .enc = mac ? SBCS_MACINTOSH : SBCS_WINDOWS_1252};
	buf_init(&o.b, FIXUP_MAX_BYTES);
	/* UTF-8 always with a BOM (PRODUCT §14): without one, Excel and
	 * LibreOffice open the file in the machine's default charset and
	 * save the corrected file garbled.  A UTF-16 upload's is UTF-8 too. */
	if (!o.sbcs)
		buf_puts(&o.b, "\xEF\xBB\xBF");
	const struct sheet_row *r;
	const char *errs;
	int bad = csv_row(&o, l, sheet_header(sh), "errors");
	while (!bad && next_failed(sh, f, &r, &errs) == CODE_OK && r) {
		bad = csv_row(&o, l, r, errs);
		ret->rows++;
	}
	if (bad) {
		buf_done(&o.b);
		return CODE_INTERNAL_ERROR;
	}
	ret->data = (unsigned char *)buf_steal(&o.b, &ret->len);
	ret->content_type = !o.sbcs ? "text/csv; charset=utf-8" : mac ? "text/csv; charset=macintosh"
								       : "text/csv; charset=windows-1252";
	return CODE_OK;
}

/* Excel's limit for a cell, which libxlsxwriter enforces (in characters). */
#define XLSX_CELL_MAX 32767

/* The first max characters of s (UTF-8), in the arena. */
static const char *first_chars(struct arena *a, const char *s, size_t max)
{
	size_t i = 0, k = 0;
	for (; s[i] && k <= max; i++)
		k += ((unsigned char)s[i] & 0xC0) != 0x80;
	if (k <= max)
		return s;
	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	return arena_strndup(a, s, i - 1);
}

/* One row; a cell libxlsxwriter refuses (longer than an .xlsx cell holds:
 * the readers refuse such cells since issue 20, so only a file read under
 * older rules has one) is not dropped silently: the errors cell says which
 * and to take it from the original file.  An errors text that long is cut. */
static void xlsx_row(struct arena *a, lxw_worksheet *ws, lxw_row_t at, const struct layout *l,
		     const struct sheet_row *r, const char *errors, lxw_format *bold)
{
	const char *note = "";
	size_t ncols = l->width;
	for (size_t j = 0; j < ncols; j++) {
		const char *cell = out_cell(l, r, j);
		if (!*cell || worksheet_write_string(ws, at, (lxw_col_t)j, cell, bold) == LXW_NO_ERROR)
			continue;
		lxw_col_t c = (lxw_col_t)j;
		char name[8];
		lxw_col_to_name(name, c, false);
		note = arena_printf(a, "%s; column %s is left empty: its text is longer than the 32,767 characters "
				    "an .xlsx cell holds (take it from the original file)", note, name);
	}
	const char *text = *note ? arena_printf(a, "%s%s", errors, note) : errors;
	if (worksheet_write_string(ws, at, (lxw_col_t)ncols, text, bold) != LXW_NO_ERROR) {
		static const char cut[] = " … (cut: longer than an .xlsx cell holds)";
		const char *head = first_chars(a, text, XLSX_CELL_MAX - (sizeof cut - 3));
		worksheet_write_string(ws, at, (lxw_col_t)ncols, arena_printf(a, "%s%s", head, cut), bold);
	}
}

/* libxlsxwriter writes to a file: a private temporary one, read back. */
struct xlsx_fill {
	struct arena *a;
	struct sheet *sh;
	const struct layout *l;
	const struct failed *f;
	int rows;
};

static int fill_failed(lxw_workbook *wb, void *ctx)
{
	struct xlsx_fill *x = ctx;
	lxw_worksheet *ws = workbook_add_worksheet(wb, "Failed rows");
	lxw_format *bold = workbook_add_format(wb);
	if (!ws || !bold)
		return -1;
	/* Every cell text ("@"), the columns too, so that what a person types
	 * into the workbook stays text: a spreadsheet program would turn a
	 * typed 0007 into 7 and a long number into 4.00012345678901E+18. */
	lxw_format *text = workbook_add_format(wb);
	if (!text)
		return -1;
	format_set_num_format(text, "@");
	format_set_bold(bold);
	format_set_num_format(bold, "@");
	worksheet_set_column(ws, 0, (lxw_col_t)x->l->width, 14, text);
	const struct sheet_row *r;
	const char *errs;
	xlsx_row(x->a, ws, 0, x->l, sheet_header(x->sh), "errors", bold);
	lxw_row_t at = 1;
	while (next_failed(x->sh, x->f, &r, &errs) == CODE_OK && r) {
		xlsx_row(x->a, ws, at++, x->l, r, errs, text);
		x->rows++;
	}
	return 0;
}

static enum code build_xlsx(struct arena *a, struct sheet *sh, const struct layout *l, const struct failed *f,
			   struct fixup *ret)
{
	struct xlsx_fill x = {a, sh, l, f, 0};
	enum code rc = xlsx_to_memory(fill_failed, &x, FIXUP_MAX_BYTES, &ret->data, &ret->len);
	ret->rows += x.rows;
	ret->content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
	return rc;
}

/* Two reads of the stored file: the first measures the failed rows (the
 * header, written first, must know how many columns come before
 * `errors`), the second writes them.  Only the failed rows are kept. */
static enum code build(const struct import_read *rd, struct arena *a, const unsigned char *data, size_t len,
		       const struct sheet_limits *lim, const struct failed *f, const char *file_name,
		       enum fixup_format format, struct fixup *ret)
{
	struct sheet *sh = NULL;
	const char *msg = NULL;
	struct layout l;
	enum code rc = import_sheet_open(rd, data, len, lim, &sh, &msg, NULL);
	if (!rc)
		rc = measure(sh, f, &l);
	sheet_free(sh);
	sh = NULL;
	if (!rc)
		rc = import_sheet_open(rd, data, len, lim, &sh, &msg, NULL);
	if (!rc) {
		bool xlsx = format == FIXUP_AS_UPLOADED ? sheet_info(sh)->format == SHEET_XLSX : format == FIXUP_XLSX;
		rc = xlsx ? build_xlsx(a, sh, &l, f, ret) : build_csv(sh, &l, f, ret);
		ret->file_name = base_name(a, file_name, xlsx ? "xlsx" : "csv");
	}
	sheet_free(sh);
	return rc;
}

int fixup_format_parse(const char *s, enum fixup_format *ret)
{
	if (!s || !*s)
		*ret = FIXUP_AS_UPLOADED;
	else if (!strcmp(s, "csv"))
		*ret = FIXUP_CSV;
	else if (!strcmp(s, "xlsx"))
		*ret = FIXUP_XLSX;
	else
		return -1;
	return 0;
}

enum code fixup_build(struct store *st, struct arena *a, const struct run *run, enum fixup_format format,
		      struct fixup *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct failed f;
	enum code rc = failed_rows(st, a, run->id, &f);
	unsigned char *data = NULL;
	size_t len = 0;
	if (!rc)
		rc = store_run_file(st, run->id, &data, &len);
	if (rc)
		return rc;
	/* Every row is read (the failed ones may be anywhere); the limits are
	 * the ones the import itself ran under, lifted for rows: the file was
	 * already accepted once. */
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	if (run->row_count > 0)
		lim.max_rows = (size_t)run->row_count + 1;
	sheet_lift_shared_caps(&lim);   /* as the import read it, with the table in memory */
	struct import_read rd;
	import_read_for_run(&rd, st, a, run);
	rc = build(&rd, a, data, len, &lim, &f, run->file_name, format, ret);
	free(data);
	return rc;
}
