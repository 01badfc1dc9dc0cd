/* Cell normalizers of the jobs schema: UTF-8, whitespace, text, and the
 * per-field dispatch.  Dates, numbers, places and messages have their own
 * normalize_*.c files. */
#include "normalize_internal.h"

#include <stdint.h>
#include <stdio.h>

/* ---- UTF-8 and whitespace ---- */

int32_t norm_utf8_next(const char *s, size_t len, size_t *ret_n)
{
	const unsigned char *u = (const unsigned char *)s;
	*ret_n = 1;
	if (len == 0)
		return -1;
	if (u[0] < 0x80)
		return u[0];
	size_t n;
	int32_t cp, min;
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		n = 2, cp = u[0] & 0x1F, min = 0x80;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		n = 3, cp = u[0] & 0x0F, min = 0x800;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		n = 4, cp = u[0] & 0x07, min = 0x10000;
	else
		return -1;
	if (len < n)
		return -1;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)
			return -1;
		cp = (cp << 6) | (u[i] & 0x3F);
	}
	/* Overlong forms, UTF-16 surrogates and values past Unicode are not
	 * text; accepting them would let two spellings of one name differ. */
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*ret_n = n;
	return cp;
}

bool norm_is_space(int32_t cp)
{
	if (cp < 0x80)
		return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
	switch (cp) {
	case 0x85: case 0xA0: case 0x1680: case 0x180E: case 0x2028:
	case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
		return true;
	default:
		return cp >= 0x2000 && cp <= 0x200B;
	}
}

/* Byte length of the whitespace run that ends at s + len. */
static size_t trailing_space(const char *s, size_t len)
{
	size_t end = len;
	while (end > 0) {
		/* Step back to the lead byte of the last character. */
		size_t start = end - 1;
		while (start > 0 && end - start < 4 &&
		       ((unsigned char)s[start] & 0xC0) == 0x80)
			start--;
		size_t n;
		int32_t cp = norm_utf8_next(s + start, end - start, &n);
		if (cp < 0 || start + n != end || !norm_is_space(cp))
			break;
		end = start;
	}
	return len - end;
}

const char *norm_trim(const char *s, size_t len, size_t *ret_len)
{
	if (!s || len == 0) {
		*ret_len = 0;
		return s ? s : "";
	}
	size_t i = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp < 0 || !norm_is_space(cp))
			break;
		i += n;
	}
	*ret_len = (len - i) - trailing_space(s + i, len - i);
	return s + i;
}

bool norm_is_blank(const char *s, size_t len)
{
	size_t n;
	norm_trim(s, len, &n);
	return n == 0;
}

/* Copies at most max_chars characters as valid UTF-8: bad bytes and NUL
 * become U+FFFD; with one_line, control characters become spaces and a
 * cut is marked with an ellipsis (one more character). */
static char *copy_chars(struct arena *a, const char *s, size_t len,
			size_t max_chars, bool one_line)
{
	/* Worst case per input byte: 3 bytes of U+FFFD; the last character may
	 * run 4 bytes past keep; then the ellipsis and the NUL. */
	size_t keep = len;
	if (max_chars <= SIZE_MAX / 4 && keep > max_chars * 4)
		keep = max_chars * 4;
	char *out = arena_alloc(a, keep * 3 + 16);
	size_t o = 0, chars = 0, i = 0;
	while (i < len && chars < max_chars && i < keep) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp <= 0) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else if (one_line && (cp < 0x20 || cp == 0x7F ||
					(cp >= 0x80 && cp < 0xA0))) {
			out[o++] = ' ';
		} else {
			memcpy(out + o, s + i, n);
			o += n;
		}
		i += n;
		chars++;
	}
	if (one_line && i < len) {
		memcpy(out + o, "\xE2\x80\xA6", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

char *norm_excerpt(struct arena *a, const char *s, size_t len, size_t max_chars)
{
	return copy_chars(a, s, len, max_chars, false);
}

char *norm_quote(struct arena *a, const char *s, size_t len, size_t max_chars)
{
	return copy_chars(a, s, len, max_chars, true);
}

/* ---- Text ---- */

/* Counts code points; -1 on bad UTF-8, -2 on a NUL. */
static long count_chars(const char *s, size_t len)
{
	size_t i = 0;
	long chars = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp < 0)
			return -1;
		if (cp == 0)
			return -2;
		i += n;
		chars++;
	}
	return chars;
}

enum code norm_text(struct arena *a, const char *s, size_t len, size_t max_chars,
		    char **ret, size_t *ret_len, enum norm_why *ret_why)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	long chars = count_chars(t, tlen);
	if (chars == -1)
		return fail(ret_why, NORM_WHY_BAD_UTF8);
	if (chars == -2)
		return fail(ret_why, NORM_WHY_NUL);
	if ((size_t)chars > max_chars)
		return fail(ret_why, NORM_WHY_TOO_LONG);
	*ret = arena_strndup(a, t, tlen);
	*ret_len = tlen;
	return CODE_OK;
}

/* ---- Whole fields ---- */

/* What a typed cell that is absurdly long is called in a message. */
static enum norm_why type_why(enum field_type t)
{
	switch (t) {
	case FTYPE_DATE: return NORM_WHY_NOT_DATE;
	case FTYPE_UNIT: return NORM_WHY_UNKNOWN_UNIT;
	case FTYPE_STATE: return NORM_WHY_NOT_STATE;
	case FTYPE_ZIP: return NORM_WHY_NOT_ZIP;
	default: return NORM_WHY_NOT_NUMBER;
	}
}

static enum code typed_field(struct arena *a, const struct field_info *fi,
			     const char *t, size_t tlen,
			     enum weight_unit column_unit,
			     struct norm_value *v, enum norm_why *ret_why)
{
	char buf[NORM_NUM_SIZE];
	enum code rc;
	enum weight_unit u;
	switch (fi->type) {
	case FTYPE_DATE:
		rc = norm_date(t, tlen, buf, ret_why);
		break;
	case FTYPE_STATE:
		rc = norm_state(t, tlen, buf, ret_why);
		break;
	case FTYPE_ZIP:
		rc = norm_zip(t, tlen, buf, ret_why);
		break;
	case FTYPE_UNIT:
		if ((rc = norm_weight_unit(t, tlen, &u, ret_why)) == CODE_OK) {
			v->num = u;
			snprintf(buf, sizeof(buf), "%s", norm_weight_unit_name(u));
		}
		break;
	case FTYPE_WEIGHT:
		rc = norm_weight(t, tlen, column_unit, &v->num, &v->converted,
				 ret_why);
		if (rc == CODE_OK)
			norm_format_centilb(v->num, buf, sizeof(buf));
		break;
	default: /* FTYPE_MONEY */
		if ((rc = norm_money(t, tlen, &v->num, ret_why)) == CODE_OK)
			norm_format_cents(v->num, buf, sizeof(buf));
		break;
	}
	if (rc)
		return rc;
	v->len = strlen(buf);
	v->text = arena_strndup(a, buf, v->len);
	return CODE_OK;
}

/* A ZIP cell that is not a US ZIP code (`ABCDE`, `TBD`, `K1A 0B6`, six
 * digits) does not fail its row (PRODUCT §8): it is kept as written, and
 * the location the row creates with it is saved without coordinates, with
 * ADDRESS_NOT_GEOCODED (the gazetteer knows no such ZIP).  What no address
 * could hold still fails: over ZIP_AS_WRITTEN_MAX characters, bytes that
 * are not UTF-8 text, a NUL. */
#define ZIP_AS_WRITTEN_MAX 20

static enum code zip_as_written(struct arena *a, const char *t, size_t tlen, struct norm_value *v,
				enum norm_why *ret_why)
{
	long chars = count_chars(t, tlen);
	if (chars < 0 || chars > ZIP_AS_WRITTEN_MAX)
		return fail(ret_why, chars == -1 ? NORM_WHY_BAD_UTF8 : chars == -2 ? NORM_WHY_NUL : NORM_WHY_NOT_ZIP);
	v->text = arena_strndup(a, t, tlen);
	v->len = tlen;
	return CODE_OK;
}

enum code norm_field(struct arena *a, enum field f, const char *s, size_t len,
		     enum weight_unit column_unit, struct norm_value *ret,
		     enum norm_why *ret_why)
{
	const struct field_info *fi = field_info(f);
	if (!fi)
		return fail(ret_why, NORM_WHY_NONE);
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	struct norm_value v = { .blank = tlen == 0 };
	if (v.blank) {
		if (fi->required) {
			if (ret_why)
				*ret_why = NORM_WHY_EMPTY;
			return CODE_MISSING_REQUIRED;
		}
		*ret = v;
		return CODE_OK;
	}
	enum code rc;
	if (fi->type == FTYPE_TEXT) {
		char *out;
		rc = norm_text(a, t, tlen, fi->max_chars, &out, &v.len, ret_why);
		v.text = out;
	} else if (tlen > fi->max_chars) {
		rc = fail(ret_why, type_why(fi->type));
	} else {
		rc = typed_field(a, fi, t, tlen, column_unit, &v, ret_why);
	}
	if (rc == CODE_TYPE_MISMATCH && fi->type == FTYPE_ZIP)
		rc = zip_as_written(a, t, tlen, &v, ret_why);
	if (rc == CODE_OK)
		*ret = v;
	return rc;
}
