/* "Import a file" (PRODUCT §12): the Imports page's form posts the file as
 * multipart/form-data, streamed through the same upload envelope as the
 * API's (import/envelope.h: spool, fingerprint, the upload slots), with the
 * CSRF token and the dry-run checkbox as small fields beside it; then the
 * one intake path (import/intake.c) makes the run, and the browser lands
 * on its page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "import/envelope.h"
#include "import/intake.h"
#include "import/template.h"
#include "web/page.h"
#include "web/upload.h"

struct web_upload {
	struct envelope env;   /* multipart -> spool -> fingerprint, with the form's fields */
};

bool web_upload_begin(struct web_req *w, const char *content_type)
{
	struct web_upload *up = arena_alloc(w->a, sizeof(*up));
	if (envelope_open(&up->env, w->a, content_type, w->app->cfg.spool_dir, w->app->cfg.max_file_bytes, true))
		return false;
	w->upload = up;
	return true;
}

void web_upload_feed(struct web_req *w, const char *data, size_t size)
{
	envelope_feed(&w->upload->env, data, size);   /* a refusal is answered by the handler */
}

/* The form's fields, for the CSRF check and the handler; -1 when the body
 * is not a form this app sent (a file too large is answered by the
 * handler). */
int web_upload_end(struct web_req *w)
{
	struct web_upload *up = w->upload;
	envelope_end(&up->env);
	struct form_field *fields = arena_alloc(w->a, sizeof(*fields) * ENVELOPE_FIELDS_MAX);
	for (int i = 0; i < up->env.nfields; i++) {
		fields[i] = (struct form_field){up->env.fields[i].name, up->env.fields[i].value};
		if (!form_text_ok(fields[i].value, strlen(fields[i].value)))
			return -1;
	}
	w->form = (struct form){up->env.nfields, fields};
	return up->env.status == 0 || up->env.too_large ? 0 : -1;
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
	const char *dry = web_field(w, "dry_run");
	struct intake in = {.org_id = w->session->org.id, .dry_run = dry && *dry,
			    .staging_ttl_ms = w->app->cfg.staging_ttl_ms,
			    .created_by = intake_who_user(w->a, w->session->user.id, w->session->user.email)};
	struct run run;
	char existing[ID_MAX];
	enum code rc = envelope_create_run(&up->env, w->app->store, w->app->uploads, &in, fmt, &run, existing);
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
	enum sheet_format fmt;
	const char *why = NULL;
	enum code rc = envelope_check(&up->env, w->app->cfg.max_file_bytes, &fmt, &why);
	if (rc == CODE_TOO_LARGE) {
		too_large(w);
		return;
	}
	if (rc == CODE_SERVICE_UNAVAILABLE) {
		web_error(w, 503, "Cannot store the file", "The service cannot store uploads right now; try again in a "
			  "minute.");
		return;
	}
	if (rc == CODE_MALFORMED_MULTIPART || rc == CODE_MISSING_FILE) {
		web_imports_refused(w, 400, "Send one file (MISSING_FILE): choose one CSV or XLSX file, then press "
				    "Import.");
		return;
	}
	if (rc == CODE_UNSUPPORTED_MIME) {
		web_imports_refused(w, 415, arena_printf(w->a, "%s is not a CSV or XLSX file (UNSUPPORTED_MIME). %s",
							 up->env.file_name && *up->env.file_name ? up->env.file_name : "This file",
							 why ? why : ""));
		return;
	}
	if (envelope_take_slot(&up->env, w->app->uploads, w->req))
		create(w, up, fmt);   /* else held until an upload slot frees: this runs again */
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
