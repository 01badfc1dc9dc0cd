/* CSV that spreadsheets open safely: every cell quoted (RFC 4180), and a
 * cell that a spreadsheet would run as a formula — one starting with =, +,
 * -, @, tab or carriage return — prefixed with an apostrophe, which makes
 * Excel, LibreOffice and Google Sheets show it as text. */
#ifndef LOADLINE_WEB_CSV_H
#define LOADLINE_WEB_CSV_H

#include <stdbool.h>

#include "base/buf.h"

/* Appends one cell (NULL = empty), preceded by a comma unless first.
 * Returns 0 or -1 when the buffer's cap is reached. */
int csv_cell(struct buf *b, const char *s, bool first);
/* Ends the row (CRLF). */
int csv_row_end(struct buf *b);

#endif
