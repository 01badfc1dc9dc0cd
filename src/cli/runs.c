/* `loadline runs`: the organization's recent import runs (PRODUCT §9,
 * §11).  On a terminal a header line names the columns, aligned; piped,
 * the same columns without the header, tab-separated, for cut and awk.
 * Counts get a column each (no bare "2/0/0/0"); NOTE marks dry runs, runs
 * awaiting review and runs whose results retention deleted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli.h"
#include "client.h"
#include "common.h"
#include "term.h"

enum { COLS = 9, CELL = 512 };

static const char *const header[COLS] = {"RUN", "STATE", "CREATED", "SUCCEEDED", "WARNINGS", "FAILED", "SKIPPED",
					 "NOTE", "FILE"};

static const char runs_usage[] =
	"loadline runs [--limit N] [--json] [--url URL] [--timeout DURATION]\n"
	"loadline runs view ID [--json]   (one run: see loadline runs view --help)\n"
	"  Lists the organization's most recent import runs (N: 1 to 100, default 20).\n"
	"  Columns: RUN STATE CREATED SUCCEEDED WARNINGS FAILED SKIPPED NOTE FILE; a header line\n"
	"  on a terminal, tab-separated without one when piped. NOTE says \"dry run\",\n"
	"  \"awaiting review\" and/or \"results deleted\" (retention). Token from $LOADLINE_TOKEN, URL from $LOADLINE_URL.\n";

/* One run's cells, each made safe to print (tabs included: they would
 * shift the columns). */
static void cells_of(json_t *run, char out[COLS][CELL])
{
	json_t *k = json_object_get(run, "counts");
	term_clean(jstr(run, "id"), out[0], CELL);
	term_clean(jstr(run, "state"), out[1], CELL);
	term_clean(jstr(run, "createdAt"), out[2], CELL);
	snprintf(out[3], CELL, "%d", jint(k, "succeeded"));
	snprintf(out[4], CELL, "%d", jint(k, "warnings"));
	snprintf(out[5], CELL, "%d", jint(k, "failed"));
	snprintf(out[6], CELL, "%d", jint(k, "skipped"));
	bool dry = json_is_true(json_object_get(run, "dryRun")), review = json_object_get(run, "nextAction");
	/* ISO timestamps of one format compare as text. */
	char now[TIME_ISO_MAX];
	time_iso(now_ms(), now);
	const char *gone = json_string_value(json_object_get(run, "resultsExpiresAt"));
	bool expired = gone && strcmp(gone, now) <= 0;
	snprintf(out[7], CELL, "%s%s%s%s%s", dry ? "dry run" : "", dry && review ? ", " : "",
		 review ? "awaiting review" : "", (dry || review) && expired ? ", " : "",
		 expired ? "results deleted" : "");
	term_clean(jstr(run, "fileName"), out[8], CELL);
}

static void print_row(const char *const *cells, const int *width, bool tty)
{
	for (int i = 0; i < COLS; i++) {
		if (!tty)
			printf("%s%s", cells[i], i + 1 < COLS ? "\t" : "\n");
		else if (i + 1 < COLS)
			printf("%-*s  ", width[i], cells[i]);
		else
			printf("%s\n", cells[i]);
	}
}

static void print_table(json_t *data, bool tty)
{
	size_t n = json_array_size(data);
	char (*cells)[COLS][CELL] = calloc(n ? n : 1, sizeof *cells);
	if (!cells)
		abort();
	int width[COLS];
	for (int i = 0; i < COLS; i++)
		width[i] = (int)strlen(header[i]);
	for (size_t r = 0; r < n; r++) {
		cells_of(json_array_get(data, r), cells[r]);
		for (int i = 0; i < COLS; i++)
			if ((int)strlen(cells[r][i]) > width[i])
				width[i] = (int)strlen(cells[r][i]);
	}
	if (tty)
		print_row(header, width, true);
	for (size_t r = 0; r < n; r++) {
		const char *row[COLS];
		for (int i = 0; i < COLS; i++)
			row[i] = cells[r][i];
		print_row(row, width, tty);
	}
	free(cells);
}

int cli_runs(struct app *app, int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "view"))
		return cli_run_view(app, argc - 1, argv + 1);
	if (client_wants_help(argc, argv)) {
		fputs(runs_usage, stdout);
		return EXIT_OK;
	}
	static const char *const allowed[] = {"--url", "--token", "--limit", "--timeout", NULL};
	static const char *const bools[] = {"--json", NULL};
	if (opts_check(argc, argv, allowed, bools, runs_usage))
		return EXIT_ERROR;
	if (client_arg(argc, argv, allowed, 0)) {
		fprintf(stderr, "usage: %s", runs_usage);
		return EXIT_ERROR;
	}
	struct client c = {0};
	if (client_init(&c, "runs", argc, argv))
		return EXIT_ERROR;
	if (!c.token || !*c.token) {
		fputs("loadline runs: no API token: set LOADLINE_TOKEN\n", stderr);
		return EXIT_ERROR;
	}
	const char *lim = opt(argc, argv, "--limit");
	int n = lim ? client_atoi(lim) : 20;
	if (n < 1 || n > 100) {
		fputs("loadline runs: --limit must be 1 to 100\n", stderr);
		return EXIT_ERROR;
	}
	char path[128];
	snprintf(path, sizeof path, "/api/v1/imports/runs?limit=%d", n);
	json_t *list = client_get_json(&c, path);
	if (!list)
		return EXIT_ERROR;
	if (c.json)
		client_print_json(json_object_get(list, "data"));
	else
		print_table(json_object_get(list, "data"), isatty(STDOUT_FILENO));
	json_decref(list);
	return EXIT_OK;
}
