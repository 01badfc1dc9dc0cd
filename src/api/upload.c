/* POST /api/v1/imports/{kind}: the multipart upload, streamed through the
 * upload envelope (import/envelope.h: a spool file capped at the file
 * limit, never whole in memory, fingerprinted as it arrives), then stored
 * with its QUEUED run. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "endpoints.h"
#include "state.h"
#include "http/multipart.h"
#include "import/envelope.h"
#include "import/intake.h"
#include "import/template.h"
#include "sheet/sheet.h"
#include "store/runs.h"

struct upload {
	struct envelope env;   /* multipart -> spool -> fingerprint (import/envelope.h) */
	bool dry_run;
	unsigned header_row;   /* ?headerRow, 0 = detect */
	const char *sheet;     /* ?sheet, NULL = choose */
	const char *commit;    /* ?commit: "all" | "partial", NULL = the org's default */
};

bool api_dry_run_header(struct http_request *req, struct http_response *res, bool *ret_dry_run)
{
	const char *dry = http_header(req, "Service-Dry-Run");
	if (dry && strcmp(dry, "true") && strcmp(dry, "false")) {
		api_problem(req, res, CODE_INVALID_HEADER, "Service-Dry-Run must be `true` or `false`.", NULL);
		return false;
	}
	*ret_dry_run = dry && !strcmp(dry, "true");
	return true;
}

static bool header_is_empty_body(struct http_request *req)
{
	const char *cl = http_header(req, "Content-Length");
	const char *te = http_header(req, "Transfer-Encoding");
	return (cl && !strcmp(cl, "0")) || (!cl && !te);
}

#define MULTIPART_OVERHEAD (64 * 1024)

/* Excel's limit for a worksheet name, in characters. */
#define SHEET_NAME_MAX 31

static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* ?headerRow=N and ?sheet=NAME (PRODUCT §14), checked before the body is
 * read: false after answering INVALID_IMPORT_OPTION. */
static bool import_options(struct http_request *req, struct http_response *res, unsigned *ret_row,
			   const char **ret_sheet)
{
	const char *row = http_query(req, "headerRow"), *sheet = http_query(req, "sheet");
	*ret_row = 0;
	*ret_sheet = NULL;
	if (row) {
		char *end = NULL;
		errno = 0;
		unsigned long v = isdigit((unsigned char)*row) ? strtoul(row, &end, 10) : 0;
		if (!v || errno || *end || v > SHEET_MAX_ROW_NUMBER) {
			api_problem(req, res, CODE_INVALID_IMPORT_OPTION, arena_printf(req->arena, "headerRow must be "
				    "a row number from 1 to 1048576, as the spreadsheet shows it; \"%.20s\" is not one.",
				    row), NULL);
			return false;
		}
		*ret_row = (unsigned)v;
	}
	if (sheet) {
		if (!*sheet || utf8_chars(sheet) > SHEET_NAME_MAX || strlen(sheet) > 4 * SHEET_NAME_MAX) {
			api_problem(req, res, CODE_INVALID_IMPORT_OPTION, "sheet must be a worksheet name of 1 to 31 "
				    "characters.", NULL);
			return false;
		}
		*ret_sheet = sheet;
	}
	return true;
}

/* ?commit=all|partial (PRODUCT §15): false after answering
 * INVALID_IMPORT_OPTION. */
static bool commit_option(struct http_request *req, struct http_response *res, const char **ret)
{
	const char *c = http_query(req, "commit");
	*ret = c;
	if (!c || !strcmp(c, "all") || !strcmp(c, "partial"))
		return true;
	api_problem(req, res, CODE_INVALID_IMPORT_OPTION, arena_printf(req->arena, "commit must be \"all\" "
		    "(nothing is written when a row fails) or \"partial\" (the default); \"%.20s\" is neither.", c),
		    NULL);
	return false;
}

static void too_large(struct http_request *req, struct http_response *res);

static void begin(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *kind = route_param(&ctx->params, "kind");
	if (strcmp(kind, "jobs")) {
		api_problem(req, res, CODE_INVALID_KIND, arena_printf(req->arena, "\"%.60s\" is not an import kind; "
			    "post to /api/v1/imports/jobs.", kind), NULL);
		return;
	}
	const char *idem = http_header(req, "Idempotency-Key");
	if (idem && *idem) {
		api_problem(req, res, CODE_IDEMPOTENCY_KEY_RESERVED, NULL, NULL);
		return;
	}
	bool dry_run;
	if (!api_dry_run_header(req, res, &dry_run))
		return;
	unsigned header_row;
	const char *sheet;
	const char *commit;
	if (!import_options(req, res, &header_row, &sheet) || !commit_option(req, res, &commit))
		return;
	if (header_is_empty_body(req)) {
		api_problem(req, res, CODE_EMPTY_BODY, NULL, NULL);
		return;
	}
	/* A body announced larger than the file limit plus room for the
	 * multipart framing cannot carry an acceptable file: answer before
	 * reading it. */
	const char *cl = http_header(req, "Content-Length");
	if (cl && strtoull(cl, NULL, 10) > ctx->app->cfg.max_file_bytes + MULTIPART_OVERHEAD) {
		too_large(req, res);
		return;
	}
	const char *ct = http_header(req, "Content-Type");
	if (!ct || strncasecmp(ct, "multipart/form-data", 19)) {
		api_problem(req, res, CODE_MALFORMED_MULTIPART, "Content-Type must be multipart/form-data with a "
			    "boundary, carrying one part named `file`.", NULL);
		return;
	}
	struct upload *up = arena_alloc(req->arena, sizeof(*up));
	ctx->state = up;
	up->dry_run = dry_run;
	up->header_row = header_row;
	up->sheet = sheet ? arena_strdup(req->arena, sheet) : NULL;
	up->commit = commit ? arena_strdup(req->arena, commit) : NULL;
	enum code rc = envelope_open(&up->env, req->arena, ct, ctx->app->cfg.spool_dir, ctx->app->cfg.max_file_bytes,
				     false);
	if (rc == CODE_SERVICE_UNAVAILABLE)
		api_problem(req, res, rc, "The service cannot store uploads right now (its spool directory is not "
			    "writable); retry later.", NULL);
	else if (rc)
		api_problem(req, res, rc, "The multipart boundary is missing or invalid.", NULL);
}

static void too_large(struct http_request *req, struct http_response *res)
{
	const struct app *app = req->app;
	api_problem(req, res, CODE_TOO_LARGE, arena_printf(req->arena, "The file is larger than %zu bytes; split "
		    "it into smaller files.", app->cfg.max_file_bytes), NULL);
}

/* Why the upload cannot be imported, answered (envelope_check's code and
 * detail); false when it can, with its format. */
static bool refused(struct api_ctx *ctx, struct http_request *req, struct http_response *res, struct upload *up,
		    enum sheet_format *ret_fmt)
{
	const char *msg = NULL;
	enum code rc = envelope_check(&up->env, ctx->app->cfg.max_file_bytes, ret_fmt, &msg);
	if (rc)
		api_problem(req, res, rc, msg, NULL);
	return rc != CODE_OK;
}

static void body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
		 size_t size)
{
	struct upload *up = ctx->state;
	enum sheet_format fmt;
	if (!envelope_feed(&up->env, data, size))
		refused(ctx, req, res, up, &fmt);
}

static void accepted(struct http_request *req, struct http_response *res, const struct run *run)
{
	const struct app *app = req->app;
	api_json(req, res, 202, run_json(run, &app->cfg));
	char *loc = arena_printf(req->arena, "/api/v1/imports/runs/%s", run->id);
	http_add_header(req, res, "Location", loc);
	http_add_header(req, res, "Retry-After", "5");
}

void api_run_created(struct api_ctx *ctx, struct http_request *req, struct http_response *res, enum code rc,
		     const struct run *run, const char *existing)
{
	if (rc == CODE_IMPORT_IN_PROGRESS) {
		char *url = arena_printf(req->arena, "/api/v1/imports/runs/%s", existing);
		json_t *extra = json_pack("{s:s}", "existingRunUrl", url);
		api_problem(req, res, rc, arena_printf(req->arena, "This file is already being imported as run %s; "
			    "poll existingRunUrl instead of pushing it again.", existing), extra);
		json_decref(extra);
		return;
	}
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	app_hook_call(&ctx->app->run_queued);   /* runs to process, or staged ones to triage */
	accepted(req, res, run);
}

/* The run, made under the process's upload slots (one per core, shared
 * with the web app's form: import/envelope.h); while none is free the
 * request is held without its thread, and this runs again. */
static void finish(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct upload *up = ctx->state;
	if (req->body_bytes == 0) {
		api_problem(req, res, CODE_EMPTY_BODY, NULL, NULL);
		return;
	}
	enum sheet_format fmt;
	if (refused(ctx, req, res, up, &fmt) || !envelope_take_slot(&up->env, ctx->app->uploads, req))
		return;   /* answered, or held until a slot frees */
	struct intake in = {.org_id = ctx->org.id, .dry_run = up->dry_run,
			    .staging_ttl_ms = ctx->app->cfg.staging_ttl_ms, .header_row = up->header_row,
			    .sheet = up->sheet, .commit_policy = up->commit,
			    .created_by = intake_who_token(req->arena, ctx->key.id, ctx->key.name)};
	struct run run;
	char existing[ID_MAX];
	enum code rc = envelope_create_run(&up->env, ctx->app->store, ctx->app->uploads, &in, fmt, &run, existing);
	api_run_created(ctx, req, res, rc, &run, existing);
}

const struct endpoint ep_import_upload = {.begin = begin, .body = body, .finish = finish};

/* GET /api/v1/imports/jobs/template?format=csv|xlsx (PRODUCT §12). */
static void get_template(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	(void)ctx;
	const char *fmt = http_query(req, "format");
	if (fmt && strcmp(fmt, "csv") && strcmp(fmt, "xlsx")) {
		api_problem(req, res, CODE_INVALID_REQUEST, "format must be csv or xlsx.", NULL);
		return;
	}
	struct template_file t;
	if (template_build(fmt && !strcmp(fmt, "xlsx"), &t)) {
		api_problem(req, res, CODE_INTERNAL_ERROR, NULL, NULL);
		return;
	}
	http_respond(req, res, 200, t.content_type, (const char *)t.data, t.len);
	free(t.data);
	http_add_header(req, res, "Content-Disposition",
			arena_printf(req->arena, "attachment; filename=\"%s\"", t.file_name));
	http_add_header(req, res, "Cache-Control", "public, max-age=3600");
}

const struct endpoint ep_import_template = {.finish = get_template};
