/* The jobs template (template.h). */
#include "template.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/csv_write.h"
#include "import/xlsx_out.h"
#include "model/schema.h"

/* One realistic row: a named pickup and dropoff, a weight in tons (it will
 * be converted, with a warning saying so), a money rate. */
static const char *example(enum field f)
{
	static const char *const v[FIELD__COUNT] = {
		[FIELD_JOB_CODE] = "J-1001", [FIELD_LOAD_NO] = "L-0001", [FIELD_LOAD_DATE] = "2026-11-02",
		[FIELD_PROJECT_NAME] = "Riverside Bridge", [FIELD_CUSTOMER] = "Cascade Civil Group",
		[FIELD_BRANCH] = "Austin", [FIELD_PROJECT_MANAGER] = "", [FIELD_MATERIAL] = "Crushed Limestone #57",
		[FIELD_TRUCK_TYPE] = "End Dump", [FIELD_TICKET_NO] = "T-558201", [FIELD_WEIGHT] = "24.5",
		[FIELD_WEIGHT_UNIT] = "tons", [FIELD_RATE] = "$1,250.00", [FIELD_NOTES] = "Gate code 4411",
		[FIELD_PROJECT_PICKUP_NAME] = "", [FIELD_PROJECT_DROPOFF_NAME] = "Riverside Bridge Site",
		[FIELD_PROJECT_DROPOFF_STREET] = "2100 Riverside Dr", [FIELD_PROJECT_DROPOFF_CITY] = "Austin",
		[FIELD_PROJECT_DROPOFF_STATE] = "TX", [FIELD_PROJECT_DROPOFF_ZIP] = "78741",
		[FIELD_PICKUP_NAME] = "Marble Falls Quarry", [FIELD_PICKUP_STREET] = "1200 Quarry Rd",
		[FIELD_PICKUP_CITY] = "Marble Falls", [FIELD_PICKUP_STATE] = "TX", [FIELD_PICKUP_ZIP] = "78654",
		[FIELD_DROPOFF_NAME] = "Riverside Bridge Site", [FIELD_DROPOFF_STREET] = "2100 Riverside Dr",
		[FIELD_DROPOFF_CITY] = "Austin", [FIELD_DROPOFF_STATE] = "TX", [FIELD_DROPOFF_ZIP] = "78741",
	};
	return v[f] ? v[f] : "";
}

static enum code build_csv(struct template_file *ret)
{
	struct buf b;
	buf_init(&b, 64 * 1024);
	int bad = 0;
	for (int f = 0; f < FIELD__COUNT; f++)
		bad |= csv_cell(&b, field_name((enum field)f), f == 0);
	bad |= csv_row_end(&b);
	for (int f = 0; f < FIELD__COUNT; f++)
		bad |= csv_cell(&b, example((enum field)f), f == 0);
	bad |= csv_row_end(&b);
	if (bad) {
		buf_done(&b);
		return CODE_INTERNAL_ERROR;
	}
	ret->data = (unsigned char *)buf_steal(&b, &ret->len);
	ret->content_type = "text/csv; charset=utf-8";
	ret->file_name = "loadline-jobs-template.csv";
	return CODE_OK;
}

static int fill(lxw_workbook *wb, void *ctx)
{
	(void)ctx;
	lxw_worksheet *ws = workbook_add_worksheet(wb, "Loads");
	lxw_format *bold = workbook_add_format(wb);
	if (!ws || !bold)
		return -1;
	format_set_bold(bold);
	/* Constant-memory workbooks take their rows in order. */
	for (int f = 0; f < FIELD__COUNT; f++)
		if (worksheet_write_string(ws, 0, (lxw_col_t)f, field_name((enum field)f), bold) != LXW_NO_ERROR)
			return -1;
	/* Every example is text: a ZIP keeps its leading zero, a date its
	 * form. */
	for (int f = 0; f < FIELD__COUNT; f++) {
		const char *v = example((enum field)f);
		if (*v && worksheet_write_string(ws, 1, (lxw_col_t)f, v, NULL) != LXW_NO_ERROR)
			return -1;
	}
	return 0;
}

enum code template_build(bool xlsx, struct template_file *ret)
{
	ret->data = NULL;
	ret->len = 0;
	if (!xlsx)
		return build_csv(ret);
	enum code rc = xlsx_to_memory(fill, NULL, 1 << 20, &ret->data, &ret->len);
	ret->content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
	ret->file_name = "loadline-jobs-template.xlsx";
	return rc;
}
