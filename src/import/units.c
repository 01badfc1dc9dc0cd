/* Units and number conventions where a person sees them (PRODUCT §14): a
 * unit in a column's header applies to that column's bare numbers, and a
 * ;-separated file writes its numbers the European way. */
#include <string.h>

#include "rows.h"

static bool alnum(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Word i of h (runs of letters and digits): its start and length. */
static size_t words(const char *h, size_t n, const char **w, size_t *wl, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max;) {
		while (i < n && !alnum(h[i]))
			i++;
		size_t s = i;
		while (i < n && alnum(h[i]))
			i++;
		if (i > s) {
			w[k] = h + s;
			wl[k++] = i - s;
		}
	}
	return k;
}

enum weight_unit header_weight_unit(const char *h, size_t n)
{
	const char *w[16];
	size_t wl[16], k = words(h, n, w, wl, 16);
	/* Two-word units first ("metric tons", "short tons"), then one word;
	 * the last unit word of the header counts ("Tons (kg)" is odd, but a
	 * person would read the parenthesis as the unit). */
	enum weight_unit found = WUNIT_NONE;
	for (size_t i = 0; i < k; i++) {
		enum weight_unit u = WUNIT_NONE;
		if (i + 1 < k && wl[i] + wl[i + 1] + 1 < 40) {
			char two[40];
			memcpy(two, w[i], wl[i]);
			two[wl[i]] = ' ';
			memcpy(two + wl[i] + 1, w[i + 1], wl[i + 1]);
			enum norm_why why;
			if (norm_weight_unit(two, wl[i] + wl[i + 1] + 1, &u, &why) == CODE_OK && u != WUNIT_NONE) {
				found = u;
				i++;
				continue;
			}
		}
		enum norm_why why;
		if (norm_weight_unit(w[i], wl[i], &u, &why) == CODE_OK && u != WUNIT_NONE)
			found = u;
	}
	return found;
}

void colmap_read_units(struct arena *a, struct colmap *map, const struct sheet_info *info)
{
	map->decimal_comma = info && info->delimiter == ';';
	int col = map->field_col[FIELD_WEIGHT];
	if (col < 0)
		return;
	enum weight_unit u = header_weight_unit(map->headers[col], strlen(map->headers[col]));
	if (u == WUNIT_NONE)
		return;
	map->col_unit = arena_alloc(a, (size_t)map->ncols + 1);
	memset(map->col_unit, 0, (size_t)map->ncols + 1);
	map->col_unit[col] = (unsigned char)u;
}

/* Digits with '.' grouping by threes and one ',' before the decimals:
 * the European shape.  *ret_comma: where the comma is (n when none). */
static bool european_shape(const char *s, size_t n, size_t *ret_comma)
{
	size_t comma = n, dots = 0, digits = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ',') {
			if (comma != n)
				return false;
			comma = i;
		} else if (s[i] == '.') {
			if (comma != n)
				return false;   /* "1,250.00": the usual convention */
			dots++;
		} else if (s[i] >= '0' && s[i] <= '9') {
			digits++;
		} else {
			return false;
		}
	}
	*ret_comma = comma;
	/* A comma, or dots that group ("1.234.567"); a lone dot stays a
	 * decimal point ("12.5 t" reads the same either way to its writer). */
	return digits > 0 && (comma != n || dots > 1);
}

const char *european_number(struct arena *a, const char *s, size_t n, size_t *ret_len)
{
	*ret_len = n;
	size_t b = 0, e;
	while (b < n && (s[b] == ' ' || s[b] == '$'))
		b++;
	for (e = b; e < n && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.' || s[e] == ','); e++)
		;
	size_t comma;
	if (e == b || !european_shape(s + b, e - b, &comma))
		return s;
	char *out = arena_alloc(a, n + 1);
	size_t o = 0;
	memcpy(out, s, b);
	o = b;
	for (size_t i = b; i < e; i++) {
		if (s[i] == '.')
			continue;
		out[o++] = s[i] == ',' ? '.' : s[i];
	}
	memcpy(out + o, s + e, n - e);
	o += n - e;
	out[o] = '\0';
	*ret_len = o;
	return out;
}
