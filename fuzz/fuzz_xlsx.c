/* libFuzzer target: the XLSX reader.  The first byte picks what the rest
 * is: the whole file (any byte that is 0 mod 5, as 'P' of "PK" is, so real
 * .xlsx files are seeds as they are), or one XML part placed in an
 * otherwise valid package, so that mutations reach the XML handling instead
 * of dying on zip checksums. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/sheet_int.h"
#include "xlsxgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const parts[] = {
	NULL, "xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml",
};

static void read_all(const void *file, size_t len)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = 64;
	lim.max_uncompressed = 4u * 1024 * 1024;  /* keeps each run fast */
	struct sheet *s = NULL;
	const char *msg = NULL;
	if (sheet_open(file, len, &lim, &s, &msg)) {
		assert(!s && msg && msg[0]);
		return;
	}
	unsigned last = sheet_header(s)->number;
	for (;;) {
		const struct sheet_row *row;
		if (sheet_next_row(s, &row) || !row)
			break;
		assert(row->number > last);
		last = row->number;
		assert(row->ncells <= SHEET_MAX_COLUMNS);
		for (size_t i = 0; i < row->ncells; i++) {
			assert(strlen(row->cells[i]) == row->lens[i]);
			assert(utf8_valid_prefix(row->cells[i], row->lens[i]) == row->lens[i]);
		}
	}
	sheet_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *part = parts[data[0] % 5];
	if (!part) {
		read_all(data, size);
		return 0;
	}
	struct xg_part over = {part, data + 1, size - 1};
	void *file;
	size_t len;
	if (xlsxgen_workbook(&over, 1, 0, &file, &len))
		return 0;
	read_all(file, len);
	free(file);
	return 0;
}
