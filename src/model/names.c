/* Match keys for names and addresses: trim, NFC, case folding (utf8proc),
 * and for address parts a few spelling equivalences. */
#include "names.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "model/normalize.h"

/* True when the slice is UTF-8 without a NUL: utf8proc would treat a NUL
 * as a character, and a key with one would be cut short by C strings. */
static bool clean_utf8(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp <= 0)
			return false;
		i += n;
	}
	return true;
}

/* The trimmed text mapped by utf8proc with options; trimmed again when
 * retrim (what NFKC or IGNORE removed or made a space may have been next
 * to the ends). */
static char *mapped_key(struct arena *a, const char *s, size_t len, utf8proc_option_t options, bool retrim)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	if (!clean_utf8(t, tlen))
		return NULL;
	if (tlen == 0)
		return arena_strdup(a, "");
	utf8proc_uint8_t *out = NULL;
	utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)t, (utf8proc_ssize_t)tlen, &out, options);
	if (n < 0) {
		free(out);
		return NULL;
	}
	size_t klen = (size_t)n;
	const char *k = retrim ? norm_trim((const char *)out, (size_t)n, &klen) : (const char *)out;
	char *key = arena_strndup(a, k, klen);
	free(out);
	return key;
}

char *name_key(struct arena *a, const char *s, size_t len)
{
	return mapped_key(a, s, len, UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD, false);
}

/* Case folding turns the Turkish dotted capital I (U+0130) into "i" and
 * a combining dot above (U+0307), which composes with nothing: "\u0130stanbul"
 * renders like "Istanbul" yet keyed apart.  The dot after an i goes (issue
 * 27 item 16); every other dot above composes (U+0117) and stays. */
static void drop_dot_after_i(char *k)
{
	char *o = k;
	for (const char *p = k; *p; p++) {
		*o++ = *p;
		if (*p == 'i' && (unsigned char)p[1] == 0xCC && (unsigned char)p[2] == 0x87)
			p += 2;
	}
	*o = '\0';
}

char *name_ref_key(struct arena *a, const char *s, size_t len)
{
	char *k = mapped_key(a, s, len,
			     UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_IGNORE | UTF8PROC_CASEFOLD, true);
	if (k)
		drop_dot_after_i(k);
	return k;
}

/* ---- Address parts ---- */

struct abbrev {
	const char *word, *abbr;
};

/* USPS street suffixes (Publication 28, appendix C1), directionals and
 * secondary unit words, plus the usual short forms in place names.  Both
 * sides of a comparison go through the table, so "st" standing for both
 * street and saint does no harm. */
static const struct abbrev abbrevs[] = {
	{ "street", "st" },       { "str", "st" },         { "avenue", "ave" },
	{ "av", "ave" },          { "road", "rd" },        { "boulevard", "blvd" },
	{ "drive", "dr" },        { "lane", "ln" },        { "court", "ct" },
	{ "place", "pl" },        { "parkway", "pkwy" },   { "highway", "hwy" },
	{ "circle", "cir" },      { "terrace", "ter" },    { "trail", "trl" },
	{ "square", "sq" },       { "freeway", "fwy" },    { "expressway", "expy" },
	{ "turnpike", "tpke" },   { "center", "ctr" },     { "crossing", "xing" },
	{ "heights", "hts" },     { "junction", "jct" },   { "point", "pt" },
	{ "route", "rte" },       { "plaza", "plz" },      { "alley", "aly" },
	{ "north", "n" },         { "south", "s" },        { "east", "e" },
	{ "west", "w" },          { "northeast", "ne" },   { "northwest", "nw" },
	{ "southeast", "se" },    { "southwest", "sw" },   { "suite", "ste" },
	{ "apartment", "apt" },   { "building", "bldg" },  { "floor", "fl" },
	{ "room", "rm" },         { "saint", "st" },       { "fort", "ft" },
	{ "mount", "mt" },
};

static const char *abbreviate(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(abbrevs) / sizeof(abbrevs[0]); i++)
		if (strlen(abbrevs[i].word) == n &&
		    memcmp(abbrevs[i].word, w, n) == 0)
			return abbrevs[i].abbr;
	return NULL;
}

/* Separates words: Unicode whitespace, commas and control characters (so
 * that no key contains U+001F, the name_address_key() separator). */
static bool is_separator(int32_t cp)
{
	return norm_is_space(cp) || cp == ',' || cp < 0x20 || cp == 0x7F;
}

/* Appends one word, without trailing periods, abbreviated when asked. */
static void put_word(char *out, size_t *o, const char *w, size_t n, bool abbr)
{
	while (n > 0 && w[n - 1] == '.')
		n--;
	if (n == 0)
		return;
	const char *short_form = abbr ? abbreviate(w, n) : NULL;
	if (short_form) {
		w = short_form;
		n = strlen(short_form);
	}
	if (*o > 0)
		out[(*o)++] = ' ';
	memcpy(out + *o, w, n);
	*o += n;
}

/* Rebuilds a folded key as single-space separated words. */
static char *words(struct arena *a, const char *key, bool abbr)
{
	size_t len = strlen(key), o = 0, i = 0;
	char *out = arena_alloc(a, len + 1);
	while (i < len) {
		size_t n;
		while (i < len && is_separator(norm_utf8_next(key + i, len - i, &n)))
			i += n;
		size_t start = i;
		while (i < len && !is_separator(norm_utf8_next(key + i, len - i, &n)))
			i += n;
		put_word(out, &o, key + start, i - start, abbr);
	}
	out[o] = '\0';
	return out;
}

/* State and ZIP are read from the folded words, so that text which only
 * differs by case, controls or inner spaces gets the same key as the value
 * it spells, and a key is its own key. */
static char *state_key(struct arena *a, const char *s, size_t len)
{
	char *k = name_key(a, s, len);
	if (!k)
		return NULL;
	k = words(a, k, false);
	char code[NORM_STATE_SIZE];
	if (norm_state(k, strlen(k), code, NULL) == CODE_OK) {
		code[0] = (char)(code[0] - 'A' + 'a');
		code[1] = (char)(code[1] - 'A' + 'a');
		return arena_strndup(a, code, 2);
	}
	return k;
}

static char *zip_key(struct arena *a, const char *s, size_t len)
{
	char *k = name_key(a, s, len);
	if (!k)
		return NULL;
	k = words(a, k, false);
	char zip[NORM_ZIP_SIZE];
	if (norm_zip(k, strlen(k), zip, NULL) == CODE_OK)
		return arena_strndup(a, zip, 5);
	return k;
}

char *name_address_part_key(struct arena *a, enum addr_part part,
			    const char *s, size_t len)
{
	char *k;
	switch (part) {
	case PART_NAME:
		return name_key(a, s, len);
	case PART_STREET:
	case PART_CITY:
		k = name_key(a, s, len);
		return k ? words(a, k, true) : NULL;
	case PART_STATE:
		return state_key(a, s, len);
	case PART_ZIP:
		return zip_key(a, s, len);
	default:
		return NULL;
	}
}

char *name_address_key(struct arena *a, const char *street,
		       size_t street_len, const char *city, size_t city_len,
		       const char *state, size_t state_len, const char *zip,
		       size_t zip_len)
{
	const char *k[4] = {
		name_address_part_key(a, PART_STREET, street, street ? street_len : 0),
		name_address_part_key(a, PART_CITY, city, city ? city_len : 0),
		name_address_part_key(a, PART_STATE, state, state ? state_len : 0),
		name_address_part_key(a, PART_ZIP, zip, zip ? zip_len : 0),
	};
	for (int i = 0; i < 4; i++)
		if (!k[i])
			return NULL;
	return arena_printf(a, "%s\x1f%s\x1f%s\x1f%s", k[0], k[1], k[2], k[3]);
}
