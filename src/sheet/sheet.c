/* The sheet API: picks the reader, finds the header row, skips blank rows,
 * enforces the row and column limits the same way for every format. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheet_int.h"

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
	lim->drop = NULL;
	lim->drop_arg = NULL;
	lim->spool_dir = NULL;
	lim->sst_spill_bytes = 0;
}

/* Raises the caps to what a table kept on disk may have: SHEET_SST_PER_ROW
 * entries a row (a count of 0, no cap, stays) and the expansion budget of
 * text. */
static void raise_caps(const struct sheet_limits *lim, size_t *strings, size_t *bytes)
{
	size_t per_rows = lim->max_rows < SIZE_MAX / 4 / SHEET_SST_PER_ROW ? lim->max_rows * SHEET_SST_PER_ROW
									     : SIZE_MAX / 4;
	size_t budget = sheet_expansion_budget(lim);
	if (*strings && per_rows > *strings)
		*strings = per_rows;
	if (budget > *bytes)
		*bytes = budget;
}

void sheet_shared_caps(const struct sheet_limits *lim, size_t *ret_strings, size_t *ret_bytes)
{
	*ret_strings = lim->max_shared_strings;
	*ret_bytes = lim->max_shared_bytes ? lim->max_shared_bytes : lim->max_uncompressed;
	if (lim->spool_dir)
		raise_caps(lim, ret_strings, ret_bytes);
}

void sheet_lift_shared_caps(struct sheet_limits *lim)
{
	if (!lim->max_shared_bytes)
		lim->max_shared_bytes = lim->max_uncompressed;   /* what 0 stands for */
	raise_caps(lim, &lim->max_shared_strings, &lim->max_shared_bytes);
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

unsigned sheet_header_row(const struct sheet *s)
{
	return s->header.row.number;
}

size_t sheet_rows_above(const struct sheet *s, const struct sheet_row *const **ret_rows)
{
	*ret_rows = s->above_rows;
	return s->nabove;
}

const char *sheet_name(const struct sheet *s)
{
	return s->name;
}

size_t sheet_names(const struct sheet *s, const char *const **ret_names)
{
	*ret_names = (const char *const *)s->names;
	return s->nnames;
}

size_t sheet_summary_rows(const struct sheet *s, const unsigned **ret_rows)
{
	*ret_rows = s->summary;
	return s->nsummary;
}

const unsigned char *sheet_header_roles(const struct sheet *s)
{
	return s->roles;
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
	ahead_free(s);
	buf_done(&s->msg);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->decoded);
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
enum code sheet_next_nonblank(struct sheet *s, struct rowbuf *rb, bool *ret_eof,
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

/* SHEET_NOT_FOUND's message, listing the sheets: valid until the
 * thread's next open, as long as callers keep a static message. */
static _Thread_local char sheets_msg[1024];

static const char *not_found_message(const struct sheet *s, const char *name)
{
	struct buf b;
	buf_init(&b, sizeof sheets_msg - 1);
	buf_printf(&b, "the workbook has no worksheet named \"%.64s\"; its sheets are", name);
	for (size_t i = 0; i < s->nnames; i++)
		if (buf_printf(&b, "%s \"%s\"", i ? "," : ":", s->names[i]))
			break;
	snprintf(sheets_msg, sizeof sheets_msg, "%s", buf_str(&b));
	buf_done(&b);
	return sheets_msg;
}

/* Opens the workbook's worksheet: opts->sheet by name, else the
 * index-th visible one. */
static enum code xlsx_open_choice(struct sheet *s, const void *data, size_t len, const struct sheet_options *opts,
				  int index, const char **ret_msg)
{
	struct xlsx_choice c = {.name = opts ? opts->sheet : NULL, .index = index, .names = s->names,
				.nnames = s->nnames};
	enum code rc = xlsx_reader_open(data, len, &s->lim, &s->info, &c, &s->reader, ret_msg);
	s->names = c.names;
	s->nnames = c.nnames;
	if (rc == CODE_SHEET_NOT_FOUND)
		*ret_msg = not_found_message(s, opts->sheet);
	else if (!rc)
		s->name = s->names[c.index];
	return rc;
}

/* UTF-16 text (Excel's "Unicode Text") is decoded to UTF-8 once, up
 * front, and read as CSV: the sheet owns the decoded copy. */
static enum code open_utf16(struct sheet *s, const void **data, size_t *len, const char **ret_msg)
{
	size_t n = 0;
	bool be = false;
	s->decoded = utf16_to_utf8(*data, *len, s->budget, &n, &be);
	if (!s->decoded) {
		*ret_msg = "the UTF-16 text is larger than the expansion limit once decoded";
		return CODE_MALFORMED_CSV;
	}
	*data = s->decoded;
	*len = n;
	return CODE_OK;
}

static bool utf16_bom(const unsigned char *p, size_t len)
{
	return len >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF));
}

/* Sniffs the bytes and opens the reader for their format (the worksheet
 * `sheet` of a workbook: NULL = choose), with the row buffers; a
 * parse-level code and a static message on failure. */
static enum code open_reader(struct sheet *s, const void *data, size_t len, const struct sheet_limits *lim,
			     const struct sheet_options *opts, const char **ret_msg)
{
	s->lim = *lim;
	/* The readers see the budget as their limit on inflated bytes. */
	s->budget = s->lim.max_uncompressed = sheet_expansion_budget(lim);
	buf_init(&s->msg, 1024);
	const char *what = NULL;
	const char *utf16 = NULL;
	s->info.format = sniff_detail(data, len, &what);
	if (s->info.format == SHEET_CSV && utf16_bom(data, len)) {
		utf16 = ((const unsigned char *)data)[0] == 0xFF ? "utf-16le" : "utf-16be";
		enum code rc = open_utf16(s, &data, &len, ret_msg);
		if (rc)
			return rc;
	}
	/* A row cannot hold more text than the input expands to: CSV grows at
	 * most threefold in Windows-1252 decoding, XLSX to its budget (and
	 * sheet_next_nonblank lowers the cap to what the budget has left). */
	size_t row_cap = s->budget + 64;
	if (s->info.format == SHEET_CSV && len < s->budget / 3)
		row_cap = len * 3 + 64;
	s->row_cap = row_cap;
	rowbuf_init(&s->header, row_cap);
	rowbuf_init(&s->row, row_cap);
	enum code rc;
	switch (s->info.format) {
	case SHEET_CSV:
		rc = csv_reader_open(data, len, &s->lim, &s->info, &s->reader, ret_msg);
		if (utf16)
			s->info.encoding = utf16;
		return rc;
	case SHEET_XLSX:
		s->info.encoding = "xlsx";
		return xlsx_open_choice(s, data, len, opts, 0, ret_msg);
	default:
		*ret_msg = unsupported_message(what);
		return CODE_UNSUPPORTED_MIME;
	}
}

static bool has_key(const struct sheet *s)
{
	for (size_t j = 0; s->roles && j < s->header.row.ncells; j++)
		if (s->roles[j] & SHEET_COL_KEY)
			return true;
	return false;
}

/* Back to before the worksheet was opened, to open another. */
static void reset(struct sheet *s)
{
	if (s->reader)
		s->reader->free(s->reader);
	s->reader = NULL;
	ahead_free(s);
	rowbuf_clear(&s->header);
	rowbuf_clear(&s->row);
	s->text = 0;
}

/* The first visible worksheet whose header maps jobCode or loadNo, else
 * the first (PRODUCT §14); the first was read and has no key. */
static enum code choose_sheet(struct sheet *s, const void *data, size_t len, const struct sheet_options *opts,
			      const char **ret_msg)
{
	for (size_t i = 1; i < s->nnames; i++) {
		reset(s);
		enum code rc = xlsx_open_choice(s, data, len, opts, (int)i, ret_msg);
		if (!rc)
			rc = ahead_find_header(s, opts, ret_msg);
		if (!rc && has_key(s))
			return CODE_OK;
		if (rc == CODE_INTERNAL_ERROR)
			return rc;
	}
	reset(s);
	enum code rc = xlsx_open_choice(s, data, len, opts, 0, ret_msg);
	return rc ? rc : ahead_find_header(s, opts, ret_msg);
}

enum code sheet_open_opts(const void *data, size_t len, const struct sheet_limits *lim,
			  const struct sheet_options *opts, struct sheet **ret_sheet, const char **ret_message,
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
	enum code rc = open_reader(s, data, len, lim, opts, &msg);
	if (!rc)
		rc = ahead_find_header(s, opts, &msg);
	if (!rc && s->info.format == SHEET_XLSX && opts && opts->judge && !opts->sheet && s->nnames > 1 && !has_key(s))
		rc = choose_sheet(s, data, len, opts, &msg);
	if (rc)
		return fail_open(s, rc, msg, ret_message, ret_info);
	if (counted_columns(&s->header) > lim->max_cols)
		return fail_open(s, CODE_TOO_MANY_HEADERS, "the header row has more than 100 columns",
				 ret_message, ret_info);
	if (ret_message)
		*ret_message = "";
	if (ret_info)
		*ret_info = s->info;
	s->judge = NULL;   /* the caller's, asked only while opening */
	*ret_sheet = s;
	return CODE_OK;
}

enum code sheet_open_info(const void *data, size_t len, const struct sheet_limits *lim,
			  struct sheet **ret_sheet, const char **ret_message,
			  struct sheet_info *ret_info)
{
	return sheet_open_opts(data, len, lim, NULL, ret_sheet, ret_message, ret_info);
}

enum code sheet_open(const void *data, size_t len, const struct sheet_limits *lim,
		     struct sheet **ret_sheet, const char **ret_message)
{
	return sheet_open_info(data, len, lim, ret_sheet, ret_message, NULL);
}

void sheet_set_message(struct sheet *s, unsigned row, const char *msg)
{
	char copy[512];
	if (msg == buf_str(&s->msg)) {
		/* check_row's message, about to be cleared. */
		snprintf(copy, sizeof copy, "%s", msg);
		msg = copy;
	}
	buf_clear(&s->msg);
	s->msg_lost = row ? buf_printf(&s->msg, "row %u: %s", row, msg) != 0 : buf_puts(&s->msg, msg) != 0;
}

static enum code fail(struct sheet *s, enum code rc, unsigned row, const char *msg)
{
	s->err = rc;
	sheet_set_message(s, row, msg);
	return rc;
}

enum code sheet_next_row(struct sheet *s, const struct sheet_row **ret_row)
{
	*ret_row = NULL;
	if (s->err)
		return s->err;
	bool eof = false;
	enum code rc = ahead_next(s, &eof);
	if (rc) {
		s->err = rc;
		return rc;
	}
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
