/* Retention (PRODUCT §13): deleting a finished run's stored upload and its
 * per-row results once they are older than the operator keeps them.  The
 * run row and its counts stay; the run says when each was deleted. */
#ifndef LOADLINE_STORE_RETENTION_H
#define LOADLINE_STORE_RETENTION_H

#include <stdint.h>

#include "base/ids.h"
#include "store/store.h"

enum retained { RETAINED_UPLOAD, RETAINED_RESULTS };

/* Up to n finished runs (terminal state) that finished before cutoff and
 * still hold what (oldest first). */
enum code store_retention_due(struct store *st, enum retained what, int64_t cutoff, char (*ret_ids)[ID_MAX], int n,
			      int *ret_n);

/* Deletes at most chunk of run_id's result rows in one short transaction;
 * when none are left, marks the run's results deleted at now.  *ret_done
 * says whether the run is finished with. */
enum code store_retention_delete_results(struct store *st, const char *run_id, int chunk, int64_t now,
					 bool *ret_done);

/* Deletes run_id's stored upload and marks it deleted at now, in one
 * transaction. */
enum code store_retention_delete_upload(struct store *st, const char *run_id, int64_t now);

/* Gives freed pages back to the file system where the backend needs to be
 * asked (SQLite's incremental vacuum, at most pages pages); PostgreSQL's
 * autovacuum does it on its own.  Returns the pages the database file
 * shrank by, or 0. */
int64_t store_reclaim(struct store *st, int pages);
/* After deleting for retention: SQLite checkpoints the write-ahead log into
 * the database and truncates it (PRAGMA wal_checkpoint(TRUNCATE)), so that
 * the deleted rows' text (zeroed in the database by secure_delete) is not
 * left in the log's older frames; nothing on PostgreSQL.  Best effort: a
 * reader keeping the log busy leaves it to the next sweep. */
void store_retention_checkpoint(struct store *st);
/* Webhook bookkeeping kept like results: attempts logged before cutoff,
 * deliveries (delivered or failed) made before it, and events left without
 * a delivery.  Returns the rows deleted (0 on failure). */
int store_retention_webhooks(struct store *st, int64_t cutoff);

#endif
