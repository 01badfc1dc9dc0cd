/* Unit tests for src/model/names: location-name and address match keys
 * (SPEC "Location naming in jobs files": case and surrounding whitespace of
 * any kind are ignored, nothing else). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/names.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int setup(void **state)
{
	*state = arena_new();
	return 0;
}

static int teardown(void **state)
{
	arena_free(*state);
	return 0;
}

static char *key(struct arena *a, const char *s)
{
	return name_key(a, s, strlen(s));
}

static void same(struct arena *a, const char *x, const char *y)
{
	char *kx = key(a, x), *ky = key(a, y);
	if (!kx || !ky || strcmp(kx, ky) != 0) {
		print_error("\"%s\" and \"%s\" should match: \"%s\" vs \"%s\"\n",
			    x, y, kx ? kx : "(null)", ky ? ky : "(null)");
		fail();
	}
}

static void differ(struct arena *a, const char *x, const char *y)
{
	char *kx = key(a, x), *ky = key(a, y);
	assert_non_null(kx);
	assert_non_null(ky);
	if (strcmp(kx, ky) == 0) {
		print_error("\"%s\" and \"%s\" should differ\n", x, y);
		fail();
	}
}

static void test_case_and_surrounding_space_ignored(void **state)
{
	struct arena *a = *state;
	assert_string_equal(key(a, "  Yard A  "), "yard a");
	same(a, "Yard A", "yard a");
	same(a, "Yard A", "YARD A");
	same(a, "Yard A", "\tYard A\r\n");
	same(a, "Yard A", "\xC2\xA0Yard A\xC2\xA0");             /* NBSP */
	same(a, "Yard A", "\xE2\x80\x83Yard A\xE2\x80\x8A");     /* U+2003, U+200A */
	same(a, "Yard A", "\xE3\x80\x80Yard A\xE2\x80\xAF");     /* U+3000, U+202F */
	same(a, "Yard A", "\xEF\xBB\xBFYard A");                 /* BOM */
	same(a, "Yard A", "\xC2\x85Yard A\xE2\x80\xA8");         /* NEL, U+2028 */
	same(a, "Yard A", "\xE1\x9A\x80Yard A\xE2\x81\x9F");     /* U+1680, U+205F */
	same(a, "Yard A", "\x0B\x0CYard A\x0B");
}

static void test_unicode_folding(void **state)
{
	struct arena *a = *state;
	same(a, "\xC3\x89TOILE", "\xC3\xA9toile");                /* ÉTOILE / étoile */
	same(a, "Caf\xC3\xA9", "Cafe\xCC\x81");                   /* NFC */
	same(a, "STRASSE", "stra\xC3\x9F" "e");                    /* ß folds to ss */
	same(a, "\xCE\xA3\xCE\x91\xCE\xA3", "\xCF\x83\xCE\xB1\xCF\x82"); /* ΣΑΣ / σας */
	same(a, "\xD0\x9C\xD0\x9E\xD0\xA1\xD0\x9A\xD0\x92\xD0\x90",
	     "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0");  /* МОСКВА */
	same(a, "\xEF\xBC\xA1", "\xEF\xBD\x81");                  /* fullwidth A/a */
	/* Compatibility forms are NOT folded: nothing else is ignored. */
	differ(a, "\xEF\xBC\xA1", "a");                           /* fullwidth vs ASCII */
	differ(a, "x\xC2\xB2", "x2");                             /* superscript two */
	same(a, "\xEF\xAC\x81", "FI");       /* ligature fi: CaseFolding.txt folds it */
	differ(a, "Cafe", "Caf\xC3\xA9");                         /* accents count */
}

static void test_nothing_else_ignored(void **state)
{
	struct arena *a = *state;
	differ(a, "Yard A", "Yard  A");          /* inner spaces kept */
	differ(a, "Yard A", "Yard\tA");
	differ(a, "Yard A", "Yard\xC2\xA0" "A");
	differ(a, "Yard A", "YardA");
	differ(a, "Yard A", "Yard A North");     /* extra words */
	differ(a, "Yard A", "Yard A.");
	differ(a, "Yard A", "Yard-A");
	differ(a, "Yard A", "Yard B");
	differ(a, "Yard A", "Yard A\xE2\x80\x8C"); /* ZWNJ is not whitespace */
	assert_string_equal(key(a, "Yard  A"), "yard  a");
}

static void test_blank_and_invalid(void **state)
{
	struct arena *a = *state;
	assert_string_equal(key(a, ""), "");
	assert_string_equal(key(a, " \t\xC2\xA0 "), "");
	assert_string_equal(name_key(a, NULL, 0), "");
	assert_null(key(a, "Yard\xFF"));
	assert_null(key(a, "\xC0\xAF"));
	assert_null(key(a, "\xED\xA0\x80"));    /* surrogate */
	assert_null(name_key(a, "Yard\0A", 6)); /* NUL */
	/* Controls other than NUL are kept (and matched exactly). */
	assert_string_equal(key(a, "A\x01" "B"), "a\x01" "b");
}

static void test_hostile_sizes(void **state)
{
	struct arena *a = *state;
	size_t len = 10240;
	char *big = malloc(len);
	for (size_t i = 0; i < len; i++)
		big[i] = (char)('A' + i % 26);
	char *k = name_key(a, big, len);
	assert_non_null(k);
	assert_int_equal(strlen(k), len);
	assert_true(k[0] == 'a' && k[25] == 'z');
	/* Expanding folds: 5000 x U+0390 (2 bytes) fold to 3 code points. */
	char *exp = malloc(10000);
	for (size_t i = 0; i < 10000; i += 2)
		memcpy(exp + i, "\xCE\x90", 2);
	k = name_key(a, exp, 10000);
	assert_non_null(k);
	assert_true(strlen(k) >= 10000);
	free(exp);
	free(big);
}

/* ---- Addresses ---- */

static char *part(struct arena *a, enum addr_part p, const char *s)
{
	return name_address_part_key(a, p, s, strlen(s));
}

/* Customer and branch names (issue 20 item 8): NFKC and default
 * ignorables removed, so what renders identically matches; location names
 * (name_key) keep telling these apart. */
static void test_reference_keys_fold_look_alikes(void **state)
{
	struct arena *a = *state;
	static const char *const looks[] = {
		"Acme\u200b Paving", "Ac\u200dme Paving", "Ac\u00adme Paving", "Acme\u00a0Paving",
		"\uff21\uff43\uff4d\uff45 Paving", "\u00adAcme Paving\u200b", "\ufeffACME PAVING", "Acme Pav\u2060ing",
		"Acme \u202ePaving",
	};
	char *want = name_ref_key(a, "Acme Paving", 11);
	assert_string_equal(want, "acme paving");
	for (size_t i = 0; i < N(looks); i++) {
		char *k = name_ref_key(a, looks[i], strlen(looks[i]));
		if (!k || strcmp(k, want)) {
			print_error("\"%s\" should key as \"acme paving\", got \"%s\"\n", looks[i], k ? k : "(null)");
			fail();
		}
		if (i < 5)
			differ(a, looks[i], "Acme Paving");   /* the location rule is unchanged */
	}
	assert_string_equal(name_ref_key(a, "\ufb01ne", 5), "fine");
	/* Issue 27 item 16: the Turkish dotted capital I (U+0130) folds to
	 * "i" + U+0307, which composes with nothing: "\u0130stanbul" looked
	 * like "Istanbul" and keyed differently. */
	static const char dotted[] = "\u0130STANBUL Freight", plain[] = "Istanbul Freight";
	assert_string_equal(name_ref_key(a, dotted, strlen(dotted)), name_ref_key(a, plain, strlen(plain)));
	assert_string_equal(name_ref_key(a, "\u0117", strlen("\u0117")), "\u0117");   /* other dots stay (e with dot above) */
	assert_string_not_equal(name_ref_key(a, "Acme  Paving", 12), want);
	assert_string_not_equal(name_ref_key(a, "Acme-Paving", 11), want);
	assert_null(name_ref_key(a, "\xff", 1));
	assert_string_equal(name_ref_key(a, "\u200b\u00ad", 5), "");
}

static void test_street_keys(void **state)
{
	struct arena *a = *state;
	const char *same_as_main[] = {
		"123 Main Street", "123 main st", "123  MAIN  ST.", " 123 Main St ",
		"123\tMain\xC2\xA0St", "123 Main Str.", "123 Main St,",
	};
	for (size_t i = 0; i < N(same_as_main); i++)
		assert_string_equal(part(a, PART_STREET, same_as_main[i]),
				    "123 main st");
	assert_string_equal(part(a, PART_STREET, "500 North Avenue, Suite 5"),
			    "500 n ave ste 5");
	assert_string_equal(part(a, PART_STREET, "500 N. Ave., Ste. 5"),
			    "500 n ave ste 5");
	assert_string_equal(part(a, PART_STREET, "1 Martin Luther King Jr Boulevard"),
			    "1 martin luther king jr blvd");
	assert_string_equal(part(a, PART_STREET, "77 Sunset Blvd"), "77 sunset blvd");
	assert_string_equal(part(a, PART_STREET, "9 Highway 61 Road"), "9 hwy 61 rd");
	/* Different streets stay different. */
	assert_string_not_equal(part(a, PART_STREET, "123 Main St"),
				part(a, PART_STREET, "124 Main St"));
	assert_string_not_equal(part(a, PART_STREET, "123 Main St"),
				part(a, PART_STREET, "123 Main Ave"));
	assert_string_not_equal(part(a, PART_STREET, "123 Main St"),
				part(a, PART_STREET, "123 Main St Unit 2"));
	/* Control characters separate words; no key holds U+001F. */
	assert_string_equal(part(a, PART_STREET, "1\x1f" "Main\x01St"), "1 main st");
	assert_string_equal(part(a, PART_STREET, ""), "");
	assert_string_equal(part(a, PART_STREET, "..."), "");
	assert_null(part(a, PART_STREET, "1 Main\xFF"));
}

static void test_city_state_zip_keys(void **state)
{
	struct arena *a = *state;
	assert_string_equal(part(a, PART_CITY, "Saint Louis"), "st louis");
	assert_string_equal(part(a, PART_CITY, "St. Louis"), "st louis");
	assert_string_equal(part(a, PART_CITY, "FORT  WORTH"), "ft worth");
	assert_string_equal(part(a, PART_CITY, "  New York "), "new york");
	assert_string_equal(part(a, PART_STATE, "New York"), "ny");
	assert_string_equal(part(a, PART_STATE, "NY"), "ny");
	assert_string_equal(part(a, PART_STATE, " n.y. "), "ny");
	assert_string_equal(part(a, PART_STATE, "Ontario"), "ontario");
	assert_string_equal(part(a, PART_STATE, "Nord\x1f  Rhein"), "nord rhein");
	assert_string_equal(part(a, PART_ZIP, "02134-0001"), "02134");
	assert_string_equal(part(a, PART_ZIP, "2134"), "02134");
	assert_string_equal(part(a, PART_ZIP, "021340001"), "02134");
	assert_string_equal(part(a, PART_ZIP, "K1A 0B6"), "k1a 0b6");
	assert_string_equal(part(a, PART_NAME, " Yard  A "), "yard  a");
	assert_null(part(a, PART_NONE, "x"));
	assert_null(part(a, PART__COUNT, "x"));
	assert_null(part(a, PART_ZIP, "\xFF"));
	assert_null(part(a, PART_STATE, "\xFF"));
}

static void test_address_key(void **state)
{
	struct arena *a = *state;
	char *k1 = name_address_key(a, "123 Main Street", 15, "Austin", 6, "Texas", 5,
			       "78701-1234", 10);
	char *k2 = name_address_key(a, " 123 main st. ", 14, "AUSTIN", 6, "tx", 2,
			       "78701", 5);
	assert_non_null(k1);
	assert_string_equal(k1, k2);
	assert_string_equal(k1, "123 main st\x1f" "austin\x1f" "tx\x1f" "78701");
	char *k3 = name_address_key(a, "123 Main Street", 15, "Dallas", 6, "TX", 2,
			       "78701", 5);
	assert_string_not_equal(k1, k3);
	/* Parts cannot bleed into each other. */
	char *k4 = name_address_key(a, "a", 1, "b c", 3, NULL, 0, NULL, 0);
	char *k5 = name_address_key(a, "a b", 3, "c", 1, NULL, 0, NULL, 0);
	assert_string_not_equal(k4, k5);
	assert_string_equal(name_address_key(a, NULL, 0, NULL, 0, NULL, 0, NULL, 0),
			    "\x1f\x1f\x1f");
	assert_null(name_address_key(a, "1 Main\xFF", 7, "x", 1, "TX", 2, "1", 1));
	assert_null(name_address_key(a, "1 Main", 6, "x\0y", 3, "TX", 2, "1", 1));
	/* Unicode whitespace inside parts collapses like spaces. */
	char *k6 = name_address_key(a, "123\xE3\x80\x80Main\xC2\xA0\xC2\xA0St", 16,
			       "Austin", 6, "TX", 2, "78701", 5);
	assert_string_equal(k6, k1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_case_and_surrounding_space_ignored,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unicode_folding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_else_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_blank_and_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reference_keys_fold_look_alikes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_street_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_city_state_zip_keys, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_address_key, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
