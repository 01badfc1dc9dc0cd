/* Row builder: cell texts of one row in a reused, capped buffer. */
#include <stdlib.h>
#include <string.h>

#include "sheet_int.h"

void rowbuf_init(struct rowbuf *rb, size_t max_bytes)
{
	memset(rb, 0, sizeof(*rb));
	buf_init(&rb->text, max_bytes);
}

void rowbuf_done(struct rowbuf *rb)
{
	buf_done(&rb->text);
	free(rb->offs);
	free(rb->lens);
	free(rb->cells);
	memset(rb, 0, sizeof(*rb));
}

void rowbuf_clear(struct rowbuf *rb)
{
	buf_clear(&rb->text);
	rb->n = 0;
	rb->open = false;
	rb->dropping = false;
	rb->full = false;
}

/* -1 from an append: on the cap (rb->full) or out of memory. */
__attribute__((cold, noinline)) static int failed(struct rowbuf *rb, size_t n)
{
	if (rb->text.len + n + 1 > rb->text.max)
		rb->full = true;
	return -1;
}

/* The arrays grow by doubling up to SHEET_MAX_COLUMNS, so their size is
 * bounded whatever the input. */
static int grow(struct rowbuf *rb)
{
	size_t cap = rb->cap ? rb->cap * 2 : 32;
	if (cap > SHEET_MAX_COLUMNS)
		cap = SHEET_MAX_COLUMNS;
	size_t *offs = realloc(rb->offs, cap * sizeof(*offs));
	if (!offs)
		return -1;
	rb->offs = offs;
	size_t *lens = realloc(rb->lens, cap * sizeof(*lens));
	if (!lens)
		return -1;
	rb->lens = lens;
	const char **cells = realloc(rb->cells, cap * sizeof(*cells));
	if (!cells)
		return -1;
	rb->cells = cells;
	rb->cap = cap;
	return 0;
}

int rowbuf_begin_cell(struct rowbuf *rb)
{
	if (rb->n >= SHEET_MAX_COLUMNS) {
		rb->dropping = true;
		rb->open = true;
		return 0;
	}
	if (rb->n == rb->cap && grow(rb))
		return -1;
	rb->offs[rb->n] = rb->text.len;
	rb->open = true;
	return 0;
}

int rowbuf_append(struct rowbuf *rb, const char *p, size_t n)
{
	if (rb->dropping || n == 0)
		return 0;
	return buf_append(&rb->text, p, n) ? failed(rb, n) : 0;
}

int rowbuf_append_sbcs(struct rowbuf *rb, enum sbcs enc, const char *p, size_t n)
{
	if (rb->dropping || n == 0)
		return 0;
	/* At most three bytes a character in UTF-8. */
	return sbcs_to_utf8(&rb->text, enc, p, n) ? failed(rb, 3 * n) : 0;
}

int rowbuf_end_cell(struct rowbuf *rb)
{
	rb->open = false;
	if (rb->dropping)
		return 0;
	size_t off = rb->offs[rb->n];
	rb->lens[rb->n] = rb->text.len - off;
	/* The NUL that ends this cell: cells are NUL-terminated in place. */
	if (buf_append(&rb->text, "", 1))
		return failed(rb, 1);
	rb->n++;
	return 0;
}

int rowbuf_add_cell(struct rowbuf *rb, const char *p, size_t n)
{
	/* The usual case in one step (this runs for every cell): begin, append
	 * and end as below, when the arrays and the text have room. */
	struct buf *t = &rb->text;
	if (rb->n < rb->cap && !rb->dropping && t->data && n + 1 < t->cap - t->len && t->len + n + 1 <= t->max) {
		rb->offs[rb->n] = t->len;
		if (n <= 16)
			for (size_t i = 0; i < n; i++)
				t->data[t->len + i] = p[i];
		else
			memcpy(t->data + t->len, p, n);
		t->len += n;
		t->data[t->len++] = '\0';
		t->data[t->len] = '\0';
		rb->lens[rb->n++] = n;
		rb->open = false;
		return 0;
	}
	if (rowbuf_begin_cell(rb) || rowbuf_append(rb, p, n))
		return -1;
	return rowbuf_end_cell(rb);
}

int rowbuf_pad(struct rowbuf *rb, size_t ncells)
{
	if (ncells > SHEET_MAX_COLUMNS)
		ncells = SHEET_MAX_COLUMNS;
	while (rb->n < ncells)
		if (rowbuf_add_cell(rb, "", 0))
			return -1;
	return 0;
}

const struct sheet_row *rowbuf_finish(struct rowbuf *rb)
{
	for (size_t i = 0; i < rb->n; i++)
		rb->cells[i] = rb->text.data + rb->offs[i];
	rb->row.number = rb->number;
	rb->row.ncells = rb->n;
	rb->row.cells = (const char *const *)rb->cells;
	rb->row.lens = rb->lens;
	return &rb->row;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool rowbuf_cell_is_blank(const struct rowbuf *rb, size_t i)
{
	const char *p = rb->text.data + rb->offs[i];
	for (size_t j = 0; j < rb->lens[i]; j++)
		if (!is_space(p[j]))
			return false;
	return true;
}

bool rowbuf_is_blank(const struct rowbuf *rb)
{
	for (size_t i = 0; i < rb->n; i++)
		if (!rowbuf_cell_is_blank(rb, i))
			return false;
	return true;
}
