/* The XLSX worksheet as a stream of rows: <row>/<c> elements read one node
 * at a time, cells placed by their r= references and rendered as text
 * (shared/inline strings, booleans, errors, dates, General numbers). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_int.h"

struct xsheet {
	struct sheet_reader base;
	struct xzip z;
	struct xpart part;
	struct xsst sst;
	struct xstyles st;
	bool date1904;
	bool in_data, done;
	unsigned last_row;
	struct buf val;     /* the current cell's raw text */
};

/* "AB12" -> column 27 (0-based), row 12.  Returns -1 when malformed. */
static int parse_ref(const char *ref, size_t *ret_col, unsigned *ret_row)
{
	size_t col = 0, i = 0;
	for (; (ref[i] >= 'A' && ref[i] <= 'Z') || (ref[i] >= 'a' && ref[i] <= 'z'); i++) {
		col = col * 26 + (size_t)((ref[i] | 0x20) - 'a' + 1);
		if (col > SHEET_MAX_COLUMNS)
			return -1;
	}
	if (i == 0)
		return -1;
	unsigned long row = 0;
	size_t digits = 0;
	for (; ref[i] >= '0' && ref[i] <= '9'; i++, digits++) {
		row = row * 10 + (unsigned long)(ref[i] - '0');
		if (row > SHEET_MAX_ROW_NUMBER)
			return -1;
	}
	if (ref[i] || (digits && row == 0))
		return -1;
	*ret_col = col - 1;
	if (ret_row)
		*ret_row = (unsigned)row;
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *ret)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*ret = v;
	return 0;
}

static bool parse_number(const char *s, double *ret)
{
	if (!*s)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE)
		return false;
	*ret = v;
	return true;
}

/* Numbers: dates and times by the cell's style, everything else in General. */
static int number_text(struct xsheet *x, const char *v, unsigned long style, struct rowbuf *rb)
{
	double d;
	char out[48];
	if (!parse_number(v, &d))
		return rowbuf_add_cell(rb, v, strlen(v));
	int kind = style < x->st.n ? x->st.kind[style] : 0;
	/* Zero-padded formats (ZIP codes, account numbers): "08817", not "8817". */
	if (kind > SHEET_NUMFMT_ZERO_PAD && d >= 0 && d < 1e15 && d == (double)(long long)d &&
	    snprintf(out, sizeof(out), "%0*lld", kind - SHEET_NUMFMT_ZERO_PAD, (long long)d) < (int)sizeof(out))
		return rowbuf_add_cell(rb, out, strlen(out));
	if ((kind == SHEET_NUMFMT_DATE && !sheet_format_date(d, x->date1904, out, sizeof(out))) ||
	    (kind == SHEET_NUMFMT_TIME && !sheet_format_time(d, out, sizeof(out))) ||
	    !sheet_format_general(d, out, sizeof(out)))
		return rowbuf_add_cell(rb, out, strlen(out));
	return rowbuf_add_cell(rb, v, strlen(v));
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* t="d" cells hold ISO 8601 text ("2024-01-05T13:30:00.000Z" from SheetJS):
 * rendered like date-formatted numbers, "YYYY-MM-DD" or
 * "YYYY-MM-DDTHH:MM:SS".  Fractions of a second and a zone designator are
 * dropped (spreadsheet dates have no zone); anything else is kept as is. */
static int iso_text(const char *v, struct rowbuf *rb)
{
	size_t n = strlen(v);
	if (n < 10 || !digits(v, 4) || v[4] != '-' || !digits(v + 5, 2) || v[7] != '-' ||
	    !digits(v + 8, 2) || (n > 10 && v[10] != 'T'))
		return rowbuf_add_cell(rb, v, n);
	if (n == 10)
		return rowbuf_add_cell(rb, v, 10);
	char out[20] = "";
	memcpy(out, v, 11);
	const char *t = v + 11;
	/* HH:MM, then optional :SS */
	if (strlen(t) < 5 || !digits(t, 2) || t[2] != ':' || !digits(t + 3, 2))
		return rowbuf_add_cell(rb, v, n);
	memcpy(out + 11, t, 5);
	const char *rest = t + 5;
	if (rest[0] == ':' && digits(rest + 1, 2)) {
		memcpy(out + 16, rest, 3);
		rest += 3;
	} else {
		memcpy(out + 16, ":00", 3);
	}
	if (*rest == '.' || *rest == ',')
		for (rest++; *rest >= '0' && *rest <= '9'; rest++)
			;
	if (*rest && strcmp(rest, "Z") &&
	    !((rest[0] == '+' || rest[0] == '-') && strlen(rest) == 6 && rest[3] == ':'))
		return rowbuf_add_cell(rb, v, n);
	return rowbuf_add_cell(rb, out, memcmp(out + 11, "00:00:00", 8) ? 19 : 10);
}

static enum code cell_text(struct xsheet *x, const char *t, unsigned long style, struct rowbuf *rb,
			   const char **ret_msg)
{
	const char *v = buf_str(&x->val);
	int rc;
	if (x->val.len == 0) {
		/* A cell with a style and no value, whatever its type says. */
		rc = rowbuf_add_cell(rb, "", 0);
	} else if (!t || !strcmp(t, "n")) {
		rc = number_text(x, v, style, rb);
	} else if (!strcmp(t, "s")) {
		unsigned long i;
		if (parse_uint(v, SIZE_MAX, &i) || i >= x->sst.n) {
			*ret_msg = "a cell refers to a shared string that does not exist";
			return CODE_MALFORMED_XLSX;
		}
		const char *s = x->sst.pool.data + x->sst.offs[i];
		rc = rowbuf_add_cell(rb, s, strlen(s));
	} else if (!strcmp(t, "b")) {
		rc = !strcmp(v, "1") ? rowbuf_add_cell(rb, "TRUE", 4) :
		     !strcmp(v, "0") ? rowbuf_add_cell(rb, "FALSE", 5) : rowbuf_add_cell(rb, v, x->val.len);
	} else if (!strcmp(t, "d")) {
		rc = iso_text(v, rb);
	} else {
		/* inlineStr, str (formula text), e (error text like #DIV/0!) */
		buf_unescape_xstring(&x->val, 0);
		rc = rowbuf_add_cell(rb, buf_str(&x->val), x->val.len);
	}
	if (rc) {
		*ret_msg = "a row is larger than the expansion limit";
		return CODE_MALFORMED_XLSX;
	}
	return CODE_OK;
}

/* Reads the children of a non-empty <c> into x->val: <v> text, or the runs
 * of an inline string <is>; formulas (<f>) are skipped, their cached <v>
 * value is what Excel shows.  An inline-string cell (inline) reads its <is>
 * only: some writers add a <v> as well, which Excel ignores. */
static enum code cell_value(struct xsheet *x, bool inline_only, const char **ret_msg)
{
	int depth = xmlTextReaderDepth(x->part.xr);
	for (;;) {
		int r = xpart_read(&x->part, ret_msg);
		if (r <= 0) {
			if (r == 0)
				*ret_msg = "the worksheet ends in the middle of a cell";
			return CODE_MALFORMED_XLSX;
		}
		int type = x->part.type;
		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(x->part.xr) == depth)
			return CODE_OK;
		if (type != XML_READER_TYPE_ELEMENT || xmlTextReaderDepth(x->part.xr) != depth + 1)
			continue;
		bool is_v = !inline_only && xpart_is(&x->part, type, "v"), is_is = xpart_is(&x->part, type, "is");
		if ((is_v || is_is) && xpart_text(&x->part, &x->val, is_is, ret_msg))
			return CODE_MALFORMED_XLSX;
	}
}

/* The cell's r, t and s attributes in one pass over its attributes (this
 * runs for every cell, so it matters); copied, as the reader's strings die
 * at its next move. */
struct cell_attrs {
	char ref[16], t[16];
	bool has_ref, has_t;
	unsigned long style;
};

static void copy_attr(char *dst, size_t size, const char *v, bool *has)
{
	*has = true;
	size_t n = v ? strlen(v) : size;
	if (n >= size) {
		v = "!";  /* too long to be valid: fails as a reference, reads as text */
		n = 1;
	}
	memcpy(dst, v, n + 1);
}

static void cell_attrs(struct xsheet *x, struct cell_attrs *a)
{
	memset(a, 0, sizeof(*a));
	xmlTextReaderPtr xr = x->part.xr;
	if (xmlTextReaderMoveToFirstAttribute(xr) != 1)
		return;
	do {
		const char *name = (const char *)xmlTextReaderConstLocalName(xr);
		if (!name || name[1])
			continue;
		const char *v = (const char *)xmlTextReaderConstValue(xr);
		if (name[0] == 'r')
			copy_attr(a->ref, sizeof(a->ref), v, &a->has_ref);
		else if (name[0] == 't')
			copy_attr(a->t, sizeof(a->t), v, &a->has_t);
		else if (name[0] == 's' && parse_uint(v, SIZE_MAX, &a->style))
			a->style = 0;
	} while (xmlTextReaderMoveToNextAttribute(xr) == 1);
	xmlTextReaderMoveToElement(xr);
}

static enum code read_cell(struct xsheet *x, struct rowbuf *rb, size_t *next_col,
			   const char **ret_msg)
{
	struct cell_attrs a;
	cell_attrs(x, &a);
	size_t col = *next_col;
	if (a.has_ref && parse_ref(a.ref, &col, NULL)) {
		*ret_msg = "a cell has a malformed reference (r attribute)";
		return CODE_MALFORMED_XLSX;
	}
	if (col < *next_col) {
		*ret_msg = "cells of a row are out of order or repeated";
		return CODE_MALFORMED_XLSX;
	}
	buf_clear(&x->val);
	if (!xmlTextReaderIsEmptyElement(x->part.xr)) {
		enum code rc = cell_value(x, a.has_t && !strcmp(a.t, "inlineStr"), ret_msg);
		if (rc)
			return rc;
	}
	*next_col = col + 1;
	if (col >= SHEET_MAX_COLUMNS)
		return CODE_OK;
	if (rowbuf_pad(rb, col)) {
		*ret_msg = "a row is larger than the expansion limit";
		return CODE_MALFORMED_XLSX;
	}
	return cell_text(x, a.has_t ? a.t : NULL, a.style, rb, ret_msg);
}

static enum code read_row(struct xsheet *x, struct rowbuf *rb, const char **ret_msg)
{
	unsigned long number = x->last_row + 1UL;
	const char *r = xpart_attr(&x->part, "r");
	if (r && parse_uint(r, SHEET_MAX_ROW_NUMBER, &number)) {
		*ret_msg = "a row has a malformed number (r attribute)";
		return CODE_MALFORMED_XLSX;
	}
	if (number <= x->last_row || number > SHEET_MAX_ROW_NUMBER) {
		*ret_msg = "rows are out of order or repeated";
		return CODE_MALFORMED_XLSX;
	}
	x->last_row = (unsigned)number;
	rb->number = (unsigned)number;
	if (xmlTextReaderIsEmptyElement(x->part.xr))
		return CODE_OK;
	int depth = xmlTextReaderDepth(x->part.xr);
	size_t next_col = 0;
	for (;;) {
		int rc = xpart_read(&x->part, ret_msg);
		if (rc <= 0) {
			if (rc == 0)
				*ret_msg = "the worksheet ends in the middle of a row";
			return CODE_MALFORMED_XLSX;
		}
		int type = x->part.type;
		if (type == XML_READER_TYPE_END_ELEMENT && xmlTextReaderDepth(x->part.xr) == depth)
			return CODE_OK;
		if (xpart_is(&x->part, XML_READER_TYPE_ELEMENT, "c") &&
		    xmlTextReaderDepth(x->part.xr) == depth + 1) {
			enum code e = read_cell(x, rb, &next_col, ret_msg);
			if (e)
				return e;
		}
	}
}

static enum code xsheet_next(struct sheet_reader *r, struct rowbuf *rb, bool *ret_eof,
			     const char **ret_msg)
{
	struct xsheet *x = (struct xsheet *)r;
	*ret_eof = false;
	while (!x->done) {
		int rc = xpart_read(&x->part, ret_msg);
		if (rc < 0) {
			rb->number = x->last_row + 1;
			return CODE_MALFORMED_XLSX;
		}
		if (rc == 0) {
			*ret_msg = "the worksheet has no sheetData";
			return x->in_data ? CODE_MALFORMED_XLSX : (x->done = true, CODE_OK);
		}
		int type = x->part.type;
		if (xpart_is(&x->part, type, "sheetData")) {
			if (type == XML_READER_TYPE_END_ELEMENT || xmlTextReaderIsEmptyElement(x->part.xr))
				x->done = true;
			else
				x->in_data = true;
		} else if (x->in_data && xpart_is(&x->part, XML_READER_TYPE_ELEMENT, "row")) {
			enum code e = read_row(x, rb, ret_msg);
			if (e && !rb->number)
				rb->number = x->last_row;
			return e;
		}
	}
	*ret_eof = true;
	return CODE_OK;
}

static void xsheet_free(struct sheet_reader *r)
{
	struct xsheet *x = (struct xsheet *)r;
	xpart_close(&x->part);
	xsst_free(&x->sst);
	xstyles_free(&x->st);
	xzip_close(&x->z);
	buf_done(&x->val);
	free(x);
}

enum code xsheet_open(struct xzip *z, const char *part, struct xsst *sst, struct xstyles *st,
		      bool date1904, struct sheet_reader **ret, const char **ret_msg)
{
	struct xsheet *x = calloc(1, sizeof(*x));
	if (!x) {
		xsst_free(sst);
		xstyles_free(st);
		xzip_close(z);
		*ret_msg = "out of memory while reading the worksheet";
		return CODE_INTERNAL_ERROR;
	}
	x->base.next = xsheet_next;
	x->base.free = xsheet_free;
	x->z = *z;
	x->sst = *sst;
	x->st = *st;
	x->date1904 = date1904;
	buf_init(&x->val, z->lim->max_uncompressed);
	/* part.e.z must point at the copy that lives as long as the stream. */
	if (xpart_open(&x->z, part, &x->part, ret_msg)) {
		xsheet_free(&x->base);
		return CODE_MALFORMED_XLSX;
	}
	*ret = &x->base;
	return CODE_OK;
}
