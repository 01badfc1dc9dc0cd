/* Column shapes and mapping proposals (interim: exact names only; the full
 * proposal engine replaces this file). */
#ifndef LOADLINE_IMPORT_PROPOSE_H
#define LOADLINE_IMPORT_PROPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "import/schema.h"

void shape_key(const char *const *headers, const size_t *lens, size_t n, char out[65]);

struct proposal {
	enum field field;   /* FIELD_NONE = ignore this column */
	int confidence;     /* 0..100 */
	bool conflict;      /* another column wanted the same field and won */
};
void propose_mapping(const char *const *headers, const size_t *lens, size_t n, struct proposal *ret);
bool shape_is_template(const char *const *headers, const size_t *lens, size_t n);

#endif
