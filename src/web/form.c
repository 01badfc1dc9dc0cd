/* Form body decoding. */
#include "form.h"

#include <stdbool.h>
#include <string.h>

#include <utf8proc.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes s[0..len) ('+' is a space) into an arena string; NULL when it is
 * not valid. */
static char *decode(struct arena *a, const char *s, size_t len)
{
	char *out = arena_alloc(a, len + 1), *o = out;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%') {
			if (i + 2 >= len || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0)
				return NULL;
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	size_t n = (size_t)(o - out);
	return form_text_ok(out, n) ? out : NULL;
}

bool form_text_ok(const char *s, size_t n)
{
	if (memchr(s, '\0', n))
		return false;
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
	while (n > 0) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate(p, (utf8proc_ssize_t)n, &cp);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

int form_parse(struct arena *a, const char *body, size_t len, struct form *ret)
{
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += body[i] == '&';
	if (n + 1 > FORM_MAX_FIELDS)
		return -1;
	struct form f = {0, arena_alloc(a, sizeof(struct form_field) * (size_t)(n + 1))};
	const char *p = body, *end = body + len;
	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;
		if (stop > p) {
			const char *eq = memchr(p, '=', (size_t)(stop - p));
			const char *nend = eq ? eq : stop;
			char *name = decode(a, p, (size_t)(nend - p));
			char *value = eq ? decode(a, eq + 1, (size_t)(stop - eq - 1)) : arena_strdup(a, "");
			if (!name || !value)
				return -1;
			f.fields[f.n++] = (struct form_field){name, value};
		}
		p = amp ? amp + 1 : end;
	}
	*ret = f;
	return 0;
}

const char *form_get(const struct form *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->fields[i].name, name))
			return f->fields[i].value;
	return NULL;
}
