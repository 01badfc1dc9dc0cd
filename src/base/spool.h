/* A spool file: an upload's bytes on disk as they arrive, so that a request
 * body is never held whole in memory (issue 11).  The file is anonymous
 * (O_TMPFILE, or unlinked at once): it disappears with its descriptor,
 * also when the process is killed.  Read back through a read-only mapping,
 * whose pages the kernel may drop and re-read at will. */
#ifndef LOADLINE_BASE_SPOOL_H
#define LOADLINE_BASE_SPOOL_H

#include <stdbool.h>
#include <stddef.h>

struct spool {
	int fd;          /* -1 when closed */
	size_t len, cap;
	void *map;       /* after spool_map; NULL for an empty spool */
	int error;       /* errno of the first failed write (ENOSPC: disk full), 0 */
};

/* Opens an empty spool in dir holding at most cap bytes: 0, or -1 with
 * errno set (and s->fd = -1). */
int spool_open(struct spool *s, const char *dir, size_t cap);
/* Appends n bytes: 0, 1 when the cap would be exceeded (nothing written),
 * -1 on a write error (s->error says which). */
int spool_write(struct spool *s, const void *p, size_t n);
/* Maps what was written, read-only: 0 (s->map set, NULL when empty) or -1. */
int spool_map(struct spool *s);
/* Drops the mapping's pages from this process's resident memory (they are
 * read again from the page cache when touched): between two passes over a
 * big upload, so that uploads waiting for the database do not each hold
 * theirs. */
void spool_forget(struct spool *s);
/* spool_forget as a callback taking a struct spool * as void * (the
 * intake's before_store, sheet_limits.drop). */
void spool_forget_hook(void *spool);
/* Unmaps and closes; the file is gone.  A closed spool is fine. */
void spool_close(struct spool *s);

#endif
