/* The mapping corpus must not score worse than the figures recorded in
 * docs/benchmarks.md (PRODUCT §14 "Measured"): each file's columns right,
 * files with no edit and required fields found are at least the floor
 * below.  Raise a floor when the proposer gets better; never lower one to
 * make a change pass.  argv: the corpus directory (bench/corpus). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "corpus.h"

static const char *corpus_dir = "bench/corpus";

static const struct {
	const char *file;
	size_t right, no_edit, found; /* floors */
} floors[] = {
	{ "tune_a.txt", 276, 18, 33 },
	{ "heldout_a.txt", 263, 17, 33 },
	{ "late.txt", 80, 4, 7 },
	{ "tune_b.txt", 271, 16, 28 },
	{ "heldout_b.txt", 483, 27, 51 },
	{ "late_b.txt", 188, 3, 12 },
};

static void test_corpus_floors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof floors / sizeof floors[0]; i++) {
		char path[1024];
		struct corpus_score s;
		snprintf(path, sizeof path, "%s/%s", corpus_dir, floors[i].file);
		assert_int_equal(corpus_score_file(path, false, NULL, &s), 0);
		corpus_print(stdout, floors[i].file, &s);
		if (s.right < floors[i].right || s.no_edit < floors[i].no_edit || s.found < floors[i].found)
			fail_msg("%s fell below its recorded figures (%zu columns, %zu files no edit, %zu required)",
				 floors[i].file, floors[i].right, floors[i].no_edit, floors[i].found);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		corpus_dir = argv[1];
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_corpus_floors) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
