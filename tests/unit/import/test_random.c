/* Randomized property tests for src/import: many generated cells built from
 * the pieces real and hostile cells are made of, through every normalizer
 * and key function.  Whatever is accepted must be in canonical form and
 * read back to itself; nothing may crash (run under ASan+UBSan).  The
 * generator is seeded, so a failure reproduces. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/names.h"
#include "model/normalize.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ROUNDS 100000

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
	/* xorshift64*: tiny, deterministic, good enough to spread cases. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static const char *const pieces[] = {
	"0", "1", "2", "5", "9", "12", "29", "31", "69", "70", "99", "2024",
	"2026", "1900", "123456789", "99999999999999999999", ",", ",000", ".",
	".5", "-", "+", "/", ":", "T", "Z", " ", "  ", "\t", "\n", "\r",
	"\xC2\xA0", "\xE3\x80\x80", "\xEF\xBB\xBF", "\xE2\x80\x8B", "$", "#",
	"lb", "lbs", "t", "ton", "kg", "MT", "e", "E5", "NaN", "inf", "AM",
	"pm", "New", "York", "ny", "D.C.", "Street", "St.", "Main", "\xC3\xA9",
	"e\xCC\x81", "\xC3\x9F", "\xCE\xA3", "\xFF", "\xC3", "\xED\xA0\x80",
	"\xF0\x9F\x9A\x9A", "\x01", "\x1F", "", "A", "z", "(", ")", "'", "\"",
};

/* Fills buf with 0..12 random pieces; returns the length (NUL possible). */
static size_t gen(char *buf, size_t cap)
{
	size_t len = 0, count = next() % 13;
	for (size_t i = 0; i < count; i++) {
		const char *p = pieces[next() % N(pieces)];
		size_t n = strlen(p);
		if (next() % 97 == 0) {
			p = "\0";
			n = 1;
		}
		if (len + n > cap)
			break;
		memcpy(buf + len, p, n);
		len += n;
	}
	return len;
}

static bool valid_utf8(const char *s, size_t len)
{
	size_t i = 0, n;
	while (i < len) {
		if (norm_utf8_next(s + i, len - i, &n) < 0)
			return false;
		i += n;
	}
	return true;
}

static void check_date(const char *s, size_t len)
{
	char out[NORM_DATE_SIZE], again[NORM_DATE_SIZE];
	if (norm_date(s, len, out, NULL) != CODE_OK)
		return;
	assert_int_equal(strlen(out), 10);
	assert_true(out[4] == '-' && out[7] == '-');
	assert_int_equal(norm_date(out, 10, again, NULL), CODE_OK);
	assert_string_equal(out, again);
}

static void check_weight(const char *s, size_t len, enum weight_unit u)
{
	int64_t v, back;
	bool conv, conv2;
	if (norm_weight(s, len, u, &v, &conv, NULL) != CODE_OK)
		return;
	assert_true(v >= 0 && v <= NORM_MAX_CENTILB);
	char out[NORM_NUM_SIZE];
	norm_format_centilb(v, out, sizeof(out));
	assert_int_equal(norm_weight(out, strlen(out), WUNIT_NONE, &back, &conv2,
				     NULL), CODE_OK);
	assert_int_equal(back, v);
	assert_false(conv2);
}

static void check_money(const char *s, size_t len)
{
	int64_t v, back;
	if (norm_money(s, len, &v, NULL) != CODE_OK)
		return;
	assert_true(v >= 0 && v <= NORM_MAX_CENTS);
	char out[NORM_NUM_SIZE];
	norm_format_cents(v, out, sizeof(out));
	assert_int_equal(norm_money(out, strlen(out), &back, NULL), CODE_OK);
	assert_int_equal(back, v);
}

static void check_state_zip(const char *s, size_t len)
{
	char st[NORM_STATE_SIZE], st2[NORM_STATE_SIZE];
	if (norm_state(s, len, st, NULL) == CODE_OK) {
		assert_int_equal(strlen(st), 2);
		assert_int_equal(norm_state(st, 2, st2, NULL), CODE_OK);
		assert_string_equal(st, st2);
	}
	char z[NORM_ZIP_SIZE], z2[NORM_ZIP_SIZE];
	if (norm_zip(s, len, z, NULL) == CODE_OK) {
		assert_true(strlen(z) == 5 || (strlen(z) == 10 && z[5] == '-'));
		assert_int_equal(norm_zip(z, strlen(z), z2, NULL), CODE_OK);
		assert_string_equal(z, z2);
	}
}

static void check_text(struct arena *a, const char *s, size_t len)
{
	char *out, *again;
	size_t n, n2;
	if (norm_text(a, s, len, 40, &out, &n, NULL) != CODE_OK)
		return;
	assert_true(valid_utf8(out, n));
	assert_null(memchr(out, '\0', n));
	size_t tn;
	assert_ptr_equal(norm_trim(out, n, &tn), out);
	assert_int_equal(tn, n);
	assert_int_equal(norm_text(a, out, n, 40, &again, &n2, NULL), CODE_OK);
	assert_int_equal(n, n2);
	assert_memory_equal(out, again, n);
}

static void check_keys(struct arena *a, const char *s, size_t len)
{
	char *k = name_key(a, s, len);
	if (k) {
		/* A key is its own key: matching is an equivalence. */
		assert_string_equal(name_key(a, k, strlen(k)), k);
	}
	for (int p = PART_NAME; p < PART__COUNT; p++) {
		char *pk = name_address_part_key(a, (enum addr_part)p, s, len);
		if (!pk)
			continue;
		if (p != PART_NAME) /* name keys keep controls, like names */
			assert_null(strchr(pk, '\x1f'));
		assert_string_equal(name_address_part_key(a, (enum addr_part)p, pk,
							  strlen(pk)), pk);
	}
	char *e = norm_excerpt(a, s, len, 10);
	assert_true(valid_utf8(e, strlen(e)));
	e = norm_quote(a, s, len, 10);
	assert_true(valid_utf8(e, strlen(e)));
	for (const char *q = e; *q; q++)
		assert_true((unsigned char)*q >= 0x20 && *q != 0x7F);
}

static void test_random_cells(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	char buf[256];
	for (int i = 0; i < ROUNDS; i++) {
		size_t len = gen(buf, sizeof(buf));
		check_date(buf, len);
		check_weight(buf, len, (enum weight_unit)(next() % 5));
		check_money(buf, len);
		check_state_zip(buf, len);
		check_text(a, buf, len);
		check_keys(a, buf, len);
		for (int f = 0; f < FIELD__COUNT; f++) {
			struct norm_value v;
			enum norm_why why = NORM_WHY_NONE;
			enum code rc = norm_field(a, (enum field)f, buf, len,
						  WUNIT_NONE, &v, &why);
			assert_true(rc == CODE_OK || rc == CODE_TYPE_MISMATCH ||
				    rc == CODE_MISSING_REQUIRED);
			if (rc != CODE_OK && next() % 8 == 0)
				assert_non_null(norm_message(a, (enum field)f, rc,
							     why, buf, len, NULL));
		}
		if (i % 256 == 0)
			arena_reset(a);
	}
	arena_free(a);
}

/* Exact rounding against an independent computation in long double, for
 * values far from a tie (where a binary float cannot be off by a cent). */
static void test_random_conversions(void **state)
{
	(void)state;
	static const struct {
		const char *word;
		long double lb;
	} units[] = { { "lb", 1.0L }, { "ton", 2000.0L }, { "t", 2204.62L },
		      { "kg", 2.20462L } };
	int checked = 0;
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t whole = next() % 100000, frac = next() % 1000;
		size_t u = next() % N(units);
		char cell[64];
		snprintf(cell, sizeof(cell), "%llu.%03llu %s",
			 (unsigned long long)whole, (unsigned long long)frac,
			 units[u].word);
		long double exact = ((long double)whole + (long double)frac / 1000.0L) *
				    units[u].lb * 100.0L;
		long double r = exact - (long double)(int64_t)exact;
		if (r > 0.499L && r < 0.501L)
			continue; /* too near a tie for the float reference */
		int64_t v;
		bool conv;
		assert_int_equal(norm_weight(cell, strlen(cell), WUNIT_NONE, &v,
					     &conv, NULL), CODE_OK);
		assert_int_equal(v, (int64_t)(exact + 0.5L));
		assert_int_equal(conv, u != 0);
		checked++;
	}
	assert_true(checked > ROUNDS / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_cells),
		cmocka_unit_test(test_random_conversions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
