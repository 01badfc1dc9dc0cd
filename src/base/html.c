/* HTML escaping. */
#include "html.h"

#include <string.h>

static int esc_char(struct buf *b, char c)
{
	switch (c) {
	case '&': return buf_puts(b, "&amp;");
	case '<': return buf_puts(b, "&lt;");
	case '>': return buf_puts(b, "&gt;");
	case '"': return buf_puts(b, "&quot;");
	case '\'': return buf_puts(b, "&#39;");
	default: return buf_putc(b, c);
	}
}

int html_escape(struct buf *b, const char *s)
{
	for (; s && *s; s++)
		if (esc_char(b, *s))
			return -1;
	return 0;
}

int html_escape_code(struct buf *b, const char *s)
{
	int in_code = 0;
	for (; s && *s; s++) {
		int rc = *s == '`' ? buf_puts(b, (in_code = !in_code) ? "<code>" : "</code>") : esc_char(b, *s);
		if (rc)
			return -1;
	}
	return in_code ? buf_puts(b, "</code>") : 0;
}
