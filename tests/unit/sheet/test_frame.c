/* Unit tests for reading a file as a person reads it (PRODUCT §14): the
 * header row below title rows, group rows, summary rows at the end,
 * sheet_samples, UTF-16, number formats' affixes, header units and
 * European numbers.  A small judge stands in for the mapping rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "import/rows.h"
#include "sheet/sheet.h"
#include "sheet/sheet_int.h"

/* Header words and their roles: enough of the mapping rules for tests. */
static const struct {
	const char *word;
	unsigned char roles;
} words[] = {
	{"job", SHEET_COL_FIELD | SHEET_COL_KEY},   {"load", SHEET_COL_FIELD | SHEET_COL_KEY},
	{"date", SHEET_COL_FIELD | SHEET_COL_DATE}, {"weight", SHEET_COL_FIELD | SHEET_COL_NUMERIC},
	{"rate", SHEET_COL_FIELD | SHEET_COL_NUMERIC}, {"material", SHEET_COL_FIELD},
	{"name", SHEET_COL_FIELD | SHEET_COL_PART}, {"city", SHEET_COL_FIELD | SHEET_COL_PART},
	{"state", SHEET_COL_FIELD | SHEET_COL_PART}, {"pickup", SHEET_COL_FIELD},
	/* As the proposal reads them: address fields are parts of a group. */
	{"pickup name", SHEET_COL_FIELD | SHEET_COL_PART}, {"pickup city", SHEET_COL_FIELD | SHEET_COL_PART},
	{"pickup state", SHEET_COL_FIELD | SHEET_COL_PART}, {"drop name", SHEET_COL_FIELD | SHEET_COL_PART},
	{"drop city", SHEET_COL_FIELD | SHEET_COL_PART}, {"drop state", SHEET_COL_FIELD | SHEET_COL_PART},
	{"drop", SHEET_COL_FIELD},
};

static const char *known_header;   /* a "confirmed shape": its first cell */

static bool judge(void *arg, const struct sheet_row *row, unsigned char *roles)
{
	(void)arg;
	for (size_t j = 0; j < row->ncells; j++)
		for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
			if (!strcasecmp(row->cells[j], words[k].word))
				roles[j] = words[k].roles;
	return known_header && row->ncells && !strcmp(row->cells[0], known_header);
}

static const struct sheet_judge the_judge = {judge, NULL};

/* "N:cell|cell" per row, header first; then "sum:N,N" and "!CODE". */
static char *render_opts(const char *text, const struct sheet_options *o)
{
	struct buf b;
	buf_init(&b, 1 << 20);
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	struct sheet *s = NULL;
	const char *msg = NULL;
	enum code rc = sheet_open_opts(text, strlen(text), &lim, o, &s, &msg, NULL);
	const struct sheet_row *row = rc ? NULL : sheet_header(s);
	while (row) {
		buf_printf(&b, "%u:", row->number);
		for (size_t i = 0; i < row->ncells; i++)
			buf_printf(&b, "%s%s", i ? "|" : "", row->cells[i]);
		buf_putc(&b, '\n');
		if ((rc = sheet_next_row(s, &row)))
			row = NULL;
	}
	const unsigned *sum;
	size_t n = s ? sheet_summary_rows(s, &sum) : 0;
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%u", i ? "," : "sum:", sum[i]);
	if (rc)
		buf_printf(&b, "!%s", code_name(rc));
	sheet_free(s);
	return buf_steal(&b, NULL);
}

static char *render(const char *text)
{
	struct sheet_options o = {.judge = &the_judge};
	return render_opts(text, &o);
}

#define assert_frame(text, expected) do { \
		char *got_ = render(text); \
		assert_string_equal(got_, (expected)); \
		free(got_); \
	} while (0)

static void test_title_rows(void **state)
{
	(void)state;
	/* A title, a date line and a blank row above the header. */
	assert_frame("Weekly report\nPrinted,2026-11-20\n\nJob,Load,Date\nJ1,L1,2026-11-01\nJ1,L2,2026-11-02\n",
		     "4:Job|Load|Date\n5:J1|L1|2026-11-01\n6:J1|L2|2026-11-02\n");
	/* A plain file: the first row. */
	assert_frame("Job,Load,Date\nJ1,L1,2026-11-01\n", "1:Job|Load|Date\n2:J1|L1|2026-11-01\n");
	/* Nothing reads as a header: the first non-blank row, as before. */
	assert_frame("\nfoo,bar\nbaz,qux\n", "2:foo|bar\n3:baz|qux\n");
	/* A header needs a data-like row below it. */
	assert_frame("Title\nJob,Load,Date\n", "1:Title\n2:Job|Load|Date\n");
	/* A period line reads as a header ("From", "To" name fields), but the
	 * line below it is no data, and the header below names more. */
	assert_frame("ACME,Dispatch report\nFrom,2026-11-01,To,2026-11-30\nPage 1 of 3\nJob,Load,Date\n"
		     "J1,L1,2026-11-01\n", "4:Job|Load|Date\n5:J1|L1|2026-11-01\n");
	assert_frame("From,2026-11-01,To,2026-11-30\nJob,Load,Date,Material\nJ1,L1,2026-11-01,Sand\n",
		     "2:Job|Load|Date|Material\n3:J1|L1|2026-11-01|Sand\n");
	/* A real export names few of its many columns: no row has "most", the
	 * one naming the most fields (two at least) is the header. */
	assert_frame("Load report\n\nJob,Load,Carrier,Driver,Phone,Trailer\nJ1,L1,ACME,Bob,555,53ft\n",
		     "3:Job|Load|Carrier|Driver|Phone|Trailer\n4:J1|L1|ACME|Bob|555|53ft\n");
	/* ... but never a data row over a first row as wide that names little. */
	assert_frame("Ref,Carrier,Driver\nJob,Load,x\nJob,Load,y\n", "1:Ref|Carrier|Driver\n2:Job|Load|x\n3:Job|Load|y\n");
	/* Most text cells must name fields: a notes line with one field word is not a header. */
	assert_frame("Report date,by,Bob\nJob,Load,Date\nJ1,L1,2026-11-01\n",
		     "2:Job|Load|Date\n3:J1|L1|2026-11-01\n");
}

static void test_known_shape_wins(void **state)
{
	(void)state;
	/* Row 2 reads as a header, but row 4 is a shape the org confirmed. */
	known_header = "Ref";
	assert_frame("x\nJob,Load,Date\nJ0,L0,2026-11-01\nRef,When,Qty\nR1,2026-11-01,3\n",
		     "4:Ref|When|Qty\n5:R1|2026-11-01|3\n");
	known_header = NULL;
}

static void test_header_row_option(void **state)
{
	(void)state;
	struct sheet_options o = {.header_row = 3, .judge = &the_judge};
	char *got = render_opts("a,b\nc,d\nJob,Load\nJ,L\n", &o);
	assert_string_equal(got, "3:Job|Load\n4:J|L\n");
	free(got);
	o.header_row = 2;   /* blank */
	got = render_opts("a,b\n\nJob,Load\nJ,L\n", &o);
	assert_string_equal(got, "!EMPTY_FILE");
	free(got);
	o.header_row = 9;   /* past the end */
	got = render_opts("a,b\nJob,Load\nJ,L\n", &o);
	assert_string_equal(got, "!EMPTY_FILE");
	free(got);
	/* The rows above are kept for the review screen. */
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	struct sheet *s;
	const char *msg;
	const char *text = "Title\nPrinted,today\nJob,Load,Date\nJ,L,2026-01-01\n";
	assert_int_equal(sheet_open_opts(text, strlen(text), &lim, &(struct sheet_options){.judge = &the_judge}, &s,
					 &msg, NULL), CODE_OK);
	const struct sheet_row *const *above;
	assert_int_equal(sheet_rows_above(s, &above), 2);
	assert_int_equal(above[0]->number, 1);
	assert_string_equal(above[1]->cells[1], "today");
	assert_int_equal(sheet_header_row(s), 3);
	sheet_free(s);
}

static void test_group_rows(void **state)
{
	(void)state;
	/* "Pickup" and "Drop" over Name / City / State, filled in their first
	 * column only; Weight after them is no part of a group. */
	assert_frame(",,Pickup,,,Drop,,,\nJob,Load,Name,City,State,Name,City,State,Weight\n"
		     "J,L,Q,Austin,TX,S,Dallas,TX,5\n",
		     "2:Job|Load|Pickup Name|Pickup City|Pickup State|Drop Name|Drop City|Drop State|Weight\n"
		     "3:J|L|Q|Austin|TX|S|Dallas|TX|5\n");
	/* A title directly above the header is no group row. */
	assert_frame("Loads for November\nJob,Load,Date\nJ,L,2026-11-01\n",
		     "2:Job|Load|Date\n3:J|L|2026-11-01\n");
	/* A label repeated over each column of its group. */
	assert_frame("Pickup,Pickup,Job\nName,City,Load\nQ,Austin,L\n",
		     "2:Pickup Name|Pickup City|Load\n3:Q|Austin|L\n");
	/* A sentence over Name / City is a title, not a group. */
	assert_frame("Loads picked up this week,,\nName,City,Load\nQ,Austin,L\n",
		     "2:Name|City|Load\n3:Q|Austin|L\n");
	/* A header that already carries the label is kept as it is. */
	assert_frame(",Pickup,\nJob,Pickup City,State\nJ,Austin,TX\n",
		     "2:Job|Pickup City|Pickup State\n3:J|Austin|TX\n");
	/* Not directly above: no join. */
	assert_frame(",,Pickup\n\nJob,Load,Name,City\nJ,L,Q,Austin\n", "3:Job|Load|Name|City\n4:J|L|Q|Austin\n");
}

static void test_summary_rows(void **state)
{
	(void)state;
	const char *head = "Job,Load,Date,Weight\nJ,1,2026-11-01,5\nJ,2,2026-11-02,7\n";
	char text[512];
	/* Total labels, any case, optional colon; numbers-only rows. */
	snprintf(text, sizeof text, "%sTOTAL:,,,12\n,,,12\n\n", head);
	assert_frame(text, "1:Job|Load|Date|Weight\n2:J|1|2026-11-01|5\n3:J|2|2026-11-02|7\nsum:4,5");
	snprintf(text, sizeof text, "%sGrand Total,,,12\n", head);
	assert_frame(text, "1:Job|Load|Date|Weight\n2:J|1|2026-11-01|5\n3:J|2|2026-11-02|7\nsum:4");
	/* A summary-like row followed by data is data. */
	snprintf(text, sizeof text, "%s,,,12\nJ,3,2026-11-03,1\n", head);
	assert_frame(text, "1:Job|Load|Date|Weight\n2:J|1|2026-11-01|5\n3:J|2|2026-11-02|7\n4:|||12\n"
		     "5:J|3|2026-11-03|1\n");
	/* A real row missing its key is data (it fails in the pipeline). */
	snprintf(text, sizeof text, "%sJ,,2026-11-03,1\n", head);
	assert_frame(text, "1:Job|Load|Date|Weight\n2:J|1|2026-11-01|5\n3:J|2|2026-11-02|7\n4:J||2026-11-03|1\n");
	/* Numbers under a key column: not a summary row. */
	snprintf(text, sizeof text, "%s,7,,12\n", head);
	assert_frame(text, "1:Job|Load|Date|Weight\n2:J|1|2026-11-01|5\n3:J|2|2026-11-02|7\n4:|7||12\n");
	/* Only summary rows: no data. */
	assert_frame("Job,Load\nTotal,3\n", "1:Job|Load\nsum:2!EMPTY_FILE");
	/* Without a judge, nothing is a summary row. */
	char *got = render_opts("Job,Load\nJ,1\nTotal,3\n", NULL);
	assert_string_equal(got, "1:Job|Load\n2:J|1\n3:Total|3\n");
	free(got);
}

static void test_samples(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 1 << 20);
	buf_puts(&b, "Title\nJob,Load,Date\n");
	for (int i = 1; i <= 80; i++)
		buf_printf(&b, "J,%d,2026-11-01\n", i);
	buf_puts(&b, "Total,80,\n");
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	struct sheet *s;
	const char *msg;
	struct sheet_options o = {.judge = &the_judge};
	assert_int_equal(sheet_open_opts(buf_str(&b), b.len, &lim, &o, &s, &msg, NULL), CODE_OK);
	const struct sheet_row *const *rows;
	size_t n = sheet_samples(s, &rows);
	assert_int_equal(n, SHEET_SAMPLE_ROWS);
	assert_int_equal(rows[0]->number, 3);
	assert_string_equal(rows[49]->cells[1], "50");
	/* Still delivered afterwards, in order and unchanged; the samples stay valid. */
	const struct sheet_row *r;
	for (int i = 1; i <= 80; i++) {
		assert_int_equal(sheet_next_row(s, &r), CODE_OK);
		assert_non_null(r);
		assert_int_equal(r->number, (unsigned)i + 2);
		char want[8];
		snprintf(want, sizeof want, "%d", i);
		assert_string_equal(r->cells[1], want);
	}
	assert_int_equal(sheet_next_row(s, &r), CODE_OK);
	assert_null(r);
	assert_string_equal(rows[0]->cells[1], "1");
	assert_int_equal(sheet_samples(s, &rows), SHEET_SAMPLE_ROWS);
	const unsigned *sum;
	assert_int_equal(sheet_summary_rows(s, &sum), 1);
	assert_int_equal(sum[0], 83);
	sheet_free(s);
	buf_done(&b);

	/* A short file: every data row, not the trailing total. */
	const char *text = "Job,Load,Date\nJ,1,2026-11-01\nTotal,1,\n";
	assert_int_equal(sheet_open_opts(text, strlen(text), &lim, &o, &s, &msg, NULL), CODE_OK);
	assert_int_equal(sheet_samples(s, &rows), 1);
	assert_int_equal(rows[0]->number, 2);
	sheet_free(s);
}

/* UTF-16 text of ASCII/Latin-1 s with a BOM, LE or BE. */
static char *utf16(const char *s, bool be, size_t *ret_len)
{
	size_t n = strlen(s);
	char *out = malloc(2 * n + 2);
	out[0] = be ? '\xFE' : '\xFF';
	out[1] = be ? '\xFF' : '\xFE';
	for (size_t i = 0; i < n; i++) {
		out[2 + 2 * i + (be ? 1 : 0)] = s[i];
		out[2 + 2 * i + (be ? 0 : 1)] = 0;
	}
	*ret_len = 2 * n + 2;
	return out;
}

static void test_utf16(void **state)
{
	(void)state;
	size_t len;
	for (int be = 0; be <= 1; be++) {
		char *data = utf16("Job\tLoad\r\nJ\tL\r\n", be, &len);
		struct sheet_limits lim;
		sheet_limits_default(&lim);
		struct sheet *s;
		const char *msg;
		struct sheet_info info;
		assert_int_equal(sheet_open_info(data, len, &lim, &s, &msg, &info), CODE_OK);
		assert_string_equal(info.encoding, be ? "utf-16be" : "utf-16le");
		assert_int_equal(info.delimiter, '\t');
		const struct sheet_row *r;
		assert_int_equal(sheet_next_row(s, &r), CODE_OK);
		assert_string_equal(r->cells[1], "L");
		sheet_free(s);
		free(data);
	}
	/* Surrogate pairs, a lone surrogate, an odd last byte. */
	const char le[] = "\xFF\xFE" "A\0" "\x3D\xD8\x9A\xDC" "\x00\xD8" "B\0" "\xE9\0" "x";
	bool bigend;
	char *u = utf16_to_utf8(le, sizeof le - 1, 1 << 20, &len, &bigend);
	assert_non_null(u);
	assert_false(bigend);
	assert_string_equal(u, "A\xF0\x9F\x92\x9A\xEF\xBF\xBD" "B\xC3\xA9\xEF\xBF\xBD");
	free(u);
	assert_null(utf16_to_utf8("ab", 2, 100, &len, &bigend));
	assert_null(utf16_to_utf8(le, sizeof le - 1, 2, &len, &bigend));   /* over the cap */
	/* A NUL character is a NUL byte: MALFORMED_CSV, as for UTF-8. */
	char *data = utf16("a,b\n", false, &len);
	data[4] = 0;   /* 'b' -> U+0000 */
	char *got = render_opts(data, NULL);
	free(got);
	free(data);
}

static void assert_affix(const char *code, int want, const char *pre, const char *suf)
{
	char p[SHEET_AFFIX_MAX], s[SHEET_AFFIX_MAX];
	assert_int_equal(sheet_numfmt_affix(code, p, s), want);
	if (want) {
		assert_string_equal(p, pre);
		assert_string_equal(s, suf);
	}
}

static void test_numfmt_affix(void **state)
{
	(void)state;
	assert_affix("0.00 \"tons\"", 1, "", " tons");
	assert_affix("#,##0\" lb\"", 1, "", " lb");
	assert_affix("0.0\\ \"kg\"", 1, "", " kg");
	assert_affix("\"$\"#,##0.00", 1, "$", "");
	assert_affix("$#,##0.00_);($#,##0.00)", 1, "$", "");
	assert_affix("[$$-409]#,##0.00", 1, "$", "");
	assert_affix("#,##0.00 [$\xE2\x82\xAC-407]", 1, "", " \xE2\x82\xAC");
	assert_affix("[Red]0.00 \"t\"", 1, "", " t");
	assert_affix("General", 0, "", "");
	assert_affix("0.00", 0, "", "");
	assert_affix("0%", 0, "", "");
	assert_affix("0.00E+00", 0, "", "");
	assert_affix("yyyy-mm-dd", 0, "", "");
	assert_affix("00000", 0, "", "");
	assert_affix("@", 0, "", "");
	assert_affix("\"unterminated", 0, "", "");
	assert_affix("0 \"a\" 0", 0, "", "");
	assert_affix(NULL, 0, "", "");
}

static void test_header_units(void **state)
{
	(void)state;
	static const struct {
		const char *h;
		enum weight_unit u;
	} cases[] = {
		{"Weight (tons)", WUNIT_TON}, {"Net Tons", WUNIT_TON}, {"Wt kg", WUNIT_KG}, {"Gross lbs", WUNIT_LB},
		{"Weight (t)", WUNIT_TONNE}, {"Weight, metric tons", WUNIT_TONNE}, {"Weight", WUNIT_NONE},
		{"Tonnage", WUNIT_NONE}, {"Load #", WUNIT_NONE}, {"", WUNIT_NONE}, {"Weight_KG", WUNIT_KG},
		{"weight-kg", WUNIT_KG},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum weight_unit got = header_weight_unit(cases[i].h, strlen(cases[i].h));
		if (got != cases[i].u)
			fail_msg("header \"%s\": unit %d, want %d", cases[i].h, got, cases[i].u);
	}
}

static void test_european_numbers(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"1.234,56", "1234.56"}, {"24,5 t", "24.5 t"}, {"1.200", "1.200"}, {"1.234.567", "1234567"},
		{"$1,250.00", "$1,250.00"}, {"12.5 t", "12.5 t"}, {"Gravel", "Gravel"}, {"12,5", "12.5"},
		{"", ""}, {",", ","}, {"1,2,3", "1,2,3"},
	};
	struct arena *a = arena_new();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n;
		const char *got = european_number(a, cases[i][0], strlen(cases[i][0]), &n);
		assert_int_equal(n, strlen(cases[i][1]));
		if (strncmp(got, cases[i][1], n))
			fail_msg("\"%s\" -> \"%.*s\", want \"%s\"", cases[i][0], (int)n, got, cases[i][1]);
	}
	arena_free(a);
}

static void test_cell_kinds(void **state)
{
	(void)state;
	assert_true(cell_is_number("1,234.5", 7));
	assert_true(cell_is_number(" $12 ", 5));
	assert_true(cell_is_number("24.5 t", 6));
	assert_true(cell_is_number("(3)", 3));
	assert_false(cell_is_number("J-100", 5));
	assert_false(cell_is_number("", 0));
	assert_true(cell_is_date("2026-01-05", 10));
	assert_true(cell_is_date("1/5/26", 6));
	assert_false(cell_is_date("L-100", 5));
	assert_true(cell_is_text("Load #", 6));
	assert_false(cell_is_text("  ", 2));
	assert_true(cell_is_total_label("Total:", 6));
	assert_true(cell_is_total_label(" grand TOTAL ", 13));
	assert_true(cell_is_total_label("Subtotal", 8));
	assert_true(cell_is_total_label("SUM", 3));
	assert_false(cell_is_total_label("Total weight", 12));
	assert_false(cell_is_total_label("Totals by job", 13));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_title_rows),
		cmocka_unit_test(test_known_shape_wins),
		cmocka_unit_test(test_header_row_option),
		cmocka_unit_test(test_group_rows),
		cmocka_unit_test(test_summary_rows),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_numfmt_affix),
		cmocka_unit_test(test_header_units),
		cmocka_unit_test(test_european_numbers),
		cmocka_unit_test(test_cell_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
