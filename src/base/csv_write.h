/* CSV that spreadsheets open safely: every cell quoted (RFC 4180), and a
 * cell that a spreadsheet would run as a formula (csv_formula_like)
 * prefixed with an apostrophe, which makes
 * Excel, LibreOffice and Google Sheets show it as text. */
#ifndef LOADLINE_BASE_CSV_WRITE_H
#define LOADLINE_BASE_CSV_WRITE_H

#include <stdbool.h>

#include "base/buf.h"

/* Whether a spreadsheet would run s as a formula: it starts with =, +, -,
 * @, tab or CR and is not a plain number (-3 and +1.5 are numbers, not
 * formulas, and stay as they are).  The one definition of the guard, shared
 * by every CSV writer and undone by the reader (sheet/csv.c). */
bool csv_formula_like(const char *s);

/* Appends one cell (NULL = empty), preceded by a comma unless first.
 * Returns 0 or -1 when the buffer's cap is reached. */
int csv_cell(struct buf *b, const char *s, bool first);
/* Ends the row (CRLF). */
int csv_row_end(struct buf *b);

#endif
