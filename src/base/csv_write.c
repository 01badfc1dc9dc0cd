/* Formula-safe CSV cells. */
#include "csv_write.h"

#include <stdlib.h>
#include <string.h>

bool csv_formula_like(const char *s)
{
	if (!s || !*s || !strchr(CSV_FORMULA_CHARS, *s))
		return false;
	char *end;
	(void)strtod(s, &end);
	return end == s || *end != '\0';
}

int csv_cell(struct buf *b, const char *s, bool first)
{
	if (!first && buf_putc(b, ','))
		return -1;
	if (buf_putc(b, '"'))
		return -1;
	if (csv_formula_like(s) && buf_putc(b, '\''))
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
