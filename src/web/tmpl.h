/* HTML templates with escaping on by default.
 *
 * A template is a file under src/web/templates/ with placeholders:
 *   {{name}}               the variable's value
 *   {{#name}}...{{/name}}  the block when the variable is set and not empty
 *   {{^name}}...{{/name}}  the block when it is not
 *   {{! comment }}
 * A variable holds either text or HTML.  Text is always escaped (through
 * html_escape, the one place text becomes markup); HTML is inserted as is,
 * and the only way to get a `struct html` is from this module — rendering a
 * template or joining rendered pieces — so unescaped user text cannot reach
 * a page by accident.  Everything lives in the caller's arena. */
#ifndef LOADLINE_WEB_TMPL_H
#define LOADLINE_WEB_TMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* Markup produced by this module (opaque on purpose). */
struct html;

struct tmpl_var {
	const char *name;
	const char *text;          /* escaped on output */
	const struct html *html;   /* inserted as is */
	bool flag;                 /* for sections, when there is no value */
};

#define T_TEXT(n, v) ((struct tmpl_var){.name = (n), .text = (v)})
#define T_HTML(n, h) ((struct tmpl_var){.name = (n), .html = (h)})
#define T_FLAG(n, b) ((struct tmpl_var){.name = (n), .flag = (b)})

/* Renders the template named name with vars[0..n).  An unknown variable
 * renders as nothing (and counts as unset in sections).  Aborts when the
 * template does not exist or is malformed: templates are part of the
 * program, and the unit tests render every one. */
const struct html *tmpl_render(struct arena *a, const char *name, const struct tmpl_var *vars, size_t n);
/* The same for template text given directly (tests, tiny fragments). */
const struct html *tmpl_render_text(struct arena *a, const char *tmpl, const struct tmpl_var *vars, size_t n);

/* Escaped text as a fragment. */
const struct html *html_text(struct arena *a, const char *text);
/* The empty fragment. */
const struct html *html_empty(void);
bool html_is_empty(const struct html *h);
/* The markup (NUL-terminated) and its length. */
const char *html_str(const struct html *h);
size_t html_len(const struct html *h);

/* Joins rendered fragments in order (list rows, table cells). */
struct html_list;
struct html_list *html_list_new(struct arena *a);
void html_list_add(struct html_list *l, const struct html *h);
/* The fragments joined so far; the list may keep growing afterwards. */
const struct html *html_list_done(struct html_list *l);

#endif
