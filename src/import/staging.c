/* The staging decision (at upload, then its triage in a worker) and the
 * approval email. */
#include "staging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "mapping.h"
#include "readfile.h"

static const char *column_list(struct arena *a, const struct sheet_row *h)
{
	struct buf b;
	buf_init(&b, 8192);
	for (size_t j = 0; j < h->ncells; j++) {
		if (!h->lens[j])
			continue;
		if (b.len)
			buf_puts(&b, ", ");
		buf_append(&b, h->cells[j], h->lens[j]);
	}
	const char *out = arena_strdup(a, buf_str(&b));
	buf_done(&b);
	return out;
}

enum code staging_decide(struct store *st, struct arena *a, const struct run *run, const void *data, size_t len,
			 void (*drop)(void *), void *drop_arg, struct staging *ret)
{
	const char *org_id = run->org_id;
	memset(ret, 0, sizeof(*ret));
	ret->rows = -1;
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.drop = drop;
	lim.drop_arg = drop_arg;
	struct sheet *sh = NULL;
	const char *msg;
	struct import_read rd;
	import_read_for_run(&rd, st, a, run);
	enum code orc = import_sheet_open(&rd, data, len, &lim, &sh, &msg, NULL);
	if (orc == CODE_SERVICE_UNAVAILABLE || orc == CODE_INTERNAL_ERROR)
		return orc;   /* no verdict on the file: the upload answers 503/500 */
	if (orc)
		return CODE_OK;
	struct colmap map;
	enum mapping_source source;
	/* The values evidence: the first data rows, read ahead. */
	const struct sheet_row *const *samples;
	size_t nsamples = sheet_samples(sh, &samples);
	enum code rc = mapping_resolve(st, a, org_id, sheet_header(sh), samples, nsamples, &map, ret->shape_key,
				       &source);
	ret->staged = !rc && source == MAPPING_PROPOSED;
	sheet_free(sh);
	return rc;
}

/* Reads the whole file: its data rows and header texts, or false when it
 * would fail (does not parse, too many rows).  A read that ran out of
 * memory is transient: *ret_rc says so. */
static bool count_rows(struct store *st, struct arena *a, const struct run *run, const unsigned char *data,
		       size_t len, int max_rows, struct staging *s, enum code *ret_rc)
{
	*ret_rc = CODE_OK;
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.max_rows = (size_t)max_rows;
	struct sheet *sh = NULL;
	const char *msg;
	struct import_read rd;
	import_read_for_run(&rd, st, a, run);
	enum code prc = import_sheet_open(&rd, data, len, &lim, &sh, &msg, NULL);
	const struct sheet_row *row;
	int n = 0;
	while (prc == CODE_OK && (prc = sheet_next_row(sh, &row)) == CODE_OK && row)
		n++;
	if (prc == CODE_OK) {
		s->rows = n;
		s->columns = column_list(a, sheet_header(sh));
	}
	sheet_free(sh);
	if (prc == CODE_INTERNAL_ERROR || prc == CODE_SERVICE_UNAVAILABLE)
		*ret_rc = prc;
	return prc == CODE_OK;
}

/* A run staged for review is logged with its review link (issue 30), and
 * so is an approval mail that no SMTP server will carry, so that an
 * operator without mail can still pass the link on. */
static void log_staged(const struct staging_opts *o, const struct run *run, const struct outbox_mail *mail)
{
	char url[1024];
	snprintf(url, sizeof url, "%s/imports/runs/%s/review", o->app_url ? o->app_url : "", run->id);
	log_json("info", "run staged for review", json_pack("{s:s,s:s,s:s,s:o}", "runId", run->id, "orgId",
		 run->org_id, "reviewUrl", url, "fileName", log_json_str(run->file_name)));
	if (!mail)
		log_json("warn", "run staged but the org has no approvers", json_pack("{s:s,s:s}", "runId", run->id,
			 "reviewUrl", url));
	else if (o->no_smtp)
		log_json("warn", "approval mail not sent: no SMTP server is configured (LOADLINE_SMTP_URL)",
			 json_pack("{s:s,s:s,s:s}", "runId", run->id, "mailId", mail->id, "reviewUrl", url));
}

enum code staging_triage(struct store *st, const struct staging_opts *o, const struct run *run, const char *owner)
{
	unsigned char *file = NULL;
	size_t len = 0;
	enum code rc = store_run_file(st, run->id, &file, &len);
	if (rc)
		return rc;
	struct arena *a = arena_new();
	struct staging s = {.staged = true, .rows = -1};
	bool readable = count_rows(st, a, run, file, len, o->max_rows, &s, &rc);
	free(file);
	if (rc) {
		arena_free(a);
		return rc;
	}
	if (!readable) {
		rc = store_run_unstage(st, run->id, owner);
		log_json("info", "staged run unstaged: its file cannot import", json_pack("{s:s}", "runId", run->id));
		arena_free(a);
		return rc;
	}
	const char *to = NULL;
	struct outbox_mail mail, *mailp = NULL;
	rc = store_approver_list(st, a, run->org_id, &to);
	if (!rc && *to) {
		staging_mail(a, run, &s, to, o->app_url, &mail);
		mailp = &mail;
	}
	bool done = false;
	if (!rc)
		rc = store_run_triaged(st, run->id, owner, s.rows, mailp, &done);
	if (!rc && done)
		log_staged(o, run, mailp);
	if (!rc && done && mailp && o->mail_queued)
		o->mail_queued(o->mail_arg);
	arena_free(a);
	return rc;
}

void staging_mail(struct arena *a, const struct run *run, const struct staging *s, const char *recipients,
		  const char *app_url, struct outbox_mail *ret)
{
	memset(ret, 0, sizeof(*ret));
	id_new("mail", ret->id);
	snprintf(ret->org_id, sizeof ret->org_id, "%s", run->org_id);
	snprintf(ret->run_id, sizeof ret->run_id, "%s", run->id);
	ret->recipients = recipients;
	ret->created_at = run->created_at;
	char expires[TIME_ISO_MAX];
	time_iso(run->expires_at, expires);
	/* The file name and header cells are the uploader's text: one line
	 * each, so they cannot add lines or headers to a mail every admin gets. */
	const char *file = text_one_line(a, run->file_name, 200), *columns = text_one_line(a, s->columns, 2000);
	ret->subject = arena_printf(a, "Confirm the columns of %s (%d row%s) before it imports", file, s->rows,
				    s->rows == 1 ? "" : "s");
	ret->body = arena_printf(a,
		"A file was pushed to Loadline with a column layout your organization has not used before.\n"
		"Before its rows are imported, an admin needs to confirm how its columns map to the jobs\n"
		"schema. This is needed once per column layout; later files with the same columns import\n"
		"without review.\n\n"
		"File:     %s\n"
		"Rows:     %d\n"
		"Columns:  %s\n"
		"Run:      %s\n\n"
		"Review and confirm: %s/imports/runs/%s/review\n\n"
		"The review link expires at %s. If nobody confirms by then, the run fails with\n"
		"STAGING_EXPIRED and the file must be pushed again.\n",
		file, s->rows, columns, run->id, app_url, run->id, expires);
}
