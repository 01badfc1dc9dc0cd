/* Cell normalizers of the jobs schema: text, dates, weights, money, states,
 * ZIPs, and the messages that explain a rejected cell. */
#include "normalize.h"

#include <stdio.h>
#include <string.h>

static enum code fail(enum norm_why *ret_why, enum norm_why why)
{
	if (ret_why)
		*ret_why = why;
	return CODE_TYPE_MISMATCH;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ---- UTF-8 and whitespace ---- */

int32_t norm_utf8_next(const char *s, size_t len, size_t *ret_n)
{
	const unsigned char *u = (const unsigned char *)s;
	*ret_n = 1;
	if (len == 0)
		return -1;
	if (u[0] < 0x80)
		return u[0];
	size_t n;
	int32_t cp, min;
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		n = 2, cp = u[0] & 0x1F, min = 0x80;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		n = 3, cp = u[0] & 0x0F, min = 0x800;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		n = 4, cp = u[0] & 0x07, min = 0x10000;
	else
		return -1;
	if (len < n)
		return -1;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return -1;
		cp = (cp << 6) | (u[i] & 0x3F);
	}
	/* Overlong forms, UTF-16 surrogates and values past Unicode are not
	 * text; accepting them would let two spellings of one name differ. */
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*ret_n = n;
	return cp;
}

bool norm_is_space(int32_t cp)
{
	if (cp < 0x80)
		return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
	switch (cp) {
	case 0x85: case 0xA0: case 0x1680: case 0x180E: case 0x2028:
	case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
		return true;
	default:
		return cp >= 0x2000 && cp <= 0x200B;
	}
}

/* Byte length of the whitespace run that ends at s + len. */
static size_t trailing_space(const char *s, size_t len)
{
	size_t end = len;
	while (end > 0) {
		/* Step back to the lead byte of the last character. */
		size_t start = end - 1;
		while (start > 0 && end - start < 4 &&
		       ((unsigned char)s[start] & 0xC0) == 0x80)
			start--;
		size_t n;
		int32_t cp = norm_utf8_next(s + start, end - start, &n);
		if (cp < 0 || start + n != end || !norm_is_space(cp))
			break;
		end = start;
	}
	return len - end;
}

const char *norm_trim(const char *s, size_t len, size_t *ret_len)
{
	if (!s || len == 0) {
		*ret_len = 0;
		return s ? s : "";
	}
	size_t i = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp < 0 || !norm_is_space(cp))
			break;
		i += n;
	}
	*ret_len = (len - i) - trailing_space(s + i, len - i);
	return s + i;
}

bool norm_is_blank(const char *s, size_t len)
{
	size_t n;
	norm_trim(s, len, &n);
	return n == 0;
}

char *norm_excerpt(struct arena *a, const char *s, size_t len, size_t max_chars)
{
	/* Worst case per input byte: 3 bytes of U+FFFD; the last character may
	 * run 4 bytes past keep; then the ellipsis and the NUL. */
	size_t keep = len;
	if (keep > max_chars * 4)
		keep = max_chars * 4;
	char *out = arena_alloc(a, keep * 3 + 16);
	size_t o = 0, chars = 0, i = 0;
	while (i < len && chars < max_chars && i < keep) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp < 0) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
			out[o++] = ' ';
		} else {
			memcpy(out + o, s + i, n);
			o += n;
		}
		i += n;
		chars++;
	}
	if (i < len) {
		memcpy(out + o, "\xE2\x80\xA6", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

/* ---- Text ---- */

/* Counts code points; -1 on bad UTF-8, -2 on a NUL. */
static long count_chars(const char *s, size_t len)
{
	size_t i = 0;
	long chars = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp < 0)
			return -1;
		if (cp == 0)
			return -2;
		i += n;
		chars++;
	}
	return chars;
}

enum code norm_text(struct arena *a, const char *s, size_t len, size_t max_chars,
		    char **ret, size_t *ret_len, enum norm_why *ret_why)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	long chars = count_chars(t, tlen);
	if (chars == -1)
		return fail(ret_why, NORM_WHY_BAD_UTF8);
	if (chars == -2)
		return fail(ret_why, NORM_WHY_NUL);
	if ((size_t)chars > max_chars)
		return fail(ret_why, NORM_WHY_TOO_LONG);
	*ret = arena_strndup(a, t, tlen);
	*ret_len = tlen;
	return CODE_OK;
}

/* ---- Dates ---- */

/* Reads min..max digits at *p; returns the value or -1.  Advances *p. */
static long digits(const char **p, const char *end, int min, int max)
{
	long v = 0;
	int n = 0;
	while (*p < end && is_digit(**p) && n < max) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	if (n < min || (*p < end && is_digit(**p)))
		return -1;
	return v;
}

static bool eat(const char **p, const char *end, char c)
{
	if (*p < end && **p == c) {
		(*p)++;
		return true;
	}
	return false;
}

static bool eat_word(const char **p, const char *end, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(end - *p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((*p)[i]) != w[i])
			return false;
	*p += n;
	return true;
}

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

/* ---- Decimal numbers (weight and money) ---- */

#define FRAC_MAX 12 /* decimals kept; more cannot move a 0.01 lb rounding */
#define INT_DIGITS_MAX 15

struct decimal {
	uint64_t whole;   /* integer part */
	uint64_t frac;    /* the first frac_digits decimals, as an integer */
	int frac_digits;
	bool frac_more;   /* non-zero decimals past FRAC_MAX */
	bool negative;
};

/* Integer part: plain digits, or groups of three after a first group of
 * one to three ("12,500").  Anything else with a comma is not a number:
 * "1,25" may be a European decimal, and guessing would corrupt it. */
static enum norm_why whole_part(const char **p, const char *end, uint64_t *ret,
				int *ret_digits)
{
	uint64_t v = 0;
	int sig = 0, all = 0, group = 0;
	bool grouped = false;
	for (; *p < end; (*p)++) {
		char c = **p;
		if (c == ',') {
			if ((grouped ? group != 3 : (group < 1 || group > 3)))
				return NORM_WHY_NOT_NUMBER;
			grouped = true;
			group = 0;
			continue;
		}
		if (!is_digit(c))
			break;
		group++;
		all++;
		if (sig == 0 && c == '0')
			continue; /* leading zeros do not count toward the cap */
		if (++sig > INT_DIGITS_MAX)
			return NORM_WHY_TOO_LARGE;
		v = v * 10 + (uint64_t)(c - '0');
	}
	if (grouped && group != 3)
		return NORM_WHY_NOT_NUMBER;
	*ret = v;
	*ret_digits = all;
	return NORM_WHY_NONE;
}

static void frac_part(const char **p, const char *end, struct decimal *d)
{
	for (; *p < end && is_digit(**p); (*p)++) {
		if (d->frac_digits < FRAC_MAX) {
			d->frac = d->frac * 10 + (uint64_t)(**p - '0');
			d->frac_digits++;
		} else if (**p != '0') {
			d->frac_more = true;
		}
	}
}

/* Parses a decimal at *p, leaving *p after it.  Returns NORM_WHY_NONE or
 * why not.  An exponent ("1e5") is refused: no sane sheet writes weights
 * that way, and "1e400" must not become infinity. */
static enum norm_why decimal(const char **p, const char *end, struct decimal *d)
{
	memset(d, 0, sizeof(*d));
	if (eat(p, end, '-'))
		d->negative = true;
	else
		eat(p, end, '+');
	int whole_digits;
	enum norm_why why = whole_part(p, end, &d->whole, &whole_digits);
	if (why)
		return why;
	if (eat(p, end, '.')) {
		const char *start = *p;
		frac_part(p, end, d);
		if (*p == start)
			return NORM_WHY_NOT_NUMBER;
	} else if (whole_digits == 0) {
		return NORM_WHY_NOT_NUMBER;
	}
	if (*p < end && (**p == 'e' || **p == 'E') && *p + 1 < end &&
	    (is_digit((*p)[1]) || (*p)[1] == '+' || (*p)[1] == '-'))
		return NORM_WHY_NOT_NUMBER;
	if (*p < end && (is_digit(**p) || **p == ',' || **p == '.'))
		return NORM_WHY_NOT_NUMBER;
	return d->negative ? NORM_WHY_NEGATIVE : NORM_WHY_NONE;
}

static uint64_t pow10u(int n)
{
	uint64_t v = 1;
	while (n-- > 0)
		v *= 10;
	return v;
}

/* ---- Weight ---- */

struct unit_word {
	const char *word;
	enum weight_unit unit;
};

static const struct unit_word unit_words[] = {
	{ "lb", WUNIT_LB },          { "lbs", WUNIT_LB },
	{ "#", WUNIT_LB },           { "pound", WUNIT_LB },
	{ "pounds", WUNIT_LB },      { "ton", WUNIT_TON },
	{ "tons", WUNIT_TON },       { "tn", WUNIT_TON },
	{ "short ton", WUNIT_TON },  { "short tons", WUNIT_TON },
	{ "t", WUNIT_TONNE },        { "tonne", WUNIT_TONNE },
	{ "tonnes", WUNIT_TONNE },   { "mt", WUNIT_TONNE },
	{ "metric ton", WUNIT_TONNE }, { "metric tons", WUNIT_TONNE },
	{ "metric tonne", WUNIT_TONNE }, { "metric tonnes", WUNIT_TONNE },
	{ "kg", WUNIT_KG },          { "kgs", WUNIT_KG },
	{ "kilogram", WUNIT_KG },    { "kilograms", WUNIT_KG },
	{ "kilo", WUNIT_KG },        { "kilos", WUNIT_KG },
};

/* Pounds per unit in units of 10^-5 lb, exact for every factor of §5. */
static uint64_t unit_factor(enum weight_unit u)
{
	switch (u) {
	case WUNIT_TON: return 200000000;   /* 2,000 lb */
	case WUNIT_TONNE: return 220462000; /* 2,204.62 lb */
	case WUNIT_KG: return 220462;       /* 2.20462 lb */
	default: return 100000;             /* 1 lb */
	}
}

const char *norm_weight_unit_name(enum weight_unit u)
{
	switch (u) {
	case WUNIT_LB: return "lb";
	case WUNIT_TON: return "ton";
	case WUNIT_TONNE: return "t";
	case WUNIT_KG: return "kg";
	default: return "";
	}
}

/* Looks a trimmed unit word up: lower-cased, inner whitespace runs as one
 * space, one trailing period dropped. */
static bool unit_lookup(const char *s, size_t len, enum weight_unit *ret)
{
	char w[24];
	size_t n = 0;
	if (len > 0 && s[len - 1] == '.')
		len--;
	for (size_t i = 0; i < len; i++) {
		char c = s[i] == '\t' ? ' ' : lower(s[i]);
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7F)
			return false; /* a NUL would end the word early */
		if (c == ' ' && n > 0 && w[n - 1] == ' ')
			continue;
		if (n + 1 >= sizeof(w))
			return false;
		w[n++] = c;
	}
	w[n] = '\0';
	for (size_t i = 0; i < sizeof(unit_words) / sizeof(unit_words[0]); i++) {
		if (strcmp(unit_words[i].word, w) == 0) {
			*ret = unit_words[i].unit;
			return true;
		}
	}
	return false;
}

enum code norm_weight_unit(const char *s, size_t len, enum weight_unit *ret,
			   enum norm_why *ret_why)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	enum weight_unit u = WUNIT_NONE;
	if (tlen > 0 && !unit_lookup(t, tlen, &u))
		return fail(ret_why, NORM_WHY_UNKNOWN_UNIT);
	*ret = u;
	return CODE_OK;
}

/* value * factor rounded half away from zero to hundredths of a pound.
 * 128-bit: 10^15 * 10^12 * 2.2 * 10^8 stays below 2^128. */
static bool to_centilb(const struct decimal *d, enum weight_unit u,
		       int64_t *ret)
{
	if (d->whole > 10000000000ULL) /* > 10^10 of any unit is absurd */
		return false;
	__extension__ typedef unsigned __int128 u128;
	u128 scale = pow10u(d->frac_digits);
	u128 num = ((u128)d->whole * scale + d->frac) * unit_factor(u);
	/* num is in 10^-5 lb / 10^frac_digits; a centipound is 10^3 of those. */
	u128 den = scale * 1000;
	u128 v = (num + den / 2) / den;
	if (v > (u128)NORM_MAX_CENTILB)
		return false;
	*ret = (int64_t)v;
	return true;
}

enum code norm_weight(const char *s, size_t len, enum weight_unit column_unit,
		      int64_t *ret_centilb, bool *ret_converted,
		      enum norm_why *ret_why)
{
	size_t tlen;
	const char *p = norm_trim(s, len, &tlen), *end = p + tlen;
	if (tlen == 0)
		return fail(ret_why, NORM_WHY_EMPTY);
	struct decimal d;
	enum norm_why why = decimal(&p, end, &d);
	if (why)
		return fail(ret_why, why);
	size_t ulen;
	const char *u = norm_trim(p, (size_t)(end - p), &ulen);
	enum weight_unit unit = WUNIT_NONE;
	/* "12 500" or "12-5" is a broken number; "12 stone" a wrong unit. */
	if (ulen > 0 && !unit_lookup(u, ulen, &unit))
		return fail(ret_why, (is_alpha(u[0]) || u[0] == '#' ||
				      (unsigned char)u[0] >= 0x80) ?
				     NORM_WHY_UNKNOWN_UNIT : NORM_WHY_NOT_NUMBER);
	if (unit != WUNIT_NONE && column_unit != WUNIT_NONE &&
	    unit != column_unit)
		return fail(ret_why, NORM_WHY_UNIT_CONFLICT);
	if (unit == WUNIT_NONE)
		unit = column_unit;
	int64_t v;
	if (!to_centilb(&d, unit, &v))
		return fail(ret_why, NORM_WHY_TOO_LARGE);
	*ret_centilb = v;
	*ret_converted = unit != WUNIT_NONE && unit != WUNIT_LB;
	return CODE_OK;
}

/* ---- Money ---- */

enum code norm_money(const char *s, size_t len, int64_t *ret_cents,
		     enum norm_why *ret_why)
{
	size_t tlen;
	const char *p = norm_trim(s, len, &tlen), *end = p + tlen;
	if (tlen == 0)
		return fail(ret_why, NORM_WHY_EMPTY);
	bool minus = eat(&p, end, '-');
	if (eat(&p, end, '$')) {
		size_t rest;
		p = norm_trim(p, (size_t)(end - p), &rest);
	}
	struct decimal d;
	enum norm_why why = decimal(&p, end, &d);
	if (minus || why == NORM_WHY_NEGATIVE)
		return fail(ret_why, NORM_WHY_NEGATIVE);
	if (why || p != end)
		return fail(ret_why, why ? why : NORM_WHY_NOT_NUMBER);
	uint64_t cents = d.frac;
	if (d.frac_digits > 2) {
		uint64_t drop = pow10u(d.frac_digits - 2);
		if (cents % drop != 0 || d.frac_more)
			return fail(ret_why, NORM_WHY_TOO_MANY_DECIMALS);
		cents /= drop;
	} else {
		cents *= pow10u(2 - d.frac_digits);
	}
	if (d.whole > (uint64_t)NORM_MAX_CENTS / 100 ||
	    d.whole * 100 + cents > (uint64_t)NORM_MAX_CENTS)
		return fail(ret_why, NORM_WHY_TOO_LARGE);
	*ret_cents = (int64_t)(d.whole * 100 + cents);
	return CODE_OK;
}

/* ---- Formatting ---- */

static int format_hundredths(int64_t v, bool keep_zeros, char *out, size_t size)
{
	/* Work on the magnitude as unsigned so INT64_MIN is fine. */
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	const char *sign = v < 0 ? "-" : "";
	uint64_t whole = mag / 100, frac = mag % 100;
	if (keep_zeros)
		return snprintf(out, size, "%s%llu.%02llu", sign,
				(unsigned long long)whole,
				(unsigned long long)frac);
	if (frac == 0)
		return snprintf(out, size, "%s%llu", sign,
				(unsigned long long)whole);
	if (frac % 10 == 0)
		return snprintf(out, size, "%s%llu.%llu", sign,
				(unsigned long long)whole,
				(unsigned long long)(frac / 10));
	return snprintf(out, size, "%s%llu.%02llu", sign,
			(unsigned long long)whole, (unsigned long long)frac);
}

int norm_format_centilb(int64_t centilb, char *out, size_t size)
{
	return format_hundredths(centilb, false, out, size);
}

int norm_format_cents(int64_t cents, char *out, size_t size)
{
	return format_hundredths(cents, true, out, size);
}

/* ---- US states ---- */

struct state {
	const char *code;
	const char *key; /* the name lower-cased, without spaces or periods */
};

static const struct state states[] = {
	{ "AL", "alabama" }, { "AK", "alaska" }, { "AZ", "arizona" },
	{ "AR", "arkansas" }, { "CA", "california" }, { "CO", "colorado" },
	{ "CT", "connecticut" }, { "DE", "delaware" }, { "FL", "florida" },
	{ "GA", "georgia" }, { "HI", "hawaii" }, { "ID", "idaho" },
	{ "IL", "illinois" }, { "IN", "indiana" }, { "IA", "iowa" },
	{ "KS", "kansas" }, { "KY", "kentucky" }, { "LA", "louisiana" },
	{ "ME", "maine" }, { "MD", "maryland" }, { "MA", "massachusetts" },
	{ "MI", "michigan" }, { "MN", "minnesota" }, { "MS", "mississippi" },
	{ "MO", "missouri" }, { "MT", "montana" }, { "NE", "nebraska" },
	{ "NV", "nevada" }, { "NH", "newhampshire" }, { "NJ", "newjersey" },
	{ "NM", "newmexico" }, { "NY", "newyork" },
	{ "NC", "northcarolina" }, { "ND", "northdakota" }, { "OH", "ohio" },
	{ "OK", "oklahoma" }, { "OR", "oregon" }, { "PA", "pennsylvania" },
	{ "RI", "rhodeisland" }, { "SC", "southcarolina" },
	{ "SD", "southdakota" }, { "TN", "tennessee" }, { "TX", "texas" },
	{ "UT", "utah" }, { "VT", "vermont" }, { "VA", "virginia" },
	{ "WA", "washington" }, { "WV", "westvirginia" },
	{ "WI", "wisconsin" }, { "WY", "wyoming" },
	{ "DC", "districtofcolumbia" }, { "DC", "washingtondc" },
	{ "PR", "puertorico" }, { "VI", "virginislands" },
	{ "VI", "usvirginislands" }, { "VI", "unitedstatesvirginislands" },
	{ "GU", "guam" }, { "AS", "americansamoa" },
	{ "MP", "northernmarianaislands" }, { "MP", "northernmarianas" },
};

enum code norm_state(const char *s, size_t len, char ret[NORM_STATE_SIZE],
		     enum norm_why *ret_why)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	char key[40];
	size_t n = 0;
	for (size_t i = 0; i < tlen; i++) {
		char c = t[i];
		if (c == ' ' || c == '\t' || c == '.' || c == ',')
			continue;
		if (!is_alpha(c) || n + 1 >= sizeof(key))
			return fail(ret_why, NORM_WHY_NOT_STATE);
		key[n++] = lower(c);
	}
	key[n] = '\0';
	for (size_t i = 0; n > 0 && i < sizeof(states) / sizeof(states[0]); i++) {
		const struct state *st = &states[i];
		bool hit = n == 2 ? (key[0] == lower(st->code[0]) &&
				     key[1] == lower(st->code[1]))
				  : strcmp(key, st->key) == 0;
		if (hit) {
			memcpy(ret, st->code, NORM_STATE_SIZE);
			return CODE_OK;
		}
	}
	return fail(ret_why, tlen ? NORM_WHY_NOT_STATE : NORM_WHY_EMPTY);
}

/* ---- ZIP codes ---- */

enum code norm_zip(const char *s, size_t len, char ret[NORM_ZIP_SIZE],
		   enum norm_why *ret_why)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	if (tlen == 0)
		return fail(ret_why, NORM_WHY_EMPTY);
	char d[10];
	size_t n = 0, i = 0;
	for (; i < tlen && is_digit(t[i]); i++) {
		if (n == sizeof(d))
			return fail(ret_why, NORM_WHY_NOT_ZIP);
		d[n++] = t[i];
	}
	if (i < tlen && t[i] == '-' && n == 5) {
		/* 12345-6789: the hyphen form must be exactly 5-4. */
		for (i++; i < tlen && is_digit(t[i]) && n < 9; i++)
			d[n++] = t[i];
		if (n != 9 || i != tlen)
			return fail(ret_why, NORM_WHY_NOT_ZIP);
	} else if (i < tlen && t[i] == '.') {
		/* "1234.0": a number cell read back as text. */
		for (i++; i < tlen && t[i] == '0'; i++)
			;
		if (i != tlen || t[tlen - 1] == '.')
			return fail(ret_why, NORM_WHY_NOT_ZIP);
	} else if (i != tlen) {
		return fail(ret_why, NORM_WHY_NOT_ZIP);
	}
	/* Pad what a numeric cell dropped: 3-4 digits to 5, 7-8 digits to 9.
	 * Two digits or fewer, and six, are not a ZIP with zeros lost. */
	size_t want = (n >= 3 && n <= 5) ? 5 : (n >= 7 && n <= 9) ? 9 : 0;
	if (want == 0)
		return fail(ret_why, NORM_WHY_NOT_ZIP);
	char z[9];
	memset(z, '0', want - n);
	memcpy(z + (want - n), d, n);
	if (want == 5)
		snprintf(ret, NORM_ZIP_SIZE, "%.5s", z);
	else
		snprintf(ret, NORM_ZIP_SIZE, "%.5s-%.4s", z, z + 5);
	return CODE_OK;
}

/* ---- Whole fields ---- */

/* What a typed cell that is absurdly long is called in a message. */
static enum norm_why type_why(enum field_type t)
{
	switch (t) {
	case FTYPE_DATE: return NORM_WHY_NOT_DATE;
	case FTYPE_UNIT: return NORM_WHY_UNKNOWN_UNIT;
	case FTYPE_STATE: return NORM_WHY_NOT_STATE;
	case FTYPE_ZIP: return NORM_WHY_NOT_ZIP;
	default: return NORM_WHY_NOT_NUMBER;
	}
}

static enum code typed_field(struct arena *a, const struct field_info *fi,
			     const char *t, size_t tlen,
			     enum weight_unit column_unit,
			     struct norm_value *v, enum norm_why *ret_why)
{
	char buf[NORM_NUM_SIZE];
	enum code rc = CODE_OK;
	enum weight_unit u = WUNIT_NONE;
	switch (fi->type) {
	case FTYPE_DATE:
		rc = norm_date(t, tlen, buf, ret_why);
		break;
	case FTYPE_STATE:
		rc = norm_state(t, tlen, buf, ret_why);
		break;
	case FTYPE_ZIP:
		rc = norm_zip(t, tlen, buf, ret_why);
		break;
	case FTYPE_UNIT:
		rc = norm_weight_unit(t, tlen, &u, ret_why);
		v->num = u;
		snprintf(buf, sizeof(buf), "%s", norm_weight_unit_name(u));
		break;
	case FTYPE_WEIGHT:
		rc = norm_weight(t, tlen, column_unit, &v->num, &v->converted,
				 ret_why);
		norm_format_centilb(v->num, buf, sizeof(buf));
		break;
	default: /* FTYPE_MONEY */
		rc = norm_money(t, tlen, &v->num, ret_why);
		norm_format_cents(v->num, buf, sizeof(buf));
		break;
	}
	if (rc)
		return rc;
	v->len = strlen(buf);
	v->text = arena_strndup(a, buf, v->len);
	return CODE_OK;
}

enum code norm_field(struct arena *a, enum field f, const char *s, size_t len,
		     enum weight_unit column_unit, struct norm_value *ret,
		     enum norm_why *ret_why)
{
	const struct field_info *fi = field_info(f);
	if (!fi)
		return fail(ret_why, NORM_WHY_NONE);
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	struct norm_value v = { .blank = tlen == 0 };
	if (v.blank) {
		if (fi->required) {
			if (ret_why)
				*ret_why = NORM_WHY_EMPTY;
			return CODE_MISSING_REQUIRED;
		}
		*ret = v;
		return CODE_OK;
	}
	enum code rc;
	if (fi->type == FTYPE_TEXT) {
		char *out;
		rc = norm_text(a, t, tlen, fi->max_chars, &out, &v.len, ret_why);
		v.text = out;
	} else if (tlen > fi->max_chars) {
		rc = fail(ret_why, type_why(fi->type));
	} else {
		rc = typed_field(a, fi, t, tlen, column_unit, &v, ret_why);
	}
	if (rc == CODE_OK)
		*ret = v;
	return rc;
}

/* ---- Messages ---- */

#define QUOTE_CHARS 60

/* The problem and the advice for a TYPE_MISMATCH, after `field "value" `. */
static const char *mismatch_text(enum field_type t, enum norm_why why)
{
	bool money = t == FTYPE_MONEY;
	switch (why) {
	case NORM_WHY_BAD_UTF8:
		return "is not valid UTF-8 text: save the file as UTF-8 (in Excel: CSV UTF-8).";
	case NORM_WHY_NUL:
		return "contains a NUL character: remove it from the cell.";
	case NORM_WHY_NO_SUCH_DAY:
		return "is not a date (there is no such day): use YYYY-MM-DD or M/D/YYYY, month first.";
	case NORM_WHY_YEAR_RANGE:
		return "has a year outside 1900-2199: check the year; use YYYY-MM-DD or M/D/YYYY.";
	case NORM_WHY_NEGATIVE:
		return money ? "is negative: a rate must be zero or more."
			     : "is negative: a weight must be zero or more.";
	case NORM_WHY_TOO_LARGE:
		return money ? "is over $1,000,000,000: check the amount."
			     : "is over 1,000,000,000 lb: check the number and its unit.";
	case NORM_WHY_TOO_MANY_DECIMALS:
		return "has more than two decimals: round it to whole cents, e.g. 1250.55.";
	case NORM_WHY_UNKNOWN_UNIT:
		return "has a unit that is not known: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg.";
	case NORM_WHY_UNIT_CONFLICT:
		return "has a unit that differs from the row's weightUnit: give the unit in one place, or make them agree.";
	default:
		break;
	}
	switch (t) {
	case FTYPE_DATE:
		return "is not a date: use YYYY-MM-DD or M/D/YYYY.";
	case FTYPE_WEIGHT:
		return "is not a weight: use a number with an optional unit, e.g. 25000, 12,500.5 lb, 12.5 t or 1,200 kg.";
	case FTYPE_UNIT:
		return "is not a weight unit: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg.";
	case FTYPE_MONEY:
		return "is not an amount: use a number such as 1250, 1,250.50 or $1,250.00.";
	case FTYPE_STATE:
		return "is not a US state: use the USPS code (e.g. NY) or the full name (New York).";
	case FTYPE_ZIP:
		return "is not a ZIP code: use 5 digits (01234) or ZIP+4 (01234-5678).";
	default:
		return "cannot be read as text: correct the cell.";
	}
}

static const char *too_long(struct arena *a, const char *name, const char *q,
			    const char *raw, size_t raw_len, size_t max)
{
	size_t tlen, chars = 0, n;
	const char *t = norm_trim(raw, raw_len, &tlen);
	/* Counted as norm_text() does; a bad byte counts as one. */
	for (size_t i = 0; i < tlen; i += n, chars++)
		norm_utf8_next(t + i, tlen - i, &n);
	return arena_printf(a, "%s \"%s\" is %zu characters long, over the limit "
			    "of %zu: shorten it.", name, q, chars, max);
}

/* Words for the address group of a field ("pickup", "project pickup"). */
static const char *group_words(enum field f)
{
	switch (field_group(f)) {
	case GROUP_PROJECT_PICKUP: return "project pickup";
	case GROUP_PROJECT_DROPOFF: return "project dropoff";
	case GROUP_PICKUP: return "pickup";
	case GROUP_DROPOFF: return "dropoff";
	default: return "";
	}
}

static const char *lookup_miss(struct arena *a, enum field f, const char *name,
			       const char *q)
{
	if (field_group(f) != GROUP_NONE)
		return arena_printf(a, "The %s address has a city, state or ZIP but "
				    "no street: add %sStreet; the load was "
				    "committed without a %s location.",
				    group_words(f), group_prefix(field_group(f)),
				    group_words(f));
	const char *what = f == FIELD_PROJECT_MANAGER ?
		"no user by name or e-mail" : f == FIELD_BRANCH ?
		"no saved branch" : "no saved customer";
	return arena_printf(a, "%s \"%s\" matches %s: add it in the web app or "
			    "fix the name; the row was committed without it.",
			    name, q, what);
}

static const char *location_text(enum code c)
{
	switch (c) {
	case CODE_LOCATION_NAME_ADDRESS_MISMATCH:
		return "matches a saved location whose street, city or ZIP "
		       "differs: the saved location was used with its address "
		       "unchanged; correct the row or edit the location in the "
		       "web app.";
	case CODE_LOCATION_NAME_LOOKUP_MISS:
		return "matches no saved location and the row has no street to "
		       "create one from: add the street, or create the location "
		       "in the web app; the load was committed without it.";
	default:
		return "matches more than one saved location: the oldest was "
		       "used; rename or remove the duplicates in the web app.";
	}
}

const char *norm_message(struct arena *a, enum field f, enum code c,
			 enum norm_why why, const char *raw, size_t raw_len,
			 const char *normalized)
{
	const char *name = field_name(f) ? field_name(f) : "value";
	const char *q = norm_excerpt(a, raw, raw_len, QUOTE_CHARS);
	switch (c) {
	case CODE_MISSING_REQUIRED:
		return arena_printf(a, "%s is required but the cell is empty or "
				    "no column is mapped to it: fill it in.", name);
	case CODE_TYPE_MISMATCH:
		if (why == NORM_WHY_TOO_LONG)
			return too_long(a, name, q, raw, raw_len, field_max_chars(f));
		return arena_printf(a, "%s \"%s\" %s", name, q,
				    mismatch_text(field_type(f), why));
	case CODE_UNIT_NORMALIZED:
		return arena_printf(a, "%s \"%s\" was converted to %s lb: nothing "
				    "to do if that is right; send pounds to avoid "
				    "the conversion.", name, q,
				    normalized ? normalized : "?");
	case CODE_LOOKUP_MISS:
		return lookup_miss(a, f, name, q);
	case CODE_UNIQUE_VIOLATION:
		return arena_printf(a, "%s \"%s\": the same jobCode and loadNo "
				    "appear earlier in this file with different "
				    "content: keep one row per load, or give this "
				    "load its own loadNo.", name, q);
	case CODE_LOCATION_NAME_ADDRESS_MISMATCH:
	case CODE_LOCATION_NAME_LOOKUP_MISS:
	case CODE_LOCATION_NAME_AMBIGUOUS:
		return arena_printf(a, "%s \"%s\" %s", name, q, location_text(c));
	default: {
		const char *summary = code_summary(c);
		return arena_printf(a, "%s \"%s\": %s", name, q,
				    (summary && *summary) ? summary :
				    "the value was rejected.");
	}
	}
}
