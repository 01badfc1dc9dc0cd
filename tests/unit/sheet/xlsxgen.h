/* Test helper: builds XLSX packages in memory from XML strings, so that unit
 * tests, the fuzzer and the benchmark can make exact (and hostile) workbooks
 * without files.  Not part of the product. */
#ifndef LOADLINE_TESTS_XLSXGEN_H
#define LOADLINE_TESTS_XLSXGEN_H

#include <stddef.h>

struct xg_part {
	const char *name;
	const void *data;
	size_t len;       /* (size_t)-1: strlen(data) */
};

/* Zips parts (deflated when compress, else stored).  Returns 0 and a
 * malloc'ed package in *ret_data, or -1. */
int xlsxgen_zip(const struct xg_part *parts, size_t n, int compress, void **ret_data,
		size_t *ret_len);

/* A minimal valid workbook (one sheet, shared strings, styles with a date
 * style at index 1), with the named parts replaced or added by `over`
 * (data NULL removes a part).  Returns as xlsxgen_zip. */
int xlsxgen_workbook(const struct xg_part *over, size_t n, int compress, void **ret_data,
		     size_t *ret_len);

#endif
