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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_are_jansson_compact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
