/* A small state machine over one line at a time (envfile.h). */
#include "envfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* Unquotes the value at s[0..n) into out (room for n + 1); false when a
 * quote is not closed. */
static bool unquote(const char *s, size_t n, char *out)
{
	size_t o = 0, keep = 0;   /* keep: length up to the last character that stays */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\'' || c == '"') {
			size_t j = i + 1;
			for (; j < n && s[j] != c; j++) {
				if (c == '"' && s[j] == '\\' && j + 1 < n && strchr("\"\\`$", s[j + 1]))
					j++;
				out[o++] = s[j];
			}
			if (j == n)
				return false;
			i = j;
			keep = o;
		} else if (c == '\\') {
			if (i + 1 < n)
				out[o++] = s[++i];
			keep = o;
		} else {
			out[o++] = c;
			if (!blank(c))
				keep = o;
		}
	}
	out[keep] = '\0';
	return true;
}

/* One line (without its newline): 1 a setting, 0 a comment, -1 bad,
 * -2 out of memory. */
static int parse_line(const char *s, size_t n, const struct envfile_cb *cb)
{
	if (n && s[n - 1] == '\r')
		n--;
	if (memchr(s, '\0', n))
		return -1;
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	if (i == n || s[i] == '#' || s[i] == ';')
		return 0;
	size_t name_at = i;
	while (i < n && name_char(s[i], i == name_at))
		i++;
	size_t name_len = i - name_at;
	while (i < n && blank(s[i]))
		i++;
	if (!name_len || i == n || s[i] != '=')
		return -1;
	i++;
	while (i < n && blank(s[i]))
		i++;
	char *name = malloc(name_len + 1), *value = malloc(n - i + 1);
	int ret = -2;
	if (name && value) {
		memcpy(name, s + name_at, name_len);
		name[name_len] = '\0';
		ret = unquote(s + i, n - i, value) ? 1 : -1;
		if (ret == 1)
			cb->set(name, value, cb->ctx);
	}
	free(name);
	free(value);
	return ret;
}

int envfile_parse(const char *text, size_t len, const struct envfile_cb *cb)
{
	int settings = 0, lineno = 0;
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		lineno++;
		int r = parse_line(text + at, n, cb);
		if (r == -2)
			return -1;
		if (r == 1)
			settings++;
		else if (r == -1 && cb->bad)
			cb->bad(lineno, cb->ctx);
		at += n + 1;
	}
	return settings;
}
