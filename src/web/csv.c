/* Formula-safe CSV cells. */
#include "csv.h"

#include <string.h>

int csv_cell(struct buf *b, const char *s, bool first)
{
	if (!first && buf_putc(b, ','))
		return -1;
	if (buf_putc(b, '"'))
		return -1;
	if (s && *s && strchr("=+-@\t\r", *s) && buf_putc(b, '\''))
		return -1;
	for (; s && *s; s++)
		if ((*s == '"' && buf_putc(b, '"')) || buf_putc(b, *s))
			return -1;
	return buf_putc(b, '"');
}

int csv_row_end(struct buf *b)
{
	return buf_puts(b, "\r\n");
}
