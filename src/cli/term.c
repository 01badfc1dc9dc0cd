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
