/* Per-row results (SPEC "Per-row result"): each checked row becomes its
 * entries in the four buckets, as the JSON the results endpoint serves,
 * written in bulk in the run's transaction. */
#include "results.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "model/normalize.h"
#include "store/records.h"

static const char *bucket_name(enum bucket b)
{
	return b == BUCKET_SUCCEEDED ? "succeeded" : b == BUCKET_FAILED ? "failed" : "skipped";
}

static json_t *diag_json(struct arena *a, const char *docs_url, const struct colmap *map, const struct row *r,
			 const struct diag *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "code", json_string(code_name(d->code)));
	json_object_set_new(o, "field", d->field < FIELD__COUNT ? json_string(field_name(d->field)) : json_null());
	/* Header texts come from the reader as UTF-8; norm_excerpt guarantees it
	 * even so, since json_string refuses anything else. */
	json_object_set_new(o, "column", d->col >= 0 ? json_string(norm_excerpt(a, map->headers[d->col],
				strlen(map->headers[d->col]), 200)) : json_null());
	json_object_set_new(o, "cell", d->col >= 0 ? json_string(cell_ref(a, d->col, r->number)) : json_null());
	json_object_set_new(o, "value", d->value ? json_string(d->value) : json_null());
	json_object_set_new(o, "message", json_string(d->message ? d->message : code_summary(d->code)));
	char *url = arena_printf(a, "%s/api/errors/%s", docs_url, code_name(d->code));
	json_object_set_new(o, "docUrl", json_string(url));
	return o;
}

static json_t *source_json(struct arena *a, const struct row *r)
{
	json_t *s = json_object();
	enum field keys[] = {FIELD_LOAD_NO, FIELD_JOB_CODE, FIELD_PROJECT_NAME};
	for (size_t i = 0; i < 3; i++) {
		enum field f = keys[i];
		size_t tl = 0;
		const char *t = r->raw[f] ? norm_trim(r->raw[f], r->raw_len[f], &tl) : NULL;
		json_t *v = t && tl ? json_string(norm_excerpt(a, t, tl, 200)) : json_null();
		if (f == FIELD_PROJECT_NAME && json_is_null(v))
			json_decref(v);
		else
			json_object_set_new(s, field_name(f), v ? v : json_null());
	}
	return s;
}

static json_t *diags_json(struct arena *a, const char *docs_url, const struct colmap *map, const struct row *r,
			  const struct diag *d, int n)
{
	json_t *arr = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, diag_json(a, docs_url, map, r, &d[i]));
	return arr;
}

static json_t *ids_json(const struct row *r, bool dry)
{
	json_t *arr = json_array();
	for (int i = 0; !dry && i < r->nids; i++)
		json_array_append_new(arr, json_string(r->ids[i]));
	return arr;
}

struct results {
	struct result_entry *e;
	int n;
};

static void put(struct arena *a, struct results *out, const char *bucket, int row, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	out->e[out->n++] = (struct result_entry){bucket, row, arena_strdup(a, s ? s : "{}")};
	free(s);
}

/* A row's result entries; a committed row with warnings goes in both
 * succeeded and warnings. */
static void row_results(struct arena *a, const char *docs_url, const struct run *run, const struct colmap *map,
			const struct row *r, struct results *out)
{
	json_t *o = json_object();
	json_object_set_new(o, "rowIndex", json_integer(r->number));
	json_object_set_new(o, "source", source_json(a, r));
	if (r->bucket == BUCKET_FAILED)
		json_object_set_new(o, "errors", diags_json(a, docs_url, map, r, r->errors, r->nerrors));
	else if (r->bucket == BUCKET_SKIPPED)
		json_object_set_new(o, "reason", json_string(r->reason));
	else
		json_object_set_new(o, "createdRecordIds", ids_json(r, run->dry_run));
	put(a, out, bucket_name(r->bucket), (int)r->number, o);
	if (r->bucket != BUCKET_SUCCEEDED || !r->nwarnings)
		return;
	o = json_object();
	json_object_set_new(o, "rowIndex", json_integer(r->number));
	json_object_set_new(o, "source", source_json(a, r));
	json_object_set_new(o, "warnings", diags_json(a, docs_url, map, r, r->warnings, r->nwarnings));
	json_object_set_new(o, "createdRecordIds", ids_json(r, run->dry_run));
	put(a, out, "warnings", (int)r->number, o);
}

enum code results_save(struct store_tx *tx, struct arena *a, const struct run *run, const struct colmap *map,
		       const struct row *rows, int nrows, const char *docs_url)
{
	struct results out = {arena_alloc(a, sizeof(struct result_entry) * (size_t)(2 * nrows + 1)), 0};
	for (int i = 0; i < nrows; i++)
		row_results(a, docs_url, run, map, &rows[i], &out);
	return store_results_add_all(tx, run->id, out.e, out.n);
}

