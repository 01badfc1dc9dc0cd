/* `loadline push --results DIR`: every non-empty result bucket of a run as
 * DIR/<bucket>.csv, one line per error or warning, cells formula-safe like
 * the web app's download. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "client.h"
#include "push.h"
#include "base/csv_write.h"

/* One CSV line per error or warning of a result row (one line when it has
 * none), cells made formula-safe by csv_cell like the web app's download. */
static void csv_result(struct buf *b, json_t *row)
{
	json_t *src = json_object_get(row, "source"), *list = json_object_get(row, "errors");
	if (!json_array_size(list))
		list = json_object_get(row, "warnings");
	size_t n = json_array_size(list) ? json_array_size(list) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(list, i);
		char idx[24];
		snprintf(idx, sizeof idx, "%d", jint(row, "rowIndex"));
		const char *cells[] = {idx, jstr(src, "jobCode"), jstr(src, "loadNo"), jstr(e, "code"),
				       jstr(e, "field"), jstr(e, "column"), jstr(e, "message"), jstr(row, "reason")};
		for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++)
			csv_cell(b, cells[k], k == 0);
		csv_row_end(b);
	}
}

static int write_bucket(const struct client *c, const char *run_id, const char *bucket)
{
	char path[1024];
	snprintf(path, sizeof path, "/api/v1/imports/runs/%s/results/%s?limit=100", run_id, bucket);
	struct buf b;
	buf_init(&b, (size_t)1 << 30);
	const char *header[] = {"rowIndex", "jobCode", "loadNo", "code", "field", "column", "message", "reason"};
	for (size_t k = 0; k < sizeof header / sizeof header[0]; k++)
		csv_cell(&b, header[k], k == 0);
	csv_row_end(&b);
	size_t rows = 0;
	for (;;) {
		json_t *page = client_get_json(c, path);
		if (!page) {
			buf_done(&b);
			return -1;
		}
		size_t i;
		json_t *row;
		json_array_foreach(json_object_get(page, "data"), i, row) {
			csv_result(&b, row);
			rows++;
		}
		const char *next = json_string_value(json_object_get(page, "nextPageUrl"));
		if (next)
			snprintf(path, sizeof path, "%s", next);
		json_decref(page);
		if (!next)
			break;
	}
	int rc = 0;
	if (rows) {
		char file[1024];
		snprintf(file, sizeof file, "%s/%s.csv", c->results_dir, bucket);
		FILE *f = fopen(file, "wb");
		if (!f || fwrite(buf_str(&b), 1, b.len, f) != b.len || fclose(f)) {
			fprintf(stderr, "loadline %s: cannot write %s: %s\n", c->cmd, file, strerror(errno));
			rc = -1;
		}
	}
	buf_done(&b);
	return rc;
}

int push_write_results(const struct client *c, json_t *run)
{
	if (mkdir(c->results_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "loadline %s: cannot create %s: %s\n", c->cmd, c->results_dir, strerror(errno));
		return -1;
	}
	static const char *const buckets[] = {"succeeded", "warnings", "failed", "skipped"};
	for (size_t i = 0; i < 4; i++)
		if (write_bucket(c, jstr(run, "id"), buckets[i]))
			return -1;
	return 0;
}

