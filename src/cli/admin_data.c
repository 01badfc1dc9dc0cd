/* `loadline admin copy-db` and `loadline admin backup` (PRODUCT §17):
 * moving a SQLite installation to PostgreSQL, and a consistent backup of
 * a serving SQLite database.  docs/operations.md has the procedures
 * (stop the service for copy-db; restore from a backup step by step). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "store/copydb.h"

static void print_table(const struct copy_table *t, void *ctx)
{
	(void)ctx;
	printf("%-24s %10lld rows  checksum %s  verified\n", t->name, (long long)t->rows, t->checksum);
}

int cli_admin_copy_db(struct app *app, int argc, char **argv)
{
	static const char usage[] = "copy-db --to postgres://...";
	static const char *const ok[] = {"--to", NULL};
	const char *to = opt(argc, argv, "--to");
	if (opts_check(argc, argv, ok, NULL, usage) || !to) {
		if (!to)
			fprintf(stderr, "usage: loadline [--db sqlite:PATH] admin %s\n", usage);
		return 2;
	}
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	char err[1024] = "";
	fprintf(stderr, "copying %s into the PostgreSQL database of --to (stop the service first: writes made during the copy are not "
		"copied)\n", app->cfg.db);
	enum code rc = store_copy_db(st, to, print_table, NULL, err, sizeof err);
	store_close(st);
	if (rc) {
		fprintf(stderr, "loadline: copy-db: %s\n", err);
		return 1;
	}
	fprintf(stderr, "copy-db: every table copied and verified (row counts and checksums); point LOADLINE_DB at "
		"the PostgreSQL database and start the service\n");
	return 0;
}

int cli_admin_backup(struct app *app, int argc, char **argv)
{
	static const char usage[] = "backup FILE";
	if (opts_check(argc, argv, (const char *const[]){NULL}, NULL, usage) || argc != 2) {
		fprintf(stderr, "usage: loadline [--db sqlite:PATH] admin %s\n", usage);
		return 2;
	}
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	char err[1024] = "";
	int64_t bytes = 0;
	enum code rc = store_backup(st, argv[1], &bytes, err, sizeof err);
	store_close(st);
	if (rc) {
		fprintf(stderr, "loadline: backup: %s\n", err);
		return 1;
	}
	printf("%s\n", argv[1]);
	fprintf(stderr, "backup: %lld bytes, integrity_check ok\n", (long long)bytes);
	return 0;
}
