/* Problem groups stored when a run ends, served from storage (problems.h).
 * The groups are those results_problems computes, field for field, so the
 * answer of GET /api/v1/imports/runs/{id}/problems is the same bytes
 * whether they were stored or computed. */
#include "problems.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "store/problems.h"
#include "store/runs.h"

static const char *rows_json(struct arena *a, const struct run_problem *p)
{
	struct buf b;
	buf_init(&b, 512);
	buf_putc(&b, '[');
	for (int i = 0; i < p->nrows; i++)
		buf_printf(&b, "%s%d", i ? "," : "", p->rows[i]);
	buf_putc(&b, ']');
	const char *s = arena_strndup(a, buf_str(&b), b.len);
	buf_done(&b);
	return s;
}

static enum code put_groups(struct store_tx *tx, struct arena *a, const char *run_id, struct run_problem **groups,
			    int n)
{
	struct stored_problem *s = arena_alloc(a, sizeof(*s) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const struct run_problem *p = groups[i];
		s[i] = (struct stored_problem){p->code, p->error, p->field, p->column, p->value, p->row_count,
					       rows_json(a, p), p->message, p->fix_type, p->fix_name};
	}
	return store_problems_put(tx, run_id, s, n);
}

/* docUrl is made when read, under the docs URL of that moment: "" here. */

enum code problems_store(struct store_tx *tx, struct arena *a, const char *run_id)
{
	struct run_problem **groups;
	int n = 0;
	enum code rc = results_problems_tx(tx, a, run_id, "", &groups, &n);
	return rc ? rc : put_groups(tx, a, run_id, groups, n);
}

enum code problems_store_tally(struct store_tx *tx, struct arena *a, const char *run_id, struct problem_tally *t)
{
	struct run_problem **groups;
	int n = results_tally_done(t, &groups);
	return put_groups(tx, a, run_id, groups, n);
}

enum code problems_store_rows(struct store_tx *tx, struct arena *a, const char *run_id, const struct colmap *map,
			      const struct row *rows, int nrows)
{
	struct run_problem **groups;
	int n = results_problems_rows(a, map, rows, nrows, "", &groups);
	return put_groups(tx, a, run_id, groups, n);
}

struct page {
	struct arena *a;
	const char *docs_url;
	struct run_problem **list;
	int n;
};

static void parse_rows(struct run_problem *p, const char *json)
{
	for (const char *s = json; *s && p->nrows < PROBLEM_ROWS_SHOWN;) {
		if (*s < '0' || *s > '9') {
			s++;
			continue;
		}
		char *end;
		p->rows[p->nrows++] = (int)strtol(s, &end, 10);
		s = end;
	}
}

static void on_stored(const struct stored_problem *x, void *ctx)
{
	struct page *pg = ctx;
	struct arena *a = pg->a;
	struct run_problem *p = arena_alloc(a, sizeof(*p));
	*p = (struct run_problem){
		.code = arena_strdup(a, x->code), .error = x->error, .field = arena_strdup(a, x->field),
		.column = arena_strdup(a, x->column), .value = arena_strdup(a, x->value), .row_count = x->row_count,
		.seq = pg->n, .message = arena_strdup(a, x->message),
		.doc_url = arena_printf(a, "%s/api/errors/%s", pg->docs_url, x->code),
		.fix_type = arena_strdup(a, x->fix_type), .fix_name = arena_strdup(a, x->fix_name),
	};
	parse_rows(p, x->row_indexes);
	pg->list[pg->n++] = p;
}

enum code problems_page(struct store *st, struct arena *a, const char *run_id, const char *docs_url, int after,
			int limit, struct run_problem ***ret, int *ret_n, int *ret_total)
{
	struct page pg = {a, docs_url, arena_alloc(a, sizeof(struct run_problem *) * (size_t)(limit + 1)), 0};
	enum code rc = store_problems_page(st, run_id, after, limit, on_stored, &pg, ret_total);
	if (rc || *ret_total >= 0) {
		*ret = pg.list;
		*ret_n = pg.n;
		return rc;
	}
	/* Ended before the groups were stored: computed, as they always were. */
	struct run_problem **all;
	int n = 0;
	if ((rc = results_problems(st, a, run_id, docs_url, &all, &n)))
		return rc;
	*ret_total = n;
	*ret = after < n ? all + after : all;
	*ret_n = after < n ? (n - after < limit ? n - after : limit) : 0;
	return CODE_OK;
}
