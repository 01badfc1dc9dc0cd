/* Edit failed rows in the browser (PRODUCT §15): the Failed tab's form of
 * the file's own columns and the posts that import corrected rows. */
#ifndef LOADLINE_WEB_FAILED_EDIT_H
#define LOADLINE_WEB_FAILED_EDIT_H

#include "store/runs.h"
#include "web/page.h"

/* The editable table of run's failed rows (one page of 50, ?fix_after=
 * pages on), for a run with results, failed rows and its stored upload;
 * empty when the file cannot be read. */
const struct html *failed_edit_section(struct web_req *w, const struct run *r);

/* POST /imports/runs/{id}/corrections: the table's form (fields
 * r<row>.<col>) or a problem group's "Set <column> in N rows" (group_code,
 * group_column, group_value / group_has_value, value). */
extern const struct web_handler page_run_corrections;

/* The corrections form may be larger than other forms: 50 rows of up to
 * 100 columns. */
#define FAILED_EDIT_FORM_MAX (2u << 20)

#endif
