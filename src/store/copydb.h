/* Moving and keeping an installation's data (PRODUCT §17): a SQLite
 * installation copied into an empty PostgreSQL database, verified table by
 * table, and a consistent online backup of a serving SQLite database.
 * docs/operations.md has the procedures around them. */
#ifndef LOADLINE_STORE_COPYDB_H
#define LOADLINE_STORE_COPYDB_H

#include <stddef.h>
#include <stdint.h>

#include "base/codes.h"

struct store;

/* What was copied and checked of one table: its rows and a checksum of
 * their contents that does not depend on row order (the sum, mod 2^128,
 * of each row's SHA-256 prefix), equal on both sides. */
struct copy_table {
	const char *name;
	int64_t rows;
	char checksum[33];
};

/* Called once per table after it is verified. */
typedef void copy_report_fn(const struct copy_table *t, void *ctx);

/* Copies every table of src (a SQLite store, migrated) into the database
 * at to_url (PostgreSQL), which must hold no table at all: it is migrated
 * to the same schema first, then filled in one transaction from one read
 * snapshot of src, then every table is read back and compared (row count
 * and checksum).  Returns CODE_OK, or an error with a sentence in err
 * (the target is left as the failed transaction left it: empty tables). */
enum code store_copy_db(struct store *src, const char *to_url, copy_report_fn *report, void *ctx, char *err,
			size_t errlen);

/* Writes a consistent copy of a SQLite store to path (which must not
 * exist) while it serves (VACUUM INTO: one read snapshot, no writer
 * blocked), then opens the copy and checks it (integrity_check and its
 * migrations).  *ret_bytes gets its size.  CODE_OK or an error with a
 * sentence in err. */
enum code store_backup(struct store *st, const char *path, int64_t *ret_bytes, char *err, size_t errlen);

#endif
