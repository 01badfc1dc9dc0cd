/* CSV reader: encoding and delimiter detection, then RFC 4180 records one at
 * a time, the way Excel reads them (see docs/sheet.md for why this is not
 * libcsv). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/csv_write.h"
#include "sheet_int.h"

struct csv_reader {
	struct sheet_reader base;
	const char *p;
	size_t len, pos;
	bool sbcs;           /* not UTF-8: read in enc */
	enum sbcs enc;
	char delim;
	unsigned rowno;
	bool stop[256];  /* bytes that end an unquoted field */
};

static int put(struct csv_reader *c, struct rowbuf *rb, const char *p, size_t n)
{
	return c->sbcs ? rowbuf_append_sbcs(rb, c->enc, p, n) : rowbuf_append(rb, p, n);
}

/* A quoted field: "" is a quote; text after the closing quote up to the
 * next delimiter is kept as is (Excel reads "ab"c as abc).  Returns 1 when
 * the closing quote never comes. */
static int quoted_field(struct csv_reader *c, struct rowbuf *rb)
{
	c->pos++;
	for (;;) {
		const char *q = memchr(c->p + c->pos, '"', c->len - c->pos);
		if (!q)
			return 1;
		size_t at = (size_t)(q - c->p);
		if (put(c, rb, c->p + c->pos, at - c->pos))
			return -1;
		if (at + 1 < c->len && c->p[at + 1] == '"') {
			if (put(c, rb, "\"", 1))
				return -1;
			c->pos = at + 2;
			continue;
		}
		c->pos = at + 1;
		return 0;
	}
}

static int unquoted_run(struct csv_reader *c, struct rowbuf *rb)
{
	size_t start = c->pos;
	while (c->pos < c->len && !c->stop[(unsigned char)c->p[c->pos]])
		c->pos++;
	return put(c, rb, c->p + start, c->pos - start);
}

/* Takes the formula guard off the cell just read (PRODUCT §11): a fix-up
 * file (import/fixup.c) or results download wrote "'=SUM(A1)" for the cell
 * "=SUM(A1)", and a spreadsheet program that opens, corrects and saves it
 * keeps the apostrophe as text.  The one rule is csv_guarded's; the
 * cell's text is the last thing in the row's buffer. */
static void unguard(struct rowbuf *rb)
{
	if (rb->dropping)
		return;
	size_t off = rb->offs[rb->n], n = rb->text.len - off;
	if (n < 2 || !csv_guarded(rb->text.data + off, n))
		return;
	memmove(rb->text.data + off, rb->text.data + off + 1, n - 1);
	rb->text.data[--rb->text.len] = '\0';
}

static enum code csv_next(struct sheet_reader *r, struct rowbuf *rb, bool *ret_eof,
			  const char **ret_msg)
{
	struct csv_reader *c = (struct csv_reader *)r;
	*ret_eof = false;
	if (c->pos >= c->len) {
		*ret_eof = true;
		return CODE_OK;
	}
	rb->number = ++c->rowno;
	for (;;) {
		if (rowbuf_begin_cell(rb))
			goto nomem;
		if (c->pos < c->len && c->p[c->pos] == '"') {
			int rc = quoted_field(c, rb);
			if (rc > 0) {
				*ret_msg = "a quoted field is never closed (a double quote without its pair)";
				return CODE_MALFORMED_CSV;
			}
			if (rc < 0)
				goto nomem;
		}
		if (unquoted_run(c, rb))
			goto nomem;
		unguard(rb);
		if (rowbuf_end_cell(rb))
			goto nomem;
		if (c->pos >= c->len)
			return CODE_OK;
		char ch = c->p[c->pos++];
		if (ch == c->delim)
			continue;
		/* CR, LF or CRLF ends the record. */
		if (ch == '\r' && c->pos < c->len && c->p[c->pos] == '\n')
			c->pos++;
		return CODE_OK;
	}
nomem:
	*ret_msg = "a row is too large to read";
	return CODE_MALFORMED_CSV;
}

static void csv_free(struct sheet_reader *r)
{
	free(r);
}

/* Counts candidate delimiters outside quotes on the first line that is not
 * blank; the most frequent wins, ties in the order , ; tab. */
static char detect_delimiter(const char *p, size_t len)
{
	size_t i = 0;
	for (;;) {
		size_t j = i;
		while (j < len && (p[j] == ' ' || p[j] == '\t'))
			j++;
		if (j < len && (p[j] == '\r' || p[j] == '\n')) {
			i = j + 1;
			continue;
		}
		break;
	}
	size_t comma = 0, semi = 0, tab = 0, pipe = 0;
	bool quoted = false;
	for (; i < len; i++) {
		char ch = p[i];
		if (ch == '"')
			quoted = !quoted;
		else if (quoted)
			continue;
		else if (ch == '\r' || ch == '\n')
			break;
		else if (ch == ',')
			comma++;
		else if (ch == ';')
			semi++;
		else if (ch == '\t')
			tab++;
		else if (ch == '|')
			pipe++;   /* EDI and freight exports */
	}
	if (semi > comma && semi >= tab && semi >= pipe)
		return ';';
	if (tab > comma && tab > semi && tab >= pipe)
		return '\t';
	if (pipe > comma && pipe > semi && pipe > tab)
		return '|';
	return ',';
}

/* Excel writes and honours a first line "sep=;" naming the delimiter; it is
 * not a row (Excel does not show it), so the header after it is row 1.
 * Only the four delimiters Loadline reads are honoured.
 * Returns the length of that line, 0 when there is none. */
static size_t sep_line(const char *p, size_t len, char *ret_delim)
{
	if (len < 5 || strncasecmp(p, "sep=", 4) || !memchr(",;\t|", p[4], 4))
		return 0;
	size_t n = 5;
	if (n < len && p[n] == '\r')
		n++;
	if (n < len && p[n] == '\n')
		n++;
	if (n == 5 && n < len)
		return 0;  /* more text on the line: an ordinary header */
	*ret_delim = p[4];
	return n;
}

/* Whether p[0..len) is all UTF-8, scanned SHEET_DROP_BYTES at a time with
 * lim's drop between them.  A sequence cut by a chunk's end is checked
 * again from its first byte with the next chunk. */
static bool utf8_valid_all(const char *p, size_t len, const struct sheet_limits *lim)
{
	for (size_t pos = 0; pos < len;) {
		size_t n = len - pos < SHEET_DROP_BYTES ? len - pos : SHEET_DROP_BYTES;
		size_t ok = utf8_valid_prefix(p + pos, n);
		if (ok < n && (pos + n == len || n - ok > 3))
			return false;
		pos += ok;
		if (lim->drop)
			lim->drop(lim->drop_arg);
	}
	return true;
}

/* Whether p[0..len) has a NUL byte, in the same chunks. */
static bool has_nul(const char *p, size_t len, const struct sheet_limits *lim)
{
	for (size_t pos = 0; pos < len; pos += SHEET_DROP_BYTES) {
		size_t n = len - pos < SHEET_DROP_BYTES ? len - pos : SHEET_DROP_BYTES;
		if (memchr(p + pos, '\0', n))
			return true;
		if (lim->drop)
			lim->drop(lim->drop_arg);
	}
	return false;
}

enum code csv_reader_open(const char *data, size_t len, const struct sheet_limits *lim,
			  struct sheet_info *info, struct sheet_reader **ret, const char **ret_msg)
{
	size_t start = 0;
	bool bom = len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3);
	if (bom)
		start = 3;
	bool utf8 = utf8_valid_all(data + start, len - start, lim);
	info->format = SHEET_CSV;
	enum sbcs enc = utf8 ? SBCS_WINDOWS_1252 : sbcs_guess(data + start, len - start);
	info->encoding = !utf8 ? (enc == SBCS_MACINTOSH ? "macintosh" : "windows-1252") : bom ? "utf-8-bom" : "utf-8";
	size_t sep = sep_line(data + start, len - start, &info->delimiter);
	if (sep)
		start += sep;
	else
		info->delimiter = detect_delimiter(data + start, len - start);
	if (has_nul(data, len, lim)) {
		*ret_msg = "the text contains a NUL byte, so it is not a CSV export";
		return CODE_MALFORMED_CSV;
	}
	struct csv_reader *c = calloc(1, sizeof(*c));
	if (!c) {
		*ret_msg = "out of memory while opening the file";
		return CODE_INTERNAL_ERROR;
	}
	c->base.next = csv_next;
	c->base.free = csv_free;
	c->p = data;
	c->len = len;
	c->pos = start;
	c->sbcs = !utf8;
	c->enc = enc;
	c->delim = info->delimiter;
	c->stop[(unsigned char)c->delim] = true;
	c->stop['\r'] = c->stop['\n'] = true;
	*ret = &c->base;
	return CODE_OK;
}
