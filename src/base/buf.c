/* Capped growable buffer. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->max = max;
}

void buf_done(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int reserve(struct buf *b, size_t extra)
{
	if (extra > b->max || b->len > b->max - extra)
		return -1;
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	if (cap > b->max + 1)
		cap = b->max + 1;
	char *p = realloc(b->data, cap);
	if (!p)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (reserve(b, n))
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

/* Decimal digits by hand: the import writes ~2,000 small numbers a run
 * (result diagnostics, SQL parameter lists), where vsnprintf's setup
 * cost ~0.4 us each. */
int buf_put_int(struct buf *b, long long v)
{
	char d[24];
	int i = (int)sizeof d;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do {
		d[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--i] = '-';
	return buf_append(b, d + i, sizeof d - (size_t)i);
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[2];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n))
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *buf_steal(struct buf *b, size_t *ret_len)
{
	if (reserve(b, 0) && !b->data)
		return NULL;
	if (!b->data && buf_append(b, "", 0))
		return NULL;
	char *p = b->data;
	if (ret_len)
		*ret_len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}
