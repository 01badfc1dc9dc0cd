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
	int rows;              /* data rows; -1 when the file did not parse */
	const char *columns;   /* the header texts, comma-separated (for the mail) */
};

/* Reads the uploaded file (bounded by the reader's limits) to learn its
 * shape and row count.  Staged unless the shape is confirmed for the org or
 * is the published template.  A file that does not parse is not staged: its
 * run fails with the parse code.  Returns CODE_OK or a storage error. */
enum code staging_decide(struct store *st, struct arena *a, const char *org_id, const void *data, size_t len,
			 int max_rows, struct staging *ret);
/* Fills the approval email of a staged run; the review link is under
 * app_url. */
void staging_mail(struct arena *a, const struct run *run, const struct staging *s, const char *recipients,
		  const char *app_url, struct outbox_mail *ret);

#endif
