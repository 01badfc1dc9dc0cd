/* Greedy global assignment (assign.h): sorting all candidate pairs by
 * score and taking each whose column and field are still free is the
 * rule a person follows ("the clearest column gets the field") and gives
 * every losing column its next-best free field. */
#include "assign.h"

#include <stdlib.h>

struct pair {
	const struct assign_cand *c;
	size_t idx;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->c->score != b->c->score)
		return a->c->score > b->c->score ? -1 : 1;
	bool ra = field_required(a->c->field), rb = field_required(b->c->field);
	if (ra != rb)
		return ra ? -1 : 1;
	if (a->c->col != b->c->col)
		return a->c->col < b->c->col ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void assign_fields(const struct assign_cand *c, size_t nc, size_t ncols, long *ret_pick, bool *ret_lost)
{
	bool taken[FIELD__COUNT] = { false };
	struct pair *v = nc ? calloc(nc, sizeof(*v)) : NULL;
	bool *done = ncols ? calloc(ncols, sizeof(*done)) : NULL;
	if ((nc && !v) || (ncols && !done))
		abort();
	size_t nv = 0;
	for (size_t i = 0; i < nc; i++)
		if (c[i].col < ncols && c[i].field <= FIELD_NONE)
			v[nv++] = (struct pair){ &c[i], i };
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_pair);
	for (size_t i = 0; i < ncols; i++)
		ret_pick[i] = -1, ret_lost[i] = false;
	for (size_t i = 0; i < nv; i++) {
		const struct assign_cand *x = v[i].c;
		if (done[x->col])
			continue;
		if (x->field != FIELD_NONE && taken[x->field]) {
			ret_lost[x->col] = true;
			continue;
		}
		done[x->col] = true;
		ret_pick[x->col] = (long)v[i].idx;
		if (x->field != FIELD_NONE)
			taken[x->field] = true, ret_lost[x->col] = false;
	}
	free(v);
	free(done);
}
