/* The upload envelope (src/import/envelope.c), shared by the API's upload
 * and the web form (issue 27 item 7): one multipart body into a spool
 * file, fingerprinted, with the form's small fields kept when asked, and
 * the same verdicts for both. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "import/envelope.h"

static const char *CT = "multipart/form-data; boundary=XyZ";

static char spool_dir[] = "/tmp/ll-envelope-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(spool_dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(spool_dir);
}

/* Feeds body to a new envelope in chunks of step bytes, then checks it. */
static enum code run(struct arena *a, struct envelope *e, const char *body, size_t step, size_t cap, bool fields,
		     enum sheet_format *fmt, const char **msg)
{
	assert_int_equal(envelope_open(e, a, CT, spool_dir, cap, fields), CODE_OK);
	size_t n = strlen(body);
	for (size_t off = 0; off < n; off += step)
		if (!envelope_feed(e, body + off, n - off < step ? n - off : step))
			break;
	return envelope_check(e, cap, fmt, msg);
}

static const char *FORM =
	"--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok123\r\n"
	"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"loads.csv\"\r\n"
	"Content-Type: text/csv\r\n\r\njobCode,loadNo\r\nJ1,L1\r\n"
	"\r\n--XyZ\r\nContent-Disposition: form-data; name=\"dry_run\"\r\n\r\n1\r\n--XyZ--\r\n";

static void fingerprint(struct envelope *e, char out[DIGEST_HEX])
{
	struct digest d = e->hash;
	digest_final_hex(&d, out);
}

static void test_form_with_fields_any_chunking(void **state)
{
	(void)state;
	char first[DIGEST_HEX] = "";
	for (size_t step = 1; step <= 64; step += 7) {
		struct arena *a = arena_new();
		struct envelope e;
		enum sheet_format fmt;
		const char *msg = "unset";
		assert_int_equal(run(a, &e, FORM, step, 1 << 20, true, &fmt, &msg), CODE_OK);
		assert_int_equal(fmt, SHEET_CSV);
		assert_string_equal(e.file_name, "loads.csv");
		assert_int_equal(e.nfields, 2);
		assert_string_equal(e.fields[0].name, "csrf");
		assert_string_equal(e.fields[0].value, "tok123");
		assert_string_equal(e.fields[1].name, "dry_run");
		assert_string_equal(e.fields[1].value, "1");
		assert_int_equal(e.file.len, strlen("jobCode,loadNo\r\nJ1,L1\r\n"));
		char fp[DIGEST_HEX];
		fingerprint(&e, fp);
		if (*first)
			assert_string_equal(fp, first);   /* the file's bytes, however they arrive */
		strcpy(first, fp);
		arena_free(a);
	}
	/* The API keeps no fields; the fingerprint is the file's all the same. */
	struct arena *a = arena_new();
	struct envelope e;
	enum sheet_format fmt;
	const char *msg;
	assert_int_equal(run(a, &e, FORM, 4096, 1 << 20, false, &fmt, &msg), CODE_OK);
	assert_int_equal(e.nfields, 0);
	char fp[DIGEST_HEX];
	fingerprint(&e, fp);
	assert_string_equal(fp, first);
	arena_free(a);
}

static void test_verdicts(void **state)
{
	(void)state;
	static const struct {
		const char *body;
		size_t cap;
		enum code want;
	} cases[] = {
		{"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n"
		 "a,b\r\n1,2\r\n3,4\r\n\r\n--XyZ--\r\n", 8, CODE_TOO_LARGE},
		{"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\na,b\r\n"
		 "--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nc,d\r\n--XyZ--\r\n", 1024,
		 CODE_MALFORMED_MULTIPART},
		{"--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--XyZ--\r\n", 1024,
		 CODE_MISSING_FILE},
		{"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\x89PNG\r\n\x1a\n\x01\x02\x03\x04"
		 "\r\n--XyZ--\r\n", 1024, CODE_UNSUPPORTED_MIME},
		{"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\na,b\r\n", 1024,
		 CODE_MALFORMED_MULTIPART},   /* no closing boundary */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct arena *a = arena_new();
		struct envelope e;
		enum sheet_format fmt;
		const char *msg = "unset";
		assert_int_equal(run(a, &e, cases[i].body, 5, cases[i].cap, true, &fmt, &msg), cases[i].want);
		if (cases[i].want == CODE_MISSING_FILE)
			assert_null(msg);   /* the code's own detail */
		else
			assert_true(msg && *msg);
		arena_free(a);
	}
}

static void test_field_too_long(void **state)
{
	(void)state;
	char body[2048];
	char big[ENVELOPE_FIELD_MAX + 2];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	snprintf(body, sizeof body, "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n%s\r\n"
		 "--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\na,b\r\n--XyZ--\r\n", big);
	struct arena *a = arena_new();
	struct envelope e;
	enum sheet_format fmt;
	const char *msg;
	assert_int_equal(run(a, &e, body, 64, 1024, true, &fmt, &msg), CODE_MALFORMED_MULTIPART);
	assert_string_equal(msg, "A form field beside the file is too long.");
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_form_with_fields_any_chunking),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_field_too_long),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
