/* Unit tests of the scoring model's parts: value profiles (value_profile.c),
 * the global assignment (assign.c), and the proposals they make together
 * (propose.c): values deciding, required fields guessed, the timestamp
 * rule, learned headers, and hostile cells. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "import/assign.h"
#include "import/propose.h"
#include "import/value_profile.h"

#define MAXR 8
#define MAXC 8

/* A grid of rows x cols cells given row by row. */
struct grid {
	struct sheet_row rows[MAXR];
	const struct sheet_row *rp[MAXR];
	const char *cells[MAXR][MAXC];
	size_t lens[MAXR][MAXC];
	size_t n;
};

static void grid_init(struct grid *g, size_t nrows, size_t ncols, const char *const *v)
{
	g->n = nrows;
	for (size_t r = 0; r < nrows; r++) {
		for (size_t c = 0; c < ncols; c++) {
			g->cells[r][c] = v[r * ncols + c];
			g->lens[r][c] = strlen(v[r * ncols + c]);
		}
		g->rows[r] = (struct sheet_row){ .number = (unsigned)r + 2, .ncells = ncols, .cells = g->cells[r],
						 .lens = g->lens[r] };
		g->rp[r] = &g->rows[r];
	}
}

static void profile_of(const char *const *v, size_t n, struct value_profile *p)
{
	struct grid g;
	grid_init(&g, n, 1, v);
	vp_read(g.rp, g.n, 0, p);
}

static void test_profile_kinds(void **state)
{
	(void)state;
	struct value_profile p;
	const char *dates[] = { "2026-11-01", "11/2/2026", "2026-11-03T08:00:00Z", "" };
	profile_of(dates, 4, &p);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.dates, 3);
	assert_true(vp_fit(&p, FIELD_LOAD_DATE) >= 60);
	assert_int_equal(vp_fit(&p, FIELD_WEIGHT), -100);
	assert_string_equal(vp_describe(&p), "dates");
	const char *codes[] = { "L-1001", "L-1002", "L-1003", "L-1004" };
	profile_of(codes, 4, &p);
	assert_string_equal(vp_describe(&p), "unique codes");
	assert_true(vp_fit(&p, FIELD_LOAD_NO) >= 60);
	assert_true(vp_fit(&p, FIELD_JOB_CODE) < 60);
	const char *counter[] = { "1", "2", "3", "4" };
	profile_of(counter, 4, &p);
	assert_true(p.counter);
	assert_true(vp_fit(&p, FIELD_LOAD_NO) < 60);
	const char *tons[] = { "24.5 tons", "22 t", "19.75 tons" };
	profile_of(tons, 3, &p);
	assert_int_equal(vp_fit(&p, FIELD_WEIGHT), 90);
	const char *money[] = { "$1,200.00", "$950", "USD 12" };
	profile_of(money, 3, &p);
	assert_true(vp_fit(&p, FIELD_RATE) >= 80 || p.money >= 2);
	const char *states[] = { "TX", "ca", "New York" };
	profile_of(states, 3, &p);
	assert_true(vp_fit(&p, FIELD_PICKUP_STATE) >= 60);
	assert_true(vp_fit(&p, FIELD_PICKUP_CITY) < 0);
	const char *zips[] = { "75201", "02134", "10001-1234" };
	profile_of(zips, 3, &p);
	assert_true(vp_fit(&p, FIELD_DROPOFF_ZIP) >= 60);
	assert_true(vp_fit(&p, FIELD_LOAD_NO) < 60);
	const char *kinds[] = { "Dry Van", "Refrigerated", "Flatbed", "End Dump" };
	profile_of(kinds, 4, &p);
	assert_int_equal(vp_fit(&p, FIELD_TRUCK_TYPE), 90);
	const char *two[] = { "a", "b" };
	profile_of(two, 2, &p);
	assert_int_equal(vp_fit(&p, FIELD_LOAD_DATE), 0); /* too few to say anything */
	assert_string_equal(vp_describe(&p), "");
}

static void test_profile_hostile_cells(void **state)
{
	(void)state;
	struct value_profile p;
	char big[5000];
	memset(big, '9', sizeof big);
	const char bad[] = { 'L', (char)0xff, 0, '1', (char)0xc3 };
	struct grid g;
	const char *v[] = { "x", "y", "z" };
	grid_init(&g, 3, 1, v);
	g.cells[0][0] = big, g.lens[0][0] = sizeof big;    /* not NUL-terminated */
	g.cells[1][0] = bad, g.lens[1][0] = sizeof bad;
	g.cells[2][0] = NULL, g.lens[2][0] = 0;
	vp_read(g.rp, g.n, 0, &p);
	assert_in_range(p.n, 0, 3);
	vp_read(g.rp, g.n, 7, &p);  /* past the row's cells: blank */
	assert_int_equal(p.n, 0);
	vp_read(NULL, 0, 0, &p);
	assert_int_equal(p.n, 0);
}

static void test_assign_best_first_and_next_best(void **state)
{
	(void)state;
	/* col 0 wants customer (90) then projectName (70); col 1 customer (95). */
	struct assign_cand c[] = {
		{ 0, FIELD_CUSTOMER, 90 }, { 0, FIELD_PROJECT_NAME, 70 }, { 1, FIELD_CUSTOMER, 95 },
		{ 2, FIELD_NONE, 95 }, { 2, FIELD_NOTES, 50 }, { 3, FIELD_CUSTOMER, 60 },
	};
	long pick[4];
	bool lost[4];
	assign_fields(c, 6, 4, pick, lost);
	assert_int_equal(pick[1], 2);
	assert_int_equal(pick[0], 1);          /* next best */
	assert_false(lost[0]);
	assert_int_equal(pick[2], 3);          /* known irrelevant: ignored, never a weaker field */
	assert_int_equal(pick[3], -1);
	assert_true(lost[3]);
	/* Ties: a required field first, then the earlier column. */
	struct assign_cand t[] = { { 0, FIELD_NOTES, 80 }, { 0, FIELD_LOAD_NO, 80 }, { 1, FIELD_LOAD_NO, 80 } };
	assign_fields(t, 3, 2, pick, lost);
	assert_int_equal(pick[0], 1);
	assert_int_equal(pick[1], -1);
	assign_fields(NULL, 0, 0, pick, lost);
	struct assign_cand out[] = { { 9, FIELD_NOTES, 80 }, { 0, (enum field)(FIELD_NONE + 3), 99 } };
	assign_fields(out, 2, 1, pick, lost);  /* out of range: skipped */
	assert_int_equal(pick[0], -1);
}

static void propose_grid(const char *const *h, size_t ncols, const char *const *v, size_t nrows,
			 const struct propose_learned *l, size_t nl, struct proposal *ret)
{
	size_t lens[MAXC];
	struct grid g;
	for (size_t i = 0; i < ncols; i++)
		lens[i] = strlen(h[i]);
	grid_init(&g, nrows, ncols, v);
	struct propose_input in = { g.rp, g.n, l, nl };
	propose_mapping_with(h, lens, ncols, &in, ret);
}

static void test_values_decide_and_guess(void **state)
{
	(void)state;
	struct proposal p[4];
	const char *h[] = { "Job #", "Frachtbrief", "Ship Date", "Gewicht" };
	const char *v[] = { "J1", "FB-1", "2026-11-01", "24.5 tons", "J1", "FB-2", "2026-11-02", "22 tons",
			    "J1", "FB-3", "2026-11-03", "19 t" };
	propose_grid(h, 4, v, 3, NULL, 0, p);
	assert_int_equal(p[1].field, FIELD_LOAD_NO);
	assert_int_equal(p[1].reason, REASON_GUESSED);
	assert_string_equal(p[1].values, "unique codes");
	assert_int_equal(p[3].field, FIELD_WEIGHT);
	assert_int_equal(p[3].reason, REASON_VALUES);
	assert_int_equal(p[0].reason, REASON_SYNONYM);
	/* Values that cannot be the header's field: ignored, and said so. */
	const char *h2[] = { "Load #", "Date" };
	const char *v2[] = { "L1", "pending", "L2", "done", "L3", "open" };
	propose_grid(h2, 2, v2, 3, NULL, 0, p);
	assert_int_equal(p[1].field, FIELD_NONE);
	assert_int_equal(p[1].reason, REASON_MISFIT);
	assert_int_equal(p[1].other, FIELD_LOAD_DATE);
}

static void test_timestamp_rule(void **state)
{
	(void)state;
	struct proposal p[3];
	const char *h[] = { "Load #", "Date Created", "Delivery Date" };
	const char *v[] = { "L1", "2026-10-01 10:00", "2026-11-01", "L2", "2026-10-01 11:00", "2026-11-02",
			    "L3", "2026-10-02 09:00", "2026-11-03" };
	propose_grid(h, 3, v, 3, NULL, 0, p);
	assert_int_equal(p[2].field, FIELD_LOAD_DATE);
	assert_int_equal(p[1].field, FIELD_NONE);
	assert_int_equal(p[1].reason, REASON_TIMESTAMP);
	/* Alone, a creation time is still a date: guessed rather than nothing. */
	const char *h1[] = { "Load #", "Date Created" };
	const char *v1[] = { "L1", "2026-10-01 10:00", "L2", "2026-10-01 11:00", "L3", "2026-10-02 09:00" };
	propose_grid(h1, 2, v1, 3, NULL, 0, p);
	assert_int_equal(p[1].field, FIELD_LOAD_DATE);
}

static void test_learned_headers(void **state)
{
	(void)state;
	struct proposal p[3];
	struct arena *a = arena_new();
	struct propose_learned l[] = { { propose_header_key(a, " HAUL CODE ", 11), FIELD_JOB_CODE },
				       { propose_header_key(a, "Remarks", 7), FIELD_NONE } };
	const char *h[] = { "Haul Code", "Remarks", "Load #" };
	const char *v[] = { "H1", "x", "L1" };
	propose_grid(h, 3, v, 1, l, 2, p);
	assert_int_equal(p[0].field, FIELD_JOB_CODE);
	assert_int_equal(p[0].reason, REASON_LEARNED);
	assert_int_equal(p[1].field, FIELD_NONE);
	assert_int_equal(p[1].reason, REASON_LEARNED);
	assert_int_equal(p[2].field, FIELD_LOAD_NO);
	assert_string_equal(propose_header_key(a, "\xff", 1), "\xef\xbf\xbd");
	assert_true(strlen(propose_reason_text(REASON_GUESSED)) > 0);
	assert_string_equal(propose_reason_text(REASON__COUNT), "");
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_kinds),
		cmocka_unit_test(test_profile_hostile_cells),
		cmocka_unit_test(test_assign_best_first_and_next_best),
		cmocka_unit_test(test_values_decide_and_guess),
		cmocka_unit_test(test_timestamp_rule),
		cmocka_unit_test(test_learned_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
