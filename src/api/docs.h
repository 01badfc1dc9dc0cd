/* Error reference documents generated from the code table. */
#ifndef LOADLINE_API_DOCS_H
#define LOADLINE_API_DOCS_H

#include <stddef.h>

#include "base/codes.h"

/* HTML page for one code (malloc'd). */
char *docs_error_html(enum code c);
/* HTML index of every code (malloc'd). */
char *docs_index_html(void);
/* docs/errors.md (malloc'd). */
char *docs_errors_markdown(void);

/* The API reference page, rendered from docs/openapi.json at build time by
 * scripts/render_openapi.py (NUL-terminated). */
extern const char docs_api_reference_html[];
extern const size_t docs_api_reference_len;

#endif
