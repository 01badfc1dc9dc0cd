/* Region allocator: a chain of blocks, big requests get a block of their own. */
#include "arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE (16 * 1024)
#define ALIGN 16

struct block {
	struct block *next;
	size_t size, used;
	max_align_t data[]; /* keeps data 16-aligned on x86_64 */
};

struct cleanup {
	struct cleanup *next;
	void (*fn)(void *);
	void *data;
};

struct arena {
	struct block *head;
	struct cleanup *cleanups;
	bool soft;   /* arena_try_new: out of memory gives NULL, not abort */
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fputs("loadline: out of memory\n", stderr);
		abort();
	}
	return p;
}

static struct block *block_try_new(size_t size)
{
	struct block *b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

static struct block *block_new(size_t size)
{
	struct block *b = xmalloc(sizeof(*b) + size);
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

struct arena *arena_new(void)
{
	struct arena *a = xmalloc(sizeof(*a));
	a->head = block_new(BLOCK_SIZE);
	a->cleanups = NULL;
	a->soft = false;
	return a;
}

struct arena *arena_new_sized(size_t first_block)
{
	struct arena *a = xmalloc(sizeof(*a));
	a->head = block_new(first_block ? first_block : BLOCK_SIZE);
	a->cleanups = NULL;
	a->soft = false;
	return a;
}

struct arena *arena_try_new(void)
{
	struct arena *a = malloc(sizeof(*a));
	if (!a)
		return NULL;
	a->head = block_try_new(BLOCK_SIZE);
	if (!a->head) {
		free(a);
		return NULL;
	}
	a->cleanups = NULL;
	a->soft = true;
	return a;
}

static void run_cleanups(struct arena *a)
{
	while (a->cleanups) {
		struct cleanup *c = a->cleanups;
		a->cleanups = c->next;
		c->fn(c->data);
	}
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	run_cleanups(a);
	struct block *b = a->head;
	while (b) {
		struct block *n = b->next;
		free(b);
		b = n;
	}
	free(a);
}

void arena_reset(struct arena *a)
{
	run_cleanups(a);
	/* Keep one ordinary BLOCK_SIZE block for reuse and free every other,
	 * in particular big one-off blocks (which are linked behind the head,
	 * so they may well be the last of the chain). */
	struct block *keep = NULL;
	for (struct block *b = a->head, *n; b; b = n) {
		n = b->next;
		if (!keep && b->size == BLOCK_SIZE)
			keep = b;
		else
			free(b);
	}
	if (!keep)
		keep = block_new(BLOCK_SIZE);
	keep->next = NULL;
	keep->used = 0;
	a->head = keep;
}

struct arena_mark arena_mark(const struct arena *a)
{
	return (struct arena_mark){a->head, a->head->next, a->cleanups, a->head->used};
}

/* Blocks allocated after the mark: every block before the mark's head in
 * the chain, and the big one-offs linked right behind the mark's head
 * (arena_alloc puts them there) before what followed it at the mark. */
void arena_rewind(struct arena *a, struct arena_mark m)
{
	while (a->cleanups && a->cleanups != m.cleanups) {
		struct cleanup *c = a->cleanups;
		a->cleanups = c->next;
		c->fn(c->data);
	}
	struct block *head = m.head;
	for (struct block *b = a->head, *n; b != head; b = n) {
		n = b->next;
		free(b);
	}
	for (struct block *b = head->next, *n; b != m.after_head; b = n) {
		n = b->next;
		free(b);
	}
	head->next = m.after_head;
	head->used = m.used;
	a->head = head;
}

size_t arena_reserved(const struct arena *a)
{
	size_t n = 0;
	for (const struct block *b = a->head; b; b = b->next)
		n += b->size;
	return n;
}

void *arena_alloc(struct arena *a, size_t size)
{
	if (size == 0)
		size = 1;
	if (size > SIZE_MAX - ALIGN - sizeof(struct block))
		abort();
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	struct block *b = a->head;
	if (b->size - b->used < size) {
		size_t bs = size > BLOCK_SIZE / 4 ? size : BLOCK_SIZE;
		struct block *nb = a->soft ? block_try_new(bs) : block_new(bs);
		if (!nb)
			return NULL;
		if (bs == size && b->size - b->used > 0) {
			/* Big one-off: link it behind the head so the head keeps filling. */
			nb->next = b->next;
			b->next = nb;
			nb->used = size;
			memset(nb->data, 0, size);
			return nb->data;
		}
		nb->next = b;
		a->head = b = nb;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	if (!s)
		return NULL;
	char *p = arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	/* Measure into a small buffer (not NULL: GCC's sanitizer builds warn on
	 * a NULL destination), then format again only when it did not fit. */
	char small[256];
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return arena_strdup(a, "");
	}
	char *p = arena_alloc(a, (size_t)n + 1);
	if (!p) {
		va_end(ap2);
		return NULL;
	}
	if ((size_t)n < sizeof small)
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void arena_cleanup(struct arena *a, void (*fn)(void *), void *data)
{
	struct cleanup *c = arena_alloc(a, sizeof(*c));
	c->fn = fn;
	c->data = data;
	c->next = a->cleanups;
	a->cleanups = c;
}
