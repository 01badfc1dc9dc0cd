/* The import_run resource (GET /api/v1/imports/runs/{id}): built here,
 * below api/, because the webhook deliveries (src/webhook/) send exactly
 * this body as their data.object. */
#include "run_json.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/codes.h"
#include "base/config.h"
#include "base/log.h"
#include "store/runs.h"

static json_t *iso_time(int64_t ms)
{
	if (!ms)
		return json_null();
	char t[TIME_ISO_MAX];
	time_iso(ms, t);
	return json_string(t);
}

/* When retention deletes what the run kept (finishedAt + the setting), or
 * null: not finished, or kept forever.  Computed, not read, so that a
 * terminal run's representation (and ETag) never changes. */
static json_t *expires_at(const struct run *r, int64_t keep_ms)
{
	return run_state_terminal(r->state) && r->finished_at && keep_ms > 0 ? iso_time(r->finished_at + keep_ms)
									      : json_null();
}

/* What the reader decided (PRODUCT §14): the header row, the worksheet
 * read and the others, the summary rows left out; null and [] until the
 * file was read. */
static void file_detail(json_t *file, const struct run *r)
{
	json_t *d = *r->file_detail ? json_loads(r->file_detail, 0, NULL) : NULL;
	json_t *row = json_object_get(d, "headerRow"), *sheet = json_object_get(d, "sheet");
	json_t *sheets = json_object_get(d, "sheets"), *sum = json_object_get(d, "summaryRows");
	json_object_set(file, "headerRow", json_is_integer(row) ? row : json_null());
	json_object_set(file, "sheet", json_is_string(sheet) ? sheet : json_null());
	json_object_set_new(file, "sheets", json_is_array(sheets) ? json_incref(sheets) : json_array());
	json_object_set_new(file, "summaryRows", json_is_array(sum) ? json_incref(sum) : json_array());
	json_decref(d);
}

/* Who made the run (null for runs made before it was kept), its commit
 * policy, and the run it reverts (PRODUCT §15). */
static void who_and_why(json_t *o, const struct run *r)
{
	json_t *by = *r->created_by ? json_loads(r->created_by, 0, NULL) : NULL;
	json_object_set_new(o, "createdBy", by ? by : json_null());
	json_object_set_new(o, "commit", json_string(strcmp(r->commit_policy, "all") ? "partial" : "all"));
	json_object_set_new(o, "revertOf", *r->revert_of ? json_string(r->revert_of) : json_null());
	/* What a revert did (or, dry, would do): kept in its file_detail. */
	json_t *d = *r->revert_of && *r->file_detail ? json_loads(r->file_detail, 0, NULL) : NULL;
	json_t *rv = json_object_get(d, "revert");
	if (json_is_object(rv))
		json_object_set(o, "revert", rv);
	json_decref(d);
}

json_t *run_json(const struct run *r, const struct config *cfg)
{
	const char *app_url = cfg->app_url;
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "object", json_string("import_run"));
	json_object_set_new(o, "kind", json_string(r->kind));
	json_object_set_new(o, "state", json_string(run_state_name(r->state)));
	json_object_set_new(o, "dryRun", json_boolean(r->dry_run));
	if (*r->correction_of)
		json_object_set_new(o, "correctionOf", json_string(r->correction_of));
	/* Only once a worker has read the file (its row count is known): a
	 * file that cannot import (an expansion bomb) must never be shown as
	 * awaiting review (issue 27 item 9; docs/design.md). */
	if (run_awaits_review(r)) {
		char url[1024];
		snprintf(url, sizeof url, "%s/imports/runs/%s/review", app_url, r->id);
		json_object_set_new(o, "nextAction", json_pack("{s:s,s:s,s:o}", "type", "review_in_app", "url", url,
							       "expiresAt", iso_time(r->expires_at)));
	}
	if (r->state == RUN_FAILED && *r->error_code)
		json_object_set_new(o, "error", json_pack("{s:s,s:o}", "code", r->error_code, "message",
							  log_json_str(*r->error_message ? r->error_message
										    : code_summary(code_from_name(r->error_code)))));
	json_t *counts = json_pack("{s:i,s:i,s:i,s:i}", "succeeded", r->counts[0], "warnings", r->counts[1],
				   "failed", r->counts[2], "skipped", r->counts[3]);
	/* An all-or-nothing run that failed: the rows it would have written. */
	if (r->not_committed >= 0)
		json_object_set_new(counts, "notCommitted", json_integer(r->not_committed));
	json_object_set_new(o, "counts", counts);
	/* How far a running run has got (PRODUCT §16): its checkpoint, updated
	 * as each batch commits; the total once the rows were counted. */
	if (r->state == RUN_RUNNING)
		json_object_set_new(o, "progress", json_pack("{s:i,s:o,s:i}", "rowsDone", r->rows_done, "rowsTotal",
							     r->row_count >= 0 ? json_integer(r->row_count) : json_null(),
							     "rowsPerSecond", r->rows_per_second));
	who_and_why(o, r);
	json_object_set_new(o, "fileName", log_json_str(r->file_name));
	json_object_set_new(o, "rowCount", r->row_count >= 0 ? json_integer(r->row_count) : json_null());
	json_t *file = json_pack("{s:s,s:o,s:o}", "format", r->file_format,
		"encoding", *r->file_encoding ? json_string(r->file_encoding) : json_null(),
		"delimiter", *r->file_delimiter ? json_string(!strcmp(r->file_delimiter, "\\t") ? "\t" : r->file_delimiter)
						: json_null());
	file_detail(file, r);
	json_object_set_new(o, "file", file);
	json_object_set_new(o, "createdAt", iso_time(r->created_at));
	json_object_set_new(o, "startedAt", iso_time(r->started_at));
	json_object_set_new(o, "finishedAt", iso_time(r->finished_at));
	json_object_set_new(o, "uploadExpiresAt", expires_at(r, cfg->keep_uploads_ms));
	json_object_set_new(o, "resultsExpiresAt", expires_at(r, cfg->keep_results_ms));
	return o;
}

