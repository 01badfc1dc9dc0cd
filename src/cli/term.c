/* Terminal-safe copies of server text (term.h). */
#include "term.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/normalize.h"

/* Format characters that reorder or break what a terminal shows. */
static bool is_layout_control(int32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

const char *term_clean(const char *s, char *out, size_t cap)
{
	if (!cap)
		return out;
	size_t len = s ? strlen(s) : 0, o = 0, i = 0;
	out[0] = '\0';
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		char esc[16];
		const char *piece = s + i;
		size_t plen = n;
		if (cp < 0 || cp < 0x20 || cp == 0x7F) {
			plen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i]);
			piece = esc;
		} else if ((cp >= 0x80 && cp <= 0x9F) || is_layout_control(cp)) {
			plen = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
			piece = esc;
		}
		if (o + plen + 4 > cap) {   /* room for "..." and the NUL */
			if (o + 4 <= cap)
				memcpy(out + o, "...", 4);
			return out;
		}
		memcpy(out + o, piece, plen);
		o += plen;
		out[o] = '\0';
		i += n;
	}
	return out;
}

/* 1234567 -> "1,234,567" in out (32 bytes). */
static const char *grouped(long long v, char out[32])
{
	char digits[24];
	int n = snprintf(digits, sizeof digits, "%lld", v < 0 ? 0 : v), o = 0;
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

#define BAR_WIDTH 24

const char *term_progress(char *out, size_t cap, bool bar, long long done, long long total, long long rate)
{
	char d[32], t[32], r[32], left[48] = "", bars[BAR_WIDTH + 3] = "";
	if (total > 0 && rate > 0) {
		long long s = (total - done + rate - 1) / rate;
		if (s < 90)
			snprintf(left, sizeof left, "  about %lld s left", s > 0 ? s : 1);
		else
			snprintf(left, sizeof left, "  about %lld min left", (s + 30) / 60);
	}
	char speed[48] = "";
	if (rate > 0)
		snprintf(speed, sizeof speed, "  %s rows/s", grouped(rate, r));
	if (total < 0) {
		snprintf(out, cap, "%s rows so far%s", grouped(done, d), speed);
		return out;
	}
	int pct = total > 0 ? (int)(done * 100 / total) : 100;
	pct = pct > 100 ? 100 : pct;
	if (bar) {
		int fill = pct * BAR_WIDTH / 100;
		bars[0] = '[';
		for (int i = 0; i < BAR_WIDTH; i++)
			bars[1 + i] = i < fill ? '#' : '-';
		bars[BAR_WIDTH + 1] = ']';
		bars[BAR_WIDTH + 2] = '\0';
	}
	snprintf(out, cap, "%s%s%3d%%  %s of %s rows%s%s", bars, bar ? " " : "", pct, grouped(done, d),
		 grouped(total, t), speed, left);
	return out;
}
