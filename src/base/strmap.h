/* A string-keyed hash map whose keys, table and growth live in an arena:
 * for caches that last as long as one request or one run. */
#ifndef LOADLINE_BASE_STRMAP_H
#define LOADLINE_BASE_STRMAP_H

#include <stddef.h>

struct arena;
struct strmap;

struct strmap *strmap_new(struct arena *a);
/* The value stored for key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Stores value for key (the key is copied; the value is the caller's). */
void strmap_put(struct strmap *m, const char *key, void *value);

#endif
