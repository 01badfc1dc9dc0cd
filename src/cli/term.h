/* Text from a server made safe to print on a terminal (`loadline push`,
 * `loadline runs`): a file name, code or message chosen by another member
 * of the organization (or by a hostile server) must not move the cursor,
 * clear the screen, set the window title or reorder what is shown. */
#ifndef LOADLINE_CLI_TERM_H
#define LOADLINE_CLI_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Copies s into out[cap] with every character a terminal would act on
 * written as an escape instead: C0 controls (tab and newline included, so
 * a field stays on its line and tab-separated output keeps its columns) and
 * DEL as \xNN, C1 controls (U+0080..U+009F) and the bidirectional and line
 * controls (U+061C, U+200E/F, U+2028/9, U+202A..E, U+2066..9) as \uNNNN,
 * bytes that are not UTF-8 as \xNN.  Cut at a character boundary with
 * "..." when it does not fit.  NULL prints as "".  Returns out. */
const char *term_clean(const char *s, char *out, size_t cap);

/* A run's progress (PRODUCT §16) as one line of text in out[cap], without
 * a newline: with bar, "[#########-----------]  45%  4,500 of 10,000 rows
 * 12,000 rows/s  about 1 s left"; without, the same without the bar.
 * total < 0: not known yet ("4,500 rows so far").  Returns out. */
const char *term_progress(char *out, size_t cap, bool bar, long long done, long long total, long long rate);

#endif
