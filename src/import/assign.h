/* The global assignment of fields to columns (PRODUCT §14, docs/
 * column-mapping.md "Scoring model"): every column offers scored
 * candidates; each field goes to one column at most, the best-scoring
 * pair first (a required field first on a tie, then the earlier column),
 * and a column that loses its field takes its next-best one still free.
 * Pure, no I/O. */
#ifndef LOADLINE_IMPORT_ASSIGN_H
#define LOADLINE_IMPORT_ASSIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "model/schema.h"

struct assign_cand {
	size_t col;       /* < ncols */
	enum field field; /* FIELD_NONE: the column is known to be irrelevant;
			     when this candidate comes up, the column is ignored */
	int score;        /* higher is better */
};

/* Picks at most one candidate per column and per field.  ret_pick[col] is
 * the index in c of the column's candidate, or -1 when it got none;
 * ret_lost[col] is true when a field it offered went to another column
 * and it got nothing.  Both arrays hold ncols entries.  Candidates with
 * col >= ncols or field > FIELD_NONE are skipped.  Deterministic: equal
 * inputs give equal outputs.  Never fails (aborts when out of memory). */
void assign_fields(const struct assign_cand *c, size_t nc, size_t ncols, long *ret_pick, bool *ret_lost);

#endif
