/* The XLSX worksheet as a stream of rows: the part is pushed through
 * libxml2's SAX2 parser a chunk at a time; the callbacks queue each
 * complete row's cells (raw value, column, type, style) and sheet_next
 * renders one queued row at a time as text (shared/inline strings,
 * booleans, errors, dates, General numbers), feeding the next chunk only
 * when the queue is empty.  The queue holds at most one chunk's rows plus
 * the row in progress, so memory stays bounded as with a pull reader. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xlsx_int.h"

#include "base/csv_write.h"

enum cell_type { T_NUMBER, T_SHARED, T_BOOL, T_DATE, T_TEXT };

struct xsheet {
	struct sheet_reader base;
	struct xzip z;
	struct xsax part;
	xmlSAXHandler sax;
	struct xsst sst;
	struct xstyles st;
	bool date1904;
	bool in_data, done, eof;
	unsigned last_row;
	/* Parse state (SAX callbacks). */
	int depth;
	int row, c, v, is, t, rph;   /* depth of the open element, or 0 */
	size_t next_col;
	size_t col;                  /* the open cell's column */
	unsigned long style;
	enum cell_type type;
	bool inline_only;
	struct buf val;     /* the open cell's raw text */
	/* Complete rows waiting for sheet_next: records 'R' number, then
	 * 'C' col style type len text NUL per cell, then 'E'. */
	struct buf q;
	size_t q_ready;     /* end of the last complete row */
	size_t q_pos;       /* next record to deliver */
	const char *err;    /* the parse failed after the queued rows */
	enum code err_code; /* its code: MALFORMED_XLSX unless a cell was too long */
	unsigned err_row;
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

/* Decimal digits only, at most max (strtoul without its locale, sign and
 * space handling, and without errno: this runs for every cell). */
static int parse_uint(const char *s, unsigned long max, unsigned long *ret)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	unsigned long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*s)
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

static int with_dollar(const char *num, struct rowbuf *rb)
{
	if (rowbuf_begin_cell(rb) || rowbuf_append(rb, "$", 1) || rowbuf_append(rb, num, strlen(num)))
		return -1;
	return rowbuf_end_cell(rb);
}

/* A number with the text its format shows around it, as a person sees it
 * ("24.5 tons", "$1234.5"), so that the cell's unit or money sign is read
 * as if typed.  Only a "$" of a prefix is kept, and only a suffix of
 * letters: other currency signs ("€", "kr") are not dollars, and the
 * number alone is what was read before. */
static int with_affix(const char affix[2][SHEET_AFFIX_MAX], const char *num, struct rowbuf *rb)
{
	const char *pre = affix[0], *suf = affix[1];
	bool dollar = strchr(pre, '$') != NULL, letters = false;
	/* A currency code after the number ("1,234.50 USD") is money, not a
	 * unit: the number alone reads as money. */
	static const char *const codes[] = {" USD", " US$", " CAD", " EUR", " GBP", " MXN", " AUD"};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (!strcasecmp(suf, codes[i]) || !strcasecmp(suf, codes[i] + 1))
			return dollar || i < 2 ? with_dollar(num, rb) : rowbuf_add_cell(rb, num, strlen(num));
	for (const char *c = suf; *c; c++) {
		if (((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z'))
			letters = true;
		else if (*c != ' ' && *c != '.')
			return rowbuf_add_cell(rb, num, strlen(num));
	}
	if (rowbuf_begin_cell(rb) || (dollar && rowbuf_append(rb, "$", 1)) || rowbuf_append(rb, num, strlen(num)) ||
	    (letters && rowbuf_append(rb, suf, strlen(suf))))
		return -1;
	return rowbuf_end_cell(rb);
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
	unsigned affix = !kind && style < x->st.n && x->st.affix_of ? x->st.affix_of[style] : 0;
	if (affix && !sheet_format_general(d, out, sizeof(out)))
		return with_affix(x->st.affixes[affix - 1], out, rb);
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

/* A text cell, without the formula guard a CSV fix-up file wrote (PRODUCT
 * §14): LibreOffice opens "'=SUM(A1)" from a CSV as that text and, saved as
 * .xlsx, keeps the apostrophe in the cell.  The one rule is csv_guarded's,
 * as the CSV reader applies it. */
static int text_cell(struct rowbuf *rb, const char *s, size_t n)
{
	if (csv_guarded(s, n))
		return rowbuf_add_cell(rb, s + 1, n - 1);
	return rowbuf_add_cell(rb, s, n);
}

static enum code cell_text(struct xsheet *x, enum cell_type t, unsigned long style, const char *v,
			   size_t len, struct rowbuf *rb, const char **ret_msg)
{
	int rc;
	if (len == 0) {
		/* A cell with a style and no value, whatever its type says. */
		rc = rowbuf_add_cell(rb, "", 0);
	} else if (t == T_NUMBER) {
		rc = number_text(x, v, style, rb);
	} else if (t == T_SHARED) {
		unsigned long i;
		if (parse_uint(v, SIZE_MAX, &i)) {
			*ret_msg = "a cell refers to a shared string that does not exist";
			return CODE_MALFORMED_XLSX;
		}
		const char *s;
		size_t n;
		enum code e = xsst_get(&x->sst, i, &s, &n, ret_msg);
		if (e)
			return e;
		rc = text_cell(rb, s, n);
	} else if (t == T_BOOL) {
		rc = !strcmp(v, "1") ? rowbuf_add_cell(rb, "TRUE", 4) :
		     !strcmp(v, "0") ? rowbuf_add_cell(rb, "FALSE", 5) : rowbuf_add_cell(rb, v, len);
	} else if (t == T_DATE) {
		rc = iso_text(v, rb);
	} else {
		/* inlineStr, str (formula text), e (error text like #DIV/0!):
		 * unescaped when queued. */
		rc = text_cell(rb, v, len);
	}
	if (rc) {
		*ret_msg = "a row is larger than the expansion limit";
		return CODE_MALFORMED_XLSX;
	}
	return CODE_OK;
}

/* ---- SAX callbacks: build the queue ---- */

static void fail_code(struct xsheet *x, enum code code, const char *msg)
{
	if (!x->err) {
		x->err = msg;
		x->err_code = code;
		/* Inside a row (or at its start tag) the error belongs to that
		 * row; between rows, to the next one. */
		x->err_row = x->row ? x->last_row : x->last_row + 1;
	}
	xsax_fail(&x->part, msg);
}

static void fail(struct xsheet *x, const char *msg)
{
	fail_code(x, CODE_MALFORMED_XLSX, msg);
}

/* buf_append, without its call when the bytes fit (this runs several
 * times for every cell); the cap is checked as buf_append checks it. */
static inline int append(struct buf *b, const void *p, size_t n)
{
	if (b->data && n < b->cap - b->len && b->len + n <= b->max) {
		/* Most values are a few bytes: no call for those. */
		if (n <= 16)
			for (size_t i = 0; i < n; i++)
				b->data[b->len + i] = ((const char *)p)[i];
		else
			memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return 0;
	}
	return buf_append(b, p, n);
}

static void q_put(struct xsheet *x, const void *p, size_t n)
{
	if (append(&x->q, p, n))
		fail(x, "a row is larger than the expansion limit");
}

/* strcmp(s, lit) == 0 for the short names and values compared for every
 * element and cell, without a call. */
static inline bool eq(const char *s, const char *lit)
{
	while (*lit && *s == *lit) {
		s++;
		lit++;
	}
	return *s == *lit;
}

static enum cell_type type_of(const char *t, bool has_t)
{
	if (!has_t || eq(t, "n"))
		return T_NUMBER;
	if (eq(t, "s"))
		return T_SHARED;
	if (eq(t, "b"))
		return T_BOOL;
	if (eq(t, "d"))
		return T_DATE;
	return T_TEXT;
}

static void start_row(struct xsheet *x, int nattrs, const xmlChar **attrs)
{
	unsigned long number = x->last_row + 1UL;
	x->row = x->depth;  /* errors from here on are this row's */
	for (int i = 0; i < nattrs; i++) {
		const xmlChar **a = attrs + 5 * i;
		if (!eq((const char *)a[0], "r"))
			continue;
		char r[32];
		xsax_attr_copy(r, sizeof(r), a[3], a[4]);
		if (parse_uint(r, SHEET_MAX_ROW_NUMBER, &number)) {
			fail(x, "a row has a malformed number (r attribute)");
			return;
		}
		break;  /* the first r, as xpart_attr finds it */
	}
	if (number <= x->last_row || number > SHEET_MAX_ROW_NUMBER) {
		fail(x, "rows are out of order or repeated");
		return;
	}
	x->last_row = (unsigned)number;
	x->next_col = 0;
	uint32_t n = (uint32_t)number;
	q_put(x, "R", 1);
	q_put(x, &n, sizeof(n));
}

static void start_cell(struct xsheet *x, int nattrs, const xmlChar **attrs)
{
	char ref[16], t[16];
	bool has_ref = false, has_t = false;
	x->style = 0;
	for (int i = 0; i < nattrs; i++) {
		const xmlChar **a = attrs + 5 * i;
		const char *name = (const char *)a[0];
		if (!name[0] || name[1])
			continue;
		if (name[0] == 'r') {
			xsax_attr_copy(ref, sizeof(ref), a[3], a[4]);
			has_ref = true;
		} else if (name[0] == 't') {
			xsax_attr_copy(t, sizeof(t), a[3], a[4]);
			has_t = true;
		} else if (name[0] == 's') {
			char v[32];
			xsax_attr_copy(v, sizeof(v), a[3], a[4]);
			if (parse_uint(v, SIZE_MAX, &x->style))
				x->style = 0;
		}
	}
	size_t col = x->next_col;
	if (has_ref && parse_ref(ref, &col, NULL)) {
		fail(x, "a cell has a malformed reference (r attribute)");
		return;
	}
	if (col < x->next_col) {
		fail(x, "cells of a row are out of order or repeated");
		return;
	}
	x->c = x->depth;
	x->col = col;
	x->next_col = col + 1;
	x->type = type_of(t, has_t);
	x->inline_only = has_t && eq(t, "inlineStr");
	buf_clear(&x->val);
}

/* The raw text of a cell within Excel's 32,767 characters takes at most
 * 7 bytes a character ("_x000D_" is one). */
#define CELL_RAW_MAX (7u * SHEET_MAX_CELL_CHARS + 64)

#define CELL_REC 18  /* 'C', column (4), style (8), type (1), length (4) */

static void end_cell(struct xsheet *x)
{
	x->c = 0;
	if (x->col >= SHEET_MAX_COLUMNS)
		return;
	if (x->type == T_TEXT)
		buf_unescape_xstring(&x->val, 0);
	/* One record in two appends: this runs for every cell. */
	uint32_t col = (uint32_t)x->col, len = (uint32_t)x->val.len;
	uint64_t style = x->style;
	char rec[CELL_REC];
	rec[0] = 'C';
	memcpy(rec + 1, &col, 4);
	memcpy(rec + 5, &style, 8);
	rec[13] = (char)x->type;
	memcpy(rec + 14, &len, 4);
	q_put(x, rec, sizeof(rec));
	/* The text with the NUL the buffer keeps after it. */
	q_put(x, x->val.len ? x->val.data : "", x->val.len + 1);
}

static void sax_start(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
		      int nns, const xmlChar **ns, int nattrs, int ndefaulted, const xmlChar **attrs)
{
	(void)prefix;
	(void)uri;
	(void)nns;
	(void)ns;
	(void)ndefaulted;
	struct xsheet *x = ctx;
	int d = ++x->depth;
	const char *name = (const char *)local;
	if (x->c) {
		/* Inside a cell: its <v> text, or the runs of its <is>. */
		if (x->v || x->is) {
			if (x->is && !x->rph && eq(name, "rPh"))
				x->rph = d;
			else if (x->is && !x->t && eq(name, "t"))
				x->t = d;
		} else if (d == x->c + 1) {
			if (!x->inline_only && eq(name, "v"))
				x->v = d;
			else if (eq(name, "is"))
				x->is = d;
		}
	} else if (x->row) {
		if (d == x->row + 1 && eq(name, "c"))
			start_cell(x, nattrs, attrs);
	} else if (eq(name, "sheetData")) {
		x->in_data = true;
	} else if (x->in_data && eq(name, "row")) {
		start_row(x, nattrs, attrs);
	}
}

static void sax_end(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
	(void)prefix;
	(void)uri;
	struct xsheet *x = ctx;
	int d = x->depth--;
	if (x->c) {
		if (d == x->rph)
			x->rph = 0;
		if (d == x->t)
			x->t = 0;
		if (d == x->v)
			x->v = 0;
		if (d == x->is)
			x->is = 0;
		if (d == x->c)
			end_cell(x);
	} else if (x->row) {
		if (d == x->row) {
			x->row = 0;
			q_put(x, "E", 1);
			x->q_ready = x->q.len;
		}
	} else if (eq((const char *)local, "sheetData")) {
		/* The rest of the part is not read, as before. */
		x->done = true;
		xsax_stop(&x->part);
	}
}

static void sax_text(void *ctx, const xmlChar *s, int len)
{
	struct xsheet *x = ctx;
	/* val's cap (CELL_RAW_MAX) is past what any cell within Excel's
	 * limit takes, so passing it means the cell is too long. */
	if ((x->v || (x->is && x->t && !x->rph)) && append(&x->val, s, (size_t)len))
		fail_code(x, x->val.len + (size_t)len > x->val.max ? CODE_CELL_TOO_LONG : CODE_MALFORMED_XLSX,
			  x->val.len + (size_t)len > x->val.max ? "a cell has more than 32,767 characters (Excel's limit)"
								: "out of memory while reading a cell");
}

/* ---- the row stream ---- */

static void q_get(struct xsheet *x, void *p, size_t n)
{
	memcpy(p, x->q.data + x->q_pos, n);
	x->q_pos += n;
}

/* Renders the queued row at q_pos into rb. */
static enum code deliver_row(struct xsheet *x, struct rowbuf *rb, const char **ret_msg)
{
	uint32_t number;
	x->q_pos++;  /* 'R' */
	q_get(x, &number, sizeof(number));
	rb->number = number;
	while (x->q.data[x->q_pos] == 'C') {
		const char *rec = x->q.data + x->q_pos;
		uint32_t col, len;
		uint64_t style;
		memcpy(&col, rec + 1, 4);
		memcpy(&style, rec + 5, 8);
		uint8_t type = (uint8_t)rec[13];
		memcpy(&len, rec + 14, 4);
		const char *v = rec + CELL_REC;
		x->q_pos += CELL_REC + (size_t)len + 1;
		if (rowbuf_pad(rb, col)) {
			*ret_msg = "a row is larger than the expansion limit";
			return CODE_MALFORMED_XLSX;
		}
		enum code e = cell_text(x, (enum cell_type)type, (unsigned long)style, v, len, rb, ret_msg);
		if (e)
			return e;
	}
	x->q_pos++;  /* 'E' */
	return CODE_OK;
}

static enum code xsheet_next(struct sheet_reader *r, struct rowbuf *rb, bool *ret_eof,
			     const char **ret_msg)
{
	struct xsheet *x = (struct xsheet *)r;
	*ret_eof = false;
	for (;;) {
		if (x->q_pos < x->q_ready)
			return deliver_row(x, rb, ret_msg);
		if (x->err) {
			*ret_msg = x->err;
			rb->number = x->err_row;
			return x->err_code ? x->err_code : CODE_MALFORMED_XLSX;
		}
		if (x->eof)
			break;
		/* Keep the row in progress, drop what was delivered. */
		size_t keep = x->q.len - x->q_ready;
		if (keep && x->q_ready)
			memmove(x->q.data, x->q.data + x->q_ready, keep);
		x->q.len = keep;
		x->q_ready = x->q_pos = 0;
		const char *msg;
		int rc = xsax_feed(&x->part, &msg);
		if (rc < 0 && !x->err) {
			x->err = msg;
			x->err_code = CODE_MALFORMED_XLSX;
			x->err_row = x->row ? x->last_row : x->last_row + 1;
		} else if (rc == 0) {
			x->eof = true;
			if (!x->done && x->in_data) {
				/* Unreachable with well-formed XML, kept as before. */
				x->err = "the worksheet has no sheetData";
				x->err_row = x->last_row + 1;
			}
		}
	}
	/* The end: the shared strings no cell needed are still checked, so a
	 * broken table fails the whole read as it did when read eagerly. */
	enum code e = xsst_finish(&x->sst, ret_msg);
	if (e) {
		rb->number = 0;
		return e;
	}
	*ret_eof = true;
	return CODE_OK;
}

static void xsheet_free(struct sheet_reader *r)
{
	struct xsheet *x = (struct xsheet *)r;
	xsax_close(&x->part);
	xsst_free(&x->sst);
	xstyles_free(&x->st);
	xzip_close(&x->z);
	buf_done(&x->val);
	buf_done(&x->q);
	free(x);
}

enum code xsheet_open(struct xzip *z, const char *part, const char *sst_part, struct xstyles *st,
		      bool date1904, struct sheet_reader **ret, const char **ret_msg)
{
	struct xsheet *x = calloc(1, sizeof(*x));
	if (!x) {
		xstyles_free(st);
		xzip_close(z);
		*ret_msg = "out of memory while reading the worksheet";
		return CODE_INTERNAL_ERROR;
	}
	x->base.next = xsheet_next;
	x->base.free = xsheet_free;
	x->z = *z;
	x->st = *st;
	x->date1904 = date1904;
	buf_init(&x->val, CELL_RAW_MAX);
	/* A row's cells: their text (bounded by the expansion limit) and 18
	 * bytes of record for each of at most 16,384 columns. */
	buf_init(&x->q, z->lim->max_uncompressed + 18u * SHEET_MAX_COLUMNS + XSAX_CHUNK);
	x->sax.startElementNs = sax_start;
	x->sax.endElementNs = sax_end;
	x->sax.characters = sax_text;
	x->sax.cdataBlock = sax_text;
	x->sax.ignorableWhitespace = sax_text;
	/* The parts' e.z must point at the copy that lives as long as the
	 * stream. */
	if (xsst_open(&x->z, sst_part, &x->sst, ret_msg) ||
	    xsax_open(&x->z, part, &x->part, &x->sax, x, ret_msg)) {
		xsheet_free(&x->base);
		return CODE_MALFORMED_XLSX;
	}
	*ret = &x->base;
	return CODE_OK;
}
