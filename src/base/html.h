/* HTML escaping: the one place text becomes markup. */
#ifndef LOADLINE_BASE_HTML_H
#define LOADLINE_BASE_HTML_H

#include "buf.h"

/* Appends s with & < > " ' escaped.  Returns 0 or -1 (cap reached). */
int html_escape(struct buf *b, const char *s);
/* Like html_escape, but `spans` in backticks become <code>spans</code>. */
int html_escape_code(struct buf *b, const char *s);

#endif
