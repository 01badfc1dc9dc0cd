/* Match keys for names and addresses: two texts that must be treated as the
 * same location, customer, branch, manager or column header get the same
 * key (SPEC "Location naming in jobs files", PRODUCT.md §5 and §6).  Stores
 * save the key beside the text and compare keys, never raw text.  Pure
 * functions, no I/O; keys live in the caller's arena.  Every export has
 * the name_ prefix (src/store/textkey.c adapts them to fixed buffers). */
#ifndef LOADLINE_MODEL_NAMES_H
#define LOADLINE_MODEL_NAMES_H

#include <stddef.h>

#include "base/arena.h"
#include "model/schema.h"

/* The match key of a name: leading and trailing whitespace of every Unicode
 * kind removed (norm_is_space(): spaces, tabs, CR/LF, NBSP, U+2000..U+200B,
 * U+3000, U+FEFF ...), then Unicode NFC and full case folding (utf8proc;
 * "STRASSE" and "straße" match, "Cafe\u0301" and "Café" match).  Nothing else
 * is ignored: inner whitespace is kept as is ("Yard  A" is not "Yard A"),
 * as are punctuation and extra words.  Returns a NUL-terminated key ("" for
 * a blank name), or NULL when the text is not UTF-8 or holds a NUL.  Case
 * folding can make the key longer than the text ("ß" -> "ss"); callers cap
 * the text (schema caps) before keying it. */
char *name_key(struct arena *a, const char *s, size_t len);

/* The match key of a customer or branch name (PRODUCT §8: names that
 * render identically are one name): name_key() with the text in NFKC
 * rather than NFC, and Unicode's default-ignorable code points removed.
 * So fullwidth "ＡＣＭＥ" is "acme", a no-break or other fixed-width space
 * is a space, "ﬁ" is "fi", and zero-width space, joiner and non-joiner,
 * soft hyphen, word joiner, bidi controls, variation selectors and U+FEFF
 * count for nothing ("Ac\u00adme" is "acme").  Inner spaces are still kept
 * as they are.  Location names keep name_key() (SPEC "Location naming"). */
char *name_ref_key(struct arena *a, const char *s, size_t len);

/* The key of one address part, for "same address" comparisons
 * (LOCATION_NAME_ADDRESS_MISMATCH compares street, city and ZIP):
 * - street, city: name_key() rules, plus inner whitespace runs as one
 *   space, commas as spaces, trailing periods of each word dropped, and
 *   common USPS abbreviations applied to whole words (street -> st,
 *   avenue -> ave, north -> n, suite -> ste, saint -> st, ...), so
 *   "123 Main Street" and "123  main st." match;
 * - state: the USPS code in lower case ("New York" -> "ny"); text that is
 *   no US state keeps its name_key() with whitespace runs as one space;
 * - ZIP: the first 5 digits ("1234-5678" -> "01234"); text that is no ZIP
 *   is kept like a state that is no state;
 * - name: name_key().
 * Returns "" for a blank part, NULL when the text is not UTF-8 or holds a
 * NUL, or when part is out of range. */
char *name_address_part_key(struct arena *a, enum addr_part part,
			    const char *s, size_t len);

/* The key of a whole address, for reusing an identical normalized address
 * when no name column is mapped: the street, city, state and ZIP part keys
 * joined by U+001F (which no part key contains).  NULL arguments are blank
 * parts.  Returns NULL when a part is not UTF-8 or holds a NUL. */
char *name_address_key(struct arena *a, const char *street,
		       size_t street_len, const char *city, size_t city_len,
		       const char *state, size_t state_len, const char *zip,
		       size_t zip_len);

#endif
