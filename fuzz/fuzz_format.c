/* libFuzzer target: the pure helpers (dates, General numbers, number-format
 * classification) and the format sniffer, with round-trip checks. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sheet/sheet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_general(double v)
{
	char out[32];
	if (sheet_format_general(v, out, sizeof(out))) {
		assert(!isfinite(v));
		return;
	}
	assert(!strchr(out, 'e'));
	char *end;
	double back = strtod(out, &end);
	assert(*end == '\0');
	/* 15 significant digits: the round trip is exact to 1 part in 1e14
	 * (rounding up just below DBL_MAX overflows to infinity). */
	if (isinf(back)) {
		assert(fabs(v) > 1.7976931348623e308);
		return;
	}
	assert(fabs(back - v) <= fabs(v) * 1e-14 || (back == 0 && fabs(v) < 1e-300));
	char small[8];
	if (!sheet_format_general(v, small, sizeof(small)))
		assert(strlen(small) < sizeof(small));
}

static void check_date(double v, int d1904)
{
	char out[24];
	if (sheet_format_date(v, d1904, out, sizeof(out)))
		return;
	size_t n = strlen(out);
	assert(n == 10 || n == 19);
	assert(out[4] == '-' && out[7] == '-');
	long y = strtol(out, NULL, 10), m = strtol(out + 5, NULL, 10), d = strtol(out + 8, NULL, 10);
	assert(y >= 1900 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= 31);
	char t[12];
	assert(!sheet_format_time(fabs(v), t, sizeof(t)) && strlen(t) == 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sheet_sniff(data, size);
	if (size < 12)
		return 0;
	double v;
	memcpy(&v, data, sizeof(v));
	check_general(v);
	check_date(v, data[8] & 1);
	/* The same bytes as a text number, as an XLSX <v> would carry it. */
	char text[64];
	size_t n = size - 12 < sizeof(text) - 1 ? size - 12 : sizeof(text) - 1;
	memcpy(text, data + 12, n);
	text[n] = '\0';
	double parsed = strtod(text, NULL);
	check_general(parsed);
	check_date(parsed, data[8] & 2);
	int id = (int)(data[9] | data[10] << 8);
	int kind = sheet_numfmt_is_date(id, NULL);
	assert(kind >= 0 && kind <= 2);
	char *code = malloc(size - 12 + 1);
	memcpy(code, data + 12, size - 12);
	code[size - 12] = '\0';
	kind = sheet_numfmt_is_date(id, code);
	assert(kind >= 0 && kind <= 2);
	/* The text a format shows around a number: bounded, terminated. */
	char pre[SHEET_AFFIX_MAX], suf[SHEET_AFFIX_MAX];
	int affix = sheet_numfmt_affix(code, pre, suf);
	assert(affix == 0 || affix == 1);
	assert(strlen(pre) < SHEET_AFFIX_MAX && strlen(suf) < SHEET_AFFIX_MAX);
	assert(!affix || *pre || *suf);
	free(code);
	return 0;
}
