/* Unit tests for src/import/propose: column shape keys, the template test,
 * and the header proposals, measured on the header rows of the files named
 * in argv (proposals.txt, the development set, then the held-out sets);
 * the accuracy of each file and of all is printed, and all together must
 * reach 95%. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "import/propose.h"
#include "import/synonyms.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_COLS 128
#define MAX_HDR 512

static char **data_paths;
static int n_data_paths;

/* ---- helpers ---- */

static void key_of(const char *const *h, size_t n, char out[SHAPE_KEY_SIZE])
{
	size_t lens[MAX_COLS];
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(h[i]);
	shape_key(h, lens, n, out);
}

static bool is_template(const char *const *h, size_t n)
{
	size_t lens[MAX_COLS];
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(h[i]);
	return shape_is_template(h, lens, n);
}

static void propose(const char *const *h, size_t n, struct proposal *ret)
{
	size_t lens[MAX_COLS];
	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(h[i]);
	propose_mapping(h, lens, n, ret);
}

/* Invariants of every proposal: fields in range, confidence 0..100, a
 * conflict only on an ignored column, no field on two columns. */
static void check_invariants(const struct proposal *p, size_t n)
{
	bool used[FIELD__COUNT] = { false };
	for (size_t i = 0; i < n; i++) {
		assert_true(p[i].field <= FIELD_NONE);
		assert_in_range(p[i].confidence, 0, 100);
		if (p[i].conflict)
			assert_int_equal(p[i].field, FIELD_NONE);
		if (p[i].field == FIELD_NONE)
			continue;
		assert_false(used[p[i].field]);
		used[p[i].field] = true;
	}
}

/* ---- shape_key ---- */

static void test_shape_key_known_vectors(void **state)
{
	(void)state;
	char k[SHAPE_KEY_SIZE];
	shape_key(NULL, NULL, 0, k);
	assert_string_equal(k, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *h[] = { "jobCode", "Load #" };
	key_of(h, 2, k);
	/* sha256("jobcode\x1f" "load #") */
	assert_string_equal(k, "49339b9cb81da7c1c792a80a46f86cb9289bd3d33eb0f43c90d78b47fef97ca0");
}

static void assert_same_key(const char *const *a, size_t na, const char *const *b,
			    size_t nb)
{
	char ka[SHAPE_KEY_SIZE], kb[SHAPE_KEY_SIZE];
	key_of(a, na, ka);
	key_of(b, nb, kb);
	assert_string_equal(ka, kb);
}

static void assert_other_key(const char *const *a, size_t na,
			     const char *const *b, size_t nb)
{
	char ka[SHAPE_KEY_SIZE], kb[SHAPE_KEY_SIZE];
	key_of(a, na, ka);
	key_of(b, nb, kb);
	assert_string_not_equal(ka, kb);
}

static void test_shape_key_ignores_case_and_surrounding_space(void **state)
{
	(void)state;
	const char *a[] = { "Load #", "Ship From City", "STRASSE" };
	const char *b[] = { "  load #\t", "\u00A0SHIP FROM CITY\u3000", "straße\r\n" };
	const char *c[] = { "\u3000\u2003Load #\u00A0\u00A0", "ship from city\uFEFF",
			    "Strasse" };
	assert_same_key(a, 3, b, 3);
	assert_same_key(a, 3, c, 3);
}

static void test_shape_key_keeps_inner_text_and_order(void **state)
{
	(void)state;
	const char *a[] = { "Load #", "Job #" };
	const char *swapped[] = { "Job #", "Load #" };
	const char *inner[] = { "Load  #", "Job #" };
	const char *nbsp_inside[] = { "Load\u00A0#", "Job #" };
	assert_other_key(a, 2, swapped, 2);
	assert_other_key(a, 2, inner, 2);
	assert_other_key(a, 2, nbsp_inside, 2);
}

static void test_shape_key_counts_columns(void **state)
{
	(void)state;
	const char *two[] = { "a", "b" };
	const char *glued[] = { "a\x1f" "b" };
	const char *blank_between[] = { "a", "", "b" };
	const char *blank_after[] = { "a", "b", " " };
	assert_other_key(two, 2, glued, 1);
	assert_other_key(two, 2, blank_between, 3);
	assert_other_key(two, 2, blank_after, 3);
}

static void test_shape_key_hostile(void **state)
{
	(void)state;
	char k[SHAPE_KEY_SIZE];
	const char bad[] = { 'L', (char)0xff, 'o', 0, 'a', (char)0xc3 };
	const char *h[] = { bad, NULL };
	size_t lens[] = { sizeof bad, 0 };
	shape_key(h, lens, 2, k);
	assert_int_equal(strlen(k), 64);
	assert_int_equal(strspn(k, "0123456789abcdef"), 64);
	/* Bad bytes must not make different headers equal to a clean one. */
	const char *clean[] = { "Lo", "" };
	char kc[SHAPE_KEY_SIZE];
	key_of(clean, 2, kc);
	assert_string_not_equal(k, kc);
	char *big = malloc(10240);
	memset(big, 'A', 10240);
	const char *hb[] = { big };
	size_t lb[] = { 10240 };
	shape_key(hb, lb, 1, k);
	assert_int_equal(strlen(k), 64);
	free(big);
}

/* ---- shape_is_template ---- */

static void test_template(void **state)
{
	(void)state;
	const char *exact[] = { "jobCode", "loadNo", "loadDate", "pickupZip" };
	const char *loose[] = { " JOBCODE ", "\u00A0loadno", "", "LoadDate\t" };
	const char *twice[] = { "jobCode", "loadNo", "JobCode" };
	const char *other[] = { "jobCode", "loadNo", "Load Date" };
	const char *spaced[] = { "job code" };
	const char *blank[] = { "", "  " };
	assert_true(is_template(exact, N(exact)));
	assert_true(is_template(loose, N(loose)));
	assert_false(is_template(twice, N(twice)));
	assert_false(is_template(other, N(other)));
	assert_false(is_template(spaced, N(spaced)));
	assert_false(is_template(blank, N(blank)));
	assert_false(shape_is_template(NULL, NULL, 0));
}

/* ---- conflicts ---- */

static void test_conflict_best_column_wins(void **state)
{
	(void)state;
	struct proposal p[4];
	const char *h[] = { "Amount", "Load Number", "Rate", "Load #" };
	propose(h, 4, p);
	check_invariants(p, 4);
	assert_int_equal(p[0].field, FIELD_NONE);
	assert_true(p[0].conflict);
	assert_int_equal(p[2].field, FIELD_RATE);
	assert_false(p[2].conflict);
	/* Equal scores: the earlier column wins. */
	assert_int_equal(p[1].field, FIELD_LOAD_NO);
	assert_int_equal(p[3].field, FIELD_NONE);
	assert_true(p[3].conflict);
	assert_int_equal(p[3].confidence, 0);
}

static void test_known_ignore_is_no_conflict(void **state)
{
	(void)state;
	struct proposal p[3];
	const char *h[] = { "Driver", "Truck #", "" };
	propose(h, 3, p);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(p[i].field, FIELD_NONE);
		assert_false(p[i].conflict);
	}
	assert_true(p[0].confidence >= 90);
	assert_int_equal(p[2].confidence, 0);
}

static void test_wire_name_is_certain(void **state)
{
	(void)state;
	for (int f = 0; f < FIELD__COUNT; f++) {
		struct proposal p;
		const char *h[] = { field_name((enum field)f) };
		propose(h, 1, &p);
		assert_int_equal(p.field, f);
		assert_int_equal(p.confidence, 100);
	}
}

/* Every synonym, alone as a header, proposes its field: a table entry that
 * is not in canonical form, or that another rule shadows, fails here. */
static void test_every_synonym_reaches_its_field(void **state)
{
	(void)state;
	int bad = 0;
	for (size_t i = 0; i < syn_table_len; i++) {
		struct proposal p, pn[2];
		const char *h[] = { syn_table[i].phrase };
		propose(h, 1, &p);
		if (syn_table[i].field == FIELD_NONE) {
			/* With a load number beside it: alone, "id" is the
			 * record's key and so the load number (guess_required). */
			const char *hn[] = { "loadNo", syn_table[i].phrase };
			propose(hn, 2, pn);
			p = pn[1];
		}
		if (p.field != syn_table[i].field && p.field != FIELD_NONE && syn_table[i].field != FIELD_NONE) {
			/* A next choice ("project" is projectName when a column
			 * took jobCode): with that field taken first, it is. */
			struct proposal p2[2];
			const char *h2[] = { field_name(p.field), syn_table[i].phrase };
			propose(h2, 2, p2);
			p = p2[1];
		}
		if (p.field != syn_table[i].field) {
			print_message("synonym \"%s\" gives %s, not %s\n", h[0],
				      p.field == FIELD_NONE ? "-" : field_name(p.field),
				      syn_table[i].field == FIELD_NONE ? "-" :
					field_name(syn_table[i].field));
			bad++;
		}
	}
	size_t n;
	assert_non_null(syn_fuzzy_targets(&n));
	assert_in_range(n, 100, 2000);
	assert_int_equal(bad, 0);
}

/* Bare address columns take the group of the address column to their
 * left, nothing after a customer column (a billing address), else the
 * pickup (docs/column-mapping.md "Decisions"). */
static void test_bare_address_context(void **state)
{
	(void)state;
	struct proposal p[6];
	const char *after_groups[] = { "Ship From Name", "Address", "City",
				       "Ship To Name", "Address", "City" };
	propose(after_groups, 6, p);
	assert_int_equal(p[1].field, FIELD_PICKUP_STREET);
	assert_int_equal(p[2].field, FIELD_PICKUP_CITY);
	assert_int_equal(p[4].field, FIELD_DROPOFF_STREET);
	assert_int_equal(p[5].field, FIELD_DROPOFF_CITY);
	const char *after_customer[] = { "customer", "Address", "City" };
	propose(after_customer, 3, p);
	assert_int_equal(p[0].field, FIELD_CUSTOMER);
	assert_int_equal(p[1].field, FIELD_NONE);
	assert_int_equal(p[2].field, FIELD_NONE);
	assert_false(p[1].conflict);
	const char *alone[] = { "Address", "Zip" };
	propose(alone, 2, p);
	assert_int_equal(p[0].field, FIELD_PICKUP_STREET);
	assert_int_equal(p[1].field, FIELD_PICKUP_ZIP);
}

/* Issue 22 item 5: a column that loses its best field takes its next
 * one; the misses of real exports (load ids of other modes, pickup
 * windows, "load" inside a longer word, material words, id columns,
 * one-letter origin/destination prefixes). */
static void expect_alone(const char *h, enum field want)
{
	struct proposal p;
	const char *hs[] = { h };
	propose(hs, 1, &p);
	if (p.field != want)
		fail_msg("\"%s\" gives %s, want %s", h, p.field == FIELD_NONE ? "-" : field_name(p.field),
			 want == FIELD_NONE ? "-" : field_name(want));
}

static void test_issue22_headers(void **state)
{
	(void)state;
	struct proposal p[6];
	const char *job_first[] = { "Job Number", "Project" };
	propose(job_first, 2, p);
	assert_int_equal(p[0].field, FIELD_JOB_CODE);
	assert_int_equal(p[1].field, FIELD_PROJECT_NAME);
	assert_false(p[1].conflict);
	const char *project_first[] = { "Project", "Job Number", "Project Name" };
	propose(project_first, 3, p);
	assert_int_equal(p[1].field, FIELD_JOB_CODE);
	assert_int_equal(p[2].field, FIELD_PROJECT_NAME);
	assert_int_equal(p[0].field, FIELD_NONE);   /* both its fields taken */
	assert_true(p[0].conflict);
	const char *od[] = { "O City", "O St", "D City", "D St", "O Zip", "D Zip" };
	propose(od, 6, p);
	const enum field od_want[] = { FIELD_PICKUP_CITY, FIELD_PICKUP_STATE, FIELD_DROPOFF_CITY,
				       FIELD_DROPOFF_STATE, FIELD_PICKUP_ZIP, FIELD_DROPOFF_ZIP };
	for (int i = 0; i < 6; i++)
		assert_int_equal(p[i].field, od_want[i]);
	static const struct { const char *h; enum field f; } alone[] = {
		{ "Tracking Number", FIELD_LOAD_NO }, { "HAWB", FIELD_LOAD_NO }, { "House Bill #", FIELD_LOAD_NO },
		{ "Trip Slip #", FIELD_LOAD_NO }, { "Pickup Ticket", FIELD_LOAD_NO }, { "Waybill No", FIELD_LOAD_NO },
		{ "Pickup Earliest", FIELD_LOAD_DATE }, { "pickup_datetime", FIELD_LOAD_DATE },
		{ "PNET", FIELD_LOAD_DATE }, { "Pickup Latest", FIELD_NONE }, { "loaded_miles", FIELD_NONE },
		{ "Loaded Miles", FIELD_NONE }, { "load_type", FIELD_NONE }, { "LoadContent", FIELD_MATERIAL },
		{ "Description of Contents", FIELD_MATERIAL }, { "cityID", FIELD_NONE },
		{ "Customer ID", FIELD_NONE }, { "LoadDestination", FIELD_DROPOFF_NAME },
		{ "Load ID", FIELD_LOAD_NO }, { "Loaded", FIELD_LOAD_DATE }, { "O", FIELD_NONE },
	};
	for (size_t i = 0; i < N(alone); i++)
		expect_alone(alone[i].h, alone[i].f);
}

/* ---- hostile headers ---- */

/* Round two of issue 26 (tune_b.txt): general readings, one header each,
 * and a row where they meet. */
static void test_round_two_headers(void **state)
{
	(void)state;
	struct proposal p[8];
	static const struct { const char *h; enum field f; } alone[] = {
		{ "Pickup Contact Name", FIELD_NONE }, { "senderFirstName", FIELD_NONE },
		{ "Delivery Phone", FIELD_NONE }, { "profit_inr", FIELD_NONE },
		{ "Declared Value ($)", FIELD_NONE }, { "VAT Amount", FIELD_NONE },
		{ "freight_revenue_inr", FIELD_RATE }, { "cargo_type", FIELD_MATERIAL },
		{ "Goods Category", FIELD_MATERIAL }, { "actual_departure", FIELD_LOAD_DATE },
		{ "Dispatched", FIELD_LOAD_DATE }, { "scheduled_departure", FIELD_NONE },
		{ "Hauled From", FIELD_PICKUP_NAME }, { "shipment_to", FIELD_DROPOFF_NAME },
		{ "Origin Port", FIELD_PICKUP_NAME }, { "Destination Station", FIELD_DROPOFF_NAME },
		{ "sender.postCode", FIELD_PICKUP_ZIP }, { "shipment_status", FIELD_NONE },
		{ "Load Status", FIELD_NONE }, { "assignedDispatcherName", FIELD_PROJECT_MANAGER },
		{ "Load Type", FIELD_NONE }, { "Freight Class", FIELD_NONE },
	};
	for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
		propose(&alone[i].h, 1, p);
		if (p[0].field != alone[i].f)
			print_message("%s: %s\n", alone[i].h, p[0].field == FIELD_NONE ? "-" : field_name(p[0].field));
		assert_int_equal(p[0].field, alone[i].f);
	}
	const char *row[] = { "shipment_id", "origin_port", "destination_port", "cargo_type",
			      "scheduled_departure", "actual_departure", "cost_usd", "profit_usd" };
	propose(row, 8, p);
	check_invariants(p, 8);
	const enum field want[] = { FIELD_LOAD_NO, FIELD_PICKUP_NAME, FIELD_DROPOFF_NAME, FIELD_MATERIAL,
				    FIELD_NONE, FIELD_LOAD_DATE, FIELD_RATE, FIELD_NONE };
	for (int i = 0; i < 8; i++)
		assert_int_equal(p[i].field, want[i]);
}

static void test_hostile_headers(void **state)
{
	(void)state;
	struct proposal p[100];
	char *big = malloc(10240);
	memset(big, 'x', 10240);
	memcpy(big, "Load # ", 7);
	/* Not NUL-terminated: the proposer must go by the length alone. */
	const char *h1[] = { big, "Job #" };
	size_t l1[] = { 10240, 5 };
	propose_mapping(h1, l1, 2, p);
	check_invariants(p, 2);
	assert_int_equal(p[1].field, FIELD_JOB_CODE);
	free(big);

	const char *h100[100];
	for (int i = 0; i < 100; i++)
		h100[i] = "Load #";
	propose(h100, 100, p);
	check_invariants(p, 100);
	assert_int_equal(p[0].field, FIELD_LOAD_NO);
	for (int i = 1; i < 100; i++)
		assert_true(p[i].conflict);

	propose_mapping(NULL, NULL, 0, p);
	const char *hn[] = { NULL };
	size_t ln[] = { 0 };
	propose_mapping(hn, ln, 1, p);
	assert_int_equal(p[0].field, FIELD_NONE);
}

/* Random bytes, random lengths: nothing crashes and the invariants hold
 * (ASan and UBSan builds watch the reads). */
static void test_random_bytes(void **state)
{
	(void)state;
	srand(6);
	char buf[40][64];
	const char *h[40];
	size_t lens[40];
	struct proposal p[40];
	for (int round = 0; round < 300; round++) {
		for (int i = 0; i < 40; i++) {
			lens[i] = (size_t)(rand() % 64);
			for (size_t j = 0; j < lens[i]; j++)
				buf[i][j] = (char)(rand() % 4 ? 'a' + rand() % 26 : rand() % 256);
			h[i] = buf[i];
		}
		propose_mapping(h, lens, 40, p);
		check_invariants(p, 40);
		char k[SHAPE_KEY_SIZE];
		shape_key(h, lens, 40, k);
		assert_int_equal(strlen(k), 64);
	}
}

/* ---- the test set ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes a quoted header with \" \\ \t \xHH \uHHHH; returns the length
 * written to out, or -1 on a malformed line.  *ret_end is past the quote. */
static long unquote(const char *s, char *out, const char **ret_end)
{
	long o = 0;
	if (*s++ != '"')
		return -1;
	while (*s && *s != '"' && o < MAX_HDR - 8) {
		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		s++;
		if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			out[o++] = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 3;
		} else if (*s == 'u') {
			int32_t cp = 0;
			for (int i = 1; i <= 4; i++)
				cp = cp * 16 + hexval(s[i]);
			o += utf8proc_encode_char(cp, (utf8proc_uint8_t *)out + o);
			s += 5;
		} else {
			out[o++] = *s == 't' ? '\t' : *s;
			s++;
		}
	}
	if (*s != '"')
		return -1;
	*ret_end = s + 1;
	return o;
}

struct row {
	char title[160];
	char hdr[MAX_COLS][MAX_HDR];
	size_t len[MAX_COLS];
	enum field want[MAX_COLS];
	size_t n;
};

static enum field expected_field(const char *s)
{
	while (*s == ' ' || *s == '=')
		s++;
	size_t len = strcspn(s, " \r\n");
	if (len == 1 && *s == '-')
		return FIELD_NONE;
	enum field f = field_from_name_n(s, len);
	if (f == FIELD_NONE)
		fail_msg("unknown field in test set: %.*s", (int)len, s);
	return f;
}

struct tally {
	size_t right, total, rows;
	size_t no_edit;   /* rows whose every required field is on the right column */
};

/* A file imports with no edit on the review screen when every required
 * field (jobCode, loadNo, loadDate) lands on the column a person would
 * pick, or stays unmapped when the file has none. */
static bool required_right(const struct row *r, const struct proposal *p)
{
	for (int f = 0; f < FIELD__COUNT; f++) {
		if (!field_required((enum field)f))
			continue;
		for (size_t i = 0; i < r->n; i++)
			if ((p[i].field == (enum field)f) != (r->want[i] == (enum field)f))
				return false;
	}
	return true;
}

/* Proposes one row and counts it; prints each wrong column. */
static void score_row(const struct row *r, struct tally *t)
{
	const char *h[MAX_COLS];
	struct proposal p[MAX_COLS];
	for (size_t i = 0; i < r->n; i++)
		h[i] = r->hdr[i];
	propose_mapping(h, r->len, r->n, p);
	check_invariants(p, r->n);
	for (size_t i = 0; i < r->n; i++) {
		t->total++;
		if (p[i].field == r->want[i]) {
			t->right++;
			continue;
		}
		print_message("  [%s] \"%.*s\": got %s%s (%d), want %s\n", r->title,
			      (int)r->len[i], r->hdr[i],
			      p[i].field == FIELD_NONE ? "-" : field_name(p[i].field),
			      p[i].conflict ? " (conflict)" : "", p[i].confidence,
			      r->want[i] == FIELD_NONE ? "-" : field_name(r->want[i]));
	}
	if (required_right(r, p))
		t->no_edit++;
	else
		print_message("  [%s] needs an edit: a required field is unmapped or on the wrong column\n", r->title);
	t->rows++;
}

static void read_line(struct row *r, struct tally *t, const char *line)
{
	if (line[0] == '>') {
		if (r->n)
			score_row(r, t);
		r->n = 0;
		snprintf(r->title, sizeof r->title, "%.*s",
			 (int)strcspn(line + 1, "\r\n") - 1, line + 2);
		return;
	}
	if (line[0] != '"')
		return;
	assert_true(r->n < MAX_COLS);
	const char *end = line;
	long len = unquote(line, r->hdr[r->n], &end);
	if (len < 0)
		fail_msg("malformed test set line: %s", line);
	r->len[r->n] = (size_t)len;
	r->want[r->n] = expected_field(end);
	r->n++;
}

static void print_tally(const char *what, const struct tally *t)
{
	print_message("proposal accuracy, %s: %zu/%zu columns right (%.1f%%) over %zu header rows; "
		      "%zu/%zu files with no edit\n",
		      what, t->right, t->total,
		      100.0 * (double)t->right / (double)(t->total ? t->total : 1),
		      t->rows, t->no_edit, t->rows);
}

static void score_file(const char *path, struct tally *t)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		fail_msg("cannot open %s", path);
	static struct row r;
	char line[2048];
	r.n = 0;
	while (fgets(line, sizeof line, fp))
		read_line(&r, t, line);
	if (r.n)
		score_row(&r, t);
	fclose(fp);
}

static void test_proposal_accuracy(void **state)
{
	(void)state;
	struct tally all = { 0, 0, 0, 0 };
	assert_true(n_data_paths > 0);
	for (int i = 0; i < n_data_paths; i++) {
		struct tally t = { 0, 0, 0, 0 };
		score_file(data_paths[i], &t);
		const char *base = strrchr(data_paths[i], '/');
		print_tally(base ? base + 1 : data_paths[i], &t);
		all.right += t.right;
		all.total += t.total;
		all.rows += t.rows;
		all.no_edit += t.no_edit;
	}
	print_tally("all sets", &all);
	assert_true(all.rows >= 40);
	assert_true(all.right * 100 >= all.total * 95);
}

int main(int argc, char **argv)
{
	static char *fallback[] = { "tests/unit/import/proposals.txt" };
	data_paths = argc > 1 ? argv + 1 : fallback;
	n_data_paths = argc > 1 ? argc - 1 : 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_key_known_vectors),
		cmocka_unit_test(test_shape_key_ignores_case_and_surrounding_space),
		cmocka_unit_test(test_shape_key_keeps_inner_text_and_order),
		cmocka_unit_test(test_shape_key_counts_columns),
		cmocka_unit_test(test_shape_key_hostile),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_conflict_best_column_wins),
		cmocka_unit_test(test_known_ignore_is_no_conflict),
		cmocka_unit_test(test_wire_name_is_certain),
		cmocka_unit_test(test_every_synonym_reaches_its_field),
		cmocka_unit_test(test_bare_address_context),
		cmocka_unit_test(test_issue22_headers),
		cmocka_unit_test(test_round_two_headers),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_proposal_accuracy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
