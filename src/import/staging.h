/* Staging for review (SPEC "States and transitions", PRODUCT §6): a live
 * upload whose column shape the organization has not mapped waits QUEUED
 * with nextAction until an admin confirms a mapping, and its approvers get
 * one email. */
#ifndef LOADLINE_IMPORT_STAGING_H
#define LOADLINE_IMPORT_STAGING_H

#include <stdbool.h>

#include "store/outbox.h"
#include "store/runs.h"

struct staging {
	bool staged;
	char shape_key[65];
	int rows;              /* data rows; -1 until the file was read whole */
	const char *columns;   /* the header texts, comma-separated (for the mail) */
};

/* The decision is made in two steps, so that no HTTP thread reads a whole
 * file (docs/design.md "Uploads"):
 *
 * staging_decide, at upload: reads only the header row to learn the shape.
 * Staged unless the shape is confirmed for the org or is the published
 * template; a file whose header row cannot be read is not staged (its run
 * fails with the parse code).  Returns CODE_OK or a storage error. */
/* The run gives the org and its ?headerRow / ?sheet.  drop(drop_arg), when
 * set, lets go of the pages of data read so far (a spool's mapping: the
 * CSV reader's whole-file checks call it; sheet.h). */
enum code staging_decide(struct store *st, struct arena *a, const struct run *run, const void *data, size_t len,
			 void (*drop)(void *), void *drop_arg, struct staging *ret);

struct staging_opts {
	int max_rows;               /* LOADLINE_MAX_ROWS */
	const char *app_url;        /* the review link is under it */
	void (*mail_queued)(void *);/* wakes the mailer; may be NULL */
	void *mail_arg;
	bool no_smtp;               /* no LOADLINE_SMTP_URL: queued mail is not sent (the link is logged) */
};

/* staging_triage, in a worker, for a run claimed by store_run_triage_claim:
 * reads the whole file.  A file that parses within the row limit stays
 * staged, with its row count, and its approvers' mail is queued; any other
 * is unstaged, so that a worker fails it with the file's code instead of
 * asking an admin to review a file that cannot import.  Returns CODE_OK
 * when settled, else a transient code (the triage lease lapses and another
 * worker tries again). */
enum code staging_triage(struct store *st, const struct staging_opts *o, const struct run *run, const char *owner);

/* Fills the approval email of a staged run; the review link is under
 * app_url. */
void staging_mail(struct arena *a, const struct run *run, const struct staging *s, const char *recipients,
		  const char *app_url, struct outbox_mail *ret);

#endif
