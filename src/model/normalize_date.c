/* Dates of the jobs schema: YYYY-MM-DD, M/D/YYYY, M/D/YY, XLSX ISO dates. */
#include "normalize_internal.h"

static bool is_leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(long y, long m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30,
				      31, 31, 30, 31, 30, 31 };
	return (m == 2 && is_leap(y)) ? 29 : days[m - 1];
}

/* "Z", "+HH", "+HH:MM", "+HHMM", or nothing. */
static bool zone(const char **p, const char *end)
{
	if (eat(p, end, 'Z') || eat(p, end, 'z'))
		return true;
	if (!eat(p, end, '+') && !eat(p, end, '-'))
		return true;
	const char *start = *p;
	long v = digits(p, end, 2, 4);
	long hh = v, mm = 0;
	if (v < 0)
		return false;
	if (*p - start == 4) {
		hh = v / 100;
		mm = v % 100;
	} else if (*p - start != 2) {
		return false;
	} else if (eat(p, end, ':')) {
		mm = digits(p, end, 2, 2);
	}
	return hh >= 0 && hh <= 23 && mm >= 0 && mm <= 59;
}

/* The time after a date: H:MM[:SS[.f+]] [AM|PM] [zone].  Checked only so
 * that "2026-01-05 garbage" is not read as a date. */
static bool time_part(const char **p, const char *end)
{
	long h = digits(p, end, 1, 2);
	if (h < 0 || !eat(p, end, ':'))
		return false;
	long m = digits(p, end, 2, 2);
	if (m < 0 || m > 59)
		return false;
	if (eat(p, end, ':')) {
		long sec = digits(p, end, 2, 2);
		if (sec < 0 || sec > 60)
			return false;
		if (eat(p, end, '.') && digits(p, end, 1, 9) < 0)
			return false;
	}
	eat(p, end, ' ');
	bool ampm = eat_word(p, end, "am") || eat_word(p, end, "pm");
	if (ampm ? (h < 1 || h > 12) : h > 23)
		return false;
	return zone(p, end);
}

/* YYYY-MM-DD or YYYY/MM/DD; sets *y, *m, *d.  *p past the date. */
static bool ymd(const char **p, const char *end, long *y, long *m, long *d)
{
	*y = digits(p, end, 4, 4);
	if (*y < 0 || *p >= end || (**p != '-' && **p != '/'))
		return false;
	char sep = **p;
	(*p)++;
	*m = digits(p, end, 1, 2);
	if (*m < 0 || !eat(p, end, sep))
		return false;
	*d = digits(p, end, 1, 2);
	return *d >= 0;
}

/* M/D/YYYY or M/D/YY. */
static bool mdy(const char **p, const char *end, long *y, long *m, long *d)
{
	*m = digits(p, end, 1, 2);
	if (*m < 0 || !eat(p, end, '/'))
		return false;
	*d = digits(p, end, 1, 2);
	if (*d < 0 || !eat(p, end, '/'))
		return false;
	const char *start = *p;
	*y = digits(p, end, 2, 4);
	if (*y < 0 || *p - start == 3)
		return false;
	if (*p - start == 2)
		*y += *y < 70 ? 2000 : 1900;
	return true;
}

/* "YYYY-MM-DD" by hand: the fields are range-checked already, and this
 * keeps the compiler's truncation analysis out of it. */
static void write_date(char ret[NORM_DATE_SIZE], long y, long m, long d)
{
	long parts[3] = { y, m, d };
	int widths[3] = { 4, 2, 2 };
	size_t o = 0;
	for (int i = 0; i < 3; i++) {
		if (i > 0)
			ret[o++] = '-';
		for (int w = widths[i] - 1; w >= 0; w--) {
			long v = parts[i];
			for (int k = 0; k < w; k++)
				v /= 10;
			ret[o++] = (char)('0' + v % 10);
		}
	}
	ret[o] = '\0';
}

enum code norm_date(const char *s, size_t len, char ret[NORM_DATE_SIZE],
		    enum norm_why *ret_why)
{
	size_t tlen;
	const char *p = norm_trim(s, len, &tlen), *end = p + tlen;
	if (tlen == 0)
		return fail(ret_why, NORM_WHY_EMPTY);
	long y, m, d;
	bool iso = tlen >= 5 && is_digit(p[0]) && is_digit(p[1]) &&
		   is_digit(p[2]) && is_digit(p[3]);
	if (!(iso ? ymd(&p, end, &y, &m, &d) : mdy(&p, end, &y, &m, &d)))
		return fail(ret_why, NORM_WHY_NOT_DATE);
	if (p < end) {
		bool sep = iso ? (*p == 'T' || *p == 't' || *p == ' ') : *p == ' ';
		p++;
		if (!sep || !time_part(&p, end) || p != end)
			return fail(ret_why, NORM_WHY_NOT_DATE);
	}
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return fail(ret_why, NORM_WHY_NO_SUCH_DAY);
	if (y < NORM_YEAR_MIN || y > NORM_YEAR_MAX)
		return fail(ret_why, NORM_WHY_YEAR_RANGE);
	write_date(ret, y, m, d);
	return CODE_OK;
}
