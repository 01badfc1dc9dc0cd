/* libFuzzer target: what the web app parses from a browser — form bodies
 * (application/x-www-form-urlencoded) and Cookie headers — and what it
 * writes from untrusted text: formula-safe CSV cells and escaped HTML. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/html.h"
#include "base/csv_write.h"
#include "web/form.h"
#include "web/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* csv_cell's output, unquoted by RFC 4180, is the text (after the
 * apostrophe a formula-like cell gets), and nothing leaks outside quotes. */
static void check_csv_cell(const char *s)
{
	struct buf b;
	buf_init(&b, 1 << 20);
	assert(csv_cell(&b, s, true) == 0);
	const char *out = buf_str(&b);
	size_t n = strlen(out);
	assert(n >= 2 && out[0] == '"' && out[n - 1] == '"');
	char *plain = malloc(n);
	size_t k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (out[i] == '"') {
			assert(out[i + 1] == '"' && i + 2 < n);
			i++;
		}
		plain[k++] = out[i];
	}
	plain[k] = '\0';
	const char *expect = plain;
	if (*s && strchr("=+-@\t\r", *s)) {
		assert(plain[0] == '\'');
		expect++;
	}
	assert(!strcmp(expect, s));
	free(plain);
	buf_done(&b);
}

static void check_html(const char *s)
{
	struct buf b;
	buf_init(&b, 1 << 22);
	assert(html_escape(&b, s) == 0);
	assert(!strpbrk(buf_str(&b), "<>\"'"));
	buf_done(&b);
}

static void check_cookie(struct arena *a, const char *header, const char *name)
{
	const char *v = cookie_value(a, header, name);
	if (!v)
		return;
	assert(!strchr(v, ';'));
	/* The value is a piece of the header, right after "name=". */
	const char *needle = arena_printf(a, "%s=%s", name, v);
	assert(strstr(header, needle));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena *a = arena_new();
	struct form f;
	if (form_parse(a, (const char *)data, size, &f) == 0) {
		assert(f.n >= 0 && f.n <= FORM_MAX_FIELDS);
		for (int i = 0; i < f.n; i++) {
			assert(form_text_ok(f.fields[i].name, strlen(f.fields[i].name)));
			assert(form_text_ok(f.fields[i].value, strlen(f.fields[i].value)));
			check_csv_cell(f.fields[i].value);
			check_html(f.fields[i].value);
		}
		if (f.n > 0)
			assert(form_get(&f, f.fields[0].name) == f.fields[0].value);
	}
	char *header = arena_strndup(a, (const char *)data, size);  /* stops at a NUL, as a header does */
	check_cookie(a, header, SESSION_COOKIE);
	check_cookie(a, header, "ll_csrf");
	check_cookie(a, header, "a");
	arena_free(a);
	return 0;
}
