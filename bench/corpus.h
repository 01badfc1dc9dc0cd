/* The mapping corpus (bench/corpus/ and tests/unit/import/proposals files):
 * header rows of real files with the mapping a dispatcher would confirm and,
 * optionally, data rows; and the three figures PRODUCT §14 "Measured" asks
 * for.  Used by bench/bench_mapping.c (make bench) and by the unit test
 * that keeps the figures from dropping (tests/unit/import/test_corpus.c).
 * The format is described at the top of bench/corpus/heldout_a.txt. */
#ifndef LOADLINE_BENCH_CORPUS_H
#define LOADLINE_BENCH_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/schema.h"

struct corpus_score {
	size_t rows;             /* header rows (files) */
	size_t columns, right;   /* columns, and those proposed as labelled */
	size_t no_edit;          /* files whose required fields all land right */
	size_t required, found;  /* required fields the files have, and found */
};

/* Scores every header row of the file at path, with its data rows as the
 * values evidence unless headers_only.  Prints each miss to log when log is
 * not NULL.  Returns 0, or -1 when the file cannot be read or a line is
 * malformed (the message goes to stderr). */
int corpus_score_file(const char *path, bool headers_only, FILE *log, struct corpus_score *ret);

/* Adds b into a. */
void corpus_add(struct corpus_score *a, const struct corpus_score *b);

/* One line: "<name>: 812/831 columns (97.7%), 77/80 files no edit, 120/124 required found". */
void corpus_print(FILE *out, const char *name, const struct corpus_score *s);

#endif
