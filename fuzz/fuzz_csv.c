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

/* A judge that finds a field in every cell starting with a letter of
 * "jldw" (key, date, numbers): header detection, group and summary rows
 * see headers and data of every shape.  Rows starting "K" are known. */
static bool judge(void *arg, const struct sheet_row *row, unsigned char *roles)
{
	(void)arg;
	for (size_t j = 0; j < row->ncells; j++) {
		char c = row->lens[j] ? (char)(row->cells[j][0] | 0x20) : 0;
		roles[j] = c == 'j' || c == 'l' ? SHEET_COL_FIELD | SHEET_COL_KEY
			 : c == 'd' ? SHEET_COL_FIELD | SHEET_COL_DATE
			 : c == 'w' ? SHEET_COL_FIELD | SHEET_COL_NUMERIC
			 : c == 'c' || c == 'n' ? SHEET_COL_FIELD | SHEET_COL_PART : 0;
	}
	return row->ncells && row->lens[0] && row->cells[0][0] == 'K';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = 64;  /* small, so that TOO_MANY_ROWS is reached too */
	struct sheet *s = NULL;
	const char *msg = NULL;
	/* Odd first bytes read with the judge (header detection, summary rows,
	 * samples), even ones plainly; both see UTF-16 when the input has a BOM. */
	struct sheet_judge j = {judge, NULL};
	struct sheet_options o = {.judge = &j, .header_row = size > 1 && data[1] == '#' ? 2 : 0};
	bool judged = size && (data[size - 1] & 1);
	enum code rc = sheet_open_opts(data, size, &lim, judged ? &o : NULL, &s, &msg, NULL);
	if (!rc && judged) {
		const struct sheet_row *const *samples;
		size_t n = sheet_samples(s, &samples);
		assert(n <= SHEET_SAMPLE_ROWS);
		for (size_t i = 1; i < n; i++)
			assert(samples[i]->number > samples[i - 1]->number);
	}
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
	const unsigned *sum;
	size_t k = sheet_summary_rows(s, &sum);
	for (size_t i = 0; i < k; i++)
		assert(sum[i] > sheet_header_row(s) && (i == 0 || sum[i] > sum[i - 1]));
	sheet_free(s);
	return 0;
}
