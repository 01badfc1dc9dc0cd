/* Helpers shared by the normalize_*.c files; not part of any interface. */
#ifndef LOADLINE_MODEL_NORMALIZE_INTERNAL_H
#define LOADLINE_MODEL_NORMALIZE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "model/normalize.h"

/* Sets *ret_why when asked for and returns CODE_TYPE_MISMATCH. */
static inline enum code fail(enum norm_why *ret_why, enum norm_why why)
{
	if (ret_why)
		*ret_why = why;
	return CODE_TYPE_MISMATCH;
}

/* ASCII only on purpose: cells are read byte-wise and locales must not
 * change what a digit or a letter is. */
static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Reads min..max digits at *p and advances; returns the value, or -1 when
 * there are fewer than min or more than max digits. */
static inline long digits(const char **p, const char *end, int min, int max)
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

/* Consumes c at *p when it is there. */
static inline bool eat(const char **p, const char *end, char c)
{
	if (*p < end && **p == c) {
		(*p)++;
		return true;
	}
	return false;
}

/* Consumes the lower-case ASCII word w at *p, ignoring case. */
static inline bool eat_word(const char **p, const char *end, const char *w)
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

#endif
