/* What a cell reads as to a person scanning a report: a number, a date, a
 * total label, or text.  Used to find the header row below title rows and
 * to tell summary rows from data (PRODUCT §14); pure functions. */
#include <string.h>
#include <strings.h>

#include "sheet_int.h"

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void trim(const char **p, size_t *n)
{
	while (*n && space(**p))
		(*p)++, (*n)--;
	while (*n && space((*p)[*n - 1]))
		(*n)--;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool cell_is_number(const char *p, size_t n)
{
	trim(&p, &n);
	size_t i = 0, digits = 0;
	/* A sign, a parenthesis (accounting negatives), a currency sign. */
	while (i < n && (p[i] == '-' || p[i] == '+' || p[i] == '(' || p[i] == '$'))
		i++;
	if (n - i >= 2 && ((unsigned char)p[i] == 0xC2 && (unsigned char)p[i + 1] == 0xA3))
		i += 2;   /* £ */
	else if (n - i >= 3 && !memcmp(p + i, "\xE2\x82\xAC", 3))
		i += 3;   /* € */
	for (; i < n && (digit(p[i]) || p[i] == ',' || p[i] == '.' || p[i] == ' '); i++)
		digits += digit(p[i]);
	if (!digits)
		return false;
	if (i < n && p[i] == ')')
		i++;
	/* A unit or currency word after it ("24.5 t", "1,200 lbs", "12 %"). */
	size_t word = 0;
	while (i < n && (alpha(p[i]) || p[i] == '%' || p[i] == '#' || p[i] == '.') && word < 12)
		i++, word++;
	return i == n;
}

bool cell_is_date(const char *p, size_t n)
{
	trim(&p, &n);
	size_t digits = 0, seps = 0, i = 0;
	for (; i < n && i < 32; i++) {
		if (digit(p[i]))
			digits++;
		else if (p[i] == '/' || p[i] == '-' || p[i] == '.')
			seps++;
		else
			break;
	}
	/* "2026-01-05", "1/5/26", "05.01.2026", maybe with a time after. */
	return digits >= 3 && seps == 2 && (i == n || p[i] == ' ' || p[i] == 'T');
}

bool cell_is_text(const char *p, size_t n)
{
	trim(&p, &n);
	return n > 0 && !cell_is_number(p, n) && !cell_is_date(p, n);
}

bool cell_is_total_label(const char *p, size_t n)
{
	static const char *const labels[] = {"total", "totals", "grand total", "subtotal", "sub total",
					     "sub-total", "sum", "grand totals"};
	trim(&p, &n);
	if (n && p[n - 1] == ':')
		n--;
	trim(&p, &n);
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strlen(labels[i]) == n && !strncasecmp(p, labels[i], n))
			return true;
	return false;
}
