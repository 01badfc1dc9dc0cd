/* Growable byte buffer with a hard cap, always NUL-terminated (curl's dynbuf,
 * PostgreSQL's StringInfo).  Every size that comes from input goes through a
 * cap here, so a hostile input cannot make memory grow without bound. */
#ifndef LOADLINE_BASE_BUF_H
#define LOADLINE_BASE_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data;   /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;   /* allocated bytes */
	size_t max;   /* appends past this many bytes fail */
};

void buf_init(struct buf *b, size_t max);
void buf_done(struct buf *b);          /* frees data; b may be reused after buf_init */
void buf_clear(struct buf *b);         /* len = 0, keeps memory */
/* Each returns 0, or -1 when the cap would be exceeded (buffer unchanged). */
int buf_append(struct buf *b, const void *p, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v in decimal, as "%lld" would write it. */
int buf_put_int(struct buf *b, long long v);
/* Takes ownership of the data (caller frees); the buffer is left empty. */
char *buf_steal(struct buf *b, size_t *ret_len);
/* The data, or "" when nothing was appended. */
const char *buf_str(const struct buf *b);

#endif
