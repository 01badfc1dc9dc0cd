/* The progress bar: a native <progress> element (accessible as it is, no
 * script needed; the page refreshes while the run works), indeterminate
 * until the file's rows are counted. */
#include "run_progress.h"

#include "web/tmpl.h"

const char *run_time_left(struct arena *a, const struct run *r)
{
	if (r->row_count < 0 || r->rows_per_second <= 0)
		return NULL;
	int64_t left = r->row_count > r->rows_done ? r->row_count - r->rows_done : 0;
	int64_t s = (left + r->rows_per_second - 1) / r->rows_per_second;
	if (left == 0 || s < 1)
		return "less than a second";
	if (s < 90)
		return arena_printf(a, "about %lld s", (long long)s);
	if (s < 90 * 60)
		return arena_printf(a, "about %lld min", (long long)((s + 30) / 60));
	return arena_printf(a, "about %lld h %lld min", (long long)(s / 3600), (long long)(s % 3600 / 60));
}

const struct html *run_progress_section(struct arena *a, const struct run *r)
{
	if (r->state != RUN_RUNNING)
		return html_empty();
	bool total = r->row_count > 0;
	int percent = total ? (int)((int64_t)r->rows_done * 100 / r->row_count) : 0;
	struct tmpl_var v[] = {
		T_TEXT("done", web_int(a, r->rows_done)),
		T_TEXT("done_raw", arena_printf(a, "%d", r->rows_done)),
		T_TEXT("total", total ? web_int(a, r->row_count) : NULL),
		T_TEXT("total_raw", total ? arena_printf(a, "%d", r->row_count) : NULL),
		T_TEXT("percent", arena_printf(a, "%d", percent > 100 ? 100 : percent)),
		T_TEXT("rate", r->rows_per_second > 0 ? web_int(a, r->rows_per_second) : NULL),
		T_TEXT("left", run_time_left(a, r)),
	};
	return tmpl_render(a, "run_progress.html", v, sizeof v / sizeof v[0]);
}
