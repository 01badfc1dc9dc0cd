/* Option parsing and store opening for the subcommands. */
#include "common.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "geo/geocoder.h"

const char *opt(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], name) && i + 1 < argc)
			return argv[i + 1];
		if (!strncmp(argv[i], name, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	}
	return NULL;
}

int flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

static int listed(const char *const *list, const char *a, size_t n)
{
	for (const char *const *p = list; p && *p; p++)
		if (strlen(*p) == n && !strncmp(*p, a, n))
			return 1;
	return 0;
}

int opts_check(int argc, char **argv, const char *const *allowed, const char *const *bools,
	       const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--", 2))
			continue;
		const char *a = argv[i];
		size_t n = strcspn(a, "=");
		if (listed(bools, a, n) && !a[n])
			continue;
		if (!listed(allowed, a, n)) {
			fprintf(stderr, "loadline: unknown option %.*s\nusage: %s\n", (int)n, a, usage);
			return -1;
		}
		if (!a[n]) {
			if (i + 1 >= argc) {
				fprintf(stderr, "loadline: option %s needs a value\nusage: %s\n", a, usage);
				return -1;
			}
			i++;
		}
	}
	return 0;
}

int cli_geocoder(struct app *app)
{
	char err[PATH_MAX + 200];
	app->geo = geo_open_default(app->cfg.gazetteer, err, sizeof err);
	if (!app->geo)
		fprintf(stderr, "loadline: %s (set LOADLINE_GAZETTEER to the file's path)\n", err);
	return app->geo ? 0 : -1;
}

struct store *cli_store(struct app *app, int pool)
{
	struct store *st = NULL;
	char err[512];
	if (store_open(app->cfg.db, pool, &st, err, sizeof err)) {
		fprintf(stderr, "loadline: %s\n", err);
		return NULL;
	}
	store_use_notify(st, app->notify);
	if (store_migrate(st, err, sizeof err)) {
		fprintf(stderr, "loadline: %s\n", err);
		store_close(st);
		return NULL;
	}
	app->store = st;
	return st;
}
