/* Unit tests for src/web: templates and escaping, form decoding, CSV cells,
 * sign-in redirect targets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "web/assets.h"
#include "base/csv_write.h"
#include "web/form.h"
#include "web/page.h"
#include "web/tmpl.h"

static const char *render(struct arena *a, const char *t, const struct tmpl_var *v, size_t n)
{
	return html_str(tmpl_render_text(a, t, v, n));
}

static void test_text_is_escaped_html_is_not(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	const struct html *inner = tmpl_render_text(a, "<b>{{x}}</b>", (struct tmpl_var[]){T_TEXT("x", "<i>&'\"")}, 1);
	assert_string_equal(html_str(inner), "<b>&lt;i&gt;&amp;&#39;&quot;</b>");
	struct tmpl_var v[] = {T_HTML("inner", inner), T_TEXT("t", "<script>")};
	assert_string_equal(render(a, "[{{inner}}|{{ t }}]", v, 2), "[<b>&lt;i&gt;&amp;&#39;&quot;</b>|&lt;script&gt;]");
	/* unknown variables render as nothing */
	assert_string_equal(render(a, "a{{nope}}b", NULL, 0), "ab");
	assert_string_equal(html_str(html_text(a, "1 < 2")), "1 &lt; 2");
	arena_free(a);
}

static void test_sections(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	struct tmpl_var v[] = {T_FLAG("on", true), T_FLAG("off", false), T_TEXT("empty", ""), T_TEXT("name", "x"),
			       T_HTML("none", html_empty())};
	assert_string_equal(render(a, "{{#on}}A{{/on}}{{#off}}B{{/off}}{{^off}}C{{/off}}", v, 5), "AC");
	assert_string_equal(render(a, "{{#empty}}E{{/empty}}{{^empty}}e{{/empty}}{{#none}}N{{/none}}", v, 5), "e");
	assert_string_equal(render(a, "{{#name}}[{{name}}]{{/name}}", v, 5), "[x]");
	/* nested sections of the same name */
	assert_string_equal(render(a, "{{#on}}1{{#on}}2{{/on}}3{{/on}}4", v, 5), "1234");
	assert_string_equal(render(a, "{{! a comment }}ok", v, 5), "ok");
	arena_free(a);
}

static void test_html_list(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	struct html_list *l = html_list_new(a);
	for (int i = 0; i < 3; i++)
		html_list_add(l, html_text(a, "<>"));
	assert_string_equal(html_str(html_list_done(l)), "&lt;&gt;&lt;&gt;&lt;&gt;");
	assert_true(html_is_empty(html_list_done(html_list_new(a))));
	arena_free(a);
}

/* Every compiled-in template parses (an empty rendering walks all tags). */
static void test_every_template_parses(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	int templates = 0;
	for (size_t i = 0; i < web_assets_count; i++) {
		if (web_assets[i].is_static)
			continue;
		(void)tmpl_render(a, web_assets[i].name, NULL, 0);
		templates++;
	}
	assert_true(templates > 5);
	assert_non_null(web_asset_find("app.css", true));
	assert_null(web_asset_find("layout.html", true));
	arena_free(a);
}

static void test_form_parse(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	struct form f;
	const char *body = "csrf=abc&col0=jobCode&note=a+b%26c%3D&empty=&flag&col0=second";
	assert_int_equal(form_parse(a, body, strlen(body), &f), 0);
	assert_string_equal(form_get(&f, "csrf"), "abc");
	assert_string_equal(form_get(&f, "col0"), "jobCode");
	assert_string_equal(form_get(&f, "note"), "a b&c=");
	assert_string_equal(form_get(&f, "empty"), "");
	assert_string_equal(form_get(&f, "flag"), "");
	assert_null(form_get(&f, "missing"));
	assert_int_equal(form_parse(a, "", 0, &f), 0);
	assert_int_equal(f.n, 0);
	const char *bad[] = {"a=%zz", "a=%4", "a=%00", "a=%ff%fe", "%c3=x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(form_parse(a, bad[i], strlen(bad[i]), &f), -1);
	const char *utf8 = "city=M%C3%BCnchen";
	assert_int_equal(form_parse(a, utf8, strlen(utf8), &f), 0);
	assert_string_equal(form_get(&f, "city"), "M\xc3\xbcnchen");
	/* too many fields */
	char many[FORM_MAX_FIELDS * 2 + 2];
	memset(many, '&', sizeof many - 1);
	many[sizeof many - 1] = '\0';
	assert_int_equal(form_parse(a, many, strlen(many), &f), -1);
	arena_free(a);
}

static const char *cells(const char *const *v, int n)
{
	static char out[512];
	struct buf b;
	buf_init(&b, 4096);
	for (int i = 0; i < n; i++)
		csv_cell(&b, v[i], i == 0);
	csv_row_end(&b);
	memcpy(out, buf_str(&b), b.len + 1);
	buf_done(&b);
	return out;
}

static void test_csv_cells_cannot_run_as_formulas(void **state)
{
	(void)state;
	const char *v[] = {"=1+2", "+SUM(A1)", "-3", "@cmd", "\tx", "\rx", "a\"b", NULL, "plain", "x=1"};
	assert_string_equal(cells(v, 10), "\"'=1+2\",\"'+SUM(A1)\",\"-3\",\"'@cmd\",\"'\tx\",\"'\rx\",\"a\"\"b\",\"\","
					"\"plain\",\"x=1\"\r\n");
}

static void test_safe_next(void **state)
{
	(void)state;
	assert_string_equal(web_safe_next("/imports/runs/run_x/review"), "/imports/runs/run_x/review");
	assert_string_equal(web_safe_next(NULL), "/imports");
	assert_string_equal(web_safe_next("//evil.test"), "/imports");
	assert_string_equal(web_safe_next("/\\evil.test"), "/imports");
	assert_string_equal(web_safe_next("https://evil.test"), "/imports");
	assert_string_equal(web_safe_next("/a\r\nSet-Cookie: x"), "/imports");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_is_escaped_html_is_not),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_html_list),
		cmocka_unit_test(test_every_template_parses),
		cmocka_unit_test(test_form_parse),
		cmocka_unit_test(test_csv_cells_cannot_run_as_formulas),
		cmocka_unit_test(test_safe_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
