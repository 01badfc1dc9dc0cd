/* GET /api/v1/loads/{id}/history (PRODUCT §15): who changed a Load, when,
 * and which fields, newest first, as long as each run's results are kept. */
#include "app/app.h"
#include "endpoints.h"
#include "import/history.h"
#include "store/changes.h"
#include "store/records.h"

static void load_history(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct load_rec l;
	const char *id = api_id(ctx, req, res, "load", "load");
	if (!id)
		return;
	enum code rc = store_load_get(ctx->app->store, req->arena, ctx->org.id, id, &l);
	struct record_change *c = NULL, created;
	int n = 0;
	if (!rc)
		rc = store_load_changes(ctx->app->store, req->arena, ctx->org.id, id, ctx->app->cfg.keep_results_ms, &c,
				       &n, &created);
	if (rc == CODE_NOT_FOUND) {
		api_problem(req, res, rc, "No load with this id in your organization.", NULL);
		return;
	}
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	json_t *o = json_pack("{s:s,s:o,s:n}", "object", "list", "data", history_load_json(&l, c, n, &created),
			      "nextPageUrl");
	api_json(req, res, 200, o);
}

const struct endpoint ep_load_history = {.finish = load_history};
