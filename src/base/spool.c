/* Spool files (spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int spool_open(struct spool *s, const char *dir, size_t cap)
{
	*s = (struct spool){.fd = -1, .cap = cap};
	s->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* A filesystem without O_TMPFILE: a named file, unlinked at once. */
		char path[4096];
		snprintf(path, sizeof path, "%s/loadline-spool-XXXXXX", dir);
		s->fd = mkostemp(path, O_CLOEXEC);
		if (s->fd >= 0)
			unlink(path);
	}
	return s->fd < 0 ? -1 : 0;
}

int spool_write(struct spool *s, const void *p, size_t n)
{
	if (n > s->cap - s->len)
		return 1;
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(s->fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			s->error = errno;
			return -1;
		}
		c += w;
		n -= (size_t)w;
		s->len += (size_t)w;
	}
	return 0;
}

int spool_map(struct spool *s)
{
	if (s->len == 0)
		return 0;
	void *m = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (m == MAP_FAILED)
		return -1;
	s->map = m;
	return 0;
}

void spool_forget(struct spool *s)
{
	if (s->map)
		madvise(s->map, s->len, MADV_DONTNEED);
}

void spool_forget_hook(void *spool)
{
	spool_forget(spool);
}

void spool_close(struct spool *s)
{
	if (s->map)
		munmap(s->map, s->len);
	if (s->fd >= 0)
		close(s->fd);
	s->map = NULL;
	s->fd = -1;
}
