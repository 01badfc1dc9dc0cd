/* Internals shared by the sheet readers: the row builder, the reader
 * interface each format implements, text decoding and sniffing helpers. */
#ifndef LOADLINE_SHEET_SHEET_INT_H
#define LOADLINE_SHEET_SHEET_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "sheet.h"

/* One row being built: cell texts back to back in `text`, each followed by
 * a NUL, so a row costs a few allocations that are reused for every row. */
struct rowbuf {
	struct buf text;
	size_t *offs;        /* start of each cell in text */
	size_t *lens;
	const char **cells;  /* filled by rowbuf_finish */
	size_t n, cap;       /* cells so far, capacity of the arrays */
	bool open;           /* a cell is being appended to */
	bool dropping;       /* past SHEET_MAX_COLUMNS: appends are ignored */
	bool full;           /* an append failed on the text's cap (the budget) */
	unsigned number;     /* spreadsheet row number */
	struct sheet_row row;
};

/* max_bytes caps the text of one row. */
void rowbuf_init(struct rowbuf *rb, size_t max_bytes);
void rowbuf_done(struct rowbuf *rb);
void rowbuf_clear(struct rowbuf *rb);
/* Each returns 0, or -1 when the row's byte cap is reached or memory runs out. */
int rowbuf_begin_cell(struct rowbuf *rb);
int rowbuf_append(struct rowbuf *rb, const char *p, size_t n);
int rowbuf_append_sbcs(struct rowbuf *rb, enum sbcs enc, const char *p, size_t n);
int rowbuf_end_cell(struct rowbuf *rb);
int rowbuf_add_cell(struct rowbuf *rb, const char *p, size_t n);
/* Decodes "_xHHHH_" escapes in b from byte `from` on (see xstring_unescape). */
void buf_unescape_xstring(struct buf *b, size_t from);
/* Adds empty cells until the row has `ncells` cells (XLSX gaps). */
int rowbuf_pad(struct rowbuf *rb, size_t ncells);
/* Points rb->row at the cells; valid until the next change to rb. */
const struct sheet_row *rowbuf_finish(struct rowbuf *rb);
/* True when every cell (or cell i) is empty or ASCII whitespace. */
bool rowbuf_is_blank(const struct rowbuf *rb);
bool rowbuf_cell_is_blank(const struct rowbuf *rb, size_t i);

/* A format reader.  next() fills rb with the next physical row (blank rows
 * too, so that numbers are right) or sets *ret_eof.  On error it returns a
 * parse-level code, a static message, and may set rb->number to the row the
 * problem is in. */
struct sheet_reader {
	enum code (*next)(struct sheet_reader *r, struct rowbuf *rb, bool *ret_eof,
			  const char **ret_msg);
	void (*free)(struct sheet_reader *r);
};

/* Each returns CODE_OK and a reader, or a parse-level code and a static
 * message.  info->encoding / delimiter are filled as soon as they are known,
 * also on failure.  `data` must outlive the reader. */
enum code csv_reader_open(const char *data, size_t len, const struct sheet_limits *lim,
			  struct sheet_info *info, struct sheet_reader **ret, const char **ret_msg);
enum code xlsx_reader_open(const char *data, size_t len, const struct sheet_limits *lim,
			   struct sheet_info *info, struct sheet_reader **ret, const char **ret_msg);

/* decode.c: text encodings. */
/* Length of the valid UTF-8 prefix of p[0..n) (== n when all valid). Strict:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
size_t utf8_valid_prefix(const char *p, size_t n);
/* Appends p[0..n), read as Windows-1252, to b as UTF-8 (the five unassigned
 * bytes map to the C1 controls, as WHATWG does).  0 or -1 (cap). */
int cp1252_to_utf8(struct buf *b, const char *p, size_t n);
/* The same for either single-byte encoding (Mac OS Roman: all 128 high
 * bytes are characters). */
int sbcs_to_utf8(struct buf *b, enum sbcs enc, const char *p, size_t n);
/* Which single-byte encoding text that is not UTF-8 is in: Mac OS Roman
 * when more of its non-ASCII bytes read as plausible characters that way
 * than as Windows-1252 (docs/sheet.md, "CSV"); Windows-1252 on a tie. */
enum sbcs sbcs_guess(const char *p, size_t n);

/* Decodes OOXML's "_xHHHH_" escapes (ECMA-376 Part 1, 22.4.2.4: Excel writes
 * a CR in a cell as "_x000D_", a literal "_x" as "_x005F_x") in place in
 * p[0..n); returns the new length (never longer; the caller terminates).
 * NUL and lone surrogates become U+FFFD. */
size_t xstring_unescape(char *p, size_t n);

/* sniff.c: like sheet_sniff, plus a static description of what was seen
 * ("a PDF document") for messages. */
enum sheet_format sniff_detail(const void *data, size_t len, const char **ret_what);
/* True when an OLE2 compound file holds an "EncryptionInfo" stream: an
 * encrypted OOXML workbook. */
bool sniff_ole2_encrypted(const unsigned char *p, size_t len);

#endif
