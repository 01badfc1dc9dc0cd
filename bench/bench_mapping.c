/* The mapping benchmark (PRODUCT §14 "Measured", docs/benchmarks.md): the
 * share of columns proposed right, of files needing no edit, and of
 * required fields found when the file has them, per corpus file and over
 * all.  Usage: bench_mapping [-v] [--headers-only] FILE...  (default: the
 * corpus under BENCH_SOURCE_DIR/bench/corpus and the proposal sets under
 * tests/unit/import).  -v lists every miss. */
#include <stdio.h>
#include <string.h>

#include "corpus.h"

static const char *const default_files[] = {
	"bench/corpus/tune_a.txt", "bench/corpus/heldout_a.txt", "bench/corpus/late.txt",
	"bench/corpus/tune_b.txt", "bench/corpus/heldout_b.txt", "bench/corpus/late_b.txt",
	"tests/unit/import/proposals.txt", "tests/unit/import/proposals_holdout.txt",
	"tests/unit/import/proposals_holdout2.txt", "tests/unit/import/proposals_holdout3.txt",
};

int main(int argc, char **argv)
{
	bool verbose = false, headers_only = false;
	const char *files[64];
	char paths[64][1024];
	int n = 0;
	for (int i = 1; i < argc && n < 64; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--headers-only"))
			headers_only = true;
		else
			files[n++] = argv[i];
	}
	for (size_t i = 0; n == 0 && i < sizeof default_files / sizeof default_files[0]; i++) {
		snprintf(paths[i], sizeof paths[i], "%s/%s", BENCH_SOURCE_DIR, default_files[i]);
		files[i] = paths[i];
		if (i + 1 == sizeof default_files / sizeof default_files[0])
			n = (int)i + 1;
	}
	struct corpus_score all = { 0 };
	int rc = 0;
	for (int i = 0; i < n; i++) {
		struct corpus_score s;
		if (corpus_score_file(files[i], headers_only, verbose ? stdout : NULL, &s)) {
			rc = 1;
			continue;
		}
		const char *base = strrchr(files[i], '/');
		corpus_print(stdout, base ? base + 1 : files[i], &s);
		corpus_add(&all, &s);
	}
	corpus_print(stdout, "all", &all);
	return rc;
}
