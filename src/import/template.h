/* The jobs template (PRODUCT §12 "Download template"): every schema field
 * as a header, in the schema's order, and one example row.  Its column
 * shape is the published template's, so a file made from it imports with
 * no review. */
#ifndef LOADLINE_IMPORT_TEMPLATE_H
#define LOADLINE_IMPORT_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/codes.h"

struct template_file {
	unsigned char *data;      /* malloc'd; free it */
	size_t len;
	const char *content_type;
	const char *file_name;    /* "loadline-jobs-template.csv" or ".xlsx" */
};

/* xlsx false: CSV (UTF-8, comma, CRLF). */
enum code template_build(bool xlsx, struct template_file *ret);

#endif
