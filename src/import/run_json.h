/* The import_run resource as the API shows it (and webhooks send it). */
#ifndef LOADLINE_IMPORT_RUN_JSON_H
#define LOADLINE_IMPORT_RUN_JSON_H

#include <jansson.h>

struct run;
struct config;
/* The import_run body (new reference); cfg gives the app URL and the
 * retention settings. */
json_t *run_json(const struct run *r, const struct config *cfg);

#endif
