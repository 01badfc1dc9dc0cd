/* Text decoding for CSV: strict UTF-8 validation and Windows-1252 to UTF-8. */
#include <stdint.h>
#include <stdlib.h>
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

/* Mac OS Roman, bytes 0x80..0xFF (the WHATWG "macintosh" encoding: 0xDB is
 * the euro sign, 0xF0 the Apple logo in the private use area). */
static const uint16_t mac_high[128] = {
	0x00C4, 0x00C5, 0x00C7, 0x00C9, 0x00D1, 0x00D6, 0x00DC, 0x00E1,
	0x00E0, 0x00E2, 0x00E4, 0x00E3, 0x00E5, 0x00E7, 0x00E9, 0x00E8,
	0x00EA, 0x00EB, 0x00ED, 0x00EC, 0x00EE, 0x00EF, 0x00F1, 0x00F3,
	0x00F2, 0x00F4, 0x00F6, 0x00F5, 0x00FA, 0x00F9, 0x00FB, 0x00FC,
	0x2020, 0x00B0, 0x00A2, 0x00A3, 0x00A7, 0x2022, 0x00B6, 0x00DF,
	0x00AE, 0x00A9, 0x2122, 0x00B4, 0x00A8, 0x2260, 0x00C6, 0x00D8,
	0x221E, 0x00B1, 0x2264, 0x2265, 0x00A5, 0x00B5, 0x2202, 0x2211,
	0x220F, 0x03C0, 0x222B, 0x00AA, 0x00BA, 0x03A9, 0x00E6, 0x00F8,
	0x00BF, 0x00A1, 0x00AC, 0x221A, 0x0192, 0x2248, 0x2206, 0x00AB,
	0x00BB, 0x2026, 0x00A0, 0x00C0, 0x00C3, 0x00D5, 0x0152, 0x0153,
	0x2013, 0x2014, 0x201C, 0x201D, 0x2018, 0x2019, 0x00F7, 0x25CA,
	0x00FF, 0x0178, 0x2044, 0x20AC, 0x2039, 0x203A, 0xFB01, 0xFB02,
	0x2021, 0x00B7, 0x201A, 0x201E, 0x2030, 0x00C2, 0x00CA, 0x00C1,
	0x00CB, 0x00C8, 0x00CD, 0x00CE, 0x00CF, 0x00CC, 0x00D3, 0x00D4,
	0xF8FF, 0x00D2, 0x00DA, 0x00DB, 0x00D9, 0x0131, 0x02C6, 0x02DC,
	0x00AF, 0x02D8, 0x02D9, 0x02DA, 0x00B8, 0x02DD, 0x02DB, 0x02C7,
};

/* The code point of byte c >= 0x80 in the encoding. */
static unsigned high_cp(enum sbcs enc, unsigned c)
{
	if (enc == SBCS_MACINTOSH)
		return mac_high[c - 0x80];
	return c < 0xA0 ? cp1252_high[c - 0x80] : c;
}

int sbcs_to_utf8(struct buf *b, enum sbcs enc, const char *s, size_t n)
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
		unsigned cp = high_cp(enc, p[run]);
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

int cp1252_to_utf8(struct buf *b, const char *s, size_t n)
{
	return sbcs_to_utf8(b, SBCS_WINDOWS_1252, s, n);
}

/* How plausible a non-ASCII character is in a freight file: accented
 * letters of the Latin alphabets, the typographic punctuation word
 * processors put in (quotes, dashes, ellipsis, bullet, euro, degree,
 * no-break space).  A capital right after an ASCII letter is not ("RŽunion"
 * is "Réunion" in Mac Roman read as Windows-1252). */
static bool plausible(unsigned cp, unsigned char prev)
{
	bool after_letter = (prev | 0x20) >= 'a' && (prev | 0x20) <= 'z';
	bool upper = (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) || cp == 0x152 || cp == 0x160 || cp == 0x17D ||
		     cp == 0x178;
	bool lower = (cp >= 0xDF && cp <= 0xFF && cp != 0xF7) || cp == 0x153 || cp == 0x161 || cp == 0x17E;
	if (upper)
		return !after_letter;
	return lower || cp == 0x2018 || cp == 0x2019 || cp == 0x201C || cp == 0x201D || cp == 0x2013 ||
	       cp == 0x2014 || cp == 0x2026 || cp == 0x2022 || cp == 0x20AC || cp == 0xB0 || cp == 0xA0;
}

enum sbcs sbcs_guess(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t win = 0, mac = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0x80)
			continue;
		unsigned char prev = i ? p[i - 1] : ' ';
		win += plausible(high_cp(SBCS_WINDOWS_1252, p[i]), prev);
		mac += plausible(high_cp(SBCS_MACINTOSH, p[i]), prev);
	}
	return mac > win ? SBCS_MACINTOSH : SBCS_WINDOWS_1252;
}

/* UTF-8 back to the single-byte encoding, for files written in the
 * upload's own encoding: text read from such a file maps back byte for
 * byte; anything else (never the case for such text) becomes '?'. */
int utf8_to_sbcs(struct buf *b, enum sbcs enc, const char *s, size_t n)
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
		int byte = cp < 0x80 ? (int)cp : -1;
		for (unsigned k = 0x80; byte < 0 && k <= 0xFF; k++)
			if (high_cp(enc, k) == cp)
				byte = (int)k;
		if (buf_putc(b, byte < 0 ? '?' : (char)byte))
			return -1;
	}
	return 0;
}

int utf8_to_cp1252(struct buf *b, const char *s, size_t n)
{
	return utf8_to_sbcs(b, SBCS_WINDOWS_1252, s, n);
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

/* Appends code point cp as UTF-8 to out[*o] (room is checked by the caller). */
static void put_cp(unsigned char *out, size_t *o, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*o)++] = (unsigned char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (unsigned char)(0xC0 | (cp >> 6));
		out[(*o)++] = (unsigned char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		out[(*o)++] = (unsigned char)(0xE0 | (cp >> 12));
		out[(*o)++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		out[(*o)++] = (unsigned char)(0x80 | (cp & 0x3F));
	} else {
		out[(*o)++] = (unsigned char)(0xF0 | (cp >> 18));
		out[(*o)++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		out[(*o)++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		out[(*o)++] = (unsigned char)(0x80 | (cp & 0x3F));
	}
}

char *utf16_to_utf8(const char *s, size_t n, size_t max, size_t *ret_len, bool *ret_be)
{
	const unsigned char *p = (const unsigned char *)s;
	if (n < 2 || !((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF)))
		return NULL;
	bool be = p[0] == 0xFE;
	/* Each 2-byte unit gives at most 3 bytes (a surrogate pair, 4 bytes
	 * for 4); an odd last byte becomes U+FFFD. */
	size_t cap = (n / 2) * 3 + 4;
	if (cap - 4 > max)
		return NULL;
	unsigned char *out = malloc(cap + 1);
	if (!out)
		return NULL;
	size_t o = 0, i = 2;
	for (; i + 1 < n; i += 2) {
		uint32_t u = be ? (uint32_t)(p[i] << 8 | p[i + 1]) : (uint32_t)(p[i + 1] << 8 | p[i]);
		if (u >= 0xD800 && u <= 0xDBFF && i + 3 < n) {
			uint32_t lo = be ? (uint32_t)(p[i + 2] << 8 | p[i + 3]) : (uint32_t)(p[i + 3] << 8 | p[i + 2]);
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				put_cp(out, &o, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
				i += 2;
				continue;
			}
		}
		put_cp(out, &o, u >= 0xD800 && u <= 0xDFFF ? 0xFFFD : u);
	}
	if (i < n)
		put_cp(out, &o, 0xFFFD);
	out[o] = '\0';
	*ret_len = o;
	*ret_be = be;
	return (char *)out;
}
