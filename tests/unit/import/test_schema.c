/* Unit tests for src/model/schema: the jobs schema table of PRODUCT.md §5. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "model/schema.h"

/* The wire names exactly as PRODUCT.md §5 spells them, in enum order. */
static const char *const wire[FIELD__COUNT] = {
	"jobCode", "loadNo", "loadDate", "projectName", "customer", "branch",
	"projectManager", "material", "truckType", "ticketNo", "weight",
	"weightUnit", "rate", "notes",
	"projectPickupName", "projectPickupStreet", "projectPickupCity",
	"projectPickupState", "projectPickupZip",
	"projectDropoffName", "projectDropoffStreet", "projectDropoffCity",
	"projectDropoffState", "projectDropoffZip",
	"pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip",
	"dropoffName", "dropoffStreet", "dropoffCity", "dropoffState",
	"dropoffZip",
};

static void test_wire_names_round_trip(void **state)
{
	(void)state;
	for (int f = 0; f < FIELD__COUNT; f++) {
		assert_string_equal(field_name((enum field)f), wire[f]);
		assert_int_equal(field_from_name(wire[f]), f);
		assert_int_equal(field_from_name_n(wire[f], strlen(wire[f])), f);
		assert_non_null(field_info((enum field)f)->label);
	}
	assert_int_equal(FIELD__COUNT, 34);
}

static void test_unknown_names(void **state)
{
	(void)state;
	assert_int_equal(field_from_name(NULL), FIELD_NONE);
	assert_int_equal(field_from_name(""), FIELD_NONE);
	assert_int_equal(field_from_name("JobCode"), FIELD_NONE); /* case-sensitive */
	assert_int_equal(field_from_name("jobCode "), FIELD_NONE);
	assert_int_equal(field_from_name("pickup"), FIELD_NONE);
	assert_int_equal(field_from_name_n("jobCodeX", 7), FIELD_JOB_CODE);
	assert_int_equal(field_from_name_n("job", 3), FIELD_NONE);
	assert_null(field_name(FIELD__COUNT));
	assert_null(field_name((enum field)-1));
	assert_null(field_info((enum field)999));
}

static void test_required_and_caps(void **state)
{
	(void)state;
	int required = 0;
	for (int f = 0; f < FIELD__COUNT; f++)
		required += field_required((enum field)f);
	assert_int_equal(required, 3);
	assert_true(field_required(FIELD_JOB_CODE));
	assert_true(field_required(FIELD_LOAD_NO));
	assert_true(field_required(FIELD_LOAD_DATE));
	assert_int_equal(field_max_chars(FIELD_JOB_CODE), 64);
	assert_int_equal(field_max_chars(FIELD_LOAD_NO), 64);
	assert_int_equal(field_max_chars(FIELD_PROJECT_NAME), 200);
	assert_int_equal(field_max_chars(FIELD_MATERIAL), 200);
	assert_int_equal(field_max_chars(FIELD_TRUCK_TYPE), 200);
	assert_int_equal(field_max_chars(FIELD_TICKET_NO), 200);
	assert_int_equal(field_max_chars(FIELD_NOTES), 2000);
	assert_int_equal(field_max_chars(FIELD_CUSTOMER), 200);
	assert_int_equal(field_max_chars(FIELD_PROJECT_MANAGER), 254);
	assert_int_equal(field_max_chars(FIELD_PICKUP_CITY), 100);
	/* Out of range: harmless defaults. */
	assert_false(field_required(FIELD__COUNT));
	assert_int_equal(field_max_chars(FIELD__COUNT), 0);
	assert_int_equal(field_type(FIELD__COUNT), FTYPE_TEXT);
}

static void test_types(void **state)
{
	(void)state;
	assert_int_equal(field_type(FIELD_LOAD_DATE), FTYPE_DATE);
	assert_int_equal(field_type(FIELD_WEIGHT), FTYPE_WEIGHT);
	assert_int_equal(field_type(FIELD_WEIGHT_UNIT), FTYPE_UNIT);
	assert_int_equal(field_type(FIELD_RATE), FTYPE_MONEY);
	assert_int_equal(field_type(FIELD_DROPOFF_STATE), FTYPE_STATE);
	assert_int_equal(field_type(FIELD_PROJECT_PICKUP_ZIP), FTYPE_ZIP);
	assert_int_equal(field_type(FIELD_PICKUP_NAME), FTYPE_TEXT);
	assert_string_equal(field_type_name(FTYPE_MONEY), "money");
	assert_string_equal(field_type_name(FTYPE_ZIP), "zip");
	assert_string_equal(field_type_name((enum field_type)77), "text");
}

static void test_groups(void **state)
{
	(void)state;
	assert_int_equal(field_group(FIELD_NOTES), GROUP_NONE);
	assert_int_equal(field_part(FIELD_NOTES), PART_NONE);
	for (int g = GROUP_PROJECT_PICKUP; g < GROUP__COUNT; g++) {
		const char *prefix = group_prefix((enum field_group)g);
		for (int p = PART_NAME; p < PART__COUNT; p++) {
			enum field f = field_of_group((enum field_group)g,
						      (enum addr_part)p);
			assert_int_not_equal(f, FIELD_NONE);
			assert_int_equal(field_group(f), g);
			assert_int_equal(field_part(f), p);
			/* The wire name is the group prefix + the part. */
			assert_memory_equal(field_name(f), prefix, strlen(prefix));
		}
	}
	assert_int_equal(field_of_group(GROUP_PICKUP, PART_ZIP), FIELD_PICKUP_ZIP);
	assert_int_equal(field_of_group(GROUP_PROJECT_DROPOFF, PART_NAME),
			 FIELD_PROJECT_DROPOFF_NAME);
	assert_int_equal(field_of_group(GROUP_NONE, PART_ZIP), FIELD_NONE);
	assert_int_equal(field_of_group(GROUP_PICKUP, PART_NONE), FIELD_NONE);
	assert_int_equal(field_of_group(GROUP__COUNT, PART_ZIP), FIELD_NONE);
	assert_int_equal(field_of_group(GROUP_PICKUP, PART__COUNT), FIELD_NONE);
	assert_null(group_prefix(GROUP_NONE));
	assert_string_equal(group_prefix(GROUP_PROJECT_PICKUP), "projectPickup");
	assert_string_equal(group_prefix(GROUP_DROPOFF), "dropoff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_names_round_trip),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_required_and_caps),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
