/* Intake: bytes to a QUEUED run (intake.h). */
#include "intake.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/text.h"
#include "base/ids.h"
#include "import/staging.h"
#include "store/settings.h"

void intake_fingerprint_begin(struct digest *d)
{
	digest_init(d);
	digest_update(d, "jobs\n", 5);
}

void intake_fingerprint(const void *data, size_t len, char out[DIGEST_HEX])
{
	struct digest d;
	intake_fingerprint_begin(&d);
	digest_update(&d, data, len);
	digest_final_hex(&d, out);
}

enum sheet_format intake_sniff(struct arena *a, const void *data, size_t len, const char **ret_why)
{
	/* A zero-byte file is accepted and fails EMPTY_FILE in the worker. */
	const char *why = NULL;
	enum sheet_format fmt = len ? sheet_sniff_explain(data, len, &why) : SHEET_CSV;
	*ret_why = fmt == SHEET_UNKNOWN && why
		? arena_printf(a, "%c%s.", toupper((unsigned char)why[0]), why + 1) : NULL;
	return fmt;
}

/* A live upload of a shape the org has not mapped is staged for review.
 * Only its header row is read here; a worker reads the rest (its row count
 * for the approval mail, and whether it can import at all) before the mail
 * is queued (staging_triage). */
static enum code stage(struct store *st, struct arena *a, const struct intake *in, struct run *run,
		       const void *data, size_t len)
{
	if (run->dry_run)
		return CODE_OK;
	struct staging s;
	enum code rc = staging_decide(st, a, run, data, len, in->before_store, in->before_store_arg, &s);
	if (rc || !s.staged)
		return rc;
	run->staged = true;
	snprintf(run->shape_key, sizeof run->shape_key, "%s", s.shape_key);
	run->expires_at = run->created_at + in->staging_ttl_ms;
	return CODE_OK;
}

const char *intake_who_token(struct arena *a, const char *key_id, const char *name)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "type", "token", "id", key_id, "name", name);
	char *s = json_dumps(o, JSON_COMPACT);
	const char *out = arena_strdup(a, s ? s : "");
	free(s);
	json_decref(o);
	return out;
}

const char *intake_who_user(struct arena *a, const char *user_id, const char *email)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "type", "user", "id", user_id, "email", email);
	char *s = json_dumps(o, JSON_COMPACT);
	const char *out = arena_strdup(a, s ? s : "");
	free(s);
	json_decref(o);
	return out;
}

/* The policy asked for, else the organization's default, else partial
 * (SPEC's behaviour). */
static enum code commit_policy_of(struct store *st, const struct intake *in, struct run *run)
{
	char policy[8] = "";
	if (in->commit_policy) {
		snprintf(policy, sizeof policy, "%s", in->commit_policy);
	} else {
		enum code rc = store_org_commit_policy(st, in->org_id, policy);
		if (rc)
			return rc;
	}
	snprintf(run->commit_policy, sizeof run->commit_policy, "%s", strcmp(policy, "all") ? "partial" : "all");
	return CODE_OK;
}

enum code intake_create_run(struct store *st, struct arena *a, const struct intake *in, const void *data, size_t len,
			    struct run *ret, char ret_existing_id[ID_MAX])
{
	struct run *run = ret;
	memset(run, 0, sizeof(*run));
	id_new_ordered("run", run->id);
	snprintf(run->org_id, sizeof run->org_id, "%s", in->org_id);
	snprintf(run->kind, sizeof run->kind, "jobs");
	run->state = RUN_QUEUED;
	run->dry_run = in->dry_run;
	snprintf(run->fingerprint, sizeof run->fingerprint, "%s", in->fingerprint);
	snprintf(run->file_name, sizeof run->file_name, "%s", in->file_name ? in->file_name : "upload");
	text_clean_in_place(run->file_name);   /* no ESC, no right-to-left override (issue 27 item 16) */
	run->file_size = (int64_t)len;
	snprintf(run->file_format, sizeof run->file_format, "%s", in->format == SHEET_XLSX ? "xlsx" : "csv");
	run->opt_header_row = (int)in->header_row;
	snprintf(run->opt_sheet, sizeof run->opt_sheet, "%s", in->sheet ? in->sheet : "");
	snprintf(run->correction_of, sizeof run->correction_of, "%s", in->correction_of ? in->correction_of : "");
	run->row_count = -1;
	run->created_at = now_ms();
	snprintf(run->created_by, sizeof run->created_by, "%s", in->created_by ? in->created_by : "");
	enum code rc = commit_policy_of(st, in, run);
	if (rc)
		return rc;
	rc = stage(st, a, in, run, data, len);
	if (in->before_store)
		in->before_store(in->before_store_arg);
	if (rc)
		return rc;
	*ret_existing_id = '\0';
	struct upload_bytes u = {data, len, in->before_store, in->before_store_arg, in->spool_dir};
	return store_run_create_upload(st, run, &u, ret_existing_id);
}

enum code intake_rerun(struct store *st, struct arena *a, const struct run *orig, bool dry_run,
		       int64_t keep_uploads_ms, int64_t staging_ttl_ms, const char *created_by, struct run *ret,
		       char ret_existing_id[ID_MAX])
{
	unsigned char *data = NULL;
	size_t len = 0;
	enum code rc = run_upload_expired(orig, keep_uploads_ms, now_ms())
		? CODE_NOT_FOUND : store_run_file(st, orig->id, &data, &len);
	if (rc)
		return rc == CODE_NOT_FOUND ? CODE_UPLOAD_EXPIRED : rc;
	char fingerprint[DIGEST_HEX];
	intake_fingerprint(data, len, fingerprint);
	const char *why;
	struct intake in = {.org_id = orig->org_id, .file_name = orig->file_name, .dry_run = dry_run,
			    .format = intake_sniff(a, data, len, &why), .fingerprint = fingerprint,
			    .staging_ttl_ms = staging_ttl_ms, .header_row = (unsigned)orig->opt_header_row,
			    .sheet = *orig->opt_sheet ? orig->opt_sheet : NULL, .created_by = created_by,
			    .commit_policy = *orig->commit_policy ? orig->commit_policy : NULL};
	rc = intake_create_run(st, a, &in, data, len, ret, ret_existing_id);
	free(data);
	return rc;
}
