/* One-line text for messages: no way to start a new line or header. */
#include "text.h"

#include <stdbool.h>
#include <string.h>

/* Length of the UTF-8 sequence at p (1..4), 0 when it is not valid. */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

static bool breaks_line(const unsigned char *p, size_t n)
{
	if (n == 1)
		return p[0] < 0x20 || p[0] == 0x7F;
	if (n == 2)   /* C1 controls (NEL too); U+061C, the Arabic letter mark */
		return (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) || (p[0] == 0xD8 && p[1] == 0x9C);
	/* U+2028, U+2029 (line, paragraph separators); the bidirectional
	 * formatting characters U+200E, U+200F, U+202A..U+202E (the
	 * right-to-left override makes "gpj.exe" read as "exe.jpg"),
	 * U+2066..U+2069, and U+061C (issue 27 item 16). */
	if (n == 3 && p[0] == 0xE2 && p[1] == 0x80)
		return p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0x8E || p[2] == 0x8F || (p[2] >= 0xAA && p[2] <= 0xAE);
	if (n == 3 && p[0] == 0xE2 && p[1] == 0x81)
		return p[2] >= 0xA6 && p[2] <= 0xA9;
	return false;
}

void text_clean_in_place(char *s)
{
	unsigned char *p = (unsigned char *)s, *o = p;
	while (*p) {
		size_t n = utf8_len(p);
		if (n == 0 || breaks_line(p, n)) {
			*o++ = n == 0 ? '?' : ' ';
			p += n ? n : 1;
			continue;
		}
		memmove(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
}

char *text_one_line(struct arena *a, const char *s, size_t max)
{
	if (!s)
		return arena_strdup(a, "");
	size_t len = strlen(s);
	char *out = arena_alloc(a, (len < max ? len : max) + 4), *o = out;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = utf8_len(p);
		const char *put = n == 0 ? "?" : breaks_line(p, n) ? " " : (const char *)p;
		size_t pn = n == 0 || breaks_line(p, n) ? 1 : n;
		if ((size_t)(o - out) + pn > max) {
			memcpy(o, "...", 3);
			o += 3;
			break;
		}
		memcpy(o, put, pn);
		o += pn;
		p += n ? n : 1;
	}
	*o = '\0';
	return out;
}

/* The length of the well-formed sequence at p, 0 when there is none
 * (RFC 3629 table 3-7). */
static size_t utf8_strict_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
	if (!n)
		return 0;
	/* The second byte's range narrows at the edges: overlongs (E0, F0),
	 * surrogates (ED) and past U+10FFFF (F4). */
	unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
	unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

bool text_utf8_valid(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_strict_len(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}
