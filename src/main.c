/* loadline: subcommand dispatch only. */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "notify/notify.h"
#include "base/ids.h"
#include "cli/cli.h"

/* settings: the command opens a database, so it reads the packaged
 * settings file as the units do (config_read_env_file). */
static const struct {
	const char *name;
	int (*run)(struct app *app, int argc, char **argv);
	bool settings;
	const char *help;
} commands[] = {
	{"serve", cli_serve, true, "serve [--listen HOST:PORT] [--workers N]   API, web app and import workers"},
	{"worker", cli_worker, true, "worker [--workers N]                      import workers only"},
	{"migrate", cli_migrate, true, "migrate                                   apply schema migrations"},
	{"admin", cli_admin, true, "admin COMMAND ...                         operator commands (admin help)"},
	{"inspect", cli_inspect, false, "inspect FILE                              print what the readers see, as JSON"},
	{"push", cli_push, false, "push FILE [--dry-run] [--strict] [--results DIR] [--json]   import a file through the API"},
	{"runs", cli_runs, false, "runs [--limit N] [--json] | runs view ID   list recent import runs, or look at one"},
	{"results", cli_results, false, "results ID [--bucket B] [--json]          a run's per-row results"},
	{"failed-rows", cli_failed_rows, false, "failed-rows ID [-o FILE]                  download the failed rows to fix"},
	{"rerun", cli_rerun, false, "rerun ID                                  import a run's stored file again"},
	{"revert", cli_revert, false, "revert ID [--dry-run]                     undo a run (a revert run)"},
	{"cancel", cli_cancel, false, "cancel ID                                 stop a QUEUED or RUNNING run"},
	{"whoami", cli_whoami, false, "whoami                                    check the token: organization and key"},
	{"webhooks", cli_webhooks, false, "webhooks list|add|delete ...              manage webhook endpoints"},
	{"docs", cli_docs, false, "docs write|check                          generate docs/ from the code table"},
};

static void usage(FILE *f)
{
	fputs("usage: loadline [--db URL] COMMAND ...\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].help);
	fputs("  --version                                 print the version\n", f);
	fputs("\nAll commands take --db URL (default sqlite:./data/loadline.db, or $LOADLINE_DB).\n"
	      "serve, worker, migrate and admin read " CONFIG_ENV_FILE " when it exists and\n"
	      "LOADLINE_DB is not set (LOADLINE_ENV_FILE names another file; empty: none).\n", f);
}

/* Removes "--db URL" / "--db=URL" from anywhere in argv into db[cap]. */
static int take_db_option(char *db, size_t cap, int *argc, char **argv)
{
	int out = 1;
	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--db")) {
			if (i + 1 >= *argc) {
				fputs("loadline: --db needs a URL (sqlite:PATH or postgres://...)\n", stderr);
				return -1;
			}
			v = argv[++i];
		} else if (!strncmp(argv[i], "--db=", 5)) {
			v = argv[i] + 5;
		}
		if (v) {
			if (strlen(v) >= cap) {
				fputs("loadline: --db URL is too long\n", stderr);
				return -1;
			}
			snprintf(db, cap, "%s", v);
			continue;
		}
		argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	static struct app app;   /* static: a large object, not on the stack */
	/* Uploads make buffers of megabytes (SQLite builds a 5 MB file's
	 * record in one).  glibc would raise its mmap threshold after the first
	 * such buffer is freed and serve the next ones from per-thread heaps
	 * that stay resident; a fixed threshold keeps them mapped and returned
	 * at free (32 concurrent 5 MB uploads: peak 105 MB without, see
	 * docs/benchmarks.md). */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	char db[sizeof app.cfg.db] = "";
	if (take_db_option(db, sizeof db, &argc, argv))
		return 2;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("loadline %s\n", LOADLINE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if ((commands[i].settings && config_read_env_file(*db != '\0')) || config_load(&app.cfg) || ids_init())
			return 2;
		if (*db)
			memcpy(app.cfg.db, db, sizeof db);
		/* The notification hub before any thread (issue 27): the store
		 * gets it as it opens, the servers and senders from the app. */
		app.notify = notify_new(app.cfg.max_waiters, app.cfg.max_waiters_per_org);
		int ret = commands[i].run(&app, argc - 1, argv + 1);
		notify_free(app.notify);
		return ret;
	}
	fprintf(stderr, "loadline: unknown command \"%s\"\n\n", argv[1]);
	usage(stderr);
	return 2;
}
