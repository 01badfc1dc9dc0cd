/* application/x-www-form-urlencoded bodies, as browsers post forms. */
#ifndef LOADLINE_WEB_FORM_H
#define LOADLINE_WEB_FORM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* The largest form is a page of failed rows to correct: 50 rows of up to
 * 100 columns (web/failed_edit.h). */
#define FORM_MAX_FIELDS 5120

struct form_field {
	const char *name, *value;   /* decoded, NUL-terminated, arena-owned */
};

struct form {
	int n;
	struct form_field *fields;
};

/* Parses body[0..len) into ret (strings in a).  Returns 0, or -1 when the
 * body is not a valid form: a bad %-escape, a NUL, text that is not UTF-8,
 * or more than FORM_MAX_FIELDS fields.  ret is untouched on failure. */
int form_parse(struct arena *a, const char *body, size_t len, struct form *ret);
/* True when s[0..n) is valid UTF-8 without NUL: what every text from a
 * browser must be before it is used. */
bool form_text_ok(const char *s, size_t n);
/* The first value of name, or NULL. */
const char *form_get(const struct form *f, const char *name);

#endif
