/* libFuzzer target: the CSV reader through the public API, checking the
 * invariants every caller relies on (UTF-8 cells, lengths, row numbers). */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "sheet/sheet.h"
#include "sheet/sheet_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_row(const struct sheet_row *row, unsigned *last)
{
	assert(row->number > *last);
	*last = row->number;
	assert(row->ncells <= SHEET_MAX_COLUMNS);
	for (size_t i = 0; i < row->ncells; i++) {
		assert(strlen(row->cells[i]) == row->lens[i]);
		assert(utf8_valid_prefix(row->cells[i], row->lens[i]) == row->lens[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = 64;  /* small, so that TOO_MANY_ROWS is reached too */
	struct sheet *s = NULL;
	const char *msg = NULL;
	enum code rc = sheet_open(data, size, &lim, &s, &msg);
	assert(msg);
	if (rc) {
		assert(!s);
		return 0;
	}
	const struct sheet_info *info = sheet_info(s);
	assert(info->format == SHEET_CSV || info->format == SHEET_XLSX);
	unsigned last = 0;
	check_row(sheet_header(s), &last);
	size_t rows = 0;
	for (;;) {
		const struct sheet_row *row;
		rc = sheet_next_row(s, &row);
		if (rc || !row)
			break;
		check_row(row, &last);
		assert(++rows <= lim.max_rows);
	}
	if (rc)
		assert(sheet_message(s)[0]);
	sheet_free(s);
	return 0;
}
