/* "Import a file" (PRODUCT §12): the Imports page's form posts the file as
 * multipart/form-data, streamed into a spool file capped at the file limit
 * (as the API's upload is), with the CSRF token and the dry-run checkbox as
 * small fields beside it; then the one intake path (import/intake.c) makes
 * the run, and the browser lands on its page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/spool.h"
#include "http/multipart.h"
#include "base/clock.h"
#include "import/intake.h"
#include "import/template.h"
#include "web/page.h"
#include "web/upload.h"

#define FIELD_MAX 256      /* a form field beside the file: the token, a checkbox */
#define FIELDS_MAX 8

struct web_upload {
	struct web_req *w;
	struct multipart *mp;
	struct spool file;
	struct digest hash;
	int file_parts, nfields;
	bool in_file, too_large, field_too_large;
	char *file_name;
	struct form_field fields[FIELDS_MAX];
	char value[FIELD_MAX + 1];
	size_t value_len;
	bool in_field;
};

static void upload_cleanup(void *p)
{
	struct web_upload *up = p;
	multipart_free(up->mp);
	spool_close(&up->file);
}

/* The field being read ends where the next part begins. */
static void end_field(struct web_upload *up)
{
	if (up->in_field && up->nfields < FIELDS_MAX) {
		up->value[up->value_len] = '\0';
		up->fields[up->nfields++].value = arena_strdup(up->w->a, up->value);
	}
	up->in_field = false;
	up->value_len = 0;
}

static bool on_part(void *cls, const char *name, const char *filename)
{
	struct web_upload *up = cls;
	end_field(up);
	up->in_file = name && !strcmp(name, "file") && ++up->file_parts == 1;
	if (up->in_file && filename)
		up->file_name = arena_strndup(up->w->a, filename, strnlen(filename, RUN_FILE_NAME_MAX));
	if (!up->in_file && name && strcmp(name, "file") && up->nfields < FIELDS_MAX) {
		up->in_field = true;
		up->fields[up->nfields].name = arena_strdup(up->w->a, name);
	}
	return true;
}

static bool on_data(void *cls, const char *data, size_t size)
{
	struct web_upload *up = cls;
	if (up->in_field) {
		if (up->value_len + size > FIELD_MAX) {
			up->field_too_large = true;
			return false;
		}
		memcpy(up->value + up->value_len, data, size);
		up->value_len += size;
		return true;
	}
	if (!up->in_file)
		return true;
	int r = spool_write(&up->file, data, size);
	if (r) {
		up->too_large = r > 0;
		return false;
	}
	digest_update(&up->hash, data, size);
	return true;
}

bool web_upload_begin(struct web_req *w, const char *content_type)
{
	struct web_upload *up = arena_alloc(w->a, sizeof(*up));
	up->w = w;
	up->file.fd = -1;
	if (spool_open(&up->file, w->app->cfg.spool_dir, w->app->cfg.max_file_bytes))
		return false;
	intake_fingerprint_begin(&up->hash);
	arena_cleanup(w->a, upload_cleanup, up);
	struct multipart_sink sink = {.part_begin = on_part, .part_data = on_data, .ctx = up};
	up->mp = multipart_new(content_type, &sink);
	w->upload = up;
	return up->mp != NULL;
}

void web_upload_feed(struct web_req *w, const char *data, size_t size)
{
	multipart_feed(w->upload->mp, data, size);
}

int web_upload_end(struct web_req *w)
{
	struct web_upload *up = w->upload;
	enum multipart_status st = multipart_finish(up->mp);
	end_field(up);
	w->form = (struct form){up->nfields, up->fields};
	for (int i = 0; i < up->nfields; i++)
		if (!form_text_ok(up->fields[i].value, strlen(up->fields[i].value)))
			return -1;
	return st == MULTIPART_OK || up->too_large ? 0 : -1;
}

static void too_large(struct web_req *w)
{
	web_error(w, 413, "File too large (TOO_LARGE)", arena_printf(w->a, "The file is larger than %zu bytes; split "
		  "it into smaller files and import each.", w->app->cfg.max_file_bytes));
}

/* The browser goes to the new run's page (the workers woken), or to the
 * page of the run of the same bytes that is still being imported; or an
 * error page. */
static void run_created(struct web_req *w, enum code rc, const struct run *run, const char *existing)
{
	if (rc == CODE_IMPORT_IN_PROGRESS) {
		web_redirect(w, arena_printf(w->a, "/imports/runs/%s?already=1", existing));
		return;
	}
	if (web_store_answered(w, rc))
		return;
	app_hook_call(&w->app->run_queued);
	web_redirect(w, arena_printf(w->a, "/imports/runs/%s", run->id));
}

/* The run made (the browser goes to its page), or an error page. */
static void create(struct web_req *w, struct web_upload *up, enum sheet_format fmt)
{
	char fingerprint[DIGEST_HEX];
	digest_final_hex(&up->hash, fingerprint);
	const char *dry = web_field(w, "dry_run");
	struct intake in = {.org_id = w->session->org.id, .file_name = up->file_name,
			    .dry_run = dry && *dry, .format = fmt, .fingerprint = fingerprint,
			    .staging_ttl_ms = w->app->cfg.staging_ttl_ms,
			    .created_by = intake_who_user(w->a, w->session->user.id, w->session->user.email)};
	struct run run;
	char existing[ID_MAX];
	enum code rc = intake_create_run(w->app->store, w->a, &in, up->file.map ? up->file.map : "", up->file.len,
					 &run, existing);
	run_created(w, rc, &run, existing);
}

static void import_file(struct web_req *w)
{
	struct web_upload *up = w->upload;
	/* A refusal the user can fix on the form is answered on the form
	 * (issue 30): the Imports page, the error next to the file input. */
	if (!up) {
		web_imports_refused(w, 400, "No file was sent (MISSING_FILE): choose a CSV or XLSX file, then press "
				    "Import.");
		return;
	}
	if (up->too_large) {
		too_large(w);
		return;
	}
	if (up->file.error || (up->file_parts == 1 && spool_map(&up->file))) {
		web_error(w, 503, "Cannot store the file", "The service cannot store uploads right now; try again in "
			  "a minute.");
		return;
	}
	if (up->file_parts != 1) {
		web_imports_refused(w, 400, "Send one file (MISSING_FILE): choose one CSV or XLSX file, then press "
				    "Import.");
		return;
	}
	const char *why;
	enum sheet_format fmt = intake_sniff(w->a, up->file.map, up->file.len, &why);
	if (fmt == SHEET_UNKNOWN) {
		web_imports_refused(w, 415, arena_printf(w->a, "%s is not a CSV or XLSX file (UNSUPPORTED_MIME). %s",
							 up->file_name && *up->file_name ? up->file_name : "This file",
							 why));
		return;
	}
	create(w, up, fmt);
}

const struct web_handler page_import_upload = {import_file};

/* "Import this file again" (PRODUCT §11): a new run of the stored upload,
 * as POST /api/v1/imports/runs/{id}/rerun makes it. */
static void rerun(struct web_req *w)
{
	struct run orig;
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), &orig);
	if (web_store_answered(w, rc))
		return;
	const char *dry = web_field(w, "dry_run");
	struct run run;
	char existing[ID_MAX];
	rc = intake_rerun(w->app->store, w->a, &orig, dry && *dry, w->app->cfg.keep_uploads_ms,
			  w->app->cfg.staging_ttl_ms, intake_who_user(w->a, w->session->user.id, w->session->user.email),
			  &run, existing);
	if (rc == CODE_UPLOAD_EXPIRED) {
		web_error(w, 410, "File deleted (UPLOAD_EXPIRED)", "The stored file of this run was deleted by "
			  "retention. Import the file again from your copy with Import a file.");
		return;
	}
	run_created(w, rc, &run, existing);
}

const struct web_handler page_run_rerun = {rerun};

/* "Download template": GET /imports/template?format=csv|xlsx. */
static void template(struct web_req *w)
{
	const char *fmt = web_query(w, "format");
	struct template_file t;
	if (web_store_answered(w, template_build(fmt && !strcmp(fmt, "xlsx"), &t)))
		return;
	web_raw(w, 200, t.content_type, (const char *)t.data, t.len);
	free(t.data);
	http_add_header(w->req, w->res, "Content-Disposition",
			arena_printf(w->a, "attachment; filename=\"%s\"", t.file_name));
}

const struct web_handler page_template = {template};
