/* Untrusted text made safe to place on one line of a message (mail
 * headers and bodies, log-like listings). */
#ifndef LOADLINE_BASE_TEXT_H
#define LOADLINE_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* s with every control character (C0 such as ESC, DEL, C1 such as U+0085),
 * the Unicode line and paragraph separators (U+2028, U+2029) and the
 * bidirectional formatting characters (U+200E/F, U+202A-E, U+2066-9,
 * U+061C) replaced by one space, invalid UTF-8 bytes replaced by '?', and cut to at most max bytes
 * (on a character boundary, with "..." when cut).  Never NULL (NULL in
 * gives "").  Arena-owned. */
char *text_one_line(struct arena *a, const char *s, size_t max);
/* The same replacements in s itself (never longer), without a cap: what a
 * name given by a client (an upload's file name) is stored as, so that no
 * page, listing or mail shows an escape sequence or a right-to-left
 * override hidden in it. */
void text_clean_in_place(char *s);

/* True when s (NUL-terminated) is well-formed UTF-8 as RFC 3629 and
 * PostgreSQL define it: no overlong forms, no surrogates, nothing past
 * U+10FFFF. */
bool text_utf8_valid(const char *s);

#endif
