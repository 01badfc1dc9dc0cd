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
/* Which worksheet xlsx_reader_open reads: by name (when not NULL; none
 * of that name: SHEET_NOT_FOUND), else the index-th visible one (past the
 * end: the first).  It fills names (malloc'd, for the caller to free) with
 * the visible worksheets' names when NULL, and index with the one read. */
struct xlsx_choice {
	const char *name;
	int index;
	char **names;
	size_t nnames;
};
enum code xlsx_reader_open(const char *data, size_t len, const struct sheet_limits *lim,
			   struct sheet_info *info, struct xlsx_choice *c, struct sheet_reader **ret,
			   const char **ret_msg);

/* cellkind.c: what a cell reads as (trimmed of ASCII whitespace). */
bool cell_is_number(const char *p, size_t n);   /* "1,234.5", "$12", "24.5 t", "(3)" */
bool cell_is_date(const char *p, size_t n);     /* "2026-01-05", "1/5/26" */
bool cell_is_text(const char *p, size_t n);     /* not blank, not a number or date */
/* Total, Totals, Grand Total, Subtotal, Sum: any case, optional colon. */
bool cell_is_total_label(const char *p, size_t n);

/* The read-ahead of sheet.c: the first rows held for the header decision,
 * the samples, and rows held while it is not known whether they are the
 * summary rows at the end. */
#define SHEET_SUMMARY_AHEAD 64
#define SHEET_QUEUE (SHEET_HEADER_SCAN + SHEET_SAMPLE_ROWS + SHEET_SUMMARY_AHEAD + 2)

struct sheet {
	struct sheet_limits lim;
	struct sheet_info info;
	struct sheet_reader *reader;
	struct rowbuf header, row;
	size_t row_cap;     /* byte cap of one row's buffer */
	size_t data_rows;
	size_t text;        /* bytes of cell text delivered so far, blank rows too */
	size_t budget;      /* sheet_expansion_budget */
	enum code err;      /* sticky: once failed, always failed */
	struct buf msg;
	bool msg_lost;      /* the message could not be stored (out of memory) */
	bool oom;           /* the header decision ran out of memory */
	/* Read-ahead (ring of SHEET_QUEUE rows). */
	struct rowbuf *q;
	size_t qhead, qlen;
	bool eof;           /* the reader has no more rows */
	enum code pending;  /* a read-ahead failed: after the queued rows, this (message in msg) */
	/* The header and what surrounds it. */
	const struct sheet_judge *judge;
	unsigned char *roles;          /* per header column, or NULL */
	struct rowbuf above[SHEET_HEADER_SCAN];
	const struct sheet_row *above_rows[SHEET_HEADER_SCAN];
	size_t nabove;
	size_t *num_seen, *cell_seen;  /* per header column: numbers, non-blank cells */
	size_t counted;                /* rows counted into them (the first few) */
	bool keyed;                    /* the header has a key or date column */
	unsigned *summary;
	size_t nsummary, summary_cap;
	struct rowbuf samples[SHEET_SAMPLE_ROWS];
	const struct sheet_row *sample_rows[SHEET_SAMPLE_ROWS];
	size_t nsamples;
	bool sampled;
	/* XLSX: visible worksheets and the one read. */
	char **names;
	size_t nnames;
	const char *name;
	/* UTF-16 input decoded to UTF-8 (owned). */
	char *decoded;
};

/* sheet.c */
enum code sheet_next_nonblank(struct sheet *s, struct rowbuf *rb, bool *ret_eof, const char **ret_msg);
/* Records a failure of a read-ahead or delivery: "row N: msg" in s->msg. */
void sheet_set_message(struct sheet *s, unsigned row, const char *msg);

/* ahead.c */
/* Reads the header (detected, or opts->header_row) and the rows above it;
 * a parse-level code and a static message on failure. */
enum code ahead_find_header(struct sheet *s, const struct sheet_options *opts, const char **ret_msg);
/* The next data row into s->row (summary rows at the end left out);
 * *ret_eof at the end; a parse-level code (message in s->msg) on failure. */
enum code ahead_next(struct sheet *s, bool *ret_eof);
void ahead_free(struct sheet *s);

/* decode.c: text encodings. */
/* UTF-16 text with a BOM (FF FE or FE FF) to UTF-8, unpaired surrogates as
 * U+FFFD, without the BOM.  Returns a malloc'd buffer (*ret_len bytes, NUL
 * after) or NULL: no UTF-16 BOM, out of memory, or more than max bytes. */
char *utf16_to_utf8(const char *p, size_t n, size_t max, size_t *ret_len, bool *ret_be);

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
