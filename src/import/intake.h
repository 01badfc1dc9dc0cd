/* Intake: a file becomes a QUEUED run, the one way every import starts — a
 * push to POST /api/v1/imports/jobs, a re-run of a stored upload (POST
 * /api/v1/imports/runs/{id}/rerun, "Import this file again") and the web
 * app's "Import a file" form — so that the same bytes get the same
 * fingerprint, the same 409 while a twin is active, the same staging for
 * review and the same codes whichever door they came in by. */
#ifndef LOADLINE_IMPORT_INTAKE_H
#define LOADLINE_IMPORT_INTAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/digest.h"
#include "sheet/sheet.h"
#include "store/runs.h"

/* The fingerprint of an upload of kind "jobs": SHA-256 of "jobs\n" and the
 * bytes.  intake_fingerprint_begin starts the digest a streamed upload
 * feeds; intake_fingerprint does it for bytes already in memory. */
void intake_fingerprint_begin(struct digest *d);
void intake_fingerprint(const void *data, size_t len, char out[DIGEST_HEX]);

struct intake {
	const char *org_id;
	const char *file_name;     /* NULL: "upload" */
	bool dry_run;
	enum sheet_format format;  /* SHEET_CSV or SHEET_XLSX (sniffed by the caller) */
	const char *fingerprint;   /* hex, from intake_fingerprint(_begin) */
	int64_t staging_ttl_ms;    /* LOADLINE_STAGING_TTL */
	unsigned header_row;       /* ?headerRow: the header's row number, 0 = detect */
	const char *sheet;         /* ?sheet: the worksheet's name, NULL = choose */
	const char *correction_of; /* the run whose failed rows these correct, or NULL */
	/* Called (when set) after the staging decision, before the insert,
	 * which may wait for the database's write lock: a streamed upload
	 * lets go of its pages there. */
	void (*before_store)(void *arg);
	void *before_store_arg;
	/* Where a big upload read from a spool may be deflated before it is
	 * stored (NULL: stored as it is). */
	const char *spool_dir;
	/* Who asks (PRODUCT §15 createdBy): intake_who_token/_user's JSON. */
	const char *created_by;
	/* ?commit: "all" or "partial"; NULL: the organization's default
	 * (Settings → Imports), else "partial". */
	const char *commit_policy;
};

/* The createdBy of a run, as JSON text in a: a token (its key id and
 * name) or a user of the web app (id and email). */
const char *intake_who_token(struct arena *a, const char *key_id, const char *name);
const char *intake_who_user(struct arena *a, const char *user_id, const char *email);

/* Sniffs the bytes: SHEET_CSV or SHEET_XLSX, or SHEET_UNKNOWN with *ret_why
 * (UNSUPPORTED_MIME's detail, capitalized, ending with a period, in a). */
enum sheet_format intake_sniff(struct arena *a, const void *data, size_t len, const char **ret_why);

/* Creates the QUEUED run of the bytes (staged for review when a live run's
 * column shape is not mapped) and stores the file with it, in *ret.
 * CODE_IMPORT_IN_PROGRESS with ret_existing_id when a run of the same
 * bytes is QUEUED or RUNNING; else CODE_OK or a storage error.  The caller
 * wakes the workers (app->run_queued) after CODE_OK. */
enum code intake_create_run(struct store *st, struct arena *a, const struct intake *in, const void *data, size_t len,
			    struct run *ret, char ret_existing_id[ID_MAX]);

/* "Import this file again": a new run of orig's stored upload, as pushing
 * those bytes again would make it, with orig's file name.
 * CODE_UPLOAD_EXPIRED when retention took the file (at now, with
 * keep_uploads_ms; see run_upload_expired); otherwise as
 * intake_create_run.  The new run keeps orig's commit policy; created_by
 * is who asks for it. */
enum code intake_rerun(struct store *st, struct arena *a, const struct run *orig, bool dry_run,
		       int64_t keep_uploads_ms, int64_t staging_ttl_ms, const char *created_by, struct run *ret,
		       char ret_existing_id[ID_MAX]);

#endif
