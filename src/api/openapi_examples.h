/* Examples for the OpenAPI document, made from its own schemas
 * (openapi_examples.c). */
#ifndef LOADLINE_API_OPENAPI_EXAMPLES_H
#define LOADLINE_API_OPENAPI_EXAMPLES_H

#include <jansson.h>
#include <stddef.h>

/* Gives every JSON request body and response of doc's paths that has no
 * example one, from its schema.  Returns how many were added; missing
 * (cap bytes) names the ones no example could be made for ("" when none). */
int openapi_add_examples(json_t *doc, char *missing, size_t cap);

#endif
