/* Unit test of what a streamed import keeps of the rows already read
 * (src/import/keyset.c, PRODUCT §16): the first row and content of each
 * key, through the table's growth, in 16 bytes a key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "import/keyset.h"

static void test_first_row_and_content_kept_through_growth(void **state)
{
	(void)state;
	struct keyset *k = keyset_new();
	char job[32], no[32];
	const int n = 300000;
	for (int i = 0; i < n; i++) {
		snprintf(job, sizeof job, "J%d", i % 97);
		snprintf(no, sizeof no, "L%07d", i);
		assert_false(keyset_put(k, keyset_hash(job, no), (uint32_t)i + 2, (uint32_t)i * 7u, NULL, NULL));
	}
	assert_int_equal(keyset_count(k), n);
	for (int i = 0; i < n; i += 997) {
		snprintf(job, sizeof job, "J%d", i % 97);
		snprintf(no, sizeof no, "L%07d", i);
		uint32_t row = 0, content = 0;
		/* A repeat gets the first row's number and content back. */
		assert_true(keyset_put(k, keyset_hash(job, no), 99, 99, &row, &content));
		assert_int_equal(row, (uint32_t)i + 2);
		assert_int_equal(content, (uint32_t)i * 7u);
	}
	assert_int_equal(keyset_count(k), n);
	/* 16 bytes a slot, doubled when 3/4 full: at most 8 MiB here. */
	assert_true(keyset_bytes(k) <= ((size_t)8 << 20) + 64);
	keyset_free(k);
}

/* A counted file reserves its keys once (issue 29's memory goal): a
 * million keys take about 21 MB, and the table never doubles after. */
static void test_reserved_for_a_count_never_doubles(void **state)
{
	(void)state;
	struct keyset *k = keyset_new();
	const int n = 1000000;
	keyset_put(k, keyset_hash("J", "first"), 2, 1, NULL, NULL);   /* kept through the resize */
	keyset_reserve(k, (size_t)n);
	size_t reserved = keyset_bytes(k);
	assert_true(reserved <= (size_t)n * 16 * 4 / 3 + 1024);
	char no[32];
	for (int i = 1; i < n; i++) {
		snprintf(no, sizeof no, "%d", i);
		assert_false(keyset_put(k, keyset_hash("J", no), (uint32_t)i + 2, 0, NULL, NULL));
	}
	assert_int_equal(keyset_bytes(k), reserved);
	uint32_t row = 0;
	assert_true(keyset_put(k, keyset_hash("J", "first"), 9, 9, &row, NULL));
	assert_int_equal(row, 2);
	assert_true(keyset_has(k, keyset_hash("J", "999999")));
	assert_false(keyset_has(k, keyset_hash("J", "1000000")));
	keyset_free(k);
}

/* A small table filled to its limit: probes wrap from the last slot to
 * the first. */
static void test_probes_wrap_around(void **state)
{
	(void)state;
	struct keyset *k = keyset_new();
	keyset_reserve(k, 3);   /* stays at the first table's size */
	for (uint64_t key = 1; key <= 700; key++)
		assert_false(keyset_put(k, key * 0x9e3779b97f4a7c15ull, (uint32_t)key, 0, NULL, NULL));
	for (uint64_t key = 1; key <= 700; key++)
		assert_true(keyset_has(k, key * 0x9e3779b97f4a7c15ull));
	assert_int_equal(keyset_count(k), 700);
	keyset_free(k);
}

static void test_join_is_not_concatenation(void **state)
{
	(void)state;
	/* ("AB", "C") and ("A", "BC") are other keys; a job alone is another
	 * key than the job with an empty load number. */
	assert_true(keyset_hash("AB", "C") != keyset_hash("A", "BC"));
	assert_true(keyset_hash("J", NULL) != keyset_hash("J", ""));
	struct keyset *k = keyset_new();
	assert_false(keyset_has(k, keyset_hash("J", NULL)));
	keyset_put(k, keyset_hash("J", NULL), 0, 0, NULL, NULL);
	assert_true(keyset_has(k, keyset_hash("J", NULL)));
	keyset_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_row_and_content_kept_through_growth),
		cmocka_unit_test(test_join_is_not_concatenation),
		cmocka_unit_test(test_reserved_for_a_count_never_doubles),
		cmocka_unit_test(test_probes_wrap_around),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
