/* Pieces of `loadline push` in their own files. */
#ifndef LOADLINE_CLI_PUSH_H
#define LOADLINE_CLI_PUSH_H

#include <jansson.h>

#include "client.h"

/* Writes the run's non-empty buckets under c->results_dir: 0, or -1 after
 * a message. */
int push_write_results(const struct client *c, json_t *run);

#endif
