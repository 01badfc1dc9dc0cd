/* Unit tests for src/model/normalize: every cell rule of PRODUCT.md §5,
 * with hostile input (huge, invalid UTF-8, controls, overflow, NaN). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/normalize.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int setup(void **state)
{
	*state = arena_new();
	return 0;
}

static int teardown(void **state)
{
	arena_free(*state);
	return 0;
}

/* A case: input, and the expected output ("" = rejected) or reason. */
struct scase {
	const char *in;
	const char *out;
};

struct wcase {
	const char *in;
	enum norm_why why;
};

/* ---- Whitespace and UTF-8 ---- */

static void test_utf8_decoder(void **state)
{
	(void)state;
	size_t n;
	assert_int_equal(norm_utf8_next("A", 1, &n), 'A');
	assert_int_equal(n, 1);
	assert_int_equal(norm_utf8_next("\xC3\xA9", 2, &n), 0xE9);
	assert_int_equal(n, 2);
	assert_int_equal(norm_utf8_next("\xE2\x82\xAC", 3, &n), 0x20AC);
	assert_int_equal(norm_utf8_next("\xF0\x9F\x9A\x9A", 4, &n), 0x1F69A);
	assert_int_equal(n, 4);
	const char *bad[] = {
		"\x80", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xED\xA0\x80",
		"\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\xC3", "\xE2\x82",
		"\xC3\x41",
	};
	for (size_t i = 0; i < N(bad); i++) {
		assert_int_equal(norm_utf8_next(bad[i], strlen(bad[i]), &n), -1);
		assert_int_equal(n, 1);
	}
	assert_int_equal(norm_utf8_next("", 0, &n), -1);
	/* A truncated slice of a valid character is invalid. */
	assert_int_equal(norm_utf8_next("\xE2\x82\xAC", 2, &n), -1);
}

static void test_spaces(void **state)
{
	(void)state;
	const int32_t yes[] = { ' ', '\t', '\n', '\r', 0x0B, 0x0C, 0x85, 0xA0,
				0x1680, 0x180E, 0x2000, 0x2005, 0x200A, 0x200B,
				0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF };
	const int32_t no[] = { 'a', 0, 0x1F, 0x7F, 0xAD, 0x200C, 0x200D,
			       0x2060, 0xFFFD, -1 };
	for (size_t i = 0; i < N(yes); i++)
		assert_true(norm_is_space(yes[i]));
	for (size_t i = 0; i < N(no); i++)
		assert_false(norm_is_space(no[i]));
}

static void trim_is(const char *in, const char *out)
{
	size_t n;
	const char *t = norm_trim(in, strlen(in), &n);
	if (n != strlen(out) || memcmp(t, out, n) != 0) {
		print_error("trim(\"%s\") gave \"%.*s\"\n", in, (int)n, t);
		fail();
	}
}

static void test_trim(void **state)
{
	(void)state;
	trim_is("  abc  ", "abc");
	trim_is("\t\r\n abc \r\n", "abc");
	trim_is("\xC2\xA0" "abc" "\xC2\xA0", "abc");              /* NBSP */
	trim_is("\xE3\x80\x80" "abc" "\xE2\x80\x83", "abc");      /* U+3000, EM SPACE */
	trim_is("\xEF\xBB\xBF" "abc", "abc");                     /* BOM */
	trim_is("\xE2\x80\xAF" "a b" "\xE2\x81\x9F", "a b");      /* U+202F, U+205F */
	trim_is("\xC2\x85" "x" "\xE1\x9A\x80", "x");              /* NEL, U+1680 */
	trim_is("a  b", "a  b");                                  /* inner kept */
	trim_is("", "");
	trim_is("   ", "");
	trim_is("\xC2\xA0\xE3\x80\x80\t", "");
	trim_is("\xFF abc \xFF", "\xFF abc \xFF");                /* bad bytes stop it */
	trim_is(" \xFF ", "\xFF");
	trim_is("abc\xA0", "abc\xA0");                            /* lone continuation */
	trim_is("\xE2\x80", "\xE2\x80");
	size_t n = 9;
	assert_non_null(norm_trim(NULL, 0, &n));
	assert_int_equal(n, 0);
	assert_true(norm_is_blank(NULL, 0));
	assert_true(norm_is_blank(" \t\xC2\xA0", 4));
	assert_false(norm_is_blank(" x ", 3));
}

static void test_excerpt(void **state)
{
	struct arena *a = *state;
	/* The `value`: as read, at most N characters, valid UTF-8. */
	assert_string_equal(norm_excerpt(a, "abc", 3, 10), "abc");
	assert_string_equal(norm_excerpt(a, "abcdef", 6, 3), "abc");
	assert_string_equal(norm_excerpt(a, " a\nb\tc ", 7, 10), " a\nb\tc ");
	assert_string_equal(norm_excerpt(a, "a\xFF" "b", 3, 10), "a\xEF\xBF\xBD" "b");
	assert_string_equal(norm_excerpt(a, "a\0b", 3, 10), "a\xEF\xBF\xBD" "b");
	assert_string_equal(norm_excerpt(a, "\xC3\xA9\xC3\xA9\xC3\xA9", 6, 2),
			    "\xC3\xA9\xC3\xA9");
	assert_string_equal(norm_excerpt(a, "", 0, 5), "");
	assert_string_equal(norm_excerpt(a, NULL, 0, 5), "");
	assert_string_equal(norm_excerpt(a, "abc", 3, 0), "");
	assert_string_equal(norm_excerpt(a, "abc", 3, SIZE_MAX), "abc");
	/* 201 emoji: 200 characters survive, each 4 bytes. */
	char emoji[201 * 4];
	for (int i = 0; i < 201; i++)
		memcpy(emoji + 4 * i, "\xF0\x9F\x9A\x9A", 4);
	assert_int_equal(strlen(norm_excerpt(a, emoji, sizeof(emoji), 200)), 800);
	char *big = malloc(10000);
	memset(big, '\xFF', 10000);
	assert_int_equal(strlen(norm_excerpt(a, big, 10000, 200)), 200 * 3);
	/* The quote for messages: one line, a cut marked with an ellipsis. */
	char *e = norm_quote(a, big, 10000, 200);
	assert_int_equal(strlen(e), 200 * 3 + 3);
	free(big);
	assert_string_equal(norm_quote(a, "abcdef", 6, 3), "abc\xE2\x80\xA6");
	assert_string_equal(norm_quote(a, "a\nb\tc\x7F" "d", 7, 10), "a b c d");
	assert_string_equal(norm_quote(a, "\xC2\x85x", 3, 10), " x");   /* C1 NEL */
	assert_string_equal(norm_quote(a, "a\0b", 3, 10), "a\xEF\xBF\xBD" "b");
	assert_string_equal(norm_quote(a, "abc", 3, 3), "abc");
}

/* ---- Text ---- */

static void test_text(void **state)
{
	struct arena *a = *state;
	char *out;
	size_t len;
	enum norm_why why = NORM_WHY_NONE;
	assert_int_equal(norm_text(a, "  Job 1 ", 8, 64, &out, &len, &why), CODE_OK);
	assert_string_equal(out, "Job 1");
	assert_int_equal(len, 5);
	/* Case, inner spaces, controls other than NUL, markup: kept exactly. */
	const char *keep[] = { "A  b", "a\tb", "line1\nline2", "x\x01y",
			       "=cmd|' /C calc'!A0", "<script>alert(1)</script>",
			       "'; DROP TABLE loads; --", ("\xE2\x80\xAE" "RTL"),
			       "Caf\xC3\xA9", "\xF0\x9F\x9A\x9A" };
	for (size_t i = 0; i < N(keep); i++) {
		assert_int_equal(norm_text(a, keep[i], strlen(keep[i]), 200,
					   &out, &len, NULL), CODE_OK);
		assert_string_equal(out, keep[i]);
	}
	assert_int_equal(norm_text(a, "", 0, 64, &out, &len, NULL), CODE_OK);
	assert_int_equal(len, 0);
	assert_string_equal(out, "");
	assert_int_equal(norm_text(a, "a\0b", 3, 64, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_NUL);
	assert_int_equal(norm_text(a, "ab\xC3", 3, 64, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_BAD_UTF8);
	assert_int_equal(norm_text(a, "\xED\xA0\x80", 3, 64, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_BAD_UTF8);
}

static void test_text_length_in_characters(void **state)
{
	struct arena *a = *state;
	char *out = NULL;
	size_t len;
	enum norm_why why = NORM_WHY_NONE;
	/* 64 two-byte characters (128 bytes) fit a 64-character cap. */
	char buf[4 * 2001 + 8];
	size_t o = 0;
	for (int i = 0; i < 64; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\xC3\xA9");
	assert_int_equal(norm_text(a, buf, o, 64, &out, &len, &why), CODE_OK);
	assert_int_equal(len, 128);
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, "x");
	assert_int_equal(norm_text(a, buf, o, 64, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_TOO_LONG);
	/* 2000 four-byte emoji are 2000 characters; surrounding spaces free. */
	o = 0;
	buf[o++] = ' ';
	for (int i = 0; i < 2000; i++) {
		memcpy(buf + o, "\xF0\x9F\x9A\x9A", 4);
		o += 4;
	}
	buf[o++] = ' ';
	assert_int_equal(norm_text(a, buf, o, 2000, &out, &len, NULL), CODE_OK);
	assert_int_equal(len, 8000);
	assert_int_equal(norm_text(a, buf, o, 1999, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_TOO_LONG);
}

static void test_text_10kb(void **state)
{
	struct arena *a = *state;
	char *big = malloc(10240);
	memset(big, 'x', 10240);
	char *out = NULL;
	size_t len;
	enum norm_why why;
	assert_int_equal(norm_text(a, big, 10240, 2000, &out, &len, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_TOO_LONG);
	assert_int_equal(norm_text(a, big, 10240, 10240, &out, &len, &why), CODE_OK);
	assert_int_equal(len, 10240);
	/* 10 kB of whitespace is blank. */
	memset(big, ' ', 10240);
	assert_int_equal(norm_text(a, big, 10240, 64, &out, &len, &why), CODE_OK);
	assert_int_equal(len, 0);
	assert_true(norm_is_blank(big, 10240));
	free(big);
}

/* ---- Dates ---- */

static void test_dates_accepted(void **state)
{
	(void)state;
	const struct scase ok[] = {
		{ "2026-01-05", "2026-01-05" },
		{ " 2026-01-05\t", "2026-01-05" },
		{ "2026-1-5", "2026-01-05" },
		{ "2026/01/05", "2026-01-05" },
		{ "1/5/2026", "2026-01-05" },
		{ "01/05/2026", "2026-01-05" },
		{ "12/31/2026", "2026-12-31" },
		{ "1/5/26", "2026-01-05" },
		{ "1/5/00", "2000-01-05" },
		{ "1/5/69", "2069-01-05" },
		{ "1/5/70", "1970-01-05" },
		{ "1/5/99", "1999-01-05" },
		{ "2024-02-29", "2024-02-29" },     /* leap year */
		{ "2000-02-29", "2000-02-29" },     /* divisible by 400 */
		{ "2/29/24", "2024-02-29" },
		{ "2026-01-05T00:00:00", "2026-01-05" },  /* XLSX reader */
		{ "2026-01-05T13:45:10.123", "2026-01-05" },
		{ "2026-01-05T13:45:10Z", "2026-01-05" },
		{ "2026-01-05T13:45:10+02:00", "2026-01-05" },
		{ "2026-01-05T13:45-0500", "2026-01-05" },
		{ "2026-01-05T13:45+05", "2026-01-05" },
		{ "2026-01-05T13:45:00.000000000z", "2026-01-05" },
		{ "2026-01-05 08:30", "2026-01-05" },
		{ "1/5/2026 0:00", "2026-01-05" },
		{ "1/5/2026 12:30:00 PM", "2026-01-05" },
		{ "1/5/2026 7:05 am", "2026-01-05" },
		{ "1900-01-01", "1900-01-01" },
		{ "2199-12-31", "2199-12-31" },
		{ "\xC2\xA0" "2026-01-05" "\xE3\x80\x80", "2026-01-05" },
	};
	for (size_t i = 0; i < N(ok); i++) {
		char out[NORM_DATE_SIZE] = "";
		enum norm_why why = NORM_WHY_NONE;
		if (norm_date(ok[i].in, strlen(ok[i].in), out, &why) != CODE_OK ||
		    strcmp(out, ok[i].out) != 0) {
			print_error("date \"%s\": got \"%s\" why %d\n", ok[i].in,
				    out, why);
			fail();
		}
	}
}

static void test_dates_rejected(void **state)
{
	(void)state;
	const struct wcase bad[] = {
		{ "", NORM_WHY_EMPTY },
		{ "   ", NORM_WHY_EMPTY },
		{ "13/45/2026", NORM_WHY_NO_SUCH_DAY },
		{ "2/29/2026", NORM_WHY_NO_SUCH_DAY },
		{ "1900-02-29", NORM_WHY_NO_SUCH_DAY },  /* 1900 not leap */
		{ "2026-04-31", NORM_WHY_NO_SUCH_DAY },
		{ "2026-00-10", NORM_WHY_NO_SUCH_DAY },
		{ "2026-01-00", NORM_WHY_NO_SUCH_DAY },
		{ "0/1/2026", NORM_WHY_NO_SUCH_DAY },
		{ "1899-12-31", NORM_WHY_YEAR_RANGE },
		{ "2200-01-01", NORM_WHY_YEAR_RANGE },
		{ "0226-01-05", NORM_WHY_YEAR_RANGE },
		{ "2026-13-01", NORM_WHY_NO_SUCH_DAY },
		{ "05.01.2026", NORM_WHY_NOT_DATE },
		{ "1-5-2026", NORM_WHY_NOT_DATE },
		{ "2026-01-05x", NORM_WHY_NOT_DATE },
		{ "2026-01-05T", NORM_WHY_NOT_DATE },
		{ "2026-01-05T25:00", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:61", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+25:00", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+123", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+12345", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+0560", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00+05:", NORM_WHY_NOT_DATE },
		{ "2026-01-05T10:00:00.", NORM_WHY_NOT_DATE },
		{ "2026-01-05T1000", NORM_WHY_NOT_DATE },
		{ "2026-01-05 garbage", NORM_WHY_NOT_DATE },
		{ "1/5/2026 13:00 PM", NORM_WHY_NOT_DATE },
		{ "1/5/2026T10:00", NORM_WHY_NOT_DATE },
		{ "2026-01/05", NORM_WHY_NOT_DATE },
		{ "20260105", NORM_WHY_NOT_DATE },
		{ "46027", NORM_WHY_NOT_DATE },          /* Excel serial as text */
		{ "1/5/202", NORM_WHY_NOT_DATE },
		{ "1/5/20266", NORM_WHY_NOT_DATE },
		{ "1/5", NORM_WHY_NOT_DATE },
		{ "001/5/2026", NORM_WHY_NOT_DATE },
		{ "Jan 5 2026", NORM_WHY_NOT_DATE },
		{ "yesterday", NORM_WHY_NOT_DATE },
		{ "-1/5/2026", NORM_WHY_NOT_DATE },
		{ "2026-01-05\n2026-01-06", NORM_WHY_NOT_DATE },
		{ "\xFF\xFE", NORM_WHY_NOT_DATE },
		{ "99999999999999999999/1/2026", NORM_WHY_NOT_DATE },
	};
	for (size_t i = 0; i < N(bad); i++) {
		char out[NORM_DATE_SIZE] = "untouched";
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_date(bad[i].in, strlen(bad[i].in), out, &why);
		if (rc != CODE_TYPE_MISMATCH || why != bad[i].why ||
		    strcmp(out, "untouched") != 0) {
			print_error("date \"%s\": rc %d why %d (want %d)\n",
				    bad[i].in, rc, why, bad[i].why);
			fail();
		}
	}
	/* A NUL inside, and a NULL ret_why, are fine. */
	char out[NORM_DATE_SIZE];
	assert_int_equal(norm_date("2026-01-05\0", 11, out, NULL),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(norm_date(NULL, 0, out, NULL), CODE_TYPE_MISMATCH);
}

static void test_dates_every_day(void **state)
{
	(void)state;
	/* Every day of 1900..2199 in both formats reads back to itself. */
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int count = 0;
	for (int y = 1900; y <= 2199; y++) {
		bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
		for (int m = 1; m <= 12; m++) {
			int dim = mdays[m - 1] + (m == 2 && leap);
			for (int d = 1; d <= dim + 1; d++) {
				char in[64], want[64], out[NORM_DATE_SIZE];
				snprintf(in, sizeof(in), "%d/%d/%d", m, d, y);
				snprintf(want, sizeof(want), "%04d-%02d-%02d", y, m, d);
				enum code rc = norm_date(in, strlen(in), out, NULL);
				if (d > dim) {
					assert_int_equal(rc, CODE_TYPE_MISMATCH);
					continue;
				}
				assert_int_equal(rc, CODE_OK);
				assert_string_equal(out, want);
				assert_int_equal(norm_date(want, 10, out, NULL), CODE_OK);
				assert_string_equal(out, want);
				count++;
			}
		}
	}
	assert_int_equal(count, 300 * 365 + 73); /* 73 leap days in 1900..2199 */
}

/* ---- Weight ---- */

struct weight_case {
	const char *in;
	enum weight_unit column;
	int64_t centilb;
	bool converted;
};

static void test_weights_accepted(void **state)
{
	(void)state;
	const struct weight_case ok[] = {
		{ "25000", WUNIT_NONE, 2500000, false },
		{ "25000.5", WUNIT_NONE, 2500050, false },
		{ "12,500.5", WUNIT_NONE, 1250050, false },
		{ "1,234,567", WUNIT_NONE, 123456700, false },
		{ "0", WUNIT_NONE, 0, false },
		{ "0.0", WUNIT_NONE, 0, false },
		{ ".5", WUNIT_NONE, 50, false },
		{ "+7", WUNIT_NONE, 700, false },
		{ "007", WUNIT_NONE, 700, false },
		{ "25000 lbs", WUNIT_NONE, 2500000, false },
		{ "25000lb", WUNIT_NONE, 2500000, false },
		{ "25000 LBS.", WUNIT_NONE, 2500000, false },
		{ "25000#", WUNIT_NONE, 2500000, false },
		{ "25000 pounds", WUNIT_NONE, 2500000, false },
		{ "1 Pound", WUNIT_NONE, 100, false },
		{ "25000", WUNIT_LB, 2500000, false },
		{ "25000 lb", WUNIT_LB, 2500000, false },
		/* short ton = 2,000 lb */
		{ "12.5 ton", WUNIT_NONE, 2500000, true },
		{ "12.5 tons", WUNIT_NONE, 2500000, true },
		{ "12.5 TN", WUNIT_NONE, 2500000, true },
		{ "1 short ton", WUNIT_NONE, 200000, true },
		{ "12.5", WUNIT_TON, 2500000, true },
		/* tonne = 2,204.62 lb */
		{ "12.5 t", WUNIT_NONE, 2755775, true },
		{ "12.5t", WUNIT_NONE, 2755775, true },
		{ "1 T", WUNIT_NONE, 220462, true },
		{ "1 tonne", WUNIT_NONE, 220462, true },
		{ "2 tonnes", WUNIT_NONE, 440924, true },
		{ "1 MT", WUNIT_NONE, 220462, true },
		{ "1 metric  ton", WUNIT_NONE, 220462, true },
		{ "1", WUNIT_TONNE, 220462, true },
		/* kg = 2.20462 lb, rounded half away from zero to 0.01 lb */
		{ "1,200 kg", WUNIT_NONE, 264554, true },   /* 2645.544 */
		{ "1 kg", WUNIT_NONE, 220, true },          /* 2.20462 */
		{ "1 kgs", WUNIT_NONE, 220, true },
		{ "10 kilograms", WUNIT_NONE, 2205, true }, /* 22.0462 */
		{ "0.5 kg", WUNIT_NONE, 110, true },        /* 1.10231 */
		{ "0.01 kg", WUNIT_NONE, 2, true },         /* 0.0220462 */
		{ "0.0022680 kg", WUNIT_NONE, 1, true },    /* 0.005000078 -> up */
		{ "0.0022679 kg", WUNIT_NONE, 0, true },    /* 0.004999857 -> down */
		{ "1", WUNIT_KG, 220, true },
		/* rounding of pounds themselves */
		{ "0.005", WUNIT_NONE, 1, false },          /* tie: away from zero */
		{ "0.004999", WUNIT_NONE, 0, false },
		{ "1.125", WUNIT_NONE, 113, false },
		{ "1.12499999999999", WUNIT_NONE, 112, false },
		{ "0 kg", WUNIT_NONE, 0, true },
		/* limits: 10^9 lb is the most */
		{ "1,000,000,000", WUNIT_NONE, NORM_MAX_CENTILB, false },
		{ "1000000000.004", WUNIT_NONE, NORM_MAX_CENTILB, false },
		{ "500000 ton", WUNIT_NONE, 100000000000, true },
		{ "  12.5\xC2\xA0t  ", WUNIT_NONE, 2755775, true },
		{ "000000000000000000000000000001", WUNIT_NONE, 100, false },
	};
	for (size_t i = 0; i < N(ok); i++) {
		int64_t v = -1;
		bool conv = !ok[i].converted;
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_weight(ok[i].in, strlen(ok[i].in), ok[i].column,
					   &v, &conv, &why);
		if (rc != CODE_OK || v != ok[i].centilb || conv != ok[i].converted) {
			print_error("weight \"%s\": rc %d why %d v %lld conv %d\n",
				    ok[i].in, rc, why, (long long)v, conv);
			fail();
		}
	}
}

static void test_weights_rejected(void **state)
{
	(void)state;
	const struct {
		const char *in;
		enum weight_unit column;
		enum norm_why why;
	} bad[] = {
		{ "", WUNIT_NONE, NORM_WHY_EMPTY },
		{ "abc", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "NaN", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "nan", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "inf", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "-inf", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "Infinity", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1e400", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1E5", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1.5e-3 kg", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "0x10", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "-5", WUNIT_NONE, NORM_WHY_NEGATIVE },
		{ "-0", WUNIT_NONE, NORM_WHY_NEGATIVE },
		{ "-0.0 kg", WUNIT_NONE, NORM_WHY_NEGATIVE },
		{ "12 stone", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12 oz", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12 lbs lbs", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12 k g", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12 \xC3\xA9", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12 kg", WUNIT_LB, NORM_WHY_UNIT_CONFLICT },
		{ "12 t", WUNIT_TON, NORM_WHY_UNIT_CONFLICT },
		{ "12 lb", WUNIT_KG, NORM_WHY_UNIT_CONFLICT },
		{ "12 500", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "12-5", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1,25", WUNIT_NONE, NORM_WHY_NOT_NUMBER },      /* European? */
		{ "12.500,5", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1,2345", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1234,567", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ ",123", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1,,234", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1,234.5,6", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1.2.3", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "5.", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ ".", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "+", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "--5", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "$5", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "kg", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "(5)", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "1,000,000,001", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "1000000000.005", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "453593 t", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "99999999999999999999999", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "18446744073709551616", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "9223372036854775808 kg", WUNIT_NONE, NORM_WHY_TOO_LARGE },
		{ "\xFF", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
		{ "12\xFF", WUNIT_NONE, NORM_WHY_UNKNOWN_UNIT },
		{ "12\x01kg", WUNIT_NONE, NORM_WHY_NOT_NUMBER },
	};
	for (size_t i = 0; i < N(bad); i++) {
		int64_t v = 42;
		bool conv = true;
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_weight(bad[i].in, strlen(bad[i].in),
					   bad[i].column, &v, &conv, &why);
		if (rc != CODE_TYPE_MISMATCH || why != bad[i].why || v != 42 ||
		    !conv) {
			print_error("weight \"%s\": rc %d why %d (want %d)\n",
				    bad[i].in, rc, why, bad[i].why);
			fail();
		}
	}
}

static void test_weight_huge_input(void **state)
{
	(void)state;
	/* 10 kB of digits, then of decimals: no overflow, no slow path. */
	char *big = malloc(10241);
	memset(big, '9', 10240);
	big[10240] = '\0';
	int64_t v;
	bool conv;
	enum norm_why why;
	assert_int_equal(norm_weight(big, 10240, WUNIT_NONE, &v, &conv, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_TOO_LARGE);
	big[0] = '1';
	big[1] = '.';
	assert_int_equal(norm_weight(big, 10240, WUNIT_NONE, &v, &conv, &why),
			 CODE_OK);
	assert_int_equal(v, 200); /* 1.999... rounds to 2.00 */
	free(big);
}

static void test_weight_units(void **state)
{
	(void)state;
	const struct {
		const char *in;
		enum weight_unit unit;
	} ok[] = {
		{ "", WUNIT_NONE },     { "  ", WUNIT_NONE },   { "lb", WUNIT_LB },
		{ "LBS", WUNIT_LB },    { "#", WUNIT_LB },      { "Pounds", WUNIT_LB },
		{ "lbs.", WUNIT_LB },   { "ton", WUNIT_TON },   { "Tons", WUNIT_TON },
		{ "tn", WUNIT_TON },    { "t", WUNIT_TONNE },   { "T", WUNIT_TONNE },
		{ "tonne", WUNIT_TONNE }, { "Tonnes", WUNIT_TONNE },
		{ "mt", WUNIT_TONNE },  { " MT ", WUNIT_TONNE }, { "kg", WUNIT_KG },
		{ "KGS", WUNIT_KG },    { "kilos", WUNIT_KG },
		{ "Metric\tTons", WUNIT_TONNE },
	};
	for (size_t i = 0; i < N(ok); i++) {
		enum weight_unit u = (enum weight_unit)99;
		assert_int_equal(norm_weight_unit(ok[i].in, strlen(ok[i].in), &u,
						  NULL), CODE_OK);
		assert_int_equal(u, ok[i].unit);
	}
	const char *bad[] = { "stone", "oz", "g", "lbs..", "kg kg", "k",
			      "\xFF", "a-very-long-unit-name-that-is-not-a-unit",
			      "pound\0s" };
	for (size_t i = 0; i < N(bad); i++) {
		enum weight_unit u = WUNIT_KG;
		enum norm_why why = NORM_WHY_NONE;
		size_t len = strlen(bad[i]) + (i == N(bad) - 1 ? 2 : 0);
		assert_int_equal(norm_weight_unit(bad[i], len, &u, &why),
				 CODE_TYPE_MISMATCH);
		assert_int_equal(why, NORM_WHY_UNKNOWN_UNIT);
		assert_int_equal(u, WUNIT_KG);
	}
	assert_string_equal(norm_weight_unit_name(WUNIT_LB), "lb");
	assert_string_equal(norm_weight_unit_name(WUNIT_TON), "ton");
	assert_string_equal(norm_weight_unit_name(WUNIT_TONNE), "t");
	assert_string_equal(norm_weight_unit_name(WUNIT_KG), "kg");
	assert_string_equal(norm_weight_unit_name(WUNIT_NONE), "");
}

static void test_format_centilb(void **state)
{
	(void)state;
	const struct {
		int64_t v;
		const char *out;
	} cases[] = {
		{ 2500000, "25000" },   { 2500050, "25000.5" },
		{ 2500025, "25000.25" }, { 2500001, "25000.01" },
		{ 0, "0" },             { 5, "0.05" },  { 50, "0.5" },
		{ NORM_MAX_CENTILB, "1000000000" },
		{ -150, "-1.5" },
		{ INT64_MAX, "92233720368547758.07" },
		{ INT64_MIN, "-92233720368547758.08" },
	};
	for (size_t i = 0; i < N(cases); i++) {
		char out[NORM_NUM_SIZE];
		int n = norm_format_centilb(cases[i].v, out, sizeof(out));
		assert_string_equal(out, cases[i].out);
		assert_int_equal(n, strlen(cases[i].out));
	}
	char tiny[4];
	assert_int_equal(norm_format_centilb(2500050, tiny, sizeof(tiny)), 7);
	assert_string_equal(tiny, "250");
}

/* ---- Money ---- */

static void test_money_accepted(void **state)
{
	(void)state;
	const struct {
		const char *in;
		int64_t cents;
	} ok[] = {
		{ "$1,250.00", 125000 }, { "1250", 125000 },
		{ "1,250.5", 125050 },  { " $ 99 ", 9900 },
		{ "$99", 9900 },        { "0", 0 },
		{ "0.01", 1 },          { ".5", 50 },
		{ "1.500", 150 },       { "1.5000000", 150 },
		{ "+12", 1200 },        { "$0.00", 0 },
		{ "1,000,000,000", NORM_MAX_CENTS },
		{ "$1,000,000,000.00", NORM_MAX_CENTS },
		{ "\xC2\xA0$\xC2\xA0" "5", 500 },
		{ "1.000000000000000000000000", 100 },
	};
	for (size_t i = 0; i < N(ok); i++) {
		int64_t v = -1;
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_money(ok[i].in, strlen(ok[i].in), &v, &why);
		if (rc != CODE_OK || v != ok[i].cents) {
			print_error("money \"%s\": rc %d why %d v %lld\n", ok[i].in,
				    rc, why, (long long)v);
			fail();
		}
	}
}

static void test_money_rejected(void **state)
{
	(void)state;
	const struct wcase bad[] = {
		{ "", NORM_WHY_EMPTY },
		{ "$", NORM_WHY_NOT_NUMBER },
		{ "abc", NORM_WHY_NOT_NUMBER },
		{ "NaN", NORM_WHY_NOT_NUMBER },
		{ "1e400", NORM_WHY_NOT_NUMBER },
		{ "-5", NORM_WHY_NEGATIVE },
		{ "-0", NORM_WHY_NEGATIVE },
		{ "-$5", NORM_WHY_NEGATIVE },
		{ "$-5", NORM_WHY_NEGATIVE },
		{ "(5.00)", NORM_WHY_NOT_NUMBER },
		{ "1.255", NORM_WHY_TOO_MANY_DECIMALS },
		{ "1.2501", NORM_WHY_TOO_MANY_DECIMALS },
		{ "1.0000000000000000001", NORM_WHY_TOO_MANY_DECIMALS },
		{ "99 USD", NORM_WHY_NOT_NUMBER },
		{ "USD 99", NORM_WHY_NOT_NUMBER },
		{ "99$", NORM_WHY_NOT_NUMBER },
		{ "$$99", NORM_WHY_NOT_NUMBER },
		{ "1,25", NORM_WHY_NOT_NUMBER },
		{ "1 250", NORM_WHY_NOT_NUMBER },
		{ "1,000,000,000.01", NORM_WHY_TOO_LARGE },
		{ "99999999999999999999", NORM_WHY_TOO_LARGE },
		{ "12\xFF", NORM_WHY_NOT_NUMBER },
		{ "\xE2\x82\xAC" "5", NORM_WHY_NOT_NUMBER },
	};
	for (size_t i = 0; i < N(bad); i++) {
		int64_t v = 42;
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_money(bad[i].in, strlen(bad[i].in), &v, &why);
		if (rc != CODE_TYPE_MISMATCH || why != bad[i].why || v != 42) {
			print_error("money \"%s\": rc %d why %d (want %d)\n",
				    bad[i].in, rc, why, bad[i].why);
			fail();
		}
	}
}

static void test_format_cents(void **state)
{
	(void)state;
	char out[NORM_NUM_SIZE];
	norm_format_cents(125000, out, sizeof(out));
	assert_string_equal(out, "1250.00");
	norm_format_cents(125050, out, sizeof(out));
	assert_string_equal(out, "1250.50");
	norm_format_cents(1, out, sizeof(out));
	assert_string_equal(out, "0.01");
	norm_format_cents(0, out, sizeof(out));
	assert_string_equal(out, "0.00");
	norm_format_cents(-199, out, sizeof(out));
	assert_string_equal(out, "-1.99");
	/* Parse and format round-trip. */
	for (int64_t c = 0; c < 100000; c += 7) {
		int64_t back;
		norm_format_cents(c, out, sizeof(out));
		assert_int_equal(norm_money(out, strlen(out), &back, NULL), CODE_OK);
		assert_int_equal(back, c);
		norm_format_centilb(c, out, sizeof(out));
		bool conv;
		assert_int_equal(norm_weight(out, strlen(out), WUNIT_NONE, &back,
					     &conv, NULL), CODE_OK);
		assert_int_equal(back, c);
	}
}

/* ---- States ---- */

static void test_states(void **state)
{
	(void)state;
	const struct scase ok[] = {
		{ "NY", "NY" }, { "ny", "NY" }, { "nY", "NY" }, { " tx ", "TX" },
		{ "N.Y.", "NY" }, { "new york", "NY" }, { "New  York", "NY" },
		{ "NEWYORK", "NY" }, { "District of Columbia", "DC" },
		{ "Washington, D.C.", "DC" }, { "DC", "DC" }, { "Washington", "WA" },
		{ "West Virginia", "WV" }, { "Virginia", "VA" }, { "PR", "PR" },
		{ "Puerto Rico", "PR" }, { "VI", "VI" }, { "U.S. Virgin Islands", "VI" },
		{ "GU", "GU" }, { "guam", "GU" }, { "AS", "AS" },
		{ "American Samoa", "AS" }, { "MP", "MP" },
		{ "Northern Mariana Islands", "MP" }, { "AK", "AK" }, { "HI", "HI" },
		{ "WY", "WY" }, { "\xC2\xA0" "ca\t", "CA" },
	};
	for (size_t i = 0; i < N(ok); i++) {
		char out[NORM_STATE_SIZE] = "";
		if (norm_state(ok[i].in, strlen(ok[i].in), out, NULL) != CODE_OK ||
		    strcmp(out, ok[i].out) != 0) {
			print_error("state \"%s\" gave \"%s\"\n", ok[i].in, out);
			fail();
		}
	}
	const char *codes[] = {
		"AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI",
		"ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI",
		"MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
		"ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT",
		"VT", "VA", "WA", "WV", "WI", "WY", "DC", "PR", "VI", "GU", "AS",
		"MP",
	};
	for (size_t i = 0; i < N(codes); i++) {
		char out[NORM_STATE_SIZE];
		assert_int_equal(norm_state(codes[i], 2, out, NULL), CODE_OK);
		assert_string_equal(out, codes[i]);
	}
	const char *bad[] = { "XX", "N", "NYC", "New Yorkk", "Ontario", "ON",
			      "AA", "AE", "1", "N1", "Tex", "\xFF", "n\xC3\xBD",
			      "New-York", "ny\0" };
	for (size_t i = 0; i < N(bad); i++) {
		char out[NORM_STATE_SIZE] = "-";
		enum norm_why why = NORM_WHY_NONE;
		size_t len = strlen(bad[i]) + (i == N(bad) - 1);
		assert_int_equal(norm_state(bad[i], len, out, &why),
				 CODE_TYPE_MISMATCH);
		assert_int_equal(why, NORM_WHY_NOT_STATE);
		assert_string_equal(out, "-");
	}
	enum norm_why why;
	char out[NORM_STATE_SIZE];
	assert_int_equal(norm_state("", 0, out, &why), CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_EMPTY);
	assert_int_equal(norm_state("...", 3, out, &why), CODE_TYPE_MISMATCH);
	char big[200];
	memset(big, 'a', sizeof(big));
	assert_int_equal(norm_state(big, sizeof(big), out, &why),
			 CODE_TYPE_MISMATCH);
}

/* ---- ZIP ---- */

static void test_zips(void **state)
{
	(void)state;
	const struct scase ok[] = {
		{ "12345", "12345" }, { "01234", "01234" }, { "1234", "01234" },
		{ "501", "00501" }, { "12345-6789", "12345-6789" },
		{ "123456789", "12345-6789" }, { "12345678", "01234-5678" },
		{ "1234567", "00123-4567" }, { "1234.0", "01234" },
		{ "12345.00", "12345" }, { "501.0", "00501" },
		{ "123456789.0", "12345-6789" }, { " 02134 ", "02134" },
		{ "\xC2\xA0" "02134-0001\t", "02134-0001" }, { "00000", "00000" },
	};
	for (size_t i = 0; i < N(ok); i++) {
		char out[NORM_ZIP_SIZE] = "";
		if (norm_zip(ok[i].in, strlen(ok[i].in), out, NULL) != CODE_OK ||
		    strcmp(out, ok[i].out) != 0) {
			print_error("zip \"%s\" gave \"%s\"\n", ok[i].in, out);
			fail();
		}
	}
	const char *bad[] = {
		"1", "12", "123456", "1234567890", "12345-678", "12345-67890",
		"1234-5678", "12345-", "-12345", "12345 6789", "ABCDE", "1234A",
		"K1A 0B6", "1234.5", "1234.", ".0", "12,345", "1.2345e4",
		"123456789012345678901234567890", "\xFF", "0x123", "+12345",
		"12345\n6789",
	};
	for (size_t i = 0; i < N(bad); i++) {
		char out[NORM_ZIP_SIZE] = "-";
		enum norm_why why = NORM_WHY_NONE;
		if (norm_zip(bad[i], strlen(bad[i]), out, &why) != CODE_TYPE_MISMATCH ||
		    why != NORM_WHY_NOT_ZIP || strcmp(out, "-") != 0) {
			print_error("zip \"%s\" accepted as \"%s\"\n", bad[i], out);
			fail();
		}
	}
	enum norm_why why;
	char out[NORM_ZIP_SIZE];
	assert_int_equal(norm_zip(" ", 1, out, &why), CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_EMPTY);
	assert_int_equal(norm_zip("12345\0", 6, out, &why), CODE_TYPE_MISMATCH);
}

/* ---- Whole fields ---- */

static void test_field_dispatch(void **state)
{
	struct arena *a = *state;
	struct norm_value v;
	enum norm_why why = NORM_WHY_NONE;
	assert_int_equal(norm_field(a, FIELD_JOB_CODE, " J-1 ", 5, WUNIT_NONE,
				    &v, &why), CODE_OK);
	assert_false(v.blank);
	assert_string_equal(v.text, "J-1");
	assert_int_equal(norm_field(a, FIELD_LOAD_DATE, "1/5/26", 6, WUNIT_NONE,
				    &v, &why), CODE_OK);
	assert_string_equal(v.text, "2026-01-05");
	assert_int_equal(norm_field(a, FIELD_WEIGHT, "12.5 t", 6, WUNIT_NONE, &v,
				    &why), CODE_OK);
	assert_string_equal(v.text, "27557.75");
	assert_int_equal(v.num, 2755775);
	assert_true(v.converted);
	assert_int_equal(norm_field(a, FIELD_WEIGHT, "12.5", 4, WUNIT_TON, &v,
				    &why), CODE_OK);
	assert_string_equal(v.text, "25000");
	assert_true(v.converted);
	assert_int_equal(norm_field(a, FIELD_WEIGHT_UNIT, "Tons", 4, WUNIT_NONE,
				    &v, &why), CODE_OK);
	assert_string_equal(v.text, "ton");
	assert_int_equal(v.num, WUNIT_TON);
	assert_int_equal(norm_field(a, FIELD_RATE, "$1,250", 6, WUNIT_NONE, &v,
				    &why), CODE_OK);
	assert_string_equal(v.text, "1250.00");
	assert_int_equal(v.num, 125000);
	assert_int_equal(norm_field(a, FIELD_PICKUP_STATE, "texas", 5,
				    WUNIT_NONE, &v, &why), CODE_OK);
	assert_string_equal(v.text, "TX");
	assert_int_equal(norm_field(a, FIELD_DROPOFF_ZIP, "2134", 4, WUNIT_NONE,
				    &v, &why), CODE_OK);
	assert_string_equal(v.text, "02134");
	assert_int_equal(v.len, 5);
	/* PRODUCT §8 (issue 22 item 6): a ZIP that is not one does not fail
	 * the row; it is kept as written (trimmed), and the location made with
	 * it gets ADDRESS_NOT_GEOCODED. */
	static const char *const kept[] = {"ABCDE", "TBD", "K1A 0B6", "123456", "1234-5678", "N/A",
					   "pas de code postal", "12345678901234567890"};
	for (size_t i = 0; i < N(kept); i++) {
		char cell[64];
		snprintf(cell, sizeof cell, "  %s ", kept[i]);
		assert_int_equal(norm_field(a, FIELD_PICKUP_ZIP, cell, strlen(cell), WUNIT_NONE, &v, &why), CODE_OK);
		assert_string_equal(v.text, kept[i]);
		assert_int_equal(v.len, strlen(kept[i]));
	}
	/* What no address could hold still fails. */
	assert_int_equal(norm_field(a, FIELD_PICKUP_ZIP, "123456789012345678901", 21, WUNIT_NONE, &v, &why),
			 CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_NOT_ZIP);
	assert_int_equal(norm_field(a, FIELD_PICKUP_ZIP, "AB\0CD", 5, WUNIT_NONE, &v, &why), CODE_TYPE_MISMATCH);
	assert_int_equal(norm_field(a, FIELD_PICKUP_ZIP, "AB\xff", 3, WUNIT_NONE, &v, &why), CODE_TYPE_MISMATCH);
}

static void test_field_blank_and_required(void **state)
{
	struct arena *a = *state;
	struct norm_value v;
	enum norm_why why = NORM_WHY_NONE;
	for (int f = 0; f < FIELD__COUNT; f++) {
		enum code rc = norm_field(a, (enum field)f, " \t", 2, WUNIT_NONE,
					  &v, &why);
		if (field_required((enum field)f)) {
			assert_int_equal(rc, CODE_MISSING_REQUIRED);
			assert_int_equal(why, NORM_WHY_EMPTY);
		} else {
			assert_int_equal(rc, CODE_OK);
			assert_true(v.blank);
			assert_null(v.text);
		}
		/* Unmapped: NULL, 0. */
		rc = norm_field(a, (enum field)f, NULL, 0, WUNIT_NONE, &v, &why);
		assert_int_equal(rc, field_required((enum field)f) ?
				 CODE_MISSING_REQUIRED : CODE_OK);
	}
	assert_int_equal(norm_field(a, FIELD__COUNT, "x", 1, WUNIT_NONE, &v, &why),
			 CODE_TYPE_MISMATCH);
}

static void test_field_caps(void **state)
{
	struct arena *a = *state;
	struct norm_value v;
	enum norm_why why = NORM_WHY_NONE;
	char big[10240];
	memset(big, '1', sizeof(big));
	/* Every field rejects 10 kB; typed ones with their own reason. */
	for (int f = 0; f < FIELD__COUNT; f++) {
		enum code rc = norm_field(a, (enum field)f, big, sizeof(big),
					  WUNIT_NONE, &v, &why);
		assert_int_equal(rc, CODE_TYPE_MISMATCH);
		if (field_type((enum field)f) == FTYPE_TEXT)
			assert_int_equal(why, NORM_WHY_TOO_LONG);
		else
			assert_int_not_equal(why, NORM_WHY_TOO_LONG);
	}
	memset(big, 'x', 65);
	assert_int_equal(norm_field(a, FIELD_LOAD_NO, big, 64, WUNIT_NONE, &v,
				    &why), CODE_OK);
	assert_int_equal(norm_field(a, FIELD_LOAD_NO, big, 65, WUNIT_NONE, &v,
				    &why), CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_TOO_LONG);
	assert_int_equal(norm_field(a, FIELD_NOTES, "a\0b", 3, WUNIT_NONE, &v,
				    &why), CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_NUL);
	assert_int_equal(norm_field(a, FIELD_WEIGHT, "5 kg", 4, WUNIT_LB, &v,
				    &why), CODE_TYPE_MISMATCH);
	assert_int_equal(why, NORM_WHY_UNIT_CONFLICT);
}

/* ---- Messages ---- */

static void message_is(struct arena *a, enum field f, enum code c,
		       enum norm_why why, const char *raw, const char *norm,
		       const char *want)
{
	const char *m = norm_message(a, f, c, why, raw, raw ? strlen(raw) : 0,
				     norm);
	if (strcmp(m, want) != 0) {
		print_error("message:\n got  %s\n want %s\n", m, want);
		fail();
	}
}

static void test_messages(void **state)
{
	struct arena *a = *state;
	message_is(a, FIELD_LOAD_DATE, CODE_TYPE_MISMATCH, NORM_WHY_NOT_DATE,
		   "13/45", NULL,
		   "loadDate \"13/45\" is not a date: use YYYY-MM-DD or M/D/YYYY.");
	message_is(a, FIELD_LOAD_DATE, CODE_TYPE_MISMATCH, NORM_WHY_NO_SUCH_DAY,
		   "13/45/2026", NULL,
		   "loadDate \"13/45/2026\" is not a date (there is no such day): "
		   "use YYYY-MM-DD or M/D/YYYY, month first.");
	message_is(a, FIELD_JOB_CODE, CODE_MISSING_REQUIRED, NORM_WHY_EMPTY, "",
		   NULL, "jobCode is required but the cell is empty or no column "
		   "is mapped to it: fill it in.");
	message_is(a, FIELD_WEIGHT, CODE_UNIT_NORMALIZED, NORM_WHY_NONE,
		   "12.5 t", "27557.75",
		   "weight \"12.5 t\" was converted to 27557.75 lb: nothing to do "
		   "if that is right; send pounds to avoid the conversion.");
	message_is(a, FIELD_WEIGHT, CODE_TYPE_MISMATCH, NORM_WHY_UNKNOWN_UNIT,
		   "12 stone", NULL,
		   "weight \"12 stone\" has a unit that is not known: use lb, lbs, "
		   "#, ton, tons, tn, t, tonne, mt or kg.");
	message_is(a, FIELD_RATE, CODE_TYPE_MISMATCH, NORM_WHY_NEGATIVE, "-5",
		   NULL, "rate \"-5\" is negative: a rate must be zero or more.");
	message_is(a, FIELD_PICKUP_ZIP, CODE_TYPE_MISMATCH, NORM_WHY_NOT_ZIP,
		   "1234X", NULL, "pickupZip \"1234X\" is not a ZIP code: use 5 "
		   "digits (01234) or ZIP+4 (01234-5678).");
	message_is(a, FIELD_DROPOFF_STATE, CODE_TYPE_MISMATCH, NORM_WHY_NOT_STATE,
		   "Nowhere", NULL, "dropoffState \"Nowhere\" is not a US state: "
		   "use the USPS code (e.g. NY) or the full name (New York).");
	message_is(a, FIELD_CUSTOMER, CODE_LOOKUP_MISS, NORM_WHY_NONE, "Acme",
		   NULL, "customer \"Acme\" matches no saved customer: add it on "
		   "the Customers page of the web app (or POST /api/v1/customers) or "
		   "fix the name; the row was committed without it.");
	message_is(a, FIELD_BRANCH, CODE_LOOKUP_MISS, NORM_WHY_NONE, "North",
		   NULL, "branch \"North\" matches no saved branch: add it on "
		   "the Branches page of the web app (or POST /api/v1/branches) or "
		   "fix the name; the row was committed without it.");
	message_is(a, FIELD_PICKUP_CITY, CODE_LOOKUP_MISS, NORM_WHY_NONE, "Austin",
		   NULL, "The pickup address has a city, state or ZIP but no "
		   "street: add pickupStreet; the load was committed without a "
		   "pickup location.");
	message_is(a, FIELD_PROJECT_DROPOFF_NAME, CODE_LOCATION_NAME_AMBIGUOUS,
		   NORM_WHY_NONE, "Yard A", NULL, "projectDropoffName \"Yard A\" "
		   "matches more than one saved location: the oldest was used; "
		   "the Locations page of the web app lists them; ask your "
		   "Loadline operator to merge the duplicates.");
	/* Every code and reason gives a sentence; hostile raw text is tamed. */
	char big[10240];
	memset(big, '\xFF', sizeof(big));
	big[5] = '\0';
	big[6] = '\n';
	for (int c = 0; c < CODE__COUNT; c++) {
		for (int w = 0; w <= NORM_WHY_NOT_ZIP; w++) {
			const char *m = norm_message(a, FIELD_NOTES, (enum code)c,
						     (enum norm_why)w, big,
						     sizeof(big), NULL);
			assert_non_null(m);
			assert_true(strlen(m) > 10 && strlen(m) < 600);
			assert_null(strchr(m, '\n'));
		}
	}
	const char *m = norm_message(a, FIELD_NOTES, CODE_TYPE_MISMATCH,
				     NORM_WHY_TOO_LONG, "  abcd  ", 8, NULL);
	assert_string_equal(m, "notes \"  abcd  \" is 4 characters long, over "
			    "the limit of 2000: shorten it.");
	m = norm_message(a, FIELD__COUNT, CODE_TYPE_MISMATCH, NORM_WHY_NONE,
			 NULL, 0, NULL);
	assert_non_null(m);
}

/* ---- The examples of docs/jobs-schema.md, run through the real code ---- */

struct doc_case {
	enum field f;
	const char *raw;
	size_t len; /* 0: strlen(raw) */
	enum weight_unit column;
	enum code code;
	const char *message;
};

static const struct doc_case doc_cases[] = {
	{ FIELD_LOAD_DATE, "13/45/2026", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "loadDate \"13/45/2026\" is not a date (there is no such day): use YYYY-MM-DD or M/D/YYYY, month first." },
	{ FIELD_LOAD_DATE, "Jan 5", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "loadDate \"Jan 5\" is not a date: use YYYY-MM-DD or M/D/YYYY." },
	{ FIELD_LOAD_DATE, "0226-01-05", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "loadDate \"0226-01-05\" has a year outside 1900-2199: check the year; use YYYY-MM-DD or M/D/YYYY." },
	{ FIELD_LOAD_DATE, " ", 0, WUNIT_NONE, CODE_MISSING_REQUIRED,
	  "loadDate is required but the cell is empty or no column is mapped to it: fill it in." },
	{ FIELD_WEIGHT, "heavy", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "weight \"heavy\" is not a weight: use a number with an optional unit, e.g. 25000, 12,500.5 lb, 12.5 t or 1,200 kg." },
	{ FIELD_WEIGHT, "12 stone", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "weight \"12 stone\" has a unit that is not known: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg." },
	{ FIELD_WEIGHT, "12 kg", 0, WUNIT_LB, CODE_TYPE_MISMATCH,
	  "weight \"12 kg\" has a unit that differs from the row's weightUnit: give the unit in one place, or make them agree." },
	{ FIELD_WEIGHT, "-5", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "weight \"-5\" is negative: a weight must be zero or more." },
	{ FIELD_WEIGHT, "2,000,000 t", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "weight \"2,000,000 t\" is over 1,000,000,000 lb: check the number and its unit." },
	{ FIELD_WEIGHT_UNIT, "stone", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "weightUnit \"stone\" is not a weight unit: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg." },
	{ FIELD_RATE, "1.255", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "rate \"1.255\" has more than two decimals: round it to whole cents, e.g. 1250.55." },
	{ FIELD_RATE, "-$5", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "rate \"-$5\" is negative: a rate must be zero or more." },
	{ FIELD_RATE, "ten", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "rate \"ten\" is not an amount: use a number such as 1250, 1,250.50 or $1,250.00." },
	{ FIELD_PICKUP_STATE, "Ontario", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "pickupState \"Ontario\" is not a US state: use the USPS code (e.g. NY) or the full name (New York)." },
	{ FIELD_PICKUP_ZIP, "see the dispatcher's notes", 0, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "pickupZip \"see the dispatcher's notes\" is not a ZIP code: use 5 digits (01234) or ZIP+4 (01234-5678)." },
	{ FIELD_NOTES, "a\0b", 3, WUNIT_NONE, CODE_TYPE_MISMATCH,
	  "notes \"a\xEF\xBF\xBD" "b\" contains a NUL character: remove it from the cell." },
	{ FIELD_WEIGHT, "12.5 t", 0, WUNIT_NONE, CODE_UNIT_NORMALIZED,
	  "weight \"12.5 t\" was converted to 27557.75 lb: nothing to do if that is right; send pounds to avoid the conversion." },
};

/* Each example gets its code and exact message from norm_field() and
 * norm_message(), as the pipeline would produce them. */
static void test_doc_examples(void **state)
{
	struct arena *a = *state;
	for (size_t i = 0; i < N(doc_cases); i++) {
		const struct doc_case *c = &doc_cases[i];
		size_t len = c->len ? c->len : strlen(c->raw);
		struct norm_value v = { 0 };
		enum norm_why why = NORM_WHY_NONE;
		enum code rc = norm_field(a, c->f, c->raw, len, c->column, &v, &why);
		if (rc == CODE_OK && v.converted)
			rc = CODE_UNIT_NORMALIZED;
		const char *m = norm_message(a, c->f, rc, why, c->raw, len, v.text);
		if (rc != c->code || strcmp(m, c->message) != 0) {
			print_error("example %zu: rc %d\n got  %s\n want %s\n", i,
				    rc, m, c->message);
			fail();
		}
	}
}

static char *read_doc(void)
{
	const char *root = getenv("LOADLINE_SOURCE_ROOT");
	char path[4096];
	snprintf(path, sizeof(path), "%s/docs/jobs-schema.md", root ? root : ".");
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	static char doc[256 * 1024];
	size_t n = fread(doc, 1, sizeof(doc) - 1, fp);
	fclose(fp);
	doc[n] = '\0';
	return doc;
}

/* The user docs cannot drift from the code: every field, every per-row
 * code and every example message above appears in docs/jobs-schema.md. */
static void test_doc_matches_code(void **state)
{
	(void)state;
	const char *doc = read_doc();
	assert_non_null(doc);
	char want[128];
	for (int f = 0; f < FIELD__COUNT; f++) {
		snprintf(want, sizeof(want), "`%s`", field_name((enum field)f));
		if (!strstr(doc, want)) {
			print_error("docs/jobs-schema.md lacks %s\n", want);
			fail();
		}
	}
	for (int c = 1; c < CODE__COUNT; c++) {
		enum code_kind k = code_kind((enum code)c);
		if (k != CODE_KIND_ROW_ERROR && k != CODE_KIND_ROW_WARNING)
			continue;
		snprintf(want, sizeof(want), "| `%s` |", code_name((enum code)c));
		if (!strstr(doc, want)) {
			print_error("docs/jobs-schema.md lacks a row for %s\n", want);
			fail();
		}
	}
	for (size_t i = 0; i < N(doc_cases); i++) {
		if (!strstr(doc, doc_cases[i].message)) {
			print_error("docs/jobs-schema.md lacks: %s\n",
				    doc_cases[i].message);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_decoder),
		cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_trim),
		cmocka_unit_test_setup_teardown(test_excerpt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_length_in_characters,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_10kb, setup, teardown),
		cmocka_unit_test(test_dates_accepted),
		cmocka_unit_test(test_dates_rejected),
		cmocka_unit_test(test_dates_every_day),
		cmocka_unit_test(test_weights_accepted),
		cmocka_unit_test(test_weights_rejected),
		cmocka_unit_test(test_weight_huge_input),
		cmocka_unit_test(test_weight_units),
		cmocka_unit_test(test_format_centilb),
		cmocka_unit_test(test_money_accepted),
		cmocka_unit_test(test_money_rejected),
		cmocka_unit_test(test_format_cents),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_zips),
		cmocka_unit_test_setup_teardown(test_field_dispatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_blank_and_required,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doc_examples, setup, teardown),
		cmocka_unit_test(test_doc_matches_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
