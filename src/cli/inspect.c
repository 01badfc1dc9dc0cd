/* loadline inspect FILE: prints, as JSON, what the readers see in a file:
 * format, encoding, delimiter, header row and data rows, or the parse-level
 * error.  Exit 0 when read, 1 on a parse error, 2 on a usage error. */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/arena.h"
#include "cli.h"
#include "import/readfile.h"
#include "sheet/sheet.h"

#define DEFAULT_MAX_FILE_BYTES 5242880u

static int usage(void)
{
	fputs("usage: loadline inspect [--max-rows N] FILE\n", stderr);
	return 2;
}

/* A whole decimal number in 1..max, or 0 when it is not one. */
static size_t parse_count(const char *s, size_t max)
{
	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return 0;
	return (size_t)v;
}

/* Reads at most max bytes; *ret_over when the file is larger.  NULL on an
 * I/O error (errno set). */
static char *read_file(const char *path, size_t max, size_t *ret_len, int *ret_over)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *data = malloc(max + 1);
	if (!data) {
		fclose(f);
		return NULL;
	}
	errno = 0;
	size_t n = fread(data, 1, max + 1, f);
	int err = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (err) {
		free(data);
		errno = err;
		return NULL;
	}
	*ret_over = n > max;
	*ret_len = n > max ? max : n;
	return data;
}

static json_t *cells_json(const struct sheet_row *row)
{
	json_t *a = json_array();
	for (size_t i = 0; i < row->ncells; i++)
		json_array_append_new(a, json_stringn(row->cells[i], row->lens[i]));
	return a;
}

static void put_info(json_t *out, const struct sheet_info *info)
{
	static const char *const names[] = {[SHEET_CSV] = "csv", [SHEET_XLSX] = "xlsx"};
	if (info->format == SHEET_UNKNOWN)
		return;
	json_object_set_new(out, "format", json_string(names[info->format]));
	json_object_set_new(out, "encoding", info->encoding ? json_string(info->encoding) : json_null());
	char d[2] = {info->delimiter, 0};
	json_object_set_new(out, "delimiter", info->delimiter ? json_string(d) : json_null());
}

static void put_error(json_t *out, enum code rc, const char *message)
{
	json_object_set_new(out, "error", json_pack("{s:s, s:s}", "code", code_name(rc),
						    "message", message ? message : ""));
}

/* What the reader decided besides the rows: the worksheet read and the
 * others (a workbook of several), and the summary rows it left out (when
 * there are any): a plain file's output stays as it was. */
static void put_frame(json_t *out, const struct sheet *s)
{
	const char *const *names;
	size_t n = sheet_names(s, &names);
	if (sheet_name(s) && n > 1) {
		json_object_set_new(out, "sheet", json_string(sheet_name(s)));
		json_t *arr = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, json_string(names[i]));
		json_object_set_new(out, "sheets", arr);
	}
	const unsigned *rows;
	size_t k = sheet_summary_rows(s, &rows);
	if (k) {
		json_t *arr = json_array();
		for (size_t i = 0; i < k; i++)
			json_array_append_new(arr, json_integer(rows[i]));
		json_object_set_new(out, "summaryRows", arr);
	}
}

/* Writes every data row to tmp, one compact JSON object a line, as it is
 * read: inspect holds one row at a time, not the file's rows (a workbook
 * whose cells all repeat one long shared string would otherwise cost its
 * whole expansion again as JSON values).  Returns the first error's code. */
static enum code read_rows(struct sheet *s, json_t *out, FILE *tmp)
{
	const struct sheet_row *h = sheet_header(s);
	json_object_set_new(out, "headerRow", json_integer(h->number));
	json_object_set_new(out, "headers", cells_json(h));
	for (bool first = true;; first = false) {
		const struct sheet_row *row;
		enum code rc = sheet_next_row(s, &row);
		if (rc || !row)
			return rc;
		fprintf(tmp, "%s{\"row\": %u, \"cells\": [", first ? "\n    " : ",\n    ", row->number);
		/* One cell's JSON copy at a time. */
		for (size_t i = 0; i < row->ncells; i++) {
			json_t *c = json_stringn(row->cells[i], row->lens[i]);
			if (i)
				fputs(", ", tmp);
			if (c)
				json_dumpf(c, tmp, JSON_ENCODE_ANY);
			else
				fputs("null", tmp);
			json_decref(c);
		}
		fputs("]}", tmp);
	}
}

/* out, with the rows in tmp (NULL: none) as its last member, "rows". */
static int emit(json_t *out, FILE *tmp, int status)
{
	char *head = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(out);
	if (!head)
		return 2;
	if (tmp) {
		/* head ends "\n}": the rows go in before the brace. */
		char *brace = strrchr(head, '}');
		if (brace && brace > head && brace[-1] == '\n')
			*--brace = '\0';
		fputs(head, stdout);
		fputs(strchr(head, ':') ? ",\n  \"rows\": [" : "\n  \"rows\": [", stdout);
		rewind(tmp);
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
			fwrite(buf, 1, n, stdout);
		fputs(ftell(tmp) > 0 ? "\n  ]\n}" : "]\n}", stdout);
	} else {
		fputs(head, stdout);
	}
	fputc('\n', stdout);
	free(head);
	return status;
}

/* The options and the file name: -1 when they are fine, else the exit
 * status (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, struct sheet_limits *lim, const char **ret_path)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-rows") && i + 1 < argc) {
			if (!(lim->max_rows = parse_count(argv[++i], 1000000000)))
				return usage();
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage();
			return 0;
		} else if ((argv[i][0] == '-' && argv[i][1]) || *ret_path) {
			return usage();
		} else {
			*ret_path = argv[i];
		}
	}
	return *ret_path ? -1 : usage();
}

int cli_inspect(struct app *app, int argc, char **argv)
{
	struct sheet_limits lim;
	sheet_limits_default(&lim);
	lim.spool_dir = app->cfg.spool_dir;   /* as the import reads: a big workbook's shared strings spill */
	size_t env_rows = parse_count(getenv("LOADLINE_MAX_ROWS"), 1000000000);
	if (env_rows)
		lim.max_rows = env_rows;
	size_t max_bytes = parse_count(getenv("LOADLINE_MAX_FILE_BYTES"), (size_t)1 << 40);
	if (!max_bytes)
		max_bytes = DEFAULT_MAX_FILE_BYTES;

	const char *path = NULL;
	int status = parse_args(argc, argv, &lim, &path);
	if (status >= 0)
		return status;

	size_t len = 0;
	int over = 0;
	char *data = read_file(path, max_bytes, &len, &over);
	if (!data) {
		fprintf(stderr, "loadline inspect: cannot read %s: %s\n", path, strerror(errno));
		return 2;
	}
	json_t *out = json_object();
	if (over) {
		free(data);
		put_error(out, CODE_TOO_LARGE, "the file is larger than LOADLINE_MAX_FILE_BYTES");
		return emit(out, NULL, 1);
	}
	FILE *tmp = tmpfile();
	if (!tmp) {
		fprintf(stderr, "loadline inspect: cannot create a temporary file: %s\n", strerror(errno));
		free(data);
		json_decref(out);
		return 2;
	}
	struct sheet *s = NULL;
	const char *msg = NULL;
	struct sheet_info info = {0};
	/* Read as an import reads it (header row, sheet, summary rows), by
	 * the mapping rules alone: inspect knows no organization. */
	struct arena *a = arena_new();
	struct import_read rd = {.a = a};
	enum code rc = import_sheet_open(&rd, data, len, &lim, &s, &msg, &info);
	put_info(out, &info);
	if (!rc) {
		rc = read_rows(s, out, tmp);
		if (!rc)
			put_frame(out, s);
		if (rc) {
			/* Partial rows would suggest the file was read: drop them. */
			json_object_del(out, "headerRow");
			json_object_del(out, "headers");
			msg = sheet_message(s);
		}
	}
	if (rc)
		put_error(out, rc, msg);
	status = emit(out, rc ? NULL : tmp, rc ? 1 : 0);
	fclose(tmp);
	sheet_free(s);
	arena_free(a);
	free(data);
	return status;
}
