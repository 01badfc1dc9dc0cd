/* Materialized result rows shared by both backends (internal to src/store):
 * each backend copies its driver's result into these cells. */
#ifndef LOADLINE_STORE_DB_RES_H
#define LOADLINE_STORE_DB_RES_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

struct db_cell {
	char *p;       /* NUL-terminated copy; NULL for SQL NULL */
	size_t len;
};

struct db_res {
	struct arena *arena;
	int rows, cols, cap;      /* cap in rows */
	struct db_cell *cells;    /* rows * cols, row-major */
};

struct db_res *db_res_new(int cols);
/* Appends an empty row and returns its first cell. */
struct db_cell *db_res_add_row(struct db_res *r);

#endif
