/* Building blocks of the OpenAPI document shared by openapi.c (paths and
 * responses) and openapi_schemas.c (components.schemas); internal to
 * src/api.  Every json_t * returned is a new reference; every json_t *
 * argument is stolen. */
#ifndef LOADLINE_API_OPENAPI_SCHEMAS_H
#define LOADLINE_API_OPENAPI_SCHEMAS_H

#include <jansson.h>
#include <stdbool.h>

/* {"$ref":"#/components/<section>/<name>"} */
json_t *oa_ref_to(const char *section, const char *name);
/* {"$ref":"#/components/schemas/<name>"} */
json_t *oa_ref(const char *name);
/* {"type":type}, and {"type":[type,"null"]}. */
json_t *oa_type(const char *type);
json_t *oa_nullable(const char *type);
/* Sets key on schema (value stolen) and returns schema, for chaining. */
json_t *oa_with(json_t *schema, const char *key, json_t *value);
/* Same, for a string value. */
json_t *oa_withs(json_t *schema, const char *key, const char *value);
/* A JSON array of the space-separated words of list. */
json_t *oa_words(const char *list);
/* True when the space-separated list holds word exactly. */
bool oa_has_word(const char *list, const char *word);

/* The components.schemas object. */
json_t *openapi_schemas(void);

#endif
