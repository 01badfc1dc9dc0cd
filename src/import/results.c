/* Per-row results (SPEC "Per-row result"): each checked row becomes its
 * entries in the four buckets, as the JSON the results endpoint serves,
 * written in bulk in the run's transaction.
 *
 * The JSON is written straight into one buffer, in the same compact form
 * and key order jansson's json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER)
 * gave (tests/unit/test_results.c holds the two to the same bytes): a
 * 750-row file makes ~1,500 entries, and a tree of jansson values per
 * entry was a sixth of the worker's time.  What repeats across rows is
 * worked out once: the column texts, the docUrl prefix. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
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
	put_str(b, d->message ? d->message : code_summary(d->code));
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
	out->e[out->n++] = (struct result_entry){bucket, row, arena_strndup(x->a, buf_str(&x->b), x->b.len)};
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

enum code results_save(struct store_tx *tx, struct arena *a, const struct run *run, const struct colmap *map,
		       const struct row *rows, int nrows, const char *docs_url)
{
	struct result_entry *e;
	int n = results_entries(a, run->dry_run, map, rows, nrows, docs_url, &e);
	return store_results_add_all(tx, run->id, e, n);
}
