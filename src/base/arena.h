/* Region allocator: many allocations, one free.  Used per request, per run
 * and per row (PostgreSQL's memory contexts, nginx's pools). */
#ifndef LOADLINE_BASE_ARENA_H
#define LOADLINE_BASE_ARENA_H

#include <stddef.h>

struct arena;

/* Aborts on out-of-memory: arena blocks are small and fixed-size, and every
 * size that comes from input is capped by its caller before it gets here. */
struct arena *arena_new(void);
/* For code that must survive out-of-memory (the readers of untrusted
 * files): NULL when the first block cannot be had, and afterwards
 * arena_alloc, arena_strdup, arena_strndup and arena_printf return NULL
 * instead of aborting.  arena_cleanup is not for such arenas. */
struct arena *arena_try_new(void);
/* Runs the cleanups (newest first), then frees every block.  NULL is fine. */
void arena_free(struct arena *a);
/* Frees everything allocated so far but keeps the first block for reuse. */
void arena_reset(struct arena *a);

void *arena_alloc(struct arena *a, size_t size);   /* zeroed, 16-aligned */
/* A smaller (or larger) first block than arena_new's 16 KiB: for requests
 * that may be held long with little state (a long poll); later blocks are
 * the usual size. */
struct arena *arena_new_sized(size_t first_block);

/* A point to come back to: arena_rewind frees what was allocated after
 * it (running the cleanups registered after it) and keeps the rest.
 * Nothing allocated after the mark may be used after the rewind. */
struct arena_mark {
	void *head, *after_head, *cleanups;
	size_t used;
};
struct arena_mark arena_mark(const struct arena *a);
void arena_rewind(struct arena *a, struct arena_mark m);

/* Bytes of memory the arena holds in its blocks (for tests and stats). */
size_t arena_reserved(const struct arena *a);
char *arena_strdup(struct arena *a, const char *s); /* NULL stays NULL */
char *arena_strndup(struct arena *a, const char *s, size_t len);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Registers fn(data) to run when the arena is freed or reset; for resources
 * that are not memory (database results, files). */
void arena_cleanup(struct arena *a, void (*fn)(void *), void *data);

#endif
