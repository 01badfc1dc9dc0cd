/* The `message` of per-row result entries: what is wrong, what to do. */
#include <stdlib.h>

#include "normalize_internal.h"

/* ---- Messages ---- */

#define QUOTE_CHARS 60

/* The problem and the advice for a TYPE_MISMATCH, after `field "value" `. */
static const char *mismatch_text(enum field_type t, enum norm_why why)
{
	bool money = t == FTYPE_MONEY;
	switch (why) {
	case NORM_WHY_BAD_UTF8:
		return "is not valid UTF-8 text: save the file as UTF-8 (in Excel: CSV UTF-8).";
	case NORM_WHY_NUL:
		return "contains a NUL character: remove it from the cell.";
	case NORM_WHY_NO_SUCH_DAY:
		return "is not a date (there is no such day): use YYYY-MM-DD or M/D/YYYY, month first.";
	case NORM_WHY_YEAR_RANGE:
		return "has a year outside 1900-2199: check the year; use YYYY-MM-DD or M/D/YYYY.";
	case NORM_WHY_NEGATIVE:
		return money ? "is negative: a rate must be zero or more."
			     : "is negative: a weight must be zero or more.";
	case NORM_WHY_TOO_LARGE:
		return money ? "is over $1,000,000,000: check the amount."
			     : "is over 1,000,000,000 lb: check the number and its unit.";
	case NORM_WHY_TOO_MANY_DECIMALS:
		return "has more than two decimals: round it to whole cents, e.g. 1250.55.";
	case NORM_WHY_UNKNOWN_UNIT:
		if (t == FTYPE_UNIT)
			break; /* the generic text of the unit type says it */
		return "has a unit that is not known: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg.";
	case NORM_WHY_UNIT_CONFLICT:
		return "has a unit that differs from the row's weightUnit: give the unit in one place, or make them agree.";
	default:
		break;
	}
	switch (t) {
	case FTYPE_DATE:
		return "is not a date: use YYYY-MM-DD or M/D/YYYY.";
	case FTYPE_WEIGHT:
		return "is not a weight: use a number with an optional unit, e.g. 25000, 12,500.5 lb, 12.5 t or 1,200 kg.";
	case FTYPE_UNIT:
		return "is not a weight unit: use lb, lbs, #, ton, tons, tn, t, tonne, mt or kg.";
	case FTYPE_MONEY:
		return "is not an amount: use a number such as 1250, 1,250.50 or $1,250.00.";
	case FTYPE_STATE:
		return "is not a US state: use the USPS code (e.g. NY) or the full name (New York).";
	case FTYPE_ZIP:
		return "is not a ZIP code: use 5 digits (01234) or ZIP+4 (01234-5678).";
	default:
		return "cannot be read as text: correct the cell.";
	}
}

/* Characters of a cell as norm_text() counts them; a bad byte counts as one. */
static size_t cell_chars(const char *raw, size_t raw_len)
{
	size_t tlen, chars = 0, n;
	const char *t = norm_trim(raw, raw_len, &tlen);
	for (size_t i = 0; i < tlen; i += n, chars++)
		norm_utf8_next(t + i, tlen - i, &n);
	return chars;
}

/* Words for the address group of a field ("pickup", "project pickup"). */
static const char *group_words(enum field f)
{
	switch (field_group(f)) {
	case GROUP_PROJECT_PICKUP: return "project pickup";
	case GROUP_PROJECT_DROPOFF: return "project dropoff";
	case GROUP_PICKUP: return "pickup";
	case GROUP_DROPOFF: return "dropoff";
	default: return "";
	}
}

static const char *lookup_miss(struct arena *a, enum field f, const char *name,
			       const char *q)
{
	if (field_group(f) != GROUP_NONE)
		return arena_printf(a, "The %s address has a city, state or ZIP but "
				    "no street: add %sStreet; the load was "
				    "committed without a %s location.",
				    group_words(f), group_prefix(field_group(f)),
				    group_words(f));
	if (f == FIELD_PROJECT_MANAGER)
		return arena_printf(a, "%s \"%s\" matches no user by name or e-mail: "
				    "a project manager must be a user of your "
				    "organization (your Loadline operator adds "
				    "users), or fix the name; the row was "
				    "committed without it.", name, q);
	return arena_printf(a, "%s \"%s\" matches no saved %s: add it on the "
			    "%s page of the web app (or POST /api/v1/%s) or "
			    "fix the name; the row was committed without it.",
			    name, q, f == FIELD_BRANCH ? "branch" : "customer",
			    f == FIELD_BRANCH ? "Branches" : "Customers",
			    f == FIELD_BRANCH ? "branches" : "customers");
}

static const char *location_text(enum code c)
{
	switch (c) {
	case CODE_LOCATION_NAME_ADDRESS_MISMATCH:
		return "matches a saved location whose street, city or ZIP "
		       "differs: the saved location was used with its address "
		       "unchanged; correct the row's address, or give a different "
		       "place its own name.";
	case CODE_LOCATION_NAME_LOOKUP_MISS:
		return "matches no saved location and the row has no street to "
		       "create one from: add the street, city, state and ZIP "
		       "to the row; the load was committed without it.";
	default:
		return "matches more than one saved location: the oldest was "
		       "used; the Locations page of the web app lists them; ask "
		       "your Loadline operator to merge the duplicates.";
	}
}

struct msg norm_msg(struct arena *a, enum field f, enum code c, enum norm_why why, const char *raw, size_t raw_len,
		    const char *normalized)
{
	const char *q = norm_quote(a, raw, raw_len, MSG_QUOTE_CHARS);
	switch (c) {
	case CODE_MISSING_REQUIRED:
		return (struct msg){MSG_REQUIRED, {NULL}};
	case CODE_TYPE_MISMATCH:
		if (why == NORM_WHY_TOO_LONG)
			return (struct msg){MSG_TOO_LONG, {q, arena_printf(a, "%zu", cell_chars(raw, raw_len))}};
		return (struct msg){MSG_MISMATCH, {q, arena_printf(a, "%d", (int)why)}};
	case CODE_UNIT_NORMALIZED:
		return (struct msg){MSG_CONVERTED, {q, normalized ? normalized : "?"}};
	default:
		return (struct msg){MSG_LITERAL, {norm_message(a, f, c, why, raw, raw_len, normalized)}};
	}
}

const char *norm_message(struct arena *a, enum field f, enum code c,
			 enum norm_why why, const char *raw, size_t raw_len,
			 const char *normalized)
{
	const char *name = field_name(f) ? field_name(f) : "value";
	const char *q = norm_quote(a, raw, raw_len, QUOTE_CHARS);
	switch (c) {
	case CODE_MISSING_REQUIRED:
	case CODE_TYPE_MISMATCH:
	case CODE_UNIT_NORMALIZED: {
		struct msg m = norm_msg(a, f, c, why, raw, raw_len, normalized);
		return msg_render(a, c, f, &m);
	}
	case CODE_LOOKUP_MISS:
		return lookup_miss(a, f, name, q);
	case CODE_UNIQUE_VIOLATION:
		return arena_printf(a, "%s \"%s\": the same jobCode and loadNo "
				    "appear earlier in this file with different "
				    "content: keep one row per load, or give this "
				    "load its own loadNo.", name, q);
	case CODE_LOCATION_NAME_ADDRESS_MISMATCH:
	case CODE_LOCATION_NAME_LOOKUP_MISS:
	case CODE_LOCATION_NAME_AMBIGUOUS:
		return arena_printf(a, "%s \"%s\" %s", name, q, location_text(c));
	default: {
		const char *summary = code_summary(c);
		return arena_printf(a, "%s \"%s\": %s", name, q,
				    (summary && *summary) ? summary :
				    "the value was rejected.");
	}
	}
}

/* ---- Rendering stored messages ---- */

static const char *arg(const struct msg *m, int i)
{
	return m->arg[i] ? m->arg[i] : "";
}

/* The look-up and location warnings the writer gives (src/import/writer.c). */
static const char *render_lookup(struct arena *a, enum field f, const struct msg *m)
{
	const char *q = arg(m, 0);
	switch (m->kind) {
	case MSG_NO_USER:
		return arena_printf(a, "No user named \"%s\" (by name or e-mail) in your organization; the row was saved "
				    "without a project manager. A project manager must be a user of the organization "
				    "(your Loadline operator adds users), or correct the name.", q);
	case MSG_NO_NAMED:
		return arena_printf(a, "No %s named \"%s\" in your organization; the row was saved without it. Add it on "
				    "the %s page of the web app (or POST /api/v1/%s), or correct the name.",
				    f == FIELD_BRANCH ? "branch" : "customer", q,
				    f == FIELD_BRANCH ? "Branches" : "Customers", f == FIELD_BRANCH ? "branches" : "customers");
	case MSG_NO_STREET:
		return "City, state or ZIP without a street is not an address; the load was saved without this "
		       "location. Add the street.";
	case MSG_LOC_AMBIGUOUS:
		return arena_printf(a, "More than one saved location is named \"%s\"; the oldest was used. The Locations "
				    "page of the web app lists them; ask your Loadline operator to merge the duplicates.", q);
	case MSG_LOC_MISMATCH:
		return arena_printf(a, "The saved location \"%s\" has a different address; it was used unchanged. Correct "
				    "the row's address, or give a different place its own name.", q);
	default:
		return arena_printf(a, "No saved location is named \"%s\" and the row has no street to create it from; "
				    "the load was saved without this location.", q);
	}
}

static const char *render_geo(struct arena *a, const struct msg *m)
{
	switch (m->kind) {
	case MSG_GEO_NO_ZIP:
		return "The address has no ZIP, so it could not be placed on the map; the location was saved without "
		       "coordinates. Add the ZIP and push the row again.";
	case MSG_GEO_UNKNOWN_ZIP:
		return arena_printf(a, "\"%s\" is not a US ZIP code, so the address could not be placed on the map; the "
				    "location was saved without coordinates. Correct the ZIP and push the row again.",
				    arg(m, 0));
	default:
		return arena_printf(a, "ZIP %s is in %s (%s), not in %s; the location was saved without coordinates. "
				    "Correct the ZIP or the state and push the row again.", arg(m, 0), arg(m, 1),
				    arg(m, 2), arg(m, 3));
	}
}

/* The cell messages norm_msg() makes. */
static const char *render_cell(struct arena *a, enum field f, const struct msg *m)
{
	const char *name = field_name(f) ? field_name(f) : "value";
	switch (m->kind) {
	case MSG_REQUIRED:
		return arena_printf(a, "%s is required but the cell is empty or "
				    "no column is mapped to it: fill it in.", name);
	case MSG_MISMATCH: {
		long why = strtol(arg(m, 1), NULL, 10);
		if (why < 0 || why > NORM_WHY_NOT_ZIP)
			why = NORM_WHY_NONE;
		return arena_printf(a, "%s \"%s\" %s", name, arg(m, 0), mismatch_text(field_type(f), (enum norm_why)why));
	}
	case MSG_TOO_LONG:
		return arena_printf(a, "%s \"%s\" is %s characters long, over the limit "
				    "of %zu: shorten it.", name, arg(m, 0), arg(m, 1), field_max_chars(f));
	default:
		if (m->arg[2])
			return arena_printf(a, "%s \"%s\" has no unit of its own and was read in %s, the unit its column "
					    "header \"%s\" names, and converted to %s lb: nothing to do if that is "
					    "right.", name, arg(m, 0), arg(m, 3), arg(m, 2), arg(m, 1));
		return arena_printf(a, "%s \"%s\" was converted to %s lb: nothing "
				    "to do if that is right; send pounds to avoid "
				    "the conversion.", name, arg(m, 0), arg(m, 1));
	}
}

const char *msg_render(struct arena *a, enum code c, enum field f, const struct msg *m)
{
	switch (m->kind) {
	case MSG_LITERAL:
		return arg(m, 0);
	case MSG_REQUIRED:
	case MSG_MISMATCH:
	case MSG_TOO_LONG:
	case MSG_CONVERTED:
		return render_cell(a, f, m);
	case MSG_KEY_CONFLICT:
		return arena_printf(a, "Row %s already has jobCode \"%s\" and loadNo \"%s\" with different values; keep "
				    "one row per load or give this one its own loadNo.", arg(m, 0), arg(m, 1), arg(m, 2));
	case MSG_NO_USER:
	case MSG_NO_NAMED:
	case MSG_NO_STREET:
	case MSG_LOC_AMBIGUOUS:
	case MSG_LOC_MISMATCH:
	case MSG_LOC_MISS:
		return render_lookup(a, f, m);
	case MSG_GEO_NO_ZIP:
	case MSG_GEO_UNKNOWN_ZIP:
	case MSG_GEO_STATE:
		return render_geo(a, m);
	default: {
		const char *s = code_summary(c);
		return s ? s : "";
	}
	}
}
