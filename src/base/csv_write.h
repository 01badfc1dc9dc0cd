/* CSV that spreadsheets open safely: every cell quoted (RFC 4180), and a
 * cell that a spreadsheet would run as a formula (csv_formula_like)
 * prefixed with an apostrophe, which makes
 * Excel, LibreOffice and Google Sheets show it as text. */
#ifndef LOADLINE_BASE_CSV_WRITE_H
#define LOADLINE_BASE_CSV_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/buf.h"

/* Whether a spreadsheet would run s as a formula: it starts with =, +, -,
 * @, tab or CR and is not a plain number (-3 and +1.5 are numbers, not
 * formulas, and stay as they are).  The one definition of the guard, shared
 * by every CSV writer and undone by the reader (sheet/csv.c). */
bool csv_formula_like(const char *s);

/* The characters whose leading presence makes a cell formula-like. */
#define CSV_FORMULA_CHARS "=+-@\t\r"

/* Whether cell s[0..n) carries the guard a CSV reader takes off (PRODUCT
 * §11): an apostrophe followed by one of CSV_FORMULA_CHARS.  One
 * apostrophe only: "''=x" is someone's text and is not a guard.  A
 * reader that drops the first byte of such a cell gives back what
 * csv_cell and the fix-up writer were given, and no cell it returns is
 * ever guarded, so writing it again and reading it back is exact. */
static inline bool csv_guarded(const char *s, size_t n)
{
	return n >= 2 && s[0] == '\'' && s[1] && strchr(CSV_FORMULA_CHARS, s[1]);
}

/* Appends one cell (NULL = empty), preceded by a comma unless first.
 * Returns 0 or -1 when the buffer's cap is reached. */
int csv_cell(struct buf *b, const char *s, bool first);
/* Ends the row (CRLF). */
int csv_row_end(struct buf *b);

#endif
