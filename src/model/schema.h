/* The jobs schema of PRODUCT.md §5 as one table: every field a jobs file can
 * map a column to, with its wire name, type, required flag, length cap and
 * address group.  Validation, mapping, the docs and the OpenAPI document all
 * read this table, so they cannot disagree about a field. */
#ifndef LOADLINE_MODEL_SCHEMA_H
#define LOADLINE_MODEL_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

/* Order is the order of the docs and of the OpenAPI schema.  Never store
 * these numbers: saved column mappings and results name fields by their
 * wire names, so the enum may grow (before FIELD__COUNT) freely. */
enum field {
	FIELD_JOB_CODE,
	FIELD_LOAD_NO,
	FIELD_LOAD_DATE,
	FIELD_PROJECT_NAME,
	FIELD_CUSTOMER,
	FIELD_BRANCH,
	FIELD_PROJECT_MANAGER,
	FIELD_MATERIAL,
	FIELD_TRUCK_TYPE,
	FIELD_TICKET_NO,
	FIELD_WEIGHT,
	FIELD_WEIGHT_UNIT,
	FIELD_RATE,
	FIELD_NOTES,
	FIELD_PROJECT_PICKUP_NAME,
	FIELD_PROJECT_PICKUP_STREET,
	FIELD_PROJECT_PICKUP_CITY,
	FIELD_PROJECT_PICKUP_STATE,
	FIELD_PROJECT_PICKUP_ZIP,
	FIELD_PROJECT_DROPOFF_NAME,
	FIELD_PROJECT_DROPOFF_STREET,
	FIELD_PROJECT_DROPOFF_CITY,
	FIELD_PROJECT_DROPOFF_STATE,
	FIELD_PROJECT_DROPOFF_ZIP,
	FIELD_PICKUP_NAME,
	FIELD_PICKUP_STREET,
	FIELD_PICKUP_CITY,
	FIELD_PICKUP_STATE,
	FIELD_PICKUP_ZIP,
	FIELD_DROPOFF_NAME,
	FIELD_DROPOFF_STREET,
	FIELD_DROPOFF_CITY,
	FIELD_DROPOFF_STATE,
	FIELD_DROPOFF_ZIP,
	FIELD__COUNT
};

/* "No such field": what field_from_name() returns for an unknown name. */
#define FIELD_NONE FIELD__COUNT

/* How a field's cell is read; each type has one normalizer in normalize.h. */
enum field_type {
	FTYPE_TEXT,   /* trimmed text, length-capped in characters */
	FTYPE_DATE,   /* calendar date, stored YYYY-MM-DD */
	FTYPE_WEIGHT, /* number + optional unit, stored as centipounds */
	FTYPE_UNIT,   /* a weight unit word (lb, ton, t, kg ...) */
	FTYPE_MONEY,  /* decimal amount in dollars, stored as cents */
	FTYPE_STATE,  /* USPS state code or name, stored as the 2-letter code */
	FTYPE_ZIP,    /* ZIP or ZIP+4, stored "01234" or "01234-5678" */
};

/* The four address groups; GROUP_NONE for fields outside any group. */
enum field_group {
	GROUP_NONE,
	GROUP_PROJECT_PICKUP,
	GROUP_PROJECT_DROPOFF,
	GROUP_PICKUP,
	GROUP_DROPOFF,
	GROUP__COUNT
};

/* The part of an address group a field is; PART_NONE outside groups. */
enum addr_part {
	PART_NONE,
	PART_NAME,
	PART_STREET,
	PART_CITY,
	PART_STATE,
	PART_ZIP,
	PART__COUNT
};

struct field_info {
	const char *name;        /* wire name, camelCase as in PRODUCT.md §5 */
	enum field_type type;
	bool required;           /* empty or unmapped -> MISSING_REQUIRED */
	size_t max_chars;        /* cap on the trimmed cell, in Unicode code points */
	enum field_group group;
	enum addr_part part;
	const char *label;       /* short human description, for docs and review */
};

/* The table entry of f; NULL when f is out of range (never for a valid f). */
const struct field_info *field_info(enum field f);

/* Wire name ("pickupZip"); NULL when f is out of range. */
const char *field_name(enum field f);

/* Looks an exact wire name up (case-sensitive, as the wire is).  Returns
 * FIELD_NONE for NULL or an unknown name. */
enum field field_from_name(const char *name);
/* Same, for a slice that need not be NUL-terminated. */
enum field field_from_name_n(const char *name, size_t len);

/* Accessors; out-of-range f gives FTYPE_TEXT / false / 0 / GROUP_NONE /
 * PART_NONE, so callers that loop up to FIELD__COUNT need no checks. */
enum field_type field_type(enum field f);
bool field_required(enum field f);
size_t field_max_chars(enum field f);
enum field_group field_group(enum field f);
enum addr_part field_part(enum field f);

/* The field of group g and part p (GROUP_PICKUP, PART_ZIP -> FIELD_PICKUP_ZIP);
 * FIELD_NONE when g is GROUP_NONE or either is out of range. */
enum field field_of_group(enum field_group g, enum addr_part p);

/* Wire prefix of a group ("projectPickup", "pickup"); NULL for GROUP_NONE. */
const char *group_prefix(enum field_group g);
/* Type name as the docs say it ("text", "date", "weight", ...). */
const char *field_type_name(enum field_type t);

#endif
