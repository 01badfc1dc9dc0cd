/* What a column's first data rows say about the field it holds (PRODUCT
 * §14 "Mapping from values"): a type profile of up to VP_MAX_ROWS values
 * (dates, ZIP codes, state codes, weights with units, money, distinct
 * codes, uniqueness) and how well it fits each schema field.  The header
 * proposer (propose.c) combines this evidence with the header's.  Pure
 * functions, no I/O, no global state; cells are untrusted bytes (any
 * length, not UTF-8, NUL inside): only the first VP_CELL_CAP bytes of a
 * cell are read. */
#ifndef LOADLINE_IMPORT_VALUE_PROFILE_H
#define LOADLINE_IMPORT_VALUE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/schema.h"
#include "sheet/sheet.h"

#define VP_MAX_ROWS 50   /* data rows read (PRODUCT §14: the first 50) */
#define VP_MIN_VALUES 3  /* fewer non-blank values say nothing */
#define VP_CELL_CAP 128  /* bytes of a cell read: no date, ZIP or code is longer */

/* Counts over the non-blank values of one column.  A value may count in
 * several kinds ("12345" is a ZIP, a number and a code). */
struct value_profile {
	int n;            /* non-blank values read */
	int dates;        /* calendar dates (norm_date) */
	int times;        /* of those, with a time of day: timestamps */
	int zips;         /* 5 or 9 digits, or 5-4 */
	int states;       /* USPS codes or state names */
	int numbers;      /* plain non-negative decimals ("24.5", "12,500") */
	int unit_weights; /* a number with a weight unit ("24.5 tons") */
	int unit_words;   /* a weight unit alone ("lb", "tons") */
	int money;        /* a number with a currency sign ("$1,200.00") */
	int codes;        /* one token of letters and digits with a digit ("L-1001") */
	int words;        /* text with letters and a space ("Acme Sand") */
	int streets;      /* a house number then words ("12 Main St") */
	int equipment;    /* a kind of truck or trailer ("Dry Van", "End Dump") */
	int distinct;     /* distinct values */
	bool counter;     /* consecutive integers from 0 or 1: a row counter */
};

/* Profiles column col of rows[0..nrows) (at most VP_MAX_ROWS are read;
 * rows shorter than col + 1 cells count as blank there).  rows may be
 * NULL when nrows is 0.  Never fails. */
void vp_read(const struct sheet_row *const *rows, size_t nrows, size_t col, struct value_profile *ret);

/* How well the values fit field f: -100 (such values cannot be f), 0 (they
 * say nothing: fewer than VP_MIN_VALUES, or free text), up to 100 (values
 * of this shape are hardly anything else).  See docs/column-mapping.md. */
int vp_fit(const struct value_profile *p, enum field f);

/* A short phrase saying what the values are ("dates", "unique codes"),
 * for the review screen; "" when they say nothing. */
const char *vp_describe(const struct value_profile *p);

#endif
