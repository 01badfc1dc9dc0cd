/* The jobs schema table (PRODUCT.md §5) and its look-ups. */
#include "schema.h"

#include <string.h>

/* Caps on text fields the product does not fix (customer, branch, manager,
 * address parts) follow the fixed ones: 200 characters for names and
 * streets, 100 for a city, 254 for a project manager because it may be an
 * e-mail address (the longest an address can be).  Typed fields (date,
 * weight, rate, state, ZIP) carry a cap on the raw cell so that absurd
 * input is rejected before parsing; no valid value comes near it. */
#define ADDR(G, prefix, what)                                               \
	{ prefix "Name", FTYPE_TEXT, false, 200, G, PART_NAME,                 \
	  "Name of the " what " location" },                                   \
	{ prefix "Street", FTYPE_TEXT, false, 200, G, PART_STREET,             \
	  "Street address of the " what },                                     \
	{ prefix "City", FTYPE_TEXT, false, 100, G, PART_CITY,                 \
	  "City of the " what },                                               \
	{ prefix "State", FTYPE_STATE, false, 64, G, PART_STATE,               \
	  "State of the " what " (USPS code or name)" },                       \
	{ prefix "Zip", FTYPE_ZIP, false, 32, G, PART_ZIP,                     \
	  "ZIP or ZIP+4 of the " what }

static const struct field_info fields[FIELD__COUNT] = {
	{ "jobCode", FTYPE_TEXT, true, 64, GROUP_NONE, PART_NONE,
	  "Project (job) code; a new code creates its project" },
	{ "loadNo", FTYPE_TEXT, true, 64, GROUP_NONE, PART_NONE,
	  "Load number, unique within the job" },
	{ "loadDate", FTYPE_DATE, true, 64, GROUP_NONE, PART_NONE,
	  "Date of the load" },
	{ "projectName", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Project name; defaults to the jobCode" },
	{ "customer", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Customer name, matched against saved customers" },
	{ "branch", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Branch name, matched against saved branches" },
	{ "projectManager", FTYPE_TEXT, false, 254, GROUP_NONE, PART_NONE,
	  "Project manager's name or e-mail, matched against users" },
	{ "material", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Material hauled" },
	{ "truckType", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Truck type" },
	{ "ticketNo", FTYPE_TEXT, false, 200, GROUP_NONE, PART_NONE,
	  "Ticket number" },
	{ "weight", FTYPE_WEIGHT, false, 64, GROUP_NONE, PART_NONE,
	  "Weight, with an optional unit; stored in pounds" },
	{ "weightUnit", FTYPE_UNIT, false, 32, GROUP_NONE, PART_NONE,
	  "Unit of the weight column when the weight cell has none" },
	{ "rate", FTYPE_MONEY, false, 64, GROUP_NONE, PART_NONE,
	  "Rate in US dollars" },
	{ "notes", FTYPE_TEXT, false, 2000, GROUP_NONE, PART_NONE,
	  "Free-text notes" },
	ADDR(GROUP_PROJECT_PICKUP, "projectPickup", "project's pickup"),
	ADDR(GROUP_PROJECT_DROPOFF, "projectDropoff", "project's dropoff"),
	ADDR(GROUP_PICKUP, "pickup", "load's pickup"),
	ADDR(GROUP_DROPOFF, "dropoff", "load's dropoff"),
};

static const char *const prefixes[GROUP__COUNT] = {
	NULL, "projectPickup", "projectDropoff", "pickup", "dropoff",
};

static const char *const type_names[] = {
	[FTYPE_TEXT] = "text",   [FTYPE_DATE] = "date",
	[FTYPE_WEIGHT] = "weight", [FTYPE_UNIT] = "unit",
	[FTYPE_MONEY] = "money", [FTYPE_STATE] = "state",
	[FTYPE_ZIP] = "zip",
};

static bool valid(enum field f)
{
	return (unsigned)f < FIELD__COUNT;
}

const struct field_info *field_info(enum field f)
{
	return valid(f) ? &fields[f] : NULL;
}

const char *field_name(enum field f)
{
	return valid(f) ? fields[f].name : NULL;
}

enum field field_from_name_n(const char *name, size_t len)
{
	if (!name)
		return FIELD_NONE;
	for (int f = 0; f < FIELD__COUNT; f++) {
		const char *n = fields[f].name;
		if (strlen(n) == len && memcmp(n, name, len) == 0)
			return (enum field)f;
	}
	return FIELD_NONE;
}

enum field field_from_name(const char *name)
{
	return name ? field_from_name_n(name, strlen(name)) : FIELD_NONE;
}

enum field_type field_type(enum field f)
{
	return valid(f) ? fields[f].type : FTYPE_TEXT;
}

bool field_required(enum field f)
{
	return valid(f) && fields[f].required;
}

size_t field_max_chars(enum field f)
{
	return valid(f) ? fields[f].max_chars : 0;
}

enum field_group field_group(enum field f)
{
	return valid(f) ? fields[f].group : GROUP_NONE;
}

enum addr_part field_part(enum field f)
{
	return valid(f) ? fields[f].part : PART_NONE;
}

enum field field_of_group(enum field_group g, enum addr_part p)
{
	if (g <= GROUP_NONE || g >= GROUP__COUNT || p <= PART_NONE ||
	    p >= PART__COUNT)
		return FIELD_NONE;
	/* The table lists groups in enum order, five parts each, in part order. */
	return (enum field)(FIELD_PROJECT_PICKUP_NAME +
			    (g - GROUP_PROJECT_PICKUP) * (PART__COUNT - 1) +
			    (p - PART_NAME));
}

const char *group_prefix(enum field_group g)
{
	return (g > GROUP_NONE && g < GROUP__COUNT) ? prefixes[g] : NULL;
}

const char *field_type_name(enum field_type t)
{
	return ((unsigned)t <= FTYPE_ZIP) ? type_names[t] : "text";
}
