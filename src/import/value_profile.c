/* Value profiles of columns (value_profile.h): each cell is read by the
 * schema's own normalizers (a value is a date when the pipeline would
 * read it as one) plus a few shape tests of its own (codes, streets). */
#include "value_profile.h"

#include <string.h>

#include "model/normalize.h"

#define SHARE(x, n) ((x) * 100 / (n))

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Digits with optional thousands commas and one decimal point. */
static bool plain_number(const char *s, size_t len, bool *ret_point)
{
	size_t digits = 0;
	bool point = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_digit(c))
			digits++;
		else if (c == '.' && !point)
			point = true;
		else if (c != ',' || point || i == 0)
			return false;
	}
	*ret_point = point;
	return digits > 0;
}

/* A currency sign before or a currency code after a number. */
static bool money_value(const char *s, size_t len)
{
	static const char *const signs[] = { "US$", "$", "\xE2\x82\xAC", "\xC2\xA3", "CA$" };
	static const char *const suffixes[] = { " USD", " CAD", " EUR", "USD" };
	bool point;
	for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++) {
		size_t k = strlen(signs[i]);
		if (len > k && !memcmp(s, signs[i], k)) {
			const char *r = norm_trim(s + k, len - k, &len);
			return plain_number(r, len, &point);
		}
	}
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t k = strlen(suffixes[i]);
		if (len > k && !memcmp(s + len - k, suffixes[i], k))
			return plain_number(s, len - k, &point);
	}
	return false;
}

/* One token of letters, digits and - _ / # . with at least one digit, not
 * a decimal number: what load, ticket and job numbers look like. */
static bool code_value(const char *s, size_t len)
{
	bool digit = false, point;
	if (len > 24 || (plain_number(s, len, &point) && point))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		digit |= is_digit(c);
		if (!is_digit(c) && !(c < 0x80 && is_alpha(c)) && !strchr("-_/#.", c))
			return false;
	}
	return digit;
}

static bool street_value(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && is_digit((unsigned char)s[i]))
		i++;
	return i > 0 && i + 2 < len && s[i] == ' ' && is_alpha((unsigned char)s[i + 1]);
}

static int letters(const char *s, size_t len)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += is_alpha((unsigned char)s[i]);
	return n;
}

static bool zip_value(const char *s, size_t len)
{
	char z[NORM_ZIP_SIZE];
	size_t digits = 0;
	for (size_t i = 0; i < len; i++)
		digits += is_digit((unsigned char)s[i]);
	return (digits == 5 || digits == 9) && norm_zip(s, len, z, NULL) == CODE_OK;
}

/* A kind of truck or trailer: equipment words of load boards and hauling
 * ("Dry Van", "Reefer", "Flatbed", "Tri-Axle", "End Dump"). */
static bool equipment_value(const char *s, size_t len)
{
	static const char *const kinds[] = { "van", "reefer", "refrigerat", "flatbed", "step deck", "stepdeck",
					     "conestoga", "tanker", "hopper", "dump", "lowboy", "power only",
					     "box truck", "hotshot", "double drop", "container", "axle", "pneumatic" };
	char low[40];
	if (len >= sizeof low || letters(s, len) < 3)
		return false;
	for (size_t i = 0; i < len; i++)
		low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
	low[len] = '\0';
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (strstr(low, kinds[k]))
			return true;
	return false;
}

/* Counts one trimmed, non-blank value. */
static void count_value(struct value_profile *p, const char *s, size_t len)
{
	char d[NORM_DATE_SIZE], st[NORM_STATE_SIZE];
	int64_t cl;
	bool conv, point;
	enum weight_unit u;
	p->n++;
	bool date = norm_date(s, len, d, NULL) == CODE_OK;
	p->dates += date;
	p->times += date && memchr(s, ':', len) != NULL;
	p->zips += zip_value(s, len);
	p->states += norm_state(s, len, st, NULL) == CODE_OK;
	bool number = plain_number(s, len, &point);
	p->numbers += number;
	p->unit_weights += !number && letters(s, len) > 0 && norm_weight(s, len, WUNIT_NONE, &cl, &conv, NULL) == CODE_OK;
	p->unit_words += norm_weight_unit(s, len, &u, NULL) == CODE_OK;
	p->money += money_value(s, len);
	bool code = !date && code_value(s, len);
	p->codes += code;
	p->streets += street_value(s, len);
	p->equipment += equipment_value(s, len);
	p->words += !code && !date && letters(s, len) >= 2;
}

/* Integers from 0 or 1 counting up by one, row after row. */
static bool is_counter(const char *const *v, const size_t *lens, int n)
{
	for (int i = 0; i < n; i++) {
		long x = 0;
		if (lens[i] == 0 || lens[i] > 9)
			return false;
		for (size_t k = 0; k < lens[i]; k++) {
			if (!is_digit((unsigned char)v[i][k]))
				return false;
			x = x * 10 + (v[i][k] - '0');
		}
		if (x != (long)i + (v[0][0] == '0' ? 0 : 1))
			return false;
	}
	return n > 0;
}

static int count_distinct(const char *const *v, const size_t *lens, int n)
{
	int distinct = 0;
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = lens[j] == lens[i] && !memcmp(v[j], v[i], lens[i]);
		distinct += !seen;
	}
	return distinct;
}

void vp_read(const struct sheet_row *const *rows, size_t nrows, size_t col, struct value_profile *ret)
{
	const char *v[VP_MAX_ROWS];
	size_t lens[VP_MAX_ROWS];
	memset(ret, 0, sizeof(*ret));
	for (size_t r = 0; r < nrows && r < VP_MAX_ROWS; r++) {
		const struct sheet_row *row = rows[r];
		if (!row || col >= row->ncells || !row->cells || !row->lens || !row->cells[col])
			continue;
		size_t len = row->lens[col] < VP_CELL_CAP ? row->lens[col] : VP_CELL_CAP;
		const char *s = norm_trim(row->cells[col], len, &len);
		if (len == 0)
			continue;
		v[ret->n] = s;
		lens[ret->n] = len;
		count_value(ret, s, len);
	}
	ret->distinct = count_distinct(v, lens, ret->n);
	ret->counter = ret->n >= VP_MIN_VALUES && is_counter(v, lens, ret->n);
}

/* Share thresholds: most values (80 %) make a kind; few (20 %) rule a
 * typed field out.  Between, the values say nothing. */
#define MOST 80
#define FEW 20

static int typed_fit(int share)
{
	return share >= MOST ? 70 : share <= FEW ? -100 : 0;
}

/* Values that are clearly of a typed kind: no name, code or text field. */
static bool typed_values(const struct value_profile *p)
{
	return SHARE(p->dates, p->n) >= MOST || SHARE(p->money, p->n) >= 50 ||
	       SHARE(p->unit_weights, p->n) >= 50 ||
	       (SHARE(p->numbers, p->n) >= MOST && SHARE(p->codes, p->n) < MOST);
}

/* Load and ticket numbers: codes, each once (a row counter is no key). */
static int key_fit(const struct value_profile *p, int unique_fit)
{
	if (typed_values(p))
		return -100;
	if (SHARE(p->codes, p->n) < MOST)
		return 0;
	if (SHARE(p->zips, p->n) >= MOST)
		return 20;   /* five digits each: ZIP codes as likely as numbers */
	return p->distinct == p->n && !p->counter ? unique_fit : 20;
}

static int text_fit(const struct value_profile *p, enum field f)
{
	switch (f) {
	case FIELD_LOAD_NO:
		return key_fit(p, 70);
	case FIELD_TICKET_NO:
		return key_fit(p, 60);
	case FIELD_JOB_CODE:
		if (typed_values(p))
			return -100;
		return SHARE(p->codes, p->n) >= MOST ? (p->distinct < p->n ? 40 : 30) : 0;
	case FIELD_NOTES:
		return 0;
	case FIELD_TRUCK_TYPE:
		if (SHARE(p->equipment, p->n) >= MOST)
			return 90;
		break;
	default:
		break;
	}
	if (typed_values(p) || SHARE(p->zips, p->n) >= MOST)
		return -100;
	if (field_part(f) == PART_STREET && SHARE(p->streets, p->n) >= 50)
		return 60;
	if (SHARE(p->states, p->n) >= MOST)
		return -60;   /* "TX", "New York": a state column, not a city or a name */
	return 0;
}

int vp_fit(const struct value_profile *p, enum field f)
{
	if (!p || p->n < VP_MIN_VALUES || f >= FIELD__COUNT)
		return 0;
	int num = SHARE(p->numbers + p->unit_weights + p->money, p->n);
	switch (field_type(f)) {
	case FTYPE_DATE:
		return typed_fit(SHARE(p->dates, p->n));
	case FTYPE_ZIP:
		return typed_fit(SHARE(p->zips, p->n));
	case FTYPE_STATE:
		return typed_fit(SHARE(p->states, p->n));
	case FTYPE_UNIT:
		return SHARE(p->unit_words, p->n) >= MOST ? 90 : SHARE(p->unit_words, p->n) <= FEW ? -100 : 0;
	case FTYPE_WEIGHT:
		if (SHARE(p->unit_weights, p->n) >= 50)
			return 90;
		return num >= MOST ? 20 : num <= FEW ? -100 : 0;
	case FTYPE_MONEY:
		if (SHARE(p->money, p->n) >= 50)
			return 80;
		return num >= MOST ? 20 : num <= FEW ? -100 : 0;
	case FTYPE_TEXT:
		return text_fit(p, f);
	}
	return 0;
}

const char *vp_describe(const struct value_profile *p)
{
	if (!p || p->n < VP_MIN_VALUES)
		return "";
	if (SHARE(p->dates, p->n) >= MOST)
		return SHARE(p->times, p->n) >= MOST ? "timestamps" : "dates";
	if (SHARE(p->unit_weights, p->n) >= 50)
		return "weights with units";
	if (SHARE(p->money, p->n) >= 50)
		return "money amounts";
	if (SHARE(p->zips, p->n) >= MOST)
		return "ZIP codes";
	if (SHARE(p->states, p->n) >= MOST)
		return "state codes";
	if (SHARE(p->unit_words, p->n) >= MOST)
		return "weight units";
	if (SHARE(p->equipment, p->n) >= MOST)
		return "truck kinds";
	if (SHARE(p->codes, p->n) >= MOST)
		return p->counter ? "row numbers" : p->distinct == p->n ? "unique codes" : "repeating codes";
	if (SHARE(p->numbers, p->n) >= MOST)
		return "numbers";
	if (SHARE(p->streets, p->n) >= 50)
		return "street addresses";
	return "text";
}
