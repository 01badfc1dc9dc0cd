/* Spreadsheet readers: turn the bytes of an uploaded CSV or XLSX file into a
 * header row and a stream of data rows of UTF-8 text cells.  Knows nothing of
 * HTTP or storage.  The rules are written up for users in docs/sheet.md. */
#ifndef LOADLINE_SHEET_SHEET_H
#define LOADLINE_SHEET_SHEET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/codes.h"

enum sheet_format { SHEET_UNKNOWN = 0, SHEET_CSV, SHEET_XLSX };

struct sheet_limits {
	size_t max_rows;          /* data rows; LOADLINE_MAX_ROWS, default 750 */
	size_t max_cols;          /* 100 */
	/* The expansion budget's floor, 50 MB: see sheet_expansion_budget. */
	size_t max_uncompressed;
	size_t max_shared_strings;      /* XLSX: entries of the shared string table, 1,000,000 */
	size_t max_shared_bytes;        /* XLSX: their text in all, 16 MB */
	/* A reader of a big mapped file calls drop(drop_arg) after each
	 * SHEET_DROP_BYTES it scans whole (a CSV's encoding and NUL checks),
	 * so that the file's pages do not all stay resident (PRODUCT §16:
	 * memory stays flat); NULL: nothing to drop. */
	void (*drop)(void *arg);
	void *drop_arg;
	/* Where an XLSX's shared-string table may spill past sst_spill_bytes
	 * of text (0: XSST_SPILL_BYTES), so that it is never held whole; NULL:
	 * held in memory, under the caps above.  With a directory the caps
	 * grow with max_rows (sheet_shared_caps). */
	const char *spool_dir;
	size_t sst_spill_bytes;
};

/* The shared-string caps a read applies: the ones in lim, or with a spool
 * directory at least SHEET_SST_PER_ROW entries a row and the expansion
 * budget of text (a million-row workbook from a spreadsheet program has
 * ~2.1 million strings, 20 MB of text; the text is then on disk). */
#define SHEET_SST_PER_ROW 32u
void sheet_shared_caps(const struct sheet_limits *lim, size_t *ret_strings, size_t *ret_bytes);
/* Sets lim's shared-string caps to what a spool directory would allow, for
 * readers of a file the import already accepted that hold the table in
 * memory anyway (fix-ups, corrections: they hold the whole file too). */
void sheet_lift_shared_caps(struct sheet_limits *lim);

#define SHEET_DROP_BYTES (4u << 20)

/* Hard caps that are not configurable: Excel's own grid size.  A row's
 * cells past column SHEET_MAX_COLUMNS are dropped (Excel cannot show them). */
#define SHEET_MAX_COLUMNS 16384u
#define SHEET_MAX_ROW_NUMBER 1048576u
/* Excel's limit for the text of one cell, in UTF-16 units as Excel counts
 * them: a longer cell is CODE_CELL_TOO_LONG. */
#define SHEET_MAX_CELL_CHARS 32767u
/* What the budget allows for each data row past the floor: a row of 18
 * inline-string cells is ~1.1 KB of XML, one of 100 cells ~6 KB. */
#define SHEET_ROW_EXPANSION (4u * 1024)

/* The expansion budget of one read: max(max_uncompressed, max_rows *
 * SHEET_ROW_EXPANSION), 50 MB at the defaults (205 MB at 50,000 rows).
 * Both the bytes inflated from an XLSX package and the text of every cell
 * delivered (shared strings once per reference, blank rows too) must stay
 * within it, so what a read costs follows the row limit, whatever the
 * compression ratio (docs/sheet.md, "Limits and hostile files"). */
size_t sheet_expansion_budget(const struct sheet_limits *lim);

/* Fills in the PRODUCT.md defaults (750 rows, 100 columns, 50 MB).
 * Reads no environment: callers apply LOADLINE_MAX_ROWS themselves. */
void sheet_limits_default(struct sheet_limits *lim);

/* Judges bytes only (not names or MIME headers): SHEET_XLSX for an OOXML
 * zip package (or a damaged zip, or an encrypted OOXML workbook, so that
 * sheet_open can say MALFORMED_XLSX), SHEET_CSV for text, including empty
 * input and text with a few stray NUL bytes, SHEET_UNKNOWN for PDF, OLE2
 * .xls, images, other zips and other binaries (the API then answers
 * UNSUPPORTED_MIME).  Rules in docs/sheet.md "Recognising the format". */
enum sheet_format sheet_sniff(const void *data, size_t len);

struct sheet_row {
	unsigned number;      /* 1-based spreadsheet row number (header row's number too; blank rows keep their numbers) */
	size_t ncells;
	const char *const *cells;  /* UTF-8, NUL-terminated; cells[j] is column j+1 (A=0): for XLSX positions come from r= attributes, gaps are "" */
	const size_t *lens;
};

struct sheet_info {
	enum sheet_format format;
	/* "utf-8", "utf-8-bom", "utf-16le", "utf-16be", "windows-1252",
	 * "macintosh" (Mac OS Roman), or "xlsx" */
	const char *encoding;
	char delimiter;        /* ',', ';', '\t' or 0 for xlsx */
};

struct sheet;

/* What the caller, which knows the mapping rules (src/import), says of a
 * row read as a header, per cell: the sheet layer uses it to find the
 * header row below title rows, to join a group row, to choose a
 * workbook's sheet and to tell summary rows from data (PRODUCT §14). */
#define SHEET_COL_FIELD 1u    /* the cell names a field of the schema */
#define SHEET_COL_KEY 2u      /* ... jobCode or loadNo */
#define SHEET_COL_DATE 4u     /* ... loadDate */
#define SHEET_COL_NUMERIC 8u  /* ... a number (weight, rate) */
#define SHEET_COL_PART 16u    /* a part of a group: Name, Street, City, State, Zip (a group row's label joins it) */
struct sheet_judge {
	/* Fills roles[0..row->ncells) with SHEET_COL_* bits.  Returns true
	 * when the caller knows the row as a header outright (an organization's
	 * confirmed shape): the first such row of the first 20 is the header. */
	bool (*judge)(void *arg, const struct sheet_row *row, unsigned char *roles);
	void *arg;
};

struct sheet_options {
	unsigned header_row;   /* 1-based spreadsheet row of the header; 0 = detect */
	const char *sheet;     /* worksheet by name (XLSX); NULL = choose */
	const struct sheet_judge *judge;  /* NULL: the first non-blank row is the header; asked only
					   * during sheet_open_opts (it may be gone afterwards) */
};

/* Rows looked at for the header: the first 20 non-blank ones. */
#define SHEET_HEADER_SCAN 20
/* Data rows sheet_samples reads ahead. */
#define SHEET_SAMPLE_ROWS 50

/* sheet_sniff, with a sentence for the user when the format is
 * SHEET_UNKNOWN (*ret_message, static; NULL otherwise). */
enum sheet_format sheet_sniff_explain(const void *data, size_t len, const char **ret_message);

/* Parses data[0..len) (the caller keeps it alive until sheet_free) and reads
 * the header row (the first non-blank one: no judge).  Returns CODE_OK and
 * a new sheet in *ret_sheet, or a parse-level code (EMPTY_FILE,
 * TOO_MANY_HEADERS, MALFORMED_CSV, MALFORMED_XLSX, MACRO_REJECTED,
 * CELL_TOO_LONG, UNSUPPORTED_MIME) with *ret_sheet set to NULL.
 * *ret_message (may be NULL) always receives a human message; it is a
 * static string (some name a row: valid until the thread's next open). */
enum code sheet_open(const void *data, size_t len, const struct sheet_limits *lim,
		     struct sheet **ret_sheet, const char **ret_message);

/* Like sheet_open, but also returns what was detected before a failure
 * (format, encoding, delimiter) in *ret_info, for `loadline inspect` and run
 * bodies.  ret_info may be NULL; its strings are static. */
enum code sheet_open_info(const void *data, size_t len, const struct sheet_limits *lim,
			  struct sheet **ret_sheet, const char **ret_message,
			  struct sheet_info *ret_info);

/* sheet_open_info with options (NULL: as sheet_open_info).  With a judge
 * the header row is detected (or opts->header_row is taken), a group row
 * above it joined into its texts, the worksheet chosen, and summary rows
 * at the end left out of the data (docs/sheet.md, "Header row").  Also
 * fails with SHEET_NOT_FOUND (opts->sheet names no visible worksheet; the
 * message lists them) and EMPTY_FILE (opts->header_row is blank or past
 * the end).  *ret_message is static or, when ret_sheet is set, the sheet's. */
enum code sheet_open_opts(const void *data, size_t len, const struct sheet_limits *lim,
			  const struct sheet_options *opts, struct sheet **ret_sheet, const char **ret_message,
			  struct sheet_info *ret_info);

const struct sheet_info *sheet_info(const struct sheet *s);

/* The header's 1-based spreadsheet row number. */
unsigned sheet_header_row(const struct sheet *s);
/* The non-blank rows above the header (at most SHEET_HEADER_SCAN, the
 * last ones), in order; a joined group row is among them.  Valid until
 * sheet_free. */
size_t sheet_rows_above(const struct sheet *s, const struct sheet_row *const **ret_rows);
/* XLSX: the worksheet read (NULL for CSV) and the visible worksheets'
 * names in workbook order (0 for CSV).  Valid until sheet_free. */
const char *sheet_name(const struct sheet *s);
size_t sheet_names(const struct sheet *s, const char *const **ret_names);
/* Row numbers of the summary rows left out so far (all of them once
 * sheet_next_row has returned the end), ascending. */
size_t sheet_summary_rows(const struct sheet *s, const unsigned **ret_rows);
/* The per-column roles the judge gave the header (NULL without a judge);
 * sheet_header(s)->ncells entries. */
const unsigned char *sheet_header_roles(const struct sheet *s);

/* The first up to SHEET_SAMPLE_ROWS non-blank data rows after the header,
 * read ahead: sheet_next_row still delivers them afterwards, in order and
 * unchanged.  Trailing summary rows are not among them.  Rows and array
 * are the sheet's, valid until sheet_free.  Returns how many (0 when the
 * file has none, or the read failed: sheet_next_row then says why). */
size_t sheet_samples(struct sheet *s, const struct sheet_row *const **ret_rows);

/* The header row: the first non-blank row without a judge, else the one
 * sheet_open_opts found (a group row above it joined into its texts, its
 * number the header's own).  Owned by the sheet, valid until sheet_free. */
const struct sheet_row *sheet_header(const struct sheet *s);

/* Next non-blank data row; *ret_row = NULL at the end.  Returns a
 * parse-level code on error (TOO_MANY_ROWS when row max_rows+1 appears;
 * EMPTY_FILE when the end comes with no data row at all; CELL_TOO_LONG for
 * a cell past SHEET_MAX_CELL_CHARS; MALFORMED_CSV or MALFORMED_XLSX when the
 * rest of the file is broken or its cells pass the expansion budget).  After an error every
 * later call returns the same code.  The returned row is owned by the sheet
 * and stays valid until the next call. */
enum code sheet_next_row(struct sheet *s, const struct sheet_row **ret_row);

/* Message of the last error, owned by the sheet (valid until the next call
 * or sheet_free); "" when there was none. */
const char *sheet_message(const struct sheet *s);

void sheet_free(struct sheet *s);  /* NULL ok */

struct buf;
/* Appends UTF-8 s[0..n) to b in Windows-1252 (a character it cannot hold
 * becomes '?'), for writing a file back in a Windows-1252 upload's own
 * encoding.  Returns 0, or -1 when b is full or s is cut mid-character. */
int utf8_to_cp1252(struct buf *b, const char *s, size_t n);
/* The single-byte encodings a CSV that is not UTF-8 is read in. */
enum sbcs { SBCS_WINDOWS_1252, SBCS_MACINTOSH };
int utf8_to_sbcs(struct buf *b, enum sbcs enc, const char *s, size_t n);

/* Pure helpers, also fuzzed. */

/* Excel serial -> "YYYY-MM-DD", or "YYYY-MM-DDTHH:MM:SS" when the value has
 * a time of day (rounded to the second), in the 1900 system (with its
 * leap-year bug: serial 60 is the fictitious 1900-02-29) or the 1904 system.
 * Returns 0, or -1 when out of range (1900: serial < 1; 1904: < 0; after
 * 9999-12-31; NaN) or when outlen < 20. */
int sheet_format_date(double serial, int date1904, char *out, size_t outlen);

/* Time of day of a serial as "HH:MM:SS" (rounded to the second), for cells
 * whose format is a time without a date.  Returns 0 or -1 (negative, NaN,
 * outlen < 9).  Durations over 24 h wrap. */
int sheet_format_time(double serial, char *out, size_t outlen);

/* Number as Excel shows it in General format: at most 15 significant digits,
 * positional notation (no 1E+05, no 0.30000000000000004), integers without
 * ".0"; exponent form ("1.5E+21", "2E-11") only for magnitudes of 1E+21
 * and above or below 1E-10.  Returns 0, or -1 for NaN,
 * infinities or when outlen is too small (32 bytes always suffice). */
int sheet_format_general(double v, char *out, size_t outlen);

/* Is number format (id, custom format code or NULL) a date format?
 * 0: no; SHEET_NUMFMT_DATE: date or date-time; SHEET_NUMFMT_TIME: time of
 * day only.  A non-NULL format_code decides; with NULL the built-in id does
 * (14-22 and 45-47 as in ECMA-376 18.8.30). */
#define SHEET_NUMFMT_DATE 1
#define SHEET_NUMFMT_TIME 2
int sheet_numfmt_is_date(int id, const char *format_code);
/* sheet_numfmt_is_date, or for a code of zeros only ("00000", the ZIP and
 * account-number formats) SHEET_NUMFMT_ZERO_PAD + the number of zeros
 * (1..32): integers are shown with leading zeros to that width, as Excel
 * shows them. */
#define SHEET_NUMFMT_ZERO_PAD 16
int sheet_numfmt_kind(int id, const char *format_code);
/* The literal text a number format shows before and after the number, from
 * its first section, for a number to read as a person sees it (PRODUCT
 * §14): `0.00 "tons"` -> "", " tons"; `"$"#,##0.00` and `[$$-409]#,##0` ->
 * "$", "".  Returns 1 when there is such text, 0 otherwise (General, dates,
 * zero-padded codes, percent, scientific, text formats, fractions); the
 * affixes are NUL-terminated, cut to SHEET_AFFIX_MAX - 1 bytes. */
#define SHEET_AFFIX_MAX 16
int sheet_numfmt_affix(const char *format_code, char prefix[SHEET_AFFIX_MAX], char suffix[SHEET_AFFIX_MAX]);

#endif
