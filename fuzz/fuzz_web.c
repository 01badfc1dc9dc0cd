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
#include "sheet/sheet.h"
#include "web/form.h"
#include "web/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the CSV reader makes of the cell (written under a header "h") is
 * the text again, guard taken off (issue 22), for every text a reader can
 * return: not one that itself starts with a guard, nor a blank one (a
 * blank row is skipped), in a file the sniffer takes for text. */
static void check_csv_read_back(struct buf *b, const char *s)
{
	size_t n = strlen(s), i = 0;
	while (i < n && strchr(" \t\r\n\v\f", s[i]))
		i++;
	if (i == n || csv_guarded(s, n))
		return;
	struct buf file;
	buf_init(&file, 1 << 21);
	assert(csv_cell(&file, "h", true) == 0 && csv_row_end(&file) == 0);
	assert(buf_append(&file, b->data, b->len) == 0 && csv_row_end(&file) == 0);
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	struct sheet *sh = NULL;
	const char *msg;
	const struct sheet_row *row = NULL;
	/* Text full of control characters is not taken for CSV at all. */
	if (sheet_sniff(file.data, file.len) != SHEET_CSV) {
		buf_done(&file);
		return;
	}
	assert(sheet_open(file.data, file.len, &lim, &sh, &msg) == CODE_OK);
	assert(sheet_next_row(sh, &row) == CODE_OK && row && row->ncells == 1);
	assert(row->lens[0] == n && !memcmp(row->cells[0], s, n));
	sheet_free(sh);
	buf_done(&file);
}

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
	/* The one guard (never before a plain number such as -2). */
	if (csv_formula_like(s)) {
		assert(plain[0] == '\'');
		expect++;
	}
	assert(!strcmp(expect, s));
	free(plain);
	check_csv_read_back(&b, s);
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
