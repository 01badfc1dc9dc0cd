/* Unit test of the grouped problems' row counts (src/import/results.c,
 * issue 27 item 8), reached by including the file (h2o's t/00unit): a
 * problem repeated within one row counts that row once, also past the
 * PROBLEM_ROWS_SHOWN rows whose indexes are kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../src/import/results.c"

#define DIAG "[\"LOOKUP_MISS\",\"customer\",-1,0,\"Cascade\"]"

static void test_a_repeat_in_one_row_counts_it_once_past_the_rows_shown(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	struct groups g = {.a = a, .docs_url = "https://x/docs", .by_key = strmap_new(a)};
	const int rows = PROBLEM_ROWS_SHOWN + 5;
	for (int r = 2; r < 2 + rows; r++) {
		/* Every row has the problem; rows 3 and the last have it twice. */
		bool twice = r == 3 || r == 1 + rows;
		on_problem_row(r, false, twice ? "[null,[],[" DIAG "," DIAG "]]" : "[null,[],[" DIAG "]]", &g);
	}
	assert_int_equal(g.n, 1);
	assert_int_equal(g.list[0]->row_count, rows);
	assert_int_equal(g.list[0]->nrows, PROBLEM_ROWS_SHOWN);
	for (int i = 0; i < PROBLEM_ROWS_SHOWN; i++)
		assert_int_equal(g.list[0]->rows[i], 2 + i);
	arena_free(a);
}

/* Issue 29: a run tallies every row's problems in one arena as its batches
 * commit; a row whose problem is already grouped must not grow it (a key
 * kept per row cost ~67 bytes a row, +67 MB at a million rows). */
static void test_tallying_known_problems_keeps_the_arena_flat(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	struct groups g = {.a = a, .docs_url = "https://x/docs", .by_key = strmap_new(a)};
	for (int r = 2; r < 2 + PROBLEM_ROWS_SHOWN; r++)
		on_problem_row(r, false, "[null,[],[" DIAG "]]", &g);
	size_t after_first = arena_reserved(a);
	for (int r = 2 + PROBLEM_ROWS_SHOWN; r < 100000; r++)
		on_problem_row(r, false, "[null,[],[" DIAG "]]", &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.list[0]->row_count, 100000 - 2);
	assert_int_equal(arena_reserved(a), after_first);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_repeat_in_one_row_counts_it_once_past_the_rows_shown),
		cmocka_unit_test(test_tallying_known_problems_keeps_the_arena_flat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
