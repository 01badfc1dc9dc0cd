/* Per-row results (SPEC "Per-row result", PRODUCT §13 "Compact results"):
 * each checked row is stored as one compact row (below), and rendered
 * when read into the JSON entries the results endpoint serves.
 *
 * Entries are written straight into one buffer, in the same compact form
 * and key order jansson's json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER)
 * gives (tests/unit/import/test_results.c holds the two to the same
 * bytes): a tree of jansson values per entry was a sixth of the worker's
 * time when entries were built while importing.  results_entries, the
 * writer of full entries straight from the rows, is kept as the reference
 * the rendered compact rows are tested against. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/strmap.h"
#include "model/normalize.h"
#include "store/records.h"

static const char *bucket_name(enum bucket b)
{
	return b == BUCKET_SUCCEEDED ? "succeeded" : b == BUCKET_FAILED ? "failed" : "skipped";
}

/* A JSON string of s (valid UTF-8), escaped as jansson escapes it. */
static void put_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	buf_putc(b, '"');
	const char *run = s;
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		unsigned char c = *p;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_append(b, run, (size_t)((const char *)p - run));
		if (!c)
			break;
		run = (const char *)p + 1;
		switch (c) {
		case '"': buf_append(b, "\\\"", 2); break;
		case '\\': buf_append(b, "\\\\", 2); break;
		case '\b': buf_append(b, "\\b", 2); break;
		case '\f': buf_append(b, "\\f", 2); break;
		case '\n': buf_append(b, "\\n", 2); break;
		case '\r': buf_append(b, "\\r", 2); break;
		case '\t': buf_append(b, "\\t", 2); break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			buf_append(b, u, 6);
		}
		}
	}
	buf_putc(b, '"');
}

static void put_str_or_null(struct buf *b, const char *s)
{
	if (s)
		put_str(b, s);
	else
		buf_append(b, "null", 4);
}

static void put_key(struct buf *b, const char *k)
{
	buf_putc(b, '"');
	buf_puts(b, k);
	buf_append(b, "\":", 2);
}

/* Decimal digits of v into the end of out[16]; returns where they start. */
static char *utoa(unsigned v, char out[16])
{
	char *p = out + 15;
	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return p;
}

/* {"rowIndex":N,"source":{...}, */
static void put_head(struct buf *b, unsigned number, const char *source)
{
	char digits[16];
	buf_append(b, "{\"rowIndex\":", 12);
	buf_puts(b, utoa(number, digits));
	buf_append(b, ",\"source\":", 10);
	buf_puts(b, source);
	buf_putc(b, ',');
}

struct ctx {
	struct arena *a;
	const struct colmap *map;
	const char *doc_open;     /* "\"" + docs_url + "/api/errors/", escaped */
	const char **column;      /* header excerpt per column, made on first use */
	bool dry;
	struct buf b;
	struct buf src;           /* scratch for source_json, reused row to row */
};

static void put_diag(struct ctx *x, const struct row *r, const struct diag *d)
{
	struct buf *b = &x->b;
	buf_append(b, "{\"code\":", 8);
	put_str(b, code_name(d->code));
	buf_append(b, ",\"field\":", 9);
	put_str_or_null(b, d->field < FIELD__COUNT ? field_name(d->field) : NULL);
	buf_append(b, ",\"column\":", 10);
	if (d->col >= 0) {
		/* Header texts come from the reader as UTF-8; norm_excerpt
		 * guarantees it even so. */
		if (!x->column[d->col])
			x->column[d->col] = norm_excerpt(x->a, x->map->headers[d->col],
							 strlen(x->map->headers[d->col]), 200);
		put_str(b, x->column[d->col]);
		buf_append(b, ",\"cell\":", 8);
		char ref[32], digits[16];
		int n = 0;
		unsigned c = (unsigned)d->col + 1;
		char letters[8];
		while (c > 0 && n < 7) {
			letters[n++] = (char)('A' + (c - 1) % 26);
			c = (c - 1) / 26;
		}
		for (int i = 0; i < n; i++)
			ref[i] = letters[n - 1 - i];
		snprintf(ref + n, sizeof ref - (size_t)n, "%s", utoa(r->number, digits));
		put_str(b, ref);
	} else {
		buf_append(b, "null,\"cell\":null", 16);
	}
	buf_append(b, ",\"value\":", 9);
	put_str_or_null(b, d->value);
	buf_append(b, ",\"message\":", 11);
	put_str(b, msg_render(x->a, d->code, d->field, &d->msg));
	buf_append(b, ",\"docUrl\":", 10);
	/* Code names need no escaping. */
	buf_puts(b, x->doc_open);
	buf_puts(b, code_name(d->code));
	buf_putc(b, '"');
	buf_putc(b, '}');
}

static void put_diags(struct ctx *x, const struct row *r, const struct diag *d, int n)
{
	buf_putc(&x->b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_putc(&x->b, ',');
		put_diag(x, r, &d[i]);
	}
	buf_putc(&x->b, ']');
}

/* "source": {loadNo, jobCode[, projectName]}, as JSON text. */
static const char *source_json(struct ctx *x, const struct row *r)
{
	struct buf *s = &x->src;
	buf_clear(s);
	buf_putc(s, '{');
	enum field keys[] = {FIELD_LOAD_NO, FIELD_JOB_CODE, FIELD_PROJECT_NAME};
	bool first = true;
	for (size_t i = 0; i < 3; i++) {
		enum field f = keys[i];
		size_t tl = 0;
		const char *t = r->raw[f] ? norm_trim(r->raw[f], r->raw_len[f], &tl) : NULL;
		const char *v = t && tl ? norm_excerpt(x->a, t, tl, 200) : NULL;
		if (f == FIELD_PROJECT_NAME && !v)
			continue;
		if (!first)
			buf_putc(s, ',');
		first = false;
		put_key(s, field_name(f));
		put_str_or_null(s, v);
	}
	buf_putc(s, '}');
	return arena_strndup(x->a, buf_str(s), s->len);
}

static void put_ids(struct ctx *x, const struct row *r)
{
	buf_putc(&x->b, '[');
	for (int i = 0; !x->dry && i < r->nids; i++) {
		if (i)
			buf_putc(&x->b, ',');
		put_str(&x->b, r->ids[i]);
	}
	buf_putc(&x->b, ']');
}

struct results {
	struct result_entry *e;
	int n;
};

static void put(struct ctx *x, struct results *out, const char *bucket, int row)
{
	out->e[out->n++] = (struct result_entry){bucket, row, false, arena_strndup(x->a, buf_str(&x->b), x->b.len)};
	buf_clear(&x->b);
}

/* A row's result entries; a committed row with warnings goes in both
 * succeeded and warnings. */
static void row_results(struct ctx *x, const struct row *r, struct results *out)
{
	struct buf *b = &x->b;
	const char *source = source_json(x, r);
	put_head(b, r->number, source);
	if (r->bucket == BUCKET_FAILED) {
		put_key(b, "errors");
		put_diags(x, r, r->errors, r->nerrors);
	} else if (r->bucket == BUCKET_SKIPPED) {
		put_key(b, "reason");
		put_str_or_null(b, r->reason);
	} else {
		put_key(b, "createdRecordIds");
		put_ids(x, r);
	}
	buf_putc(b, '}');
	put(x, out, bucket_name(r->bucket), (int)r->number);
	if (r->bucket != BUCKET_SUCCEEDED || !r->nwarnings)
		return;
	put_head(b, r->number, source);
	put_key(b, "warnings");
	put_diags(x, r, r->warnings, r->nwarnings);
	buf_putc(b, ',');
	put_key(b, "createdRecordIds");
	put_ids(x, r);
	buf_putc(b, '}');
	put(x, out, "warnings", (int)r->number);
}

int results_entries(struct arena *a, bool dry_run, const struct colmap *map, const struct row *rows, int nrows,
		    const char *docs_url, struct result_entry **ret)
{
	struct results out = {arena_alloc(a, sizeof(struct result_entry) * (size_t)(2 * nrows + 1)), 0};
	struct ctx x = {.a = a, .map = map, .column = arena_alloc(a, sizeof(char *) * (size_t)(map->ncols + 1)),
			.dry = dry_run};
	buf_init(&x.b, 64u << 20);
	buf_init(&x.src, 1u << 20);
	put_str(&x.b, arena_printf(a, "%s/api/errors/", docs_url));
	x.doc_open = arena_strndup(a, buf_str(&x.b), x.b.len - 1);   /* without the closing quote */
	buf_clear(&x.b);
	for (int i = 0; i < nrows; i++)
		row_results(&x, &rows[i], &out);
	buf_done(&x.b);
	buf_done(&x.src);
	*ret = out.e;
	return out.n;
}

/* ---- Compact rows: what is stored (PRODUCT §13 "Compact results") ----
 *
 * One stored row per result row, in its bucket (succeeded, failed,
 * skipped), flagged when a committed row has warnings.  The body is a JSON
 * array:
 *   succeeded: [source, ids]  or  [source, ids, warnings]
 *   failed:    [source, errors]
 *   skipped:   [source, reason]
 * source = [loadNo, jobCode] or [loadNo, jobCode, projectName]; a diag is
 * [code, field, col, kind, value, args...] (col -1: no column).  An arg0
 * of 0 stands for the quote of value (norm_quote, MSG_QUOTE_CHARS), which
 * is what most messages quote.  Column header texts are stored once per
 * run (runs.result_columns: a JSON array of the file's columns; runs
 * stored before issue 29 have null where no diag pointed);
 * message, docUrl, column text and cell are rendered when read. */

static void put_compact_diag(struct ctx *x, const struct diag *d)
{
	struct buf *b = &x->b;
	buf_putc(b, '[');
	put_str(b, code_name(d->code));
	buf_putc(b, ',');
	put_str_or_null(b, d->field < FIELD__COUNT ? field_name(d->field) : NULL);
	buf_putc(b, ',');
	buf_put_int(b, d->col >= 0 ? d->col : -1);
	buf_putc(b, ',');
	buf_put_int(b, (int)d->msg.kind);
	buf_putc(b, ',');
	put_str_or_null(b, d->value);
	int n = MSG_MAX_ARGS;
	while (n > 0 && !d->msg.arg[n - 1])
		n--;
	for (int i = 0; i < n; i++) {
		buf_putc(b, ',');
		const char *v = d->msg.arg[i];
		if (i == 0 && v && d->value && !strcmp(v, norm_quote(x->a, d->value, strlen(d->value), MSG_QUOTE_CHARS)))
			buf_putc(b, '0');
		else
			put_str_or_null(b, v);
	}
	buf_putc(b, ']');
	if (d->col >= 0 && d->col < x->map->ncols && !x->column[d->col])
		x->column[d->col] = norm_excerpt(x->a, x->map->headers[d->col], strlen(x->map->headers[d->col]), 200);
}

static void put_compact_diags(struct ctx *x, const struct diag *d, int n)
{
	buf_putc(&x->b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_putc(&x->b, ',');
		put_compact_diag(x, &d[i]);
	}
	buf_putc(&x->b, ']');
}

static void put_compact_source(struct ctx *x, const struct row *r)
{
	struct buf *b = &x->b;
	enum field keys[] = {FIELD_LOAD_NO, FIELD_JOB_CODE, FIELD_PROJECT_NAME};
	buf_putc(b, '[');
	for (size_t i = 0; i < 3; i++) {
		size_t tl = 0;
		const char *t = r->raw[keys[i]] ? norm_trim(r->raw[keys[i]], r->raw_len[keys[i]], &tl) : NULL;
		const char *v = t && tl ? norm_excerpt(x->a, t, tl, 200) : NULL;
		if (i == 2 && !v)
			break;
		if (i)
			buf_putc(b, ',');
		put_str_or_null(b, v);
	}
	buf_putc(b, ']');
}

static void compact_row(struct ctx *x, const struct row *r, struct result_entry *out)
{
	struct buf *b = &x->b;
	buf_putc(b, '[');
	put_compact_source(x, r);
	buf_putc(b, ',');
	bool warned = r->bucket == BUCKET_SUCCEEDED && r->nwarnings;
	if (r->bucket == BUCKET_FAILED) {
		put_compact_diags(x, r->errors, r->nerrors);
	} else if (r->bucket == BUCKET_SKIPPED) {
		put_str_or_null(b, r->reason);
	} else {
		put_ids(x, r);
		if (warned) {
			buf_putc(b, ',');
			put_compact_diags(x, r->warnings, r->nwarnings);
		}
	}
	buf_putc(b, ']');
	*out = (struct result_entry){bucket_name(r->bucket), (int)r->number, warned,
				     arena_strndup(x->a, buf_str(b), b->len)};
	buf_clear(b);
}

/* The run's column texts that diags point at, as a JSON array. */
static const char *columns_json(struct ctx *x)
{
	struct buf *b = &x->b;
	int n = x->map->ncols;
	while (n > 0 && !x->column[n - 1])
		n--;
	buf_putc(b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		put_str_or_null(b, x->column[i]);
	}
	buf_putc(b, ']');
	const char *s = arena_strndup(x->a, buf_str(b), b->len);
	buf_clear(b);
	return s;
}

int results_compact(struct arena *a, bool dry_run, const struct colmap *map, const struct row *rows, int nrows,
		    struct result_entry **ret, const char **ret_columns)
{
	struct result_entry *e = arena_alloc(a, sizeof(struct result_entry) * (size_t)(nrows + 1));
	struct ctx x = {.a = a, .map = map, .column = arena_alloc(a, sizeof(char *) * (size_t)(map->ncols + 1)),
			.dry = dry_run};
	memset(x.column, 0, sizeof(char *) * (size_t)(map->ncols + 1));
	buf_init(&x.b, 64u << 20);
	for (int i = 0; i < nrows; i++)
		compact_row(&x, &rows[i], &e[i]);
	/* Every column's text, not only those this call's diags point at: a
	 * run written in batches stores them with each batch, and the last
	 * batch's must serve the diags of all (issue 29). */
	for (int c = 0; c < map->ncols; c++)
		if (!x.column[c] && map->headers[c])
			x.column[c] = norm_excerpt(a, map->headers[c], strlen(map->headers[c]), 200);
	*ret_columns = columns_json(&x);
	buf_done(&x.b);
	*ret = e;
	return nrows;
}

enum code results_save(struct store_tx *tx, struct arena *a, const struct run *run, const struct colmap *map,
		       const struct row *rows, int nrows)
{
	struct result_entry *e;
	const char *columns;
	int n = results_compact(a, run->dry_run, map, rows, nrows, &e, &columns);
	enum code rc = store_results_add_all(tx, run->id, e, n);
	if (!rc && n)
		rc = store_run_set_result_columns(tx, run->id, columns);
	return rc;
}

/* ---- Reading: compact rows rendered as the entries the API serves ---- */

struct render {
	struct arena *a;
	json_t *columns;
	const char *doc_open;
	struct buf b;
};

static const char *jstr(json_t *j)
{
	return json_string_value(j);
}

static void put_jstr_or_null(struct buf *b, json_t *j)
{
	put_str_or_null(b, jstr(j));
}

/* "C12": column letters of col (0-based) and the row number. */
static void put_cell(struct buf *b, int col, int row)
{
	char letters[8];
	int n = 0;
	for (unsigned c = (unsigned)col + 1; c > 0 && n < 7; c = (c - 1) / 26)
		letters[n++] = (char)('A' + (c - 1) % 26);
	buf_putc(b, '"');
	for (int i = n - 1; i >= 0; i--)
		buf_putc(b, letters[i]);
	buf_printf(b, "%d\"", row);
}

/* The message of a stored diag: its kind and arguments (an arg0 of 0
 * stands for the quote of value). */
static struct msg diag_msg(struct arena *a, json_t *d)
{
	const char *value = jstr(json_array_get(d, 4));
	struct msg m = {(enum msg_kind)json_integer_value(json_array_get(d, 3)), {NULL}};
	for (int i = 0; i < MSG_MAX_ARGS; i++) {
		json_t *v = json_array_get(d, 5 + (size_t)i);
		m.arg[i] = json_is_integer(v) && i == 0 && value ? norm_quote(a, value, strlen(value), MSG_QUOTE_CHARS)
			   : jstr(v);
	}
	return m;
}

static void render_diag(struct render *x, int row, json_t *d)
{
	struct buf *b = &x->b;
	const char *code = jstr(json_array_get(d, 0)), *value = jstr(json_array_get(d, 4));
	json_int_t col = json_integer_value(json_array_get(d, 2));
	struct msg m = diag_msg(x->a, d);
	json_t *field = json_array_get(d, 1);
	buf_append(b, "{\"code\":", 8);
	put_str(b, code ? code : "");
	buf_append(b, ",\"field\":", 9);
	put_jstr_or_null(b, field);
	buf_append(b, ",\"column\":", 10);
	if (col >= 0) {
		const char *text = jstr(json_array_get(x->columns, (size_t)col));
		put_str(b, text ? text : "");
		buf_append(b, ",\"cell\":", 8);
		put_cell(b, (int)col, row);
	} else {
		buf_append(b, "null,\"cell\":null", 16);
	}
	buf_append(b, ",\"value\":", 9);
	put_str_or_null(b, value);
	buf_append(b, ",\"message\":", 11);
	enum field f = jstr(field) ? field_from_name(jstr(field)) : FIELD_NONE;
	put_str(b, msg_render(x->a, code ? code_from_name(code) : CODE_INTERNAL_ERROR, f, &m));
	buf_append(b, ",\"docUrl\":", 10);
	buf_puts(b, x->doc_open);
	buf_puts(b, code ? code : "");   /* code names need no escaping */
	buf_append(b, "\"}", 2);
}

static void render_diags(struct render *x, int row, json_t *list)
{
	buf_putc(&x->b, '[');
	for (size_t i = 0; i < json_array_size(list); i++) {
		if (i)
			buf_putc(&x->b, ',');
		render_diag(x, row, json_array_get(list, i));
	}
	buf_putc(&x->b, ']');
}

static void render_source(struct buf *b, json_t *src)
{
	static const char *const keys[] = {"loadNo", "jobCode", "projectName"};
	buf_putc(b, '{');
	for (size_t i = 0; i < 3 && i < json_array_size(src); i++) {
		if (i)
			buf_putc(b, ',');
		put_key(b, keys[i]);
		put_jstr_or_null(b, json_array_get(src, i));
	}
	buf_putc(b, '}');
}

static void render_ids(struct buf *b, json_t *ids)
{
	buf_putc(b, '[');
	for (size_t i = 0; i < json_array_size(ids); i++) {
		if (i)
			buf_putc(b, ',');
		put_jstr_or_null(b, json_array_get(ids, i));
	}
	buf_putc(b, ']');
}

/* The entry of one stored row in bucket, into x->b (cleared first). */
static void render_row(struct render *x, const char *bucket, int row, const char *body)
{
	struct buf *b = &x->b;
	buf_clear(b);
	json_t *j = json_loads(body, 0, NULL);
	buf_printf(b, "{\"rowIndex\":%d,\"source\":", row);
	render_source(b, json_array_get(j, 0));
	buf_putc(b, ',');
	json_t *x1 = json_array_get(j, 1);
	if (!strcmp(bucket, "failed")) {
		put_key(b, "errors");
		render_diags(x, row, x1);
	} else if (!strcmp(bucket, "skipped")) {
		put_key(b, "reason");
		put_jstr_or_null(b, x1);
		/* A revert's changed_since row names the run that changed it. */
		if (json_is_string(json_array_get(j, 2))) {
			buf_putc(b, ',');
			put_key(b, "laterRunId");
			put_jstr_or_null(b, json_array_get(j, 2));
		}
	} else {
		if (!strcmp(bucket, "warnings")) {
			put_key(b, "warnings");
			render_diags(x, row, json_array_get(j, 2));
			buf_putc(b, ',');
		}
		put_key(b, "createdRecordIds");
		render_ids(b, x1);
	}
	buf_putc(b, '}');
	json_decref(j);
}

struct page_ctx {
	struct render *x;
	const char *bucket;
	void (*fn)(int row_index, const char *body, void *ctx);
	void *ctx;
};

static void on_stored(int row_index, const char *body, void *ctx)
{
	struct page_ctx *p = ctx;
	render_row(p->x, p->bucket, row_index, body);
	p->fn(row_index, buf_str(&p->x->b), p->ctx);
}

static void render_init(struct render *x, const char *columns, const char *docs_url)
{
	x->a = arena_new();
	x->columns = columns ? json_loads(columns, 0, NULL) : NULL;
	buf_init(&x->b, 64u << 20);
	put_str(&x->b, arena_printf(x->a, "%s/api/errors/", docs_url));
	x->doc_open = arena_strndup(x->a, buf_str(&x->b), x->b.len - 1);   /* without the closing quote */
	buf_clear(&x->b);
}

static void render_done(struct render *x)
{
	json_decref(x->columns);
	buf_done(&x->b);
	arena_free(x->a);
}

const char *results_render(struct arena *a, const char *bucket, int row_index, const char *body,
			   const char *columns, const char *docs_url)
{
	struct render x;
	render_init(&x, columns, docs_url);
	render_row(&x, bucket, row_index, body);
	const char *s = arena_strndup(a, buf_str(&x.b), x.b.len);
	render_done(&x);
	return s;
}

enum code results_page(struct store *st, const char *run_id, const char *bucket, int after, int limit,
		       const char *docs_url, void (*fn)(int row_index, const char *body, void *ctx), void *ctx,
		       bool *ret_more)
{
	char *columns = NULL;
	enum code rc = store_run_result_columns(st, run_id, &columns);
	if (rc)
		return rc;
	struct render x;
	render_init(&x, columns, docs_url);
	free(columns);
	struct page_ctx p = {&x, bucket, fn, ctx};
	rc = store_results_page(st, run_id, bucket, after, limit, on_stored, &p, ret_more);
	render_done(&x);
	return rc;
}

/* ---- Grouped problems (PRODUCT §11 "Problems, grouped") ---- */

struct groups {
	struct arena *a;
	json_t *columns;            /* stored rows: the run's column texts */
	const struct colmap *map;   /* rows in memory: their header texts, made on first use */
	const char **column;
	const char *docs_url;
	struct strmap *by_key;
	struct run_problem **list;
	int n, cap;
	enum code rc;
};

/* A name the product could create for a LOOKUP_MISS of customer or branch:
 * the cell trimmed, 1..NAME_MAX_LEN characters on one line (the rule of
 * POST /api/v1/customers); NULL otherwise. */
static const char *fix_name(struct arena *a, const char *value)
{
	size_t len, chars = 0;
	const char *t = norm_trim(value, strlen(value), &len);
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			return NULL;
		chars += ((unsigned char)t[i] & 0xC0) != 0x80;
	}
	return len && chars <= NAME_MAX_LEN ? arena_strndup(a, t, len) : NULL;
}

/* One diag to group: read from a stored row (j) or from a row in memory
 * (d), the same either way (compact_row stores exactly these). */
struct one_diag {
	const char *code, *field, *value;
	int col;
	json_t *j;
	const struct diag *d;
};

/* The column text of a diag: stored once per run, or the header's excerpt
 * as results_compact stores it. */
static const char *diag_column(struct groups *g, const struct one_diag *x)
{
	if (x->col < 0)
		return NULL;
	if (x->j)
		return arena_strdup(g->a, jstr(json_array_get(g->columns, (size_t)x->col)));
	if (x->col >= g->map->ncols)
		return NULL;
	if (!g->column[x->col])
		g->column[x->col] = norm_excerpt(g->a, g->map->headers[x->col], strlen(g->map->headers[x->col]), 200);
	return g->column[x->col];
}

/* The group of one diag, made (with its message, rendered for this row)
 * the first time its key is seen. */
static struct run_problem *group_of(struct groups *g, const struct one_diag *x, bool failed)
{
	const char *code = x->code, *field = x->field, *value = x->value;
	/* A unit conversion needs nothing done, whatever the value: one group
	 * per field, not one per converted value (issue 30 item 5). */
	if (code && !strcmp(code, "UNIT_NORMALIZED"))
		value = NULL;
	/* code, field, value compared exactly; null differs from "".  The key
	 * is kept only for a new group: a run tallies every row's problems in
	 * one arena, and a key kept per row grew it by ~67 bytes a row (+67 MB
	 * at a million rows, issue 29). */
	struct arena_mark before = arena_mark(g->a);
	const char *key = arena_printf(g->a, "%s\x1f%c%s\x1f%c%s", code ? code : "", field ? 's' : 'n', field ? field : "",
				       value ? 's' : 'n', value ? value : "");
	struct run_problem *p = strmap_get(g->by_key, key);
	if (p) {
		arena_rewind(g->a, before);
		return p;
	}
	p = arena_alloc(g->a, sizeof(*p));
	enum code c = code ? code_from_name(code) : CODE_INTERNAL_ERROR;
	enum field f = field ? field_from_name(field) : FIELD_NONE;
	struct msg m = x->j ? diag_msg(g->a, x->j) : x->d->msg;
	*p = (struct run_problem){
		.code = arena_strdup(g->a, code ? code : ""), .error = failed, .field = arena_strdup(g->a, field),
		.column = diag_column(g, x), .value = arena_strdup(g->a, value), .seq = g->n,
		.message = arena_strdup(g->a, msg_render(g->a, c, f, &m)),
		.doc_url = arena_printf(g->a, "%s/api/errors/%s", g->docs_url, code ? code : ""),
	};
	if (c == CODE_LOOKUP_MISS && value && (f == FIELD_CUSTOMER || f == FIELD_BRANCH) &&
	    (p->fix_name = fix_name(g->a, value)))
		p->fix_type = f == FIELD_CUSTOMER ? "create_customer" : "create_branch";
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 64;
		struct run_problem **grown = arena_alloc(g->a, sizeof(*grown) * (size_t)g->cap);
		if (g->n)
			memcpy(grown, g->list, sizeof(*grown) * (size_t)g->n);
		g->list = grown;
	}
	g->list[g->n++] = p;
	strmap_put(g->by_key, key, p);
	return p;
}

static void count_row(struct groups *g, const struct one_diag *x, bool failed, int row_index)
{
	struct run_problem *p = group_of(g, x, failed);
	/* The same problem twice in one row counts the row once — also past
	 * the rows shown, where rows[] no longer holds the last one. */
	if (p->row_count && p->last_row == row_index)
		return;
	p->last_row = row_index;
	p->row_count++;
	if (p->nrows < PROBLEM_ROWS_SHOWN)
		p->rows[p->nrows++] = row_index;
}

static void on_problem_row(int row_index, bool failed, const char *body, void *ctx)
{
	struct groups *g = ctx;
	json_t *j = json_loads(body, 0, NULL);
	json_t *list = json_array_get(j, failed ? 1 : 2);
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *d = json_array_get(list, i);
		struct one_diag x = {jstr(json_array_get(d, 0)), jstr(json_array_get(d, 1)), jstr(json_array_get(d, 4)),
				     (int)json_integer_value(json_array_get(d, 2)), d, NULL};
		count_row(g, &x, failed, row_index);
	}
	json_decref(j);
}

/* The diags of a row in memory, as compact_row stores them: a failed
 * row's errors, a committed row's warnings. */
static void group_row(struct groups *g, const struct row *r)
{
	bool failed = r->bucket == BUCKET_FAILED;
	if (!failed && r->bucket != BUCKET_SUCCEEDED)
		return;
	const struct diag *d = failed ? r->errors : r->warnings;
	int n = failed ? r->nerrors : r->nwarnings;
	for (int i = 0; i < n; i++) {
		struct one_diag x = {code_name(d[i].code), d[i].field < FIELD__COUNT ? field_name(d[i].field) : NULL,
				     d[i].value, d[i].col >= 0 ? d[i].col : -1, NULL, &d[i]};
		count_row(g, &x, failed, (int)r->number);
	}
}

/* Errors first (their rows were not written), then warnings; within
 * each, the most rows first, then the order first seen. */
static int by_rows(const void *x, const void *y)
{
	const struct run_problem *a = *(struct run_problem *const *)x, *b = *(struct run_problem *const *)y;
	if (a->error != b->error)
		return a->error ? -1 : 1;
	if (a->row_count != b->row_count)
		return a->row_count > b->row_count ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The groups of run_id's stored rows, read on st, or in tx when given. */
static enum code problems_of(struct store *st, struct store_tx *tx, struct arena *a, const char *run_id,
			     const char *docs_url, struct run_problem ***ret, int *ret_n)
{
	char *columns = NULL;
	enum code rc = tx ? store_run_result_columns_tx(tx, run_id, &columns)
			  : store_run_result_columns(st, run_id, &columns);
	if (rc)
		return rc;
	struct groups g = {.a = a, .columns = columns ? json_loads(columns, 0, NULL) : NULL, .docs_url = docs_url,
			   .by_key = strmap_new(a)};
	free(columns);
	rc = tx ? store_results_problem_rows_tx(tx, run_id, on_problem_row, &g)
		: store_results_problem_rows(st, run_id, on_problem_row, &g);
	json_decref(g.columns);
	if (g.n)
		qsort(g.list, (size_t)g.n, sizeof(*g.list), by_rows);
	*ret = g.list;
	*ret_n = g.n;
	return rc;
}

enum code results_problems(struct store *st, struct arena *a, const char *run_id, const char *docs_url,
			   struct run_problem ***ret, int *ret_n)
{
	return problems_of(st, NULL, a, run_id, docs_url, ret, ret_n);
}

enum code results_problems_tx(struct store_tx *tx, struct arena *a, const char *run_id, const char *docs_url,
			      struct run_problem ***ret, int *ret_n)
{
	return problems_of(NULL, tx, a, run_id, docs_url, ret, ret_n);
}

struct problem_tally *results_tally_new(struct arena *a, const struct colmap *map, const char *docs_url)
{
	struct groups *g = arena_alloc(a, sizeof(*g));
	*g = (struct groups){.a = a, .map = map, .column = arena_alloc(a, sizeof(char *) * (size_t)(map->ncols + 1)),
			     .docs_url = docs_url, .by_key = strmap_new(a)};
	memset(g->column, 0, sizeof(char *) * (size_t)(map->ncols + 1));
	return (struct problem_tally *)g;
}

void results_tally_rows(struct problem_tally *t, const struct row *rows, int nrows)
{
	for (int i = 0; i < nrows; i++)
		group_row((struct groups *)t, &rows[i]);
}

int results_tally_done(struct problem_tally *t, struct run_problem ***ret)
{
	struct groups *g = (struct groups *)t;
	if (g->n)
		qsort(g->list, (size_t)g->n, sizeof(*g->list), by_rows);
	*ret = g->list;
	return g->n;
}

int results_problems_rows(struct arena *a, const struct colmap *map, const struct row *rows, int nrows,
			  const char *docs_url, struct run_problem ***ret)
{
	struct problem_tally *t = results_tally_new(a, map, docs_url);
	results_tally_rows(t, rows, nrows);
	return results_tally_done(t, ret);
}
