/* The run page's progress bar (PRODUCT §16): how far a RUNNING run has
 * got, with the time left. */
#ifndef LOADLINE_WEB_RUN_PROGRESS_H
#define LOADLINE_WEB_RUN_PROGRESS_H

#include "store/runs.h"
#include "web/page.h"

/* The bar of a RUNNING run (run_progress.html); empty for any other. */
const struct html *run_progress_section(struct arena *a, const struct run *r);

/* "about 2 min", "about 40 s", "less than a second" (in a); NULL when the
 * time left is not known (no total, no rate yet). */
const char *run_time_left(struct arena *a, const struct run *r);

#endif
