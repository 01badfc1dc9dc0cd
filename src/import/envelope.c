/* An upload's envelope (envelope.h). */
#include "envelope.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/log.h"
#include "http/http.h"
#include "http/multipart.h"
#include "intake.h"
#include "metrics/metrics.h"
#include "notify/notify.h"

void upload_slots_init(struct upload_slots *s, struct notify *n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	sem_init(&s->sem, 0, (unsigned)(cores < 1 ? 1 : cores > 16 ? 16 : cores));
	s->notify = n;
}

static void slot_wait(struct upload_slots *s)
{
	while (sem_wait(&s->sem) && errno == EINTR)
		;
}

/* A slot given back wakes the uploads held for one (this process's: the
 * slots are). */
static void slot_give(struct upload_slots *s)
{
	sem_post(&s->sem);
	notify_wake_here(s->notify, UPLOAD_SLOTS_TOPIC);
}

bool envelope_take_slot(struct envelope *e, struct upload_slots *slots, struct http_request *req)
{
	if (!slots || e->slot)
		return true;
	if (!sem_trywait(&slots->sem))
		return e->slot = true;
	/* Register, then look again (as a long poll does): a slot given back
	 * in between wakes the hold, which then does not park. */
	bool held = http_hold(req, UPLOAD_SLOTS_TOPIC, now_ms() + UPLOAD_SLOT_RECHECK_MS);
	if (held && sem_trywait(&slots->sem)) {
		if (!e->held)
			metrics_upload_held();
		e->held = true;
		return false;   /* held: the handler runs again */
	}
	if (!held) {
		log_msg("warn", "an upload waits for an upload slot on its HTTP thread: no more requests can be held "
			"(LOADLINE_MAX_WAITERS)");
		slot_wait(slots);
	}
	return e->slot = true;   /* a hold that found a slot after all is dropped as the request answers */
}

void upload_slots_destroy(struct upload_slots *s)
{
	sem_destroy(&s->sem);
}

static void envelope_cleanup(void *p)
{
	struct envelope *e = p;
	multipart_free(e->mp);
	spool_close(&e->file);
}

/* The field being read ends where the next part begins. */
static void end_field(struct envelope *e)
{
	if (e->in_field && e->nfields < ENVELOPE_FIELDS_MAX) {
		e->value[e->value_len] = '\0';
		e->fields[e->nfields++].value = arena_strdup(e->a, e->value);
	}
	e->in_field = false;
	e->value_len = 0;
}

/* Parts other than `file` are fields when kept, else ignored; a second
 * `file` part is refused at the end (MALFORMED_MULTIPART). */
static bool on_part(void *cls, const char *name, const char *filename)
{
	struct envelope *e = cls;
	end_field(e);
	e->in_file = name && !strcmp(name, "file") && ++e->file_parts == 1;
	if (e->in_file && filename)
		e->file_name = arena_strndup(e->a, filename, strnlen(filename, RUN_FILE_NAME_MAX));
	if (e->keep_fields && !e->in_file && name && strcmp(name, "file") && e->nfields < ENVELOPE_FIELDS_MAX) {
		e->in_field = true;
		e->fields[e->nfields].name = arena_strdup(e->a, name);
	}
	return true;
}

static bool on_data(void *cls, const char *data, size_t size)
{
	struct envelope *e = cls;
	if (e->in_field) {
		if (e->value_len + size > ENVELOPE_FIELD_MAX) {
			e->field_too_large = true;
			return false;
		}
		memcpy(e->value + e->value_len, data, size);
		e->value_len += size;
		return true;
	}
	if (!e->in_file)
		return true;
	int w = spool_write(&e->file, data, size);
	if (w) {
		e->too_large = w > 0;
		return false;
	}
	digest_update(&e->hash, data, size);
	return true;
}

enum code envelope_open(struct envelope *e, struct arena *a, const char *content_type, const char *spool_dir,
			size_t max_file_bytes, bool keep_fields)
{
	memset(e, 0, sizeof(*e));
	e->a = a;
	e->keep_fields = keep_fields;
	e->file.fd = -1;
	e->spool_dir = arena_strdup(a, spool_dir);
	if (spool_open(&e->file, spool_dir, max_file_bytes)) {
		log_json("error", "cannot open a spool file", json_pack("{s:s,s:s}", "dir", spool_dir, "cause",
			 strerror(errno)));
		return CODE_SERVICE_UNAVAILABLE;
	}
	intake_fingerprint_begin(&e->hash);
	arena_cleanup(a, envelope_cleanup, e);
	struct multipart_sink sink = {.part_begin = on_part, .part_data = on_data, .ctx = e};
	e->mp = multipart_new(content_type, &sink);
	return e->mp ? CODE_OK : CODE_MALFORMED_MULTIPART;
}

bool envelope_feed(struct envelope *e, const char *data, size_t size)
{
	if (e->status == MULTIPART_OK)
		e->status = multipart_feed(e->mp, data, size);
	return e->status == MULTIPART_OK;
}

void envelope_end(struct envelope *e)
{
	if (e->ended)
		return;
	if (e->status == MULTIPART_OK)
		e->status = multipart_finish(e->mp);
	end_field(e);
	e->ended = true;
}

/* A write to the spool failed: the disk is full (most likely) or broken. */
static enum code spool_failed(struct envelope *e, const char **ret_msg)
{
	log_json("error", "cannot write an upload to the spool", json_pack("{s:s,s:b}", "cause",
		 strerror(e->file.error), "diskFull", e->file.error == ENOSPC));
	*ret_msg = e->file.error == ENOSPC ? "The service is out of disk space for uploads; retry later (nothing "
		   "was stored)." : "The service cannot store the upload right now; retry later (nothing was stored).";
	return CODE_SERVICE_UNAVAILABLE;
}

/* The framing: one file part, nothing broken. */
static enum code check_parts(struct envelope *e, const char **ret_msg)
{
	if (e->status == MULTIPART_OK && !multipart_parts(e->mp)) {
		*ret_msg = "No part was found between the boundaries the Content-Type announces.";
		return CODE_MALFORMED_MULTIPART;
	}
	if (e->file_parts > 1) {
		*ret_msg = "Send exactly one part named `file`.";
		return CODE_MALFORMED_MULTIPART;
	}
	if (e->status != MULTIPART_OK) {
		*ret_msg = e->field_too_large ? "A form field beside the file is too long." : multipart_error(e->mp);
		return CODE_MALFORMED_MULTIPART;
	}
	if (e->file_parts == 0) {
		*ret_msg = NULL;   /* the code's own detail */
		return CODE_MISSING_FILE;
	}
	return CODE_OK;
}

static enum code check_once(struct envelope *e, size_t max_file_bytes, enum sheet_format *ret_fmt,
			    const char **ret_msg)
{
	envelope_end(e);
	if (e->too_large) {
		*ret_msg = arena_printf(e->a, "The file is larger than %zu bytes; split it into smaller files.",
					max_file_bytes);
		return CODE_TOO_LARGE;
	}
	if (e->file.error)
		return spool_failed(e, ret_msg);
	enum code rc = check_parts(e, ret_msg);
	if (rc)
		return rc;
	/* Judged by the bytes, not the part's Content-Type: browsers label CSV
	 * four different ways.  A zero-byte file is accepted and fails
	 * EMPTY_FILE. */
	if (spool_map(&e->file)) {
		e->file.error = errno;
		return spool_failed(e, ret_msg);
	}
	*ret_fmt = intake_sniff(e->a, e->file.map, e->file.len, ret_msg);
	return *ret_fmt == SHEET_UNKNOWN ? CODE_UNSUPPORTED_MIME : CODE_OK;
}

enum code envelope_check(struct envelope *e, size_t max_file_bytes, enum sheet_format *ret_fmt,
			 const char **ret_msg)
{
	if (!e->checked) {
		e->check_fmt = SHEET_UNKNOWN;
		e->check_msg = NULL;
		e->check_rc = check_once(e, max_file_bytes, &e->check_fmt, &e->check_msg);
		e->checked = true;
	}
	*ret_fmt = e->check_fmt;
	*ret_msg = e->check_msg;
	return e->check_rc;
}

enum code envelope_create_run(struct envelope *e, struct store *st, struct upload_slots *slots, struct intake *in,
			      enum sheet_format fmt, struct run *ret_run, char *ret_existing)
{
	char fingerprint[DIGEST_HEX];
	digest_final_hex(&e->hash, fingerprint);
	in->file_name = e->file_name;
	in->format = fmt;
	in->fingerprint = fingerprint;
	in->before_store = spool_forget_hook;
	in->before_store_arg = &e->file;
	in->spool_dir = e->spool_dir;
	if (slots && !e->slot)
		slot_wait(slots);
	enum code rc = intake_create_run(st, e->a, in, e->file.map ? e->file.map : "", e->file.len, ret_run,
					 ret_existing);
	if (slots)
		slot_give(slots);
	e->slot = false;
	return rc;
}
