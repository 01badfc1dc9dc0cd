/* Cell normalizers of the jobs schema: each reads one cell as its field's
 * type (PRODUCT.md §5) and gives the stored form, or says why it cannot.
 * Pure functions: no I/O, no global state; thread-safe.
 *
 * Conventions, for every function below:
 * - Input is a slice (s, len) that need not be NUL-terminated; s may be NULL
 *   when len is 0.  Surrounding whitespace of every Unicode kind is ignored.
 * - The return is CODE_OK or CODE_TYPE_MISMATCH (norm_field() can also
 *   return CODE_MISSING_REQUIRED).  On failure, ret_* outputs are untouched
 *   and *ret_why (when ret_why is not NULL) says why, for norm_message().
 * - Output text lives in the caller's buffer or arena, always NUL-terminated.
 * The accepted formats are documented for users in docs/jobs-schema.md. */
#ifndef LOADLINE_MODEL_NORMALIZE_H
#define LOADLINE_MODEL_NORMALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/codes.h"
#include "model/messages.h"
#include "model/schema.h"

/* Why a cell was rejected; chooses the wording of norm_message(). */
enum norm_why {
	NORM_WHY_NONE = 0,
	NORM_WHY_EMPTY,            /* nothing but whitespace */
	NORM_WHY_BAD_UTF8,         /* bytes that are not UTF-8 */
	NORM_WHY_NUL,              /* a NUL character inside the text */
	NORM_WHY_TOO_LONG,         /* more characters than the field allows */
	NORM_WHY_NOT_DATE,         /* no accepted date format */
	NORM_WHY_NO_SUCH_DAY,      /* right format, but not a calendar day */
	NORM_WHY_YEAR_RANGE,       /* a year outside 1900..2199 */
	NORM_WHY_NOT_NUMBER,       /* no number, or letters/exponent in it */
	NORM_WHY_NEGATIVE,         /* a minus sign (even "-0") */
	NORM_WHY_TOO_LARGE,        /* over 1,000,000,000 lb or $1,000,000,000 */
	NORM_WHY_TOO_MANY_DECIMALS,/* money with a non-zero third decimal */
	NORM_WHY_UNKNOWN_UNIT,     /* a weight unit not in the table */
	NORM_WHY_UNIT_CONFLICT,    /* weight cell unit differs from weightUnit */
	NORM_WHY_NOT_STATE,        /* no USPS code or state name */
	NORM_WHY_NOT_ZIP,          /* not 5 or 9 digits */
};

#define NORM_DATE_SIZE 11  /* "YYYY-MM-DD" and NUL */
#define NORM_STATE_SIZE 3  /* "NY" and NUL */
#define NORM_ZIP_SIZE 11   /* "01234-5678" and NUL */
#define NORM_NUM_SIZE 32   /* any formatted int64 amount, sign, point, NUL */

/* Largest accepted weight (10^9 lb) and rate ($10^9), in hundredths. */
#define NORM_MAX_CENTILB INT64_C(100000000000)
#define NORM_MAX_CENTS INT64_C(100000000000)

/* Years a date may have; outside is a typo ("0226-01-05"), not a load. */
#define NORM_YEAR_MIN 1900
#define NORM_YEAR_MAX 2199

enum weight_unit {
	WUNIT_NONE,  /* no unit given: pounds */
	WUNIT_LB,    /* lb, lbs, #, pound(s) */
	WUNIT_TON,   /* short ton = 2,000 lb: ton(s), tn */
	WUNIT_TONNE, /* metric tonne = 2,204.62 lb: t, tonne(s), mt */
	WUNIT_KG,    /* kilogram = 2.20462 lb: kg, kgs, kilogram(s) */
};

/* ---- UTF-8 and whitespace (shared with names.c) ---- */

/* Decodes the code point at s (strict: no overlongs, surrogates or values
 * past U+10FFFF).  Returns it and sets *ret_n to its byte length, or returns
 * -1 (and *ret_n = 1) when the bytes are not UTF-8 or len is 0. */
int32_t norm_utf8_next(const char *s, size_t len, size_t *ret_n);

/* True for Unicode White_Space (tab, LF, VT, FF, CR, space, U+0085, U+00A0,
 * U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) and for
 * the invisible U+180E, U+200B and U+FEFF (a stray byte-order mark), which
 * users cannot see and so cannot mean. */
bool norm_is_space(int32_t cp);

/* The slice without leading and trailing norm_is_space() characters: returns
 * its start and sets *ret_len.  Invalid bytes are not spaces and stop the
 * trim.  Never fails; s may be NULL when len is 0. */
const char *norm_trim(const char *s, size_t len, size_t *ret_len);

/* True when the slice is empty or only whitespace. */
bool norm_is_blank(const char *s, size_t len);

/* The `value` of a result entry: the cell as read, cut to at most
 * max_chars characters (200 for results), as valid UTF-8: bytes that are
 * not UTF-8, and NUL, become U+FFFD; everything else (line breaks, tabs,
 * surrounding spaces) is kept.  Never NULL; s may be NULL when len is 0. */
char *norm_excerpt(struct arena *a, const char *s, size_t len, size_t max_chars);

/* The same, fit to quote inside a one-line message: control characters
 * (C0, DEL, C1) also become spaces, and a cut text ends with "…" (so the
 * result may have max_chars + 1 characters).  Messages quote 60. */
char *norm_quote(struct arena *a, const char *s, size_t len, size_t max_chars);

/* ---- One function per field type ---- */

/* Text: trimmed; rejected when it is not UTF-8 (BAD_UTF8), holds a NUL
 * (NUL) or has more than max_chars code points (TOO_LONG).  Other control
 * characters, inner whitespace and letter case are kept exactly.  An empty
 * result is CODE_OK with *ret_len 0.  *ret is an arena copy. */
enum code norm_text(struct arena *a, const char *s, size_t len, size_t max_chars,
		    char **ret, size_t *ret_len, enum norm_why *ret_why);

/* Date: YYYY-MM-DD, YYYY/MM/DD, M/D/YYYY or M/D/YY (YY 00-69 is 20YY, 70-99
 * is 19YY), month and day with 1 or 2 digits; optionally followed by a time
 * (THH:MM[:SS[.fff]][Z|+HH:MM] or " H:MM[:SS] [AM|PM]") that is checked and
 * dropped.  The day must exist (leap years) and the year be within
 * NORM_YEAR_MIN..NORM_YEAR_MAX.  Writes "YYYY-MM-DD" to ret. */
enum code norm_date(const char *s, size_t len, char ret[NORM_DATE_SIZE],
		    enum norm_why *ret_why);

/* Weight unit word alone (the weightUnit cell), ASCII case-insensitive, a
 * trailing period allowed ("lbs.").  Blank gives WUNIT_NONE and CODE_OK. */
enum code norm_weight_unit(const char *s, size_t len, enum weight_unit *ret,
			   enum norm_why *ret_why);

/* Weight: a non-negative decimal number, thousands separators allowed when
 * grouped by three ("12,500.5"), no exponent, followed by an optional unit
 * ("12.5 t", "25000lbs").  column_unit is the row's weightUnit (WUNIT_NONE
 * when absent): used when the cell has no unit; when both are given they
 * must be the same unit (UNIT_CONFLICT).  No unit at all means pounds.
 * *ret_centilb is hundredths of a pound, rounded half away from zero; at
 * most NORM_MAX_CENTILB (TOO_LARGE).  *ret_converted is true when the unit
 * is not pounds: the pipeline reports UNIT_NORMALIZED.  Decimals past the
 * 12th are ignored. */
enum code norm_weight(const char *s, size_t len, enum weight_unit column_unit,
		      int64_t *ret_centilb, bool *ret_converted,
		      enum norm_why *ret_why);

/* Money: an optional "$" (spaces around it allowed), a non-negative decimal
 * with optional thousands separators, at most two decimals unless the extra
 * ones are zeros ("1.500" is fine, "1.505" is not).  *ret_cents at most
 * NORM_MAX_CENTS.  Any minus sign, parentheses or letters: TYPE_MISMATCH. */
enum code norm_money(const char *s, size_t len, int64_t *ret_cents,
		     enum norm_why *ret_why);

/* US state: a USPS code of the 50 states, DC, PR, VI, GU, AS or MP, or the
 * full name, ASCII case-insensitive, ignoring spaces, periods and commas
 * ("n.y.", "New  York", "District of Columbia", "Washington, D.C.").
 * Writes the upper-case code. */
enum code norm_state(const char *s, size_t len, char ret[NORM_STATE_SIZE],
		     enum norm_why *ret_why);

/* ZIP: 5 digits, 9 digits, or 5-4 with a hyphen -> "01234" / "01234-5678".
 * Leading zeros a spreadsheet dropped come back: 3-4 digits are padded to
 * 5 and 7-8 digits to 9; a ".0" fraction of all zeros ("1234.0") is
 * dropped first.  Anything else (6 digits, letters) is NOT_ZIP. */
enum code norm_zip(const char *s, size_t len, char ret[NORM_ZIP_SIZE],
		   enum norm_why *ret_why);

/* Stored amounts as API text, without trailing zeros: centipounds
 * 2500000 -> "25000", 2500050 -> "25000.5", 2500025 -> "25000.25".
 * Returns the length written (like snprintf, out always NUL-terminated when
 * size > 0); NORM_NUM_SIZE is always enough. */
int norm_format_centilb(int64_t centilb, char *out, size_t size);
/* Cents always with two decimals: 125000 -> "1250.00". Same return rule. */
int norm_format_cents(int64_t cents, char *out, size_t size);

/* Canonical word of a unit ("lb", "ton", "t", "kg"; "" for WUNIT_NONE). */
const char *norm_weight_unit_name(enum weight_unit u);

/* ---- Whole fields, for the pipeline ---- */

struct norm_value {
	bool blank;       /* the cell was empty: the field is absent */
	const char *text; /* stored text (arena); NULL when blank.  Weight and
			     rate: the formatted amount; unit: its name */
	size_t len;
	int64_t num;      /* weight: centipounds; rate: cents; unit: the enum */
	bool converted;   /* weight: unit was not pounds -> UNIT_NORMALIZED */
};

/* Normalizes the cell of field f with the normalizer of its type and its
 * length cap.  column_unit is only read for FIELD_WEIGHT.  A blank cell
 * gives CODE_OK with ret->blank set, or CODE_MISSING_REQUIRED (why EMPTY)
 * for a required field; unmapped fields are blank (s NULL, len 0).
 * Returns CODE_OK, CODE_MISSING_REQUIRED or CODE_TYPE_MISMATCH. */
enum code norm_field(struct arena *a, enum field f, const char *s, size_t len,
		     enum weight_unit column_unit, struct norm_value *ret,
		     enum norm_why *ret_why);

/* The `message` of a result entry: one sentence that says what is wrong and
 * what to do, quoting the cell (as norm_quote, 60 characters).  c is any
 * per-row code; why refines TYPE_MISMATCH; normalized is the stored text
 * for warnings (UNIT_NORMALIZED: the pounds) and may be NULL.  Never NULL.
 * Example: loadDate "13/45/2026" is not a date: use YYYY-MM-DD or M/D/YYYY. */
const char *norm_message(struct arena *a, enum field f, enum code c,
			 enum norm_why why, const char *raw, size_t raw_len,
			 const char *normalized);
/* The same message as a kind and its arguments, as results store it
 * (model/messages.h): MISSING_REQUIRED, TYPE_MISMATCH and UNIT_NORMALIZED
 * by kind, any other code as its finished text (MSG_LITERAL). */
struct msg norm_msg(struct arena *a, enum field f, enum code c, enum norm_why why, const char *raw, size_t raw_len,
		    const char *normalized);

#endif
