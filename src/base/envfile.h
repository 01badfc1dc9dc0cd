/* The systemd EnvironmentFile subset that /etc/loadline/loadline.env is
 * written in (loadline.env(5)), so that `loadline admin …` run by hand
 * reads the settings the packaged units get.
 *
 * One setting a line: NAME=VALUE.  Leading blanks are ignored; a line
 * that is empty or starts with # or ; is a comment.  NAME is
 * [A-Za-z_][A-Za-z0-9_]*, blanks around = are ignored.  VALUE runs to the
 * end of the line, trailing blanks dropped; within it '…' quotes
 * literally, "…" quotes with \" \\ \` \$ as escapes (another backslash is
 * kept), and outside quotes a backslash takes the next character as it is.
 * A # inside a value is part of it, as for systemd; a CR before the
 * newline is dropped.  Not supported (such a line is reported, and
 * skipped): line continuations, unterminated quotes, NUL bytes. */
#ifndef LOADLINE_BASE_ENVFILE_H
#define LOADLINE_BASE_ENVFILE_H

#include <stddef.h>

struct envfile_cb {
	/* Each setting in file order (value is unquoted, NUL-terminated). */
	void (*set)(const char *name, const char *value, void *ctx);
	/* A line that is neither a setting nor a comment (1-based). */
	void (*bad)(int lineno, void *ctx);
	void *ctx;
};

/* Parses text[0..len).  Returns the number of settings, or -1 when out of
 * memory. */
int envfile_parse(const char *text, size_t len, const struct envfile_cb *cb);

#endif
