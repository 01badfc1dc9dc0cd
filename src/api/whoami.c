/* GET /api/v1/whoami (and /v1/whoami), GET /healthz. */
#include "app/app.h"
#include "base/clock.h"
#include "endpoints.h"

static void whoami(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const struct api_key *k = &ctx->key;
	json_t *org = json_object();
	json_object_set_new(org, "id", json_string(ctx->org.id));
	json_object_set_new(org, "object", json_string("organization"));
	json_object_set_new(org, "name", api_str(ctx->org.name));
	json_object_set_new(org, "createdAt", api_time(ctx->org.created_at));
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(k->id));
	json_object_set_new(o, "object", json_string("api_key"));
	json_object_set_new(o, "name", api_str(k->name));
	json_object_set_new(o, "prefix", json_string(k->prefix));
	json_object_set_new(o, "createdAt", api_time(k->created_at));
	json_object_set_new(o, "lastUsedAt", api_time(k->last_used_at));
	json_object_set_new(o, "organization", org);
	api_json(req, res, 200, o);
}

const struct endpoint ep_whoami = {.finish = whoami};

/* Liveness: the process answers.  No database work, so a load balancer
 * never restarts a healthy process because the database is away. */
static void healthz(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	(void)ctx;
	api_json(req, res, 200, json_pack("{s:s}", "status", "ok"));
}

const struct endpoint ep_healthz = {.finish = healthz};

/* Readiness: the database is reachable and has every migration applied. */
static void readyz(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	enum code rc = store_ready(ctx->app->store);
	if (rc) {
		api_problem(req, res, CODE_SERVICE_UNAVAILABLE, rc == CODE_SERVICE_UNAVAILABLE
			    ? "The database cannot be reached." : "The database schema is not migrated to this version; "
			    "run `loadline migrate` (serve and worker do it on start).", NULL);
		return;
	}
	/* Ready either way; what does not work is said (issue 30: with no
	 * SMTP server, approval mails queued for ever without a word). */
	json_t *o = json_pack("{s:s}", "status", "ready");
	if (!*ctx->app->cfg.smtp_url)
		json_object_set_new(o, "warnings", json_pack("[s]", "mail: LOADLINE_SMTP_URL is not set, so no email is "
			"sent; approval emails stay in the outbox and their review links are logged"));
	api_json(req, res, 200, o);
}

const struct endpoint ep_readyz = {.finish = readyz};
