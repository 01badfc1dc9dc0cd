/* Interim match keys: ASCII case folding and trimming.  Replaced by the
 * Unicode-aware keys of src/import/names.c when that module lands. */
#include "textkey.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void text_key(const char *s, char *out, size_t n)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	size_t i = 0;
	for (; i < len && i + 1 < n; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	if (n)
		out[i] = '\0';
}

void address_key(const char *street, const char *city, const char *state, const char *zip,
		 char *out, size_t n)
{
	char a[256], b[256], c[64], d[64];
	text_key(street ? street : "", a, sizeof a);
	text_key(city ? city : "", b, sizeof b);
	text_key(state ? state : "", c, sizeof c);
	text_key(zip ? zip : "", d, sizeof d);
	snprintf(out, n, "%s|%s|%s|%.5s", a, b, c, d);
}
