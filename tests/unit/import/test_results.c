/* Unit tests for src/import/results: the per-row result entries are
 * written as JSON by hand; they must be exactly what jansson's
 * json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER) makes of the same values
 * (SPEC "Per-row result"), escapes included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/results.h"

static const char *headers[] = {"Job \"code\"", "Load\tno", "Wéight", "Customer\\x"};

static void set_raw(struct row *r, enum field f, const char *s)
{
	r->raw[f] = s;
	r->raw_len[f] = strlen(s);
}

/* Parsing each body and dumping it again with jansson gives the same bytes. */
static void test_entries_are_jansson_compact(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	enum field col_field[] = {FIELD_JOB_CODE, FIELD_LOAD_NO, FIELD_WEIGHT, FIELD_CUSTOMER};
	struct colmap map = {.ncols = 4, .headers = headers, .col_field = col_field};
	for (int f = 0; f < FIELD__COUNT; f++)
		map.field_col[f] = -1;
	for (int c = 0; c < 4; c++)
		map.field_col[col_field[c]] = c;
	struct row rows[3];
	memset(rows, 0, sizeof rows);
	for (int i = 0; i < 3; i++)
		rows[i].arena = a;
	/* Succeeded with warnings, texts that need every escape. */
	rows[0].number = 2;
	rows[0].bucket = BUCKET_SUCCEEDED;
	set_raw(&rows[0], FIELD_JOB_CODE, "  J\"1\\  ");
	set_raw(&rows[0], FIELD_LOAD_NO, "7\x01\b\f\n\r\t/é😀");
	set_raw(&rows[0], FIELD_PROJECT_NAME, "Pröject");
	row_add_warning(&rows[0], CODE_UNIT_NORMALIZED, FIELD_WEIGHT, 2, "12 tons", (struct msg){MSG_LITERAL, {"Converted \"12 tons\"\x1f to lb."}});
	row_add_warning(&rows[0], CODE_LOOKUP_MISS, FIELD_CUSTOMER, 3, NULL, (struct msg){MSG_SUMMARY, {NULL}});
	row_add_id(&rows[0], a, "load_abc");
	row_add_id(&rows[0], a, "prj_def");
	/* Failed: a row-level error without a column. */
	rows[1].number = 3;
	rows[1].bucket = BUCKET_FAILED;
	set_raw(&rows[1], FIELD_JOB_CODE, "");
	row_add_error(&rows[1], CODE_MISSING_REQUIRED, FIELD_NONE, -1, NULL, (struct msg){MSG_LITERAL, {"whole row"}});
	row_add_error(&rows[1], CODE_TYPE_MISMATCH, FIELD_WEIGHT, 2, "x", (struct msg){MSG_LITERAL, {"bad"}});
	/* Skipped. */
	rows[2].number = 30;
	rows[2].bucket = BUCKET_SKIPPED;
	rows[2].reason = "duplicate_of_prior_import";
	set_raw(&rows[2], FIELD_JOB_CODE, "J");
	set_raw(&rows[2], FIELD_LOAD_NO, "9");
	struct result_entry *e;
	int n = results_entries(a, false, &map, rows, 3, "https://docs.example/x", &e);
	assert_int_equal(n, 4);
	const char *want_buckets[] = {"succeeded", "warnings", "failed", "skipped"};
	for (int i = 0; i < n; i++) {
		assert_string_equal(e[i].bucket, want_buckets[i]);
		json_error_t err;
		json_t *j = json_loads(e[i].body, 0, &err);
		if (!j)
			fail_msg("entry %d is not JSON (%s): %s", i, err.text, e[i].body);
		char *again = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		assert_string_equal(again, e[i].body);
		free(again);
		json_decref(j);
	}
	assert_string_equal(e[3].body, "{\"rowIndex\":30,\"source\":{\"loadNo\":\"9\",\"jobCode\":\"J\"},"
			    "\"reason\":\"duplicate_of_prior_import\"}");
	json_t *w = json_loads(e[1].body, 0, NULL);
	json_t *d = json_array_get(json_object_get(w, "warnings"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "cell")), "C2");
	assert_string_equal(json_string_value(json_object_get(d, "column")), "Wéight");
	assert_string_equal(json_string_value(json_object_get(d, "docUrl")),
			    "https://docs.example/x/api/errors/UNIT_NORMALIZED");
	assert_string_equal(json_string_value(json_object_get(json_object_get(w, "source"), "jobCode")), "J\"1\\");
	assert_int_equal(json_array_size(json_object_get(w, "createdRecordIds")), 2);
	json_decref(w);
	/* A dry run lists no ids. */
	n = results_entries(a, true, &map, rows, 1, "d", &e);
	assert_non_null(strstr(e[0].body, "\"createdRecordIds\":[]"));
	arena_free(a);
}

/* ---- Compact rows: stored, then rendered, they are the reference bytes ---- */

static const char *wide_headers[] = {"jobCode", "loadNo", "Wéight \"lbs\"", "customer\\", "branch", "projectManager",
				     "pickupName", "pickupZip", "loadDate", "rate", "notes", "weightUnit", "pickupState"};

/* Every kind, with arguments that need escapes, that are and are not the
 * quote of the value, and a NULL in the middle. */
static void add_every_kind(struct arena *a, struct row *ok, struct row *bad)
{
	const char *q = norm_quote(a, "12 t\x01ons", 8, MSG_QUOTE_CHARS);
	row_add_warning(ok, CODE_UNIT_NORMALIZED, FIELD_WEIGHT, 2, "12 t\x01ons",
			norm_msg(a, FIELD_WEIGHT, CODE_UNIT_NORMALIZED, NORM_WHY_NONE, "12 t\x01ons", 8, "24000"));
	assert_string_equal(ok->warnings[0].msg.arg[0], q);
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_CUSTOMER, 3, " Café\t\"B\" ", (struct msg){MSG_NO_NAMED, {"Café \"B\""}});
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_BRANCH, 4, "North", (struct msg){MSG_NO_NAMED, {"North"}});
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_PROJECT_MANAGER, 5, "Pat", (struct msg){MSG_NO_USER, {"Pat"}});
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_PICKUP_STREET, -1, NULL, (struct msg){MSG_NO_STREET, {NULL}});
	row_add_warning(ok, CODE_LOCATION_NAME_AMBIGUOUS, FIELD_PICKUP_NAME, 6, "Twin", (struct msg){MSG_LOC_AMBIGUOUS, {"Twin"}});
	row_add_warning(ok, CODE_LOCATION_NAME_ADDRESS_MISMATCH, FIELD_PICKUP_NAME, 6, "Q1", (struct msg){MSG_LOC_MISMATCH, {"Q1"}});
	row_add_warning(ok, CODE_LOCATION_NAME_LOOKUP_MISS, FIELD_PICKUP_NAME, 6, "Nowhere\\", (struct msg){MSG_LOC_MISS, {"Nowhere\\"}});
	row_add_warning(ok, CODE_ADDRESS_NOT_GEOCODED, FIELD_PICKUP_ZIP, 7, NULL, (struct msg){MSG_GEO_NO_ZIP, {NULL}});
	row_add_warning(ok, CODE_ADDRESS_NOT_GEOCODED, FIELD_PICKUP_ZIP, 7, "00000", (struct msg){MSG_GEO_UNKNOWN_ZIP, {"00000"}});
	row_add_warning(ok, CODE_ADDRESS_ZIP_STATE_MISMATCH, FIELD_PICKUP_ZIP, 7, "78701",
			(struct msg){MSG_GEO_STATE, {"78701", "TX", NULL, "NY"}});
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_CUSTOMER, 3, NULL, (struct msg){MSG_SUMMARY, {NULL}});
	row_add_warning(ok, CODE_LOOKUP_MISS, FIELD_NONE, -1, "x", (struct msg){MSG_LITERAL, {"x"}});
	row_add_error(bad, CODE_MISSING_REQUIRED, FIELD_LOAD_DATE, 8, NULL,
		      norm_msg(a, FIELD_LOAD_DATE, CODE_MISSING_REQUIRED, NORM_WHY_EMPTY, NULL, 0, NULL));
	row_add_error(bad, CODE_MISSING_REQUIRED, FIELD_JOB_CODE, -1, NULL,
		      norm_msg(a, FIELD_JOB_CODE, CODE_MISSING_REQUIRED, NORM_WHY_EMPTY, NULL, 0, NULL));
	row_add_error(bad, CODE_UNIQUE_VIOLATION, FIELD_LOAD_NO, 1, "7",
		      (struct msg){MSG_KEY_CONFLICT, {"7", "J\"1", "7"}});
	char *long_text = arena_alloc(a, 2101);
	memset(long_text, 'n', 2100);
	long_text[2100] = '\0';
	row_add_error(bad, CODE_TYPE_MISMATCH, FIELD_NOTES, 10, norm_excerpt(a, long_text, 2100, 200),
		      norm_msg(a, FIELD_NOTES, CODE_TYPE_MISMATCH, NORM_WHY_TOO_LONG, long_text, 2100, NULL));
}

#define MISMATCH_FIELDS 7

/* TYPE_MISMATCH of every reason on fields of every type, a row a field. */
static void add_every_mismatch(struct arena *a, struct row *rows)
{
	enum field fields[MISMATCH_FIELDS] = {FIELD_LOAD_DATE, FIELD_WEIGHT, FIELD_WEIGHT_UNIT, FIELD_RATE,
					      FIELD_PICKUP_STATE, FIELD_PICKUP_ZIP, FIELD_NOTES};
	int cols[MISMATCH_FIELDS] = {8, 2, 11, 9, 12, 7, 10};
	for (size_t i = 0; i < MISMATCH_FIELDS; i++) {
		struct row *bad = &rows[i];
		*bad = (struct row){.arena = a, .number = 40 + (unsigned)i, .bucket = BUCKET_FAILED};
		for (int why = NORM_WHY_NONE; why <= NORM_WHY_NOT_ZIP; why++) {
			if (why == NORM_WHY_TOO_LONG)
				continue;
			const char *raw = why % 2 ? "bad \"cell\"" : "x\xC3";
			row_add_error(bad, CODE_TYPE_MISMATCH, fields[i], cols[i], norm_excerpt(a, raw, strlen(raw), 200),
				      norm_msg(a, fields[i], CODE_TYPE_MISMATCH, (enum norm_why)why, raw, strlen(raw), NULL));
		}
	}
}

static void set_map(struct colmap *map, enum field *col_field, int ncols)
{
	*map = (struct colmap){.ncols = ncols, .headers = wide_headers, .col_field = col_field};
	for (int f = 0; f < FIELD__COUNT; f++)
		map->field_col[f] = -1;
	for (int c = 0; c < ncols; c++)
		map->field_col[col_field[c]] = c;
}

static void check_compact(struct arena *a, bool dry, const struct colmap *map, struct row *rows, int nrows)
{
	struct result_entry *ref, *e;
	const char *columns;
	int nref = results_entries(a, dry, map, rows, nrows, "https://docs.example/x", &ref);
	int n = results_compact(a, dry, map, rows, nrows, &e, &columns);
	assert_int_equal(n, nrows);
	int k = 0;
	for (int i = 0; i < n; i++) {
		assert_string_equal(e[i].bucket, ref[k].bucket);
		assert_int_equal(e[i].row_index, ref[k].row_index);
		const char *got = results_render(a, e[i].bucket, e[i].row_index, e[i].body, columns, "https://docs.example/x");
		assert_string_equal(got, ref[k++].body);
		assert_int_equal(e[i].warned, k < nref && !strcmp(ref[k].bucket, "warnings"));
		if (e[i].warned) {
			got = results_render(a, "warnings", e[i].row_index, e[i].body, columns, "https://docs.example/x");
			assert_string_equal(got, ref[k++].body);
		}
		/* Stored smaller than what it renders to. */
		assert_true(strlen(e[i].body) < strlen(got));
	}
	assert_int_equal(k, nref);
}

static void test_compact_renders_the_reference(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	enum field col_field[] = {FIELD_JOB_CODE, FIELD_LOAD_NO, FIELD_WEIGHT, FIELD_CUSTOMER, FIELD_BRANCH,
				  FIELD_PROJECT_MANAGER, FIELD_PICKUP_NAME, FIELD_PICKUP_ZIP, FIELD_LOAD_DATE, FIELD_RATE,
				  FIELD_NOTES, FIELD_WEIGHT_UNIT, FIELD_PICKUP_STATE};
	struct colmap map;
	set_map(&map, col_field, 13);
	int nrows = 5 + MISMATCH_FIELDS;
	struct row *rows = arena_alloc(a, sizeof(struct row) * (size_t)nrows);
	memset(rows, 0, sizeof(struct row) * (size_t)nrows);
	rows[0] = (struct row){.arena = a, .number = 2, .bucket = BUCKET_SUCCEEDED};
	set_raw(&rows[0], FIELD_JOB_CODE, "  J\"1\\  ");
	set_raw(&rows[0], FIELD_LOAD_NO, "7\x01\b\f\n\r\t/é😀");
	set_raw(&rows[0], FIELD_PROJECT_NAME, "Pröject");
	row_add_id(&rows[0], a, "load_abc");
	row_add_id(&rows[0], a, "prj_def");
	rows[1] = (struct row){.arena = a, .number = 3, .bucket = BUCKET_FAILED};
	set_raw(&rows[1], FIELD_LOAD_NO, "8");
	add_every_kind(a, &rows[0], &rows[1]);
	rows[2] = (struct row){.arena = a, .number = 4, .bucket = BUCKET_SUCCEEDED};
	set_raw(&rows[2], FIELD_JOB_CODE, "J");
	rows[3] = (struct row){.arena = a, .number = 30, .bucket = BUCKET_SKIPPED, .reason = "duplicate_in_file"};
	rows[4] = (struct row){.arena = a, .number = 31, .bucket = BUCKET_SUCCEEDED};
	set_raw(&rows[4], FIELD_PROJECT_NAME, "   ");
	row_add_id(&rows[4], a, "load_x");
	add_every_mismatch(a, &rows[5]);
	assert_int_equal(rows[0].nwarnings, 13);
	assert_int_equal(rows[5].nerrors, NORM_WHY_NOT_ZIP);
	check_compact(a, false, &map, rows, nrows);
	check_compact(a, true, &map, rows, nrows);
	arena_free(a);
}

/* A compact body stored before a message kind existed, or damaged, still
 * renders (as the code's summary, "" for what is missing): never a crash. */
static void test_render_tolerates_odd_bodies(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	const char *bodies[] = {"[]", "", "{\"x\":1}", "[[\"1\"],[[\"LOOKUP_MISS\",\"nope\",99,999,null,7]]]",
				"[null,[[1,2,3]]]", "[[\"1\",\"2\",\"3\",\"4\"],null,[[]]]"};
	const char *buckets[] = {"succeeded", "warnings", "failed", "skipped"};
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
		for (size_t b = 0; b < 4; b++)
			assert_non_null(results_render(a, buckets[b], 5, bodies[i], "[\"a\"]", "d"));
	const char *s = results_render(a, "failed", 5, bodies[3], NULL, "d");
	assert_non_null(strstr(s, "\"message\":\"" ));
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_are_jansson_compact),
		cmocka_unit_test(test_compact_renders_the_reference),
		cmocka_unit_test(test_render_tolerates_odd_bodies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
