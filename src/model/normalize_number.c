/* Numbers of the jobs schema: weights with units (to centipounds) and
 * money (to cents), and their formatting back to text. */
#include "normalize_internal.h"

#include <stdio.h>

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
