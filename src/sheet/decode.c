/* Text decoding for CSV: strict UTF-8 validation and Windows-1252 to UTF-8. */
#include <stdint.h>
#include <string.h>

#include "sheet_int.h"

size_t utf8_valid_prefix(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		/* Most text is ASCII: check eight bytes at a time. */
		if (n - i >= 8) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			if (!(w & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		unsigned c = p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t need;
		unsigned lo = 0x80, hi = 0xBF;  /* range of the second byte */
		if (c >= 0xC2 && c <= 0xDF) {
			need = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			if (c == 0xE0)
				lo = 0xA0;      /* overlong */
			else if (c == 0xED)
				hi = 0x9F;      /* surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			if (c == 0xF0)
				lo = 0x90;      /* overlong */
			else if (c == 0xF4)
				hi = 0x8F;      /* above U+10FFFF */
		} else {
			return i;
		}
		if (n - i <= need)
			return i;
		if (p[i + 1] < lo || p[i + 1] > hi)
			return i;
		for (size_t k = 2; k <= need; k++)
			if ((p[i + k] & 0xC0) != 0x80)
				return i;
		i += need + 1;
	}
	return n;
}

/* Code points of bytes 0x80..0x9F in Windows-1252; the unassigned five map
 * to themselves (C1 controls), as the WHATWG Encoding Standard does. */
static const uint16_t cp1252_high[32] = {
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

int cp1252_to_utf8(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && p[run] < 0x80)
			run++;
		if (run > i && buf_append(b, p + i, run - i))
			return -1;
		if (run == n)
			break;
		unsigned c = p[run];
		unsigned cp = c < 0xA0 ? cp1252_high[c - 0x80] : c;
		char out[3];
		size_t len;
		if (cp < 0x800) {
			out[0] = (char)(0xC0 | (cp >> 6));
			out[1] = (char)(0x80 | (cp & 0x3F));
			len = 2;
		} else {
			out[0] = (char)(0xE0 | (cp >> 12));
			out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
			out[2] = (char)(0x80 | (cp & 0x3F));
			len = 3;
		}
		if (buf_append(b, out, len))
			return -1;
		i = run + 1;
	}
	return 0;
}

/* UTF-8 back to Windows-1252, for files written in the upload's own
 * encoding: text read from a Windows-1252 file maps back byte for byte;
 * anything else (never the case for such text) becomes '?'. */
int utf8_to_cp1252(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i], cp;
		size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
		if (i + len > n)
			return -1;
		cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
		for (size_t k = 1; k < len; k++)
			cp = cp << 6 | (p[i + k] & 0x3Fu);
		i += len;
		int byte = -1;
		if (cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF)) {
			byte = (int)cp;
		} else {
			for (int k = 0; k < 32; k++)
				if (cp1252_high[k] == cp)
					byte = 0x80 + k;
		}
		if (buf_putc(b, byte < 0 ? '?' : (char)byte))
			return -1;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The UTF-16 unit of a "_xHHHH_" escape at p[0..n), or -1. */
static long escape_at(const char *p, size_t n)
{
	if (n < 7 || p[0] != '_' || p[1] != 'x' || p[6] != '_')
		return -1;
	long v = 0;
	for (int i = 2; i < 6; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t xstring_unescape(char *p, size_t n)
{
	char *q = n ? memchr(p, '_', n) : NULL;
	if (!q)
		return n;
	size_t r = (size_t)(q - p), w = r;
	while (r < n) {
		long u = p[r] == '_' ? escape_at(p + r, n - r) : -1;
		if (u < 0) {
			p[w++] = p[r++];
			continue;
		}
		r += 7;
		unsigned long cp = (unsigned long)u;
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			long lo = escape_at(p + r, n - r);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned long)lo - 0xDC00);
				r += 7;
			} else {
				cp = 0xFFFD;
			}
		} else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
			cp = 0xFFFD;  /* a lone surrogate; NUL cannot be in a C string */
		}
		/* The UTF-8 form is never longer than the 7 or 14 escape bytes. */
		w += put_utf8(p + w, cp);
	}
	return w;
}

void buf_unescape_xstring(struct buf *b, size_t from)
{
	if (b->len <= from)
		return;
	b->len = from + xstring_unescape(b->data + from, b->len - from);
	b->data[b->len] = '\0';
}
