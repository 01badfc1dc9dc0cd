/* Result sets: the part of db.h that does not depend on the backend. */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "db.h"
#include "db_backend.h"
#include "db_res.h"

struct db_res *db_res_new(int cols)
{
	struct db_res *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->arena = arena_new();
	r->cols = cols;
	return r;
}

struct db_cell *db_res_add_row(struct db_res *r)
{
	if (r->rows == r->cap) {
		int cap = r->cap ? r->cap * 2 : 8;
		struct db_cell *c = realloc(r->cells, (size_t)cap * (size_t)(r->cols ? r->cols : 1) * sizeof(*c));
		if (!c)
			abort();
		r->cells = c;
		r->cap = cap;
	}
	struct db_cell *row = r->cells + (size_t)r->rows * (size_t)r->cols;
	memset(row, 0, (size_t)r->cols * sizeof(*row));
	r->rows++;
	return row;
}

int db_res_rows(const struct db_res *r)
{
	if (!r)
		return 0;
	return r->rows;
}

int db_res_cols(const struct db_res *r)
{
	if (!r)
		return 0;
	return r->cols;
}

static bool in_range(const struct db_res *r, int row, int col)
{
	return r && row >= 0 && col >= 0 && row < db_res_rows(r) && col < db_res_cols(r);
}

bool db_res_null(const struct db_res *r, int row, int col)
{
	if (!in_range(r, row, col))
		return true;
	return r->cells[(size_t)row * (size_t)r->cols + (size_t)col].p == NULL;
}

const char *db_res_get(const struct db_res *r, int row, int col)
{
	if (db_res_null(r, row, col))
		return NULL;
	return r->cells[(size_t)row * (size_t)r->cols + (size_t)col].p;
}

size_t db_res_len(const struct db_res *r, int row, int col)
{
	if (db_res_null(r, row, col))
		return 0;
	return r->cells[(size_t)row * (size_t)r->cols + (size_t)col].len;
}

int64_t db_res_int(const struct db_res *r, int row, int col)
{
	const char *s = db_res_get(r, row, col);
	return s ? strtoll(s, NULL, 10) : 0;
}

int db_res_blob(const struct db_res *r, int row, int col, unsigned char **ret, size_t *ret_len)
{
	if (db_res_null(r, row, col))
		return -1;
	const struct db_cell *c = &r->cells[(size_t)row * (size_t)r->cols + (size_t)col];
	unsigned char *copy = malloc(c->len ? c->len : 1);
	if (!copy)
		return -1;
	memcpy(copy, c->p, c->len);
	*ret = copy;
	*ret_len = c->len;
	return 0;
}

int db_res_blob_view(const struct db_res *r, int row, int col, const unsigned char **ret, size_t *ret_len)
{
	if (db_res_null(r, row, col))
		return -1;
	const struct db_cell *c = &r->cells[(size_t)row * (size_t)r->cols + (size_t)col];
	*ret = (const unsigned char *)c->p;
	*ret_len = c->len;
	return 0;
}

void db_res_free(struct db_res *r)
{
	if (!r)
		return;
	arena_free(r->arena);
	free(r->cells);
	free(r);
}

uint64_t stmt_hash(const char *sql)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)sql; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

int stmt_cache_find(const struct stmt_cache *c, const char *sql, uint64_t hash)
{
	for (int i = 0; i < c->n; i++)
		if (c->e[i].hash == hash && c->e[i].sql && !strcmp(c->e[i].sql, sql))
			return i;
	return -1;
}
