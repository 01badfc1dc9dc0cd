/* The sheet API: picks the reader, finds the header row, skips blank rows,
 * enforces the row and column limits the same way for every format. */
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
	enum code err;      /* sticky: once failed, always failed */
	struct buf msg;
	bool msg_lost;      /* the message could not be stored (out of memory) */
};

void sheet_limits_default(struct sheet_limits *lim)
{
	lim->max_rows = 750;
	lim->max_cols = 100;
	lim->max_uncompressed = 50u * 1024 * 1024;
	lim->max_ratio = 100;
	/* Each entry costs an offset besides its text: without a count cap a
	 * part of empty <si/> elements inside the expansion limit would take
	 * ~80 MB of offsets. */
	lim->max_shared_strings = 1000000;
	lim->max_shared_bytes = 16u * 1024 * 1024;
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

/* Reads physical rows until one is not blank.  *ret_eof at the end. */
static enum code next_nonblank(struct sheet *s, struct rowbuf *rb, bool *ret_eof,
			       const char **ret_msg)
{
	for (;;) {
		rowbuf_clear(rb);
		enum code rc = s->reader->next(s->reader, rb, ret_eof, ret_msg);
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
	s->lim = *lim;
	buf_init(&s->msg, 1024);
	const char *what = NULL, *msg = NULL;
	s->info.format = sniff_detail(data, len, &what);
	/* A row cannot hold more text than the input expands to: CSV grows at
	 * most threefold in Windows-1252 decoding, XLSX to its expansion limit. */
	size_t row_cap = lim->max_uncompressed + 64;
	if (s->info.format == SHEET_CSV && len < lim->max_uncompressed / 3)
		row_cap = len * 3 + 64;
	rowbuf_init(&s->header, row_cap);
	rowbuf_init(&s->row, row_cap);
	enum code rc;
	switch (s->info.format) {
	case SHEET_CSV:
		rc = csv_reader_open(data, len, &s->lim, &s->info, &s->reader, &msg);
		break;
	case SHEET_XLSX:
		s->info.encoding = "xlsx";
		rc = xlsx_reader_open(data, len, &s->lim, &s->info, &s->reader, &msg);
		break;
	default:
		return fail_open(s, CODE_UNSUPPORTED_MIME, unsupported_message(what), ret_message, ret_info);
	}
	if (rc)
		return fail_open(s, rc, msg, ret_message, ret_info);

	bool eof = false;
	rc = next_nonblank(s, &s->header, &eof, &msg);
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
