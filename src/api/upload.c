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
#include "import/intake.h"
#include "import/template.h"
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
	unsigned header_row;   /* ?headerRow, 0 = detect */
	const char *sheet;     /* ?sheet, NULL = choose */
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
	bool dry_run;
	if (!api_dry_run_header(req, res, &dry_run))
		return;
	unsigned header_row;
	const char *sheet;
	if (!import_options(req, res, &header_row, &sheet))
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
	up->req = req;
	up->file.fd = -1;
	if (spool_open(&up->file, ctx->app->cfg.spool_dir, ctx->app->cfg.max_file_bytes)) {
		log_json("error", "cannot open a spool file", json_pack("{s:s,s:s}", "dir", ctx->app->cfg.spool_dir,
			 "cause", strerror(errno)));
		api_problem(req, res, CODE_SERVICE_UNAVAILABLE, "The service cannot store uploads right now (its "
			    "spool directory is not writable); retry later.", NULL);
		return;
	}
	intake_fingerprint_begin(&up->hash);
	up->dry_run = dry_run;
	up->header_row = header_row;
	up->sheet = sheet ? arena_strdup(req->arena, sheet) : NULL;
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

static void let_go(void *arg)
{
	spool_forget(arg);
}

static void create_run_locked(struct api_ctx *ctx, struct http_request *req, struct http_response *res,
			      struct upload *up, enum sheet_format fmt)
{
	char fingerprint[DIGEST_HEX];
	digest_final_hex(&up->hash, fingerprint);
	struct intake in = {.org_id = ctx->org.id, .file_name = up->file_name, .dry_run = up->dry_run,
			    .format = fmt, .fingerprint = fingerprint, .staging_ttl_ms = ctx->app->cfg.staging_ttl_ms,
			    .before_store = let_go, .before_store_arg = &up->file, .header_row = up->header_row,
			    .sheet = up->sheet};
	struct run run;
	char existing[ID_MAX];
	enum code rc = intake_create_run(ctx->app->store, req->arena, &in, up->file.map ? up->file.map : "",
					 up->file.len, &run, existing);
	api_run_created(ctx, req, res, rc, &run, existing);
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
	const char *why;
	enum sheet_format fmt = intake_sniff(req->arena, up->file.map, up->file.len, &why);
	if (fmt == SHEET_UNKNOWN) {
		api_problem(req, res, CODE_UNSUPPORTED_MIME, why, NULL);
		return;
	}
	create_run(ctx, req, res, up, fmt);
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
