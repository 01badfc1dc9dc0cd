/* An upload's envelope: one multipart/form-data body streamed into a spool
 * file capped at the file limit (never whole in memory), fingerprinted as
 * it arrives, with the small form fields beside the file kept when asked
 * (the web form's token and checkbox); then checked and made into a run
 * under the process's upload slots.  The API's upload and the web app's
 * "Import a file" are the same envelope (issue 27 item 7). */
#ifndef LOADLINE_IMPORT_ENVELOPE_H
#define LOADLINE_IMPORT_ENVELOPE_H

#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/codes.h"
#include "base/digest.h"
#include "base/spool.h"
#include "sheet/sheet.h"

struct arena;
struct http_request;
struct intake;
struct multipart;
struct notify;
struct run;
struct store;

#define ENVELOPE_FIELD_MAX 256     /* a form field beside the file: a token, a checkbox */
#define ENVELOPE_FIELDS_MAX 8

/* Uploads being read and stored at once, at most one per core: reading an
 * upload's header and storing it take CPU and a few MB each, and more at
 * once than there are cores only adds memory (32 uploads finishing together
 * on 8 HTTP threads peaked near 100 MB; one per core, near 55 MB).  Owned by
 * the application object; the API and the web app share it. */
struct upload_slots {
	sem_t sem;
	struct notify *notify;   /* wakes the uploads held for a slot; NULL: none held */
};
/* The topic an upload waiting for a slot is held on (http_hold). */
#define UPLOAD_SLOTS_TOPIC "upload-slots"
/* How long a held upload waits before it looks again anyway (ms). */
#define UPLOAD_SLOT_RECHECK_MS 1000
void upload_slots_init(struct upload_slots *s, struct notify *n);
void upload_slots_destroy(struct upload_slots *s);

struct envelope_field {
	const char *name, *value;
};

struct envelope {
	struct arena *a;
	struct multipart *mp;
	struct spool file;
	const char *spool_dir;    /* where file is (a big upload is deflated there too) */
	struct digest hash;       /* the fingerprint: the kind, then the file */
	int file_parts;           /* parts named `file` */
	bool in_file;             /* the current part is the (first) file part */
	bool too_large;           /* the file passed the limit */
	bool keep_fields;
	bool field_too_large;     /* a kept field passed ENVELOPE_FIELD_MAX */
	bool ended;               /* envelope_end was called */
	bool checked;             /* envelope_check answered (check_rc, check_fmt, check_msg) */
	enum code check_rc;
	enum sheet_format check_fmt;
	const char *check_msg;
	bool slot;                /* holds one of the upload slots */
	bool held;                /* was held waiting for one */
	int status;               /* enum multipart_status so far */
	char *file_name;          /* the file part's filename, or NULL */
	struct envelope_field fields[ENVELOPE_FIELDS_MAX];
	int nfields;
	bool in_field;
	char value[ENVELOPE_FIELD_MAX + 1];
	size_t value_len;
};

/* Opens e in a (cleaned up with it): the spool file and the parser of
 * content_type.  CODE_SERVICE_UNAVAILABLE when no spool file can be made
 * (logged), CODE_MALFORMED_MULTIPART when the boundary is missing or
 * invalid.  keep_fields: keep the other parts as small text fields. */
enum code envelope_open(struct envelope *e, struct arena *a, const char *content_type, const char *spool_dir,
			size_t max_file_bytes, bool keep_fields);
/* A chunk of the body; false once it cannot be accepted any more (the
 * reason comes from envelope_check). */
bool envelope_feed(struct envelope *e, const char *data, size_t size);
/* The body is complete: closes the parser and the last field. */
void envelope_end(struct envelope *e);
/* Whether the upload can be imported: CODE_OK with the file mapped and
 * *ret_fmt sniffed, or the first reason it cannot (*ret_msg says what to
 * do; NULL for MISSING_FILE, whose code says it): TOO_LARGE,
 * SERVICE_UNAVAILABLE (the spool failed: logged; e->file.error is ENOSPC
 * when the disk is full), MALFORMED_MULTIPART, MISSING_FILE,
 * UNSUPPORTED_MIME.  Asked again (a request held for a slot and
 * resumed), the same answer. */
enum code envelope_check(struct envelope *e, size_t max_file_bytes, enum sheet_format *ret_fmt,
			 const char **ret_msg);
/* One of the upload slots for e: true once it holds one (made into a run
 * next: envelope_create_run gives it back).  When none is free, req is
 * held (http_hold on UPLOAD_SLOTS_TOPIC) without its HTTP thread until
 * one frees or UPLOAD_SLOT_RECHECK_MS pass, and false says so: return
 * without answering, the handler runs again.  A request that cannot be
 * held (the table full, the server stopping) waits here, on its thread.
 * An upload waiting on an HTTP thread stalled every other request of
 * that thread, /healthz too. */
bool envelope_take_slot(struct envelope *e, struct upload_slots *slots, struct http_request *req);
/* Makes the run of a checked upload (in's file name, format and
 * fingerprint filled from e) under slots (taking one, waiting on this
 * thread, unless envelope_take_slot did), and gives the slot back; the
 * upload's pages are let go before the insert, which may wait for the
 * write lock.  As intake_create_run.  slots NULL: no bound (tools,
 * fuzzing). */
enum code envelope_create_run(struct envelope *e, struct store *st, struct upload_slots *slots, struct intake *in,
			      enum sheet_format fmt, struct run *ret_run, char *ret_existing);

#endif
