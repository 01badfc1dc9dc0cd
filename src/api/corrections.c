/* POST /api/v1/imports/runs/{id}/corrections (PRODUCT §15): a new run of a
 * run's failed rows as the caller corrected them, answered like an upload
 * (import/corrections.h says how the run is made). */
#include <stdio.h>

#include "app/app.h"
#include "base/clock.h"
#include "endpoints.h"
#include "import/corrections.h"
#include "import/intake.h"
#include "store/runs.h"

/* The original run, when corrections can be made of it; otherwise
 * answered (404 for another org's run, 409, 410) and false. */
static bool correctable(struct api_ctx *ctx, struct http_request *req, struct http_response *res, struct run *run)
{
	const char *id = api_id(ctx, req, res, "run", "import run");
	if (!id)
		return false;
	enum code rc = store_run_get(ctx->app->store, ctx->org.id, id, run);
	const char *why = NULL;
	int64_t now = now_ms();
	if (rc == CODE_NOT_FOUND)
		why = "No import run with this id in your organization.";
	else if (rc) {
		api_store_failed(req, res, rc);
		return false;
	} else if (!run_state_terminal(run->state)) {
		rc = CODE_RUN_NOT_TERMINAL;
		why = "Failed rows can be corrected once the run is terminal; poll the run until then.";
	} else if (run->state == RUN_FAILED || run->state == RUN_CANCELLED) {
		rc = CODE_NO_ROW_RESULTS;
	} else if (run_results_expired(run, ctx->app->cfg.keep_results_ms, now)) {
		rc = CODE_RESULTS_EXPIRED;
		why = "The run's per-row results were deleted by retention: push the file again for fresh results.";
	} else if (run_upload_expired(run, ctx->app->cfg.keep_uploads_ms, now)) {
		rc = CODE_UPLOAD_EXPIRED;
		why = "Corrected rows are read from the stored upload, which retention deleted: push the file again "
		      "from your copy.";
	}
	if (rc)
		api_problem(req, res, rc, why, NULL);
	return rc == CODE_OK;
}

static void create(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct run orig;
	bool dry_run;
	if (!correctable(ctx, req, res, &orig) || !api_dry_run_header(req, res, &dry_run))
		return;
	json_t *body = api_body_json(ctx, req, res);
	if (!body)
		return;
	struct corrections c;
	const char *why = NULL;
	enum code rc = corrections_from_json(req->arena, body, &c, &why);
	json_decref(body);
	struct run run;
	char existing[ID_MAX] = "";
	struct correction_opts o = {.dry_run = dry_run, .keep_uploads_ms = ctx->app->cfg.keep_uploads_ms,
				    .staging_ttl_ms = ctx->app->cfg.staging_ttl_ms,
				    .created_by = intake_who_token(req->arena, ctx->key.id, ctx->key.name)};
	if (!rc)
		rc = corrections_create(ctx->app->store, req->arena, &orig, &c, &o, &run, existing, &why);
	if (rc == CODE_INVALID_CORRECTION || rc == CODE_UPLOAD_EXPIRED || rc == CODE_TOO_LARGE)
		api_problem(req, res, rc, why, NULL);
	else
		api_run_created(ctx, req, res, rc, &run, existing);
}

const struct endpoint ep_run_corrections = {.body = api_collect_large_body, .finish = create};
