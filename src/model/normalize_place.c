/* Places of the jobs schema: US states and ZIP codes. */
#include "normalize_internal.h"

#include <stdio.h>

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
