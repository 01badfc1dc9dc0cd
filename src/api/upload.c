/* POST /api/v1/imports/{kind}: the multipart upload, streamed through the
 * multipart parser (src/http/multipart.c) into a spool file capped at the
 * file limit (never whole in memory), fingerprinted as it arrives, then
 * stored with its QUEUED run. */
#include <ctype.h>
#include <pthread.h>
#include <semaphore.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/spool.h"
#include "base/clock.h"
#include "base/digest.h"
#include "base/log.h"
#include "endpoints.h"
#include "state.h"
#include "http/multipart.h"
#include "import/staging.h"
#include "sheet/sheet.h"
#include "store/runs.h"

struct upload {
	struct multipart *mp;
	struct http_request *req;
	struct spool file;
	struct digest hash;   /* the fingerprint: the kind, then the file */
	int file_parts;
	bool in_file;          /* the current part is the (first) file part */
	bool too_large;
	bool dry_run;
	char *file_name;
};

static void upload_cleanup(void *p)
{
	struct upload *up = p;
	multipart_free(up->mp);
	spool_close(&up->file);
}

/* Other form fields are ignored; a second `file` part is answered after
 * the body (MALFORMED_MULTIPART). */
static bool on_part(void *cls, const char *name, const char *filename)
{
	struct upload *up = cls;
	up->in_file = name && !strcmp(name, "file") && ++up->file_parts == 1;
	if (up->in_file && filename)
		up->file_name = arena_strndup(up->req->arena, filename, strnlen(filename, RUN_FILE_NAME_MAX));
	return true;
}

static bool on_data(void *cls, const char *data, size_t size)
{
	struct upload *up = cls;
	if (!up->in_file)
		return true;
	int w = spool_write(&up->file, data, size);
	if (w) {
		up->too_large = w > 0;
		return false;
	}
	digest_update(&up->hash, data, size);
	return true;
}

static bool header_is_empty_body(struct http_request *req)
{
	const char *cl = http_header(req, "Content-Length");
	const char *te = http_header(req, "Transfer-Encoding");
	return (cl && !strcmp(cl, "0")) || (!cl && !te);
}

#define MULTIPART_OVERHEAD (64 * 1024)

static void too_large(struct http_request *req, struct http_response *res);
static void spool_failed(struct http_request *req, struct http_response *res, struct upload *up);

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
	const char *dry = http_header(req, "Service-Dry-Run");
	if (dry && strcmp(dry, "true") && strcmp(dry, "false")) {
		api_problem(req, res, CODE_INVALID_HEADER, "Service-Dry-Run must be `true` or `false`.", NULL);
		return;
	}
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
	up->req = req;
	up->file.fd = -1;
	if (spool_open(&up->file, ctx->app->cfg.spool_dir, ctx->app->cfg.max_file_bytes)) {
		log_json("error", "cannot open a spool file", json_pack("{s:s,s:s}", "dir", ctx->app->cfg.spool_dir,
			 "cause", strerror(errno)));
		api_problem(req, res, CODE_SERVICE_UNAVAILABLE, "The service cannot store uploads right now (its "
			    "spool directory is not writable); retry later.", NULL);
		return;
	}
	digest_init(&up->hash);
	digest_update(&up->hash, "jobs\n", 5);
	up->dry_run = dry && !strcmp(dry, "true");
	arena_cleanup(req->arena, upload_cleanup, up);
	struct multipart_sink sink = {.part_begin = on_part, .part_data = on_data, .ctx = up};
	up->mp = multipart_new(ct, &sink);
	if (!up->mp)
		api_problem(req, res, CODE_MALFORMED_MULTIPART, "The multipart boundary is missing or invalid.", NULL);
}

/* A write to the spool failed: the disk is full (most likely) or broken. */
static void spool_failed(struct http_request *req, struct http_response *res, struct upload *up)
{
	log_json("error", "cannot write an upload to the spool", json_pack("{s:s,s:b}", "cause",
		 strerror(up->file.error), "diskFull", up->file.error == ENOSPC));
	api_problem(req, res, CODE_SERVICE_UNAVAILABLE, up->file.error == ENOSPC ? "The service is out of disk "
		    "space for uploads; retry later (nothing was stored)." : "The service cannot store the upload "
		    "right now; retry later (nothing was stored).", NULL);
}

static void too_large(struct http_request *req, struct http_response *res)
{
	const struct app *app = req->app;
	api_problem(req, res, CODE_TOO_LARGE, arena_printf(req->arena, "The file is larger than %zu bytes; split "
		    "it into smaller files.", app->cfg.max_file_bytes), NULL);
}

static void body(struct api_ctx *ctx, struct http_request *req, struct http_response *res, const char *data,
		 size_t size)
{
	struct upload *up = ctx->state;
	if (multipart_feed(up->mp, data, size) == MULTIPART_OK)
		return;
	if (up->too_large)
		too_large(req, res);
	else if (up->file.error)
		spool_failed(req, res, up);
	else
		api_problem(req, res, CODE_MALFORMED_MULTIPART, multipart_error(up->mp), NULL);
}

static void accepted(struct http_request *req, struct http_response *res, const struct run *run)
{
	const struct app *app = req->app;
	api_json(req, res, 202, run_json(run, &app->cfg));
	char *loc = arena_printf(req->arena, "/api/v1/imports/runs/%s", run->id);
	http_add_header(req, res, "Location", loc);
	http_add_header(req, res, "Retry-After", "5");
}

/* A live upload of a shape the org has not mapped is staged for review.
 * Only its header row is read here; a worker reads the rest (its row count
 * for the approval mail, and whether it can import at all) before the mail
 * is queued (staging_triage). */
static enum code stage(struct api_ctx *ctx, struct http_request *req, struct run *run, struct upload *up)
{
	if (run->dry_run)
		return CODE_OK;
	const struct config *cfg = &ctx->app->cfg;
	struct staging s;
	enum code rc = staging_decide(ctx->app->store, req->arena, run->org_id, up->file.map ? up->file.map : "",
				      up->file.len, &s);
	if (rc || !s.staged)
		return rc;
	run->staged = true;
	snprintf(run->shape_key, sizeof run->shape_key, "%s", s.shape_key);
	run->expires_at = run->created_at + cfg->staging_ttl_ms;
	return CODE_OK;
}

/* Reading an upload's header and storing it take CPU and a few MB each;
 * more of them at once than there are cores only adds memory (32 uploads
 * finishing together on 8 HTTP threads peaked near 100 MB; one per core,
 * near 55 MB).  The other HTTP threads wait here, holding nothing big: the
 * semaphore is app->api's (state.h). */

static void create_run_locked(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
			      struct upload *up, enum sheet_format fmt);

static void create_run(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
		       struct upload *up, enum sheet_format fmt)
{
	sem_t *finishing = &ctx->app->api->finishing;   /* state.h */
	while (sem_wait(finishing) && errno == EINTR)
		;
	create_run_locked(ctx, req, res, up, fmt);
	sem_post(finishing);
}

static void create_run_locked(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
			      struct upload *up, enum sheet_format fmt)
{
	struct run run = {0};
	id_new("run", run.id);
	snprintf(run.org_id, sizeof run.org_id, "%s", ctx->org.id);
	snprintf(run.kind, sizeof run.kind, "jobs");
	run.state = RUN_QUEUED;
	run.dry_run = up->dry_run;
	digest_final_hex(&up->hash, run.fingerprint);
	snprintf(run.file_name, sizeof run.file_name, "%s", up->file_name ? up->file_name : "upload");
	run.file_size = (int64_t)up->file.len;
	snprintf(run.file_format, sizeof run.file_format, "%s", fmt == SHEET_XLSX ? "xlsx" : "csv");
	run.row_count = -1;
	run.created_at = now_ms();
	enum code rc = stage(ctx, req, &run, up);
	/* The insert below may wait for the database's write lock: meanwhile
	 * this upload keeps none of its pages resident. */
	spool_forget(&up->file);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	char existing[ID_MAX] = "";
	rc = store_run_create(ctx->app->store, &run, up->file.map ? up->file.map : "", up->file.len, existing);
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
	accepted(req, res, &run);
}

static void finish(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct upload *up = ctx->state;
	if (req->body_bytes == 0) {
		api_problem(req, res, CODE_EMPTY_BODY, NULL, NULL);
		return;
	}
	enum multipart_status st = multipart_finish(up->mp);
	if (up->too_large) {
		too_large(req, res);
		return;
	}
	if (up->file.error) {
		spool_failed(req, res, up);
		return;
	}
	if (st == MULTIPART_OK && !multipart_parts(up->mp)) {
		api_problem(req, res, CODE_MALFORMED_MULTIPART, "No part was found between the boundaries the "
			    "Content-Type announces.", NULL);
		return;
	}
	if (st != MULTIPART_OK || up->file_parts > 1) {
		api_problem(req, res, CODE_MALFORMED_MULTIPART, up->file_parts > 1 ? "Send exactly one part named `file`."
			    : multipart_error(up->mp), NULL);
		return;
	}
	if (up->file_parts == 0) {
		api_problem(req, res, CODE_MISSING_FILE, NULL, NULL);
		return;
	}
	/* Judged by the bytes, not the part's Content-Type: browsers label CSV
	 * four different ways. A zero-byte file is accepted and fails EMPTY_FILE. */
	if (spool_map(&up->file)) {
		up->file.error = errno;
		spool_failed(req, res, up);
		return;
	}
	const char *why = NULL;
	enum sheet_format fmt = up->file.len ? sheet_sniff_explain(up->file.map, up->file.len, &why) : SHEET_CSV;
	if (fmt == SHEET_UNKNOWN) {
		api_problem(req, res, CODE_UNSUPPORTED_MIME, arena_printf(req->arena, "%c%s.", toupper((unsigned char)why[0]), why + 1),
			    NULL);
		return;
	}
	create_run(ctx, req, res, up, fmt);
}

const struct endpoint ep_import_upload = {.begin = begin, .body = body, .finish = finish};
