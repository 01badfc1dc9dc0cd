/* The sheet API: picks the reader, finds the header row, skips blank rows,
 * enforces the row and column limits the same way for every format. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet_int.h"

struct sheet {
	struct sheet_limits lim;
	struct sheet_info info;
	struct sheet_reader *reader;
	struct rowbuf header, row;
	size_t data_rows;
	size_t text;        /* bytes of cell text delivered so far, blank rows too */
	size_t budget;      /* sheet_expansion_budget */
	enum code err;      /* sticky: once failed, always failed */
	struct buf msg;
	bool msg_lost;      /* the message could not be stored (out of memory) */
};

void sheet_limits_default(struct sheet_limits *lim)
{
	lim->max_rows = 750;
	lim->max_cols = 100;
	lim->max_uncompressed = 50u * 1024 * 1024;
	/* Each entry costs an offset besides its text: without a count cap a
	 * part of empty <si/> elements inside the expansion limit would take
	 * ~80 MB of offsets. */
	lim->max_shared_strings = 1000000;
	lim->max_shared_bytes = 16u * 1024 * 1024;
}

size_t sheet_expansion_budget(const struct sheet_limits *lim)
{
	/* Capped far below SIZE_MAX: callers add slack to it (an unlimited
	 * row count, as the benchmark asks for, must not wrap around). */
	const size_t cap = SIZE_MAX / 4;
	size_t rows = lim->max_rows < cap / SHEET_ROW_EXPANSION ? lim->max_rows * SHEET_ROW_EXPANSION : cap;
	size_t budget = rows > lim->max_uncompressed ? rows : lim->max_uncompressed;
	return budget < cap ? budget : cap;
}

const struct sheet_info *sheet_info(const struct sheet *s)
{
	return &s->info;
}

const struct sheet_row *sheet_header(const struct sheet *s)
{
	return &s->header.row;
}

const char *sheet_message(const struct sheet *s)
{
	return s->msg_lost ? "the file could not be read to the end (out of memory)" : buf_str(&s->msg);
}

void sheet_free(struct sheet *s)
{
	if (!s)
		return;
	if (s->reader)
		s->reader->free(s->reader);
	rowbuf_done(&s->header);
	rowbuf_done(&s->row);
	buf_done(&s->msg);
	free(s);
}

/* Characters of p[0..n) as Excel counts them (UTF-16 units): every byte
 * that starts a character, and one more for those past U+FFFF. */
static size_t excel_chars(const char *p, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		k += (c & 0xC0) != 0x80;
		k += c >= 0xF0;
	}
	return k;
}

/* "AB" for column index 27. */
static void column_name(size_t col, char out[8])
{
	char tmp[8];
	size_t n = 0;
	for (col++; col && n < 7; col = (col - 1) / 26)
		tmp[n++] = (char)('A' + (col - 1) % 26);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
}

/* "32,768" */
static void thousands(size_t v, char out[32])
{
	char digits[24];
	int n = snprintf(digits, sizeof digits, "%zu", v), o = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

/* The cells' text passed the budget. */
static enum code budget_exceeded(struct sheet *s, const char **ret_msg)
{
	buf_clear(&s->msg);
	s->msg_lost = buf_printf(&s->msg, "the cells hold more than %zu MB of text in all (the expansion limit for "
				 "%zu rows; shared strings count once per cell that uses them)",
				 s->budget / (1024 * 1024), s->lim.max_rows) != 0;
	*ret_msg = s->msg_lost ? "the cells hold more text in all than the expansion limit" : buf_str(&s->msg);
	return s->info.format == SHEET_XLSX ? CODE_MALFORMED_XLSX : CODE_MALFORMED_CSV;
}

/* A physical row just read: its cells within Excel's cap, its text within
 * what is left of the budget (the row buffer was capped to that, so
 * passing it fails the read, it never holds more).  The message is
 * s->msg's (dynamic) or a static one. */
static enum code check_row(struct sheet *s, struct rowbuf *rb, const char **ret_msg)
{
	/* A row of at most 32,767 bytes has no cell past the cap: almost every
	 * row, whose cells are then not looked at (this runs for every row). */
	for (size_t i = 0; rb->text.len > SHEET_MAX_CELL_CHARS && i < rb->n; i++) {
		size_t chars;
		if (rb->lens[i] <= SHEET_MAX_CELL_CHARS ||
		    (chars = excel_chars(rb->text.data + rb->offs[i], rb->lens[i])) <= SHEET_MAX_CELL_CHARS)
			continue;
		char col[8], n[32];
		column_name(i, col);
		thousands(chars, n);
		buf_clear(&s->msg);
		s->msg_lost = buf_printf(&s->msg, "column %s has %s characters; a cell holds at most 32,767 characters "
					 "(Excel's limit)", col, n) != 0;
		*ret_msg = s->msg_lost ? "a cell has more than 32,767 characters (Excel's limit)" : buf_str(&s->msg);
		return CODE_CELL_TOO_LONG;
	}
	s->text += rb->text.len;
	if (s->text > s->budget)
		return budget_exceeded(s, ret_msg);
	return CODE_OK;
}

/* Reads physical rows until one is not blank.  *ret_eof at the end. */
static enum code next_nonblank(struct sheet *s, struct rowbuf *rb, bool *ret_eof,
			       const char **ret_msg)
{
	for (;;) {
		rowbuf_clear(rb);
		/* Never more than the budget has left (plus the row's own
		 * NULs): a row that would pass it stops where it does. */
		rb->text.max = s->budget - s->text + 64;
		enum code rc = s->reader->next(s->reader, rb, ret_eof, ret_msg);
		if (rc && rb->full)
			return budget_exceeded(s, ret_msg);
		if (rc == CODE_OK && !*ret_eof)
			rc = check_row(s, rb, ret_msg);
		if (rc || *ret_eof)
			return rc;
		if (!rowbuf_is_blank(rb)) {
			rowbuf_finish(rb);
			return CODE_OK;
		}
	}
}

/* Columns up to the last non-blank header cell: trailing blank headers (a
 * sheet whose formatting runs to column XFD) do not count. */
static size_t counted_columns(const struct rowbuf *rb)
{
	size_t n = rb->n;
	while (n > 0 && rowbuf_cell_is_blank(rb, n - 1))
		n--;
	return n;
}

static enum code fail_open(struct sheet *s, enum code rc, const char *msg,
			   const char **ret_message, struct sheet_info *ret_info)
{
	if (ret_message)
		*ret_message = msg;
	if (ret_info)
		*ret_info = s->info;
	sheet_free(s);
	return rc;
}

/* What to tell a user whose file is not CSV or XLSX (what: sniff_detail's). */
static const char *unsupported_message(const char *what)
{
	static const struct {
		const char *what, *message;
	} known[] = {
		{"a PDF", "the file is a PDF document, not CSV or XLSX"},
		{"a PNG", "the file is a PNG image, not CSV or XLSX"},
		{"a legacy", "the file is a legacy Excel .xls workbook; save it as .xlsx or CSV"},
		{"a zip", "the file is a zip archive but not an Excel workbook"},
		{"an OpenDocument", "the file is an OpenDocument spreadsheet (.ods); open it in LibreOffice or Excel and "
				    "save it as .xlsx or CSV"},
		{"a fixed-width", "the file is space-padded fixed-width text (.prn, Excel's \"Formatted Text\"), not CSV; "
				  "save the sheet as .xlsx or CSV"},
		{"UTF-16", "the file is UTF-16 text; export the sheet as CSV UTF-8"},
		{"an HTML", "the file is an HTML page, not a spreadsheet (\"Export to Excel\" often writes one); "
			    "open it in Excel and save it as .xlsx or CSV"},
		{"an Excel 2003", "the file is an Excel 2003 XML spreadsheet; open it in Excel and save it as .xlsx or CSV"},
		{"a SYLK", "the file is a SYLK spreadsheet; open it in Excel and save it as .xlsx or CSV"},
		{"a DIF", "the file is a DIF spreadsheet; open it in Excel and save it as .xlsx or CSV"},
		{"an XML", "the file is an XML document, not CSV or XLSX; save the data as .xlsx or CSV"},
	};
	for (size_t i = 0; what && i < sizeof known / sizeof known[0]; i++)
		if (!strncmp(what, known[i].what, strlen(known[i].what)))
			return known[i].message;
	return "the file is neither CSV nor XLSX (judged by its contents)";
}

enum sheet_format sheet_sniff_explain(const void *data, size_t len, const char **ret_message)
{
	const char *what = NULL;
	enum sheet_format f = sniff_detail(data, len, &what);
	*ret_message = f == SHEET_UNKNOWN ? unsupported_message(what) : NULL;
	return f;
}

/* Sniffs the bytes and opens the reader for their format, with the row
 * buffers; a parse-level code and a static message on failure. */
static enum code open_reader(struct sheet *s, const void *data, size_t len, const struct sheet_limits *lim,
			     const char **ret_msg)
{
	s->lim = *lim;
	/* The readers see the budget as their limit on inflated bytes. */
	s->budget = s->lim.max_uncompressed = sheet_expansion_budget(lim);
	buf_init(&s->msg, 1024);
	const char *what = NULL;
	s->info.format = sniff_detail(data, len, &what);
	/* A row cannot hold more text than the input expands to: CSV grows at
	 * most threefold in Windows-1252 decoding, XLSX to its budget (and
	 * next_nonblank lowers the cap to what the budget has left). */
	size_t row_cap = s->budget + 64;
	if (s->info.format == SHEET_CSV && len < s->budget / 3)
		row_cap = len * 3 + 64;
	rowbuf_init(&s->header, row_cap);
	rowbuf_init(&s->row, row_cap);
	switch (s->info.format) {
	case SHEET_CSV:
		return csv_reader_open(data, len, &s->lim, &s->info, &s->reader, ret_msg);
	case SHEET_XLSX:
		s->info.encoding = "xlsx";
		return xlsx_reader_open(data, len, &s->lim, &s->info, &s->reader, ret_msg);
	default:
		*ret_msg = unsupported_message(what);
		return CODE_UNSUPPORTED_MIME;
	}
}

enum code sheet_open_info(const void *data, size_t len, const struct sheet_limits *lim,
			  struct sheet **ret_sheet, const char **ret_message,
			  struct sheet_info *ret_info)
{
	*ret_sheet = NULL;
	struct sheet *s = calloc(1, sizeof(*s));
	if (!s) {
		/* Not a verdict on the file: the caller may retry. */
		if (ret_message)
			*ret_message = "out of memory while opening the file";
		if (ret_info)
			memset(ret_info, 0, sizeof(*ret_info));
		return CODE_INTERNAL_ERROR;
	}
	const char *msg = NULL;
	enum code rc = open_reader(s, data, len, lim, &msg);
	if (rc)
		return fail_open(s, rc, msg, ret_message, ret_info);

	bool eof = false;
	rc = next_nonblank(s, &s->header, &eof, &msg);
	if (rc && msg == buf_str(&s->msg))
		/* ret_message must be static: s->msg goes with s. */
		msg = rc == CODE_CELL_TOO_LONG ? "a cell of the header row has more than 32,767 characters (Excel's limit)"
					      : "the header row holds more text than the expansion limit";
	if (rc)
		return fail_open(s, rc, msg, ret_message, ret_info);
	if (eof)
		return fail_open(s, CODE_EMPTY_FILE, "the file has no rows: no header row and no data",
				 ret_message, ret_info);
	if (counted_columns(&s->header) > lim->max_cols)
		return fail_open(s, CODE_TOO_MANY_HEADERS, "the header row has more than 100 columns",
				 ret_message, ret_info);
	if (ret_message)
		*ret_message = "";
	if (ret_info)
		*ret_info = s->info;
	*ret_sheet = s;
	return CODE_OK;
}

enum code sheet_open(const void *data, size_t len, const struct sheet_limits *lim,
		     struct sheet **ret_sheet, const char **ret_message)
{
	return sheet_open_info(data, len, lim, ret_sheet, ret_message, NULL);
}

static enum code fail(struct sheet *s, enum code rc, unsigned row, const char *msg)
{
	s->err = rc;
	char copy[512];
	if (msg == buf_str(&s->msg)) {
		/* check_row's message, about to be cleared. */
		snprintf(copy, sizeof copy, "%s", msg);
		msg = copy;
	}
	buf_clear(&s->msg);
	s->msg_lost = row ? buf_printf(&s->msg, "row %u: %s", row, msg) != 0 : buf_puts(&s->msg, msg) != 0;
	return rc;
}

enum code sheet_next_row(struct sheet *s, const struct sheet_row **ret_row)
{
	*ret_row = NULL;
	if (s->err)
		return s->err;
	bool eof = false;
	const char *msg = "";
	enum code rc = next_nonblank(s, &s->row, &eof, &msg);
	if (rc)
		return fail(s, rc, s->row.number, msg);
	if (eof) {
		if (s->data_rows == 0)
			return fail(s, CODE_EMPTY_FILE, 0, "the file has a header row but no data rows");
		return CODE_OK;
	}
	if (++s->data_rows > s->lim.max_rows) {
		char m[96];
		snprintf(m, sizeof(m), "more than %zu data rows; split the file", s->lim.max_rows);
		return fail(s, CODE_TOO_MANY_ROWS, s->row.number, m);
	}
	*ret_row = &s->row.row;
	return CODE_OK;
}
