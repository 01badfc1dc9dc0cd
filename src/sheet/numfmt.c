/* Number formats: Excel date serials to ISO text, numbers as Excel's General
 * format shows them, and which number formats are dates. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sheet.h"

/* Days since 1970-01-01 of a civil date, and back (H. Hinnant's algorithms),
 * so no libc time function with its time zones and ranges is involved. */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

static void civil_from_days(long z, long *y, unsigned *m, unsigned *d)
{
	z += 719468;
	long era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (long)yoe + era * 400 + (*m <= 2);
}

#define SECONDS_PER_DAY 86400LL
/* Last serials that are still 9999-12-31 in each system. */
#define MAX_DAY_1900 2958465LL
#define MAX_DAY_1904 2957003LL

/* 0 <= v < 100 as two digits. */
static void two_digits(char *out, long v)
{
	out[0] = (char)('0' + v / 10);
	out[1] = (char)('0' + v % 10);
}

int sheet_format_date(double serial, int date1904, char *out, size_t outlen)
{
	if (outlen < 20 || !isfinite(serial))
		return -1;
	long long max_day = date1904 ? MAX_DAY_1904 : MAX_DAY_1900;
	if (serial < (date1904 ? 0.0 : 1.0) || serial >= (double)(max_day + 1))
		return -1;
	/* Rounding to the second first means 23:59:59.7 becomes the next day,
	 * as Excel displays it. */
	long long secs = llround(serial * (double)SECONDS_PER_DAY);
	long long day = secs / SECONDS_PER_DAY;
	long tod = (long)(secs % SECONDS_PER_DAY);
	if (day > max_day)
		return -1;
	long y;
	unsigned m, d;
	if (!date1904 && day == 60) {
		/* Lotus 1-2-3's fictitious leap day, kept by Excel. */
		y = 1900;
		m = 2;
		d = 29;
	} else {
		long base = date1904 ? days_from_civil(1904, 1, 1)
				     : days_from_civil(1899, 12, day < 60 ? 31 : 30);
		civil_from_days(base + (long)day, &y, &m, &d);
	}
	if (y < 0 || y > 9999) {
		if (tod == 0)
			snprintf(out, outlen, "%04ld-%02u-%02u", y, m, d);
		else
			snprintf(out, outlen, "%04ld-%02u-%02uT%02ld:%02ld:%02ld", y, m, d,
				 tod / 3600, tod / 60 % 60, tod % 60);
		return 0;
	}
	/* What the snprintf above prints, without its cost (this runs for
	 * every date cell). */
	out[0] = (char)('0' + y / 1000);
	out[1] = (char)('0' + y / 100 % 10);
	out[2] = (char)('0' + y / 10 % 10);
	out[3] = (char)('0' + y % 10);
	out[4] = '-';
	two_digits(out + 5, (long)m);
	out[7] = '-';
	two_digits(out + 8, (long)d);
	if (tod == 0) {
		out[10] = '\0';
		return 0;
	}
	out[10] = 'T';
	two_digits(out + 11, tod / 3600);
	out[13] = ':';
	two_digits(out + 14, tod / 60 % 60);
	out[16] = ':';
	two_digits(out + 17, tod % 60);
	out[19] = '\0';
	return 0;
}

int sheet_format_time(double serial, char *out, size_t outlen)
{
	if (outlen < 9 || !isfinite(serial) || serial < 0)
		return -1;
	long long secs = llround((serial - floor(serial)) * (double)SECONDS_PER_DAY) % SECONDS_PER_DAY;
	snprintf(out, outlen, "%02lld:%02lld:%02lld", secs / 3600, secs / 60 % 60, secs % 60);
	return 0;
}

/* Copies n bytes of s to out[*at..], keeping room for the NUL. */
static int put(char *out, size_t outlen, size_t *at, const char *s, size_t n)
{
	if (outlen - *at <= n)
		return -1;
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
	return 0;
}

static int put_zeros(char *out, size_t outlen, size_t *at, long n)
{
	for (; n > 0; n--)
		if (put(out, outlen, at, "0", 1))
			return -1;
	return 0;
}

int sheet_format_general(double v, char *out, size_t outlen)
{
	if (!isfinite(v) || outlen < 2)
		return -1;
	size_t at = 0;
	out[0] = '\0';
	if (v == 0)
		return put(out, outlen, &at, "0", 1);
	/* Most numbers in a jobs file are whole and short: print those directly
	 * (below 1e15 a double holds every integer exactly). */
	if (fabs(v) < 1e15 && v == trunc(v)) {
		/* "%lld", by hand: this runs for most number cells. */
		char digits[24];
		long long i = (long long)v;
		unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
		size_t n = sizeof(digits);
		do {
			digits[--n] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (i < 0)
			digits[--n] = '-';
		return put(out, outlen, &at, digits + n, sizeof(digits) - n);
	}
	/* Excel keeps 15 significant digits: print them rounded, then place the
	 * decimal point ourselves instead of trusting %g's choice. */
	char m[40];
	snprintf(m, sizeof(m), "%.14e", v);
	const char *p = m;
	if (*p == '-') {
		if (put(out, outlen, &at, "-", 1))
			return -1;
		p++;
	}
	char digits[16];
	size_t nd = 0;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9' && nd < 15)
			digits[nd++] = *p;
	long exp = *p == 'e' ? strtol(p + 1, NULL, 10) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;

	if (exp >= 21 || exp < -10) {
		char e[8];
		if (put(out, outlen, &at, digits, 1) ||
		    (nd > 1 && (put(out, outlen, &at, ".", 1) || put(out, outlen, &at, digits + 1, nd - 1))))
			return -1;
		int n = snprintf(e, sizeof(e), "E%c%02ld", exp < 0 ? '-' : '+', labs(exp));
		return put(out, outlen, &at, e, (size_t)n);
	}
	if (exp < 0) {
		if (put(out, outlen, &at, "0.", 2) || put_zeros(out, outlen, &at, -exp - 1))
			return -1;
		return put(out, outlen, &at, digits, nd);
	}
	size_t ints = (size_t)exp + 1;
	if (nd <= ints)
		return put(out, outlen, &at, digits, nd) ||
		       put_zeros(out, outlen, &at, (long)(ints - nd)) ? -1 : 0;
	if (put(out, outlen, &at, digits, ints) || put(out, outlen, &at, ".", 1))
		return -1;
	return put(out, outlen, &at, digits + ints, nd - ints);
}

/* Scans a custom format code for date and time tokens, skipping quoted
 * text, escaped characters, fill/space directives and [colour], [locale]
 * or [condition] sections; [h], [mm], [ss] are elapsed-time tokens. */
int sheet_numfmt_is_date(int id, const char *code)
{
	if (!code) {
		if ((id >= 14 && id <= 17) || id == 22)
			return SHEET_NUMFMT_DATE;
		if ((id >= 18 && id <= 21) || (id >= 45 && id <= 47))
			return SHEET_NUMFMT_TIME;
		return 0;
	}
	bool date = false, month = false, time = false;
	for (const char *p = code; *p; p++) {
		switch (*p) {
		case '"': {
			const char *q = strchr(p + 1, '"');
			if (!q)
				return 0;
			p = q;
			break;
		}
		case '\\': case '_': case '*':
			if (!p[1])
				return 0;
			p++;
			break;
		case '[': {
			const char *q = strchr(p + 1, ']');
			if (!q)
				return 0;
			size_t n = (size_t)(q - p - 1);
			if (n > 0 && strspn(p + 1, "hHmMsS") >= n)
				time = true;
			p = q;
			break;
		}
		case 'y': case 'Y': case 'd': case 'D':
			date = true;
			break;
		case 'm': case 'M':
			month = true;
			break;
		case 'h': case 'H': case 's': case 'S':
			time = true;
			break;
		case 'a': case 'A':
			/* AM/PM and A/P mark a time; their M and P are not tokens. */
			if (!strncasecmp(p, "am/pm", 5)) {
				time = true;
				p += 4;
			} else if (!strncasecmp(p, "a/p", 3)) {
				time = true;
				p += 2;
			}
			break;
		default:
			break;
		}
	}
	if (date || (month && !time))
		return SHEET_NUMFMT_DATE;
	return time ? SHEET_NUMFMT_TIME : 0;
}

int sheet_numfmt_kind(int id, const char *code)
{
	if (code) {
		size_t zeros = strspn(code, "0");
		if (zeros > 0 && zeros <= 32 && code[zeros] == '\0')
			return SHEET_NUMFMT_ZERO_PAD + (int)zeros;
	}
	return sheet_numfmt_is_date(id, code);
}

/* Appends c to a 16-byte affix; extra characters are dropped. */
static void affix_put(char *a, char c)
{
	size_t n = strlen(a);
	if (n + 1 < SHEET_AFFIX_MAX)
		a[n] = c, a[n + 1] = '\0';
}

static bool placeholder(char c)
{
	return c == '0' || c == '#' || c == '?' || c == '.' || c == ',';
}

/* A [...] section of a format: "[$€-407]" gives its symbol to `to`;
 * colours, locales and conditions give nothing.  Returns the ']' or NULL. */
static const char *bracket(const char *p, char *to)
{
	const char *q = strchr(p, ']');
	if (q && p[1] == '$')
		for (const char *c = p + 2; c < q && *c != '-'; c++)
			affix_put(to, *c);
	return q;
}

int sheet_numfmt_affix(const char *code, char prefix[SHEET_AFFIX_MAX], char suffix[SHEET_AFFIX_MAX])
{
	prefix[0] = suffix[0] = '\0';
	if (!code || sheet_numfmt_kind(0, code))
		return 0;
	bool number = false;
	for (const char *p = code; *p && *p != ';'; p++) {
		char *to = number ? suffix : prefix;
		if (*p == '"') {
			const char *q = strchr(p + 1, '"');
			if (!q)
				return 0;
			for (p++; p < q; p++)
				affix_put(to, *p);
		} else if (*p == '\\' && p[1]) {
			affix_put(to, *++p);
		} else if ((*p == '_' || *p == '*') && p[1]) {
			p++;   /* padding and fill: no text of their own */
		} else if (*p == '[') {
			if (!(p = bracket(p, to)))
				return 0;
		} else if (*p == '%' || *p == 'E' || *p == 'e' || *p == '@') {
			return 0;   /* percent, scientific, text: the value is not the number shown */
		} else if (placeholder(*p)) {
			if (number && *suffix)
				return 0;   /* text between digits ("0 0/0"): not a plain affix */
			number = true;
		} else if (*p == '$' || *p == ' ' || *p == '-' || (unsigned char)*p >= 0x80 ||
			   (((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))) {
			affix_put(to, *p);
		}
	}
	return number && (*prefix || *suffix);
}
