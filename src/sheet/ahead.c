/* Read-ahead of the sheet layer, to read a file as a person reads it
 * (PRODUCT §14, docs/sheet.md "Header row"): the header row is found
 * among the first rows below any title rows, a group row above it is
 * joined into its texts, data rows can be sampled before they are
 * delivered, and summary rows at the end are left out.  Rows wait in a
 * ring of SHEET_QUEUE row buffers; the reader stays streaming. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sheet_int.h"

/* Open failures whose message names a row: valid until the thread's next
 * open, which is as long as a caller keeps a static message. */
static _Thread_local char open_msg[256];

static void swap(struct rowbuf *a, struct rowbuf *b)
{
	struct rowbuf t = *a;
	*a = *b;
	*b = t;
}

static struct rowbuf *qat(struct sheet *s, size_t i)
{
	return &s->q[(s->qhead + i) % SHEET_QUEUE];
}

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!memchr(" \t\r\n\v\f", p[i], 6))
			return false;
	return true;
}

static bool queue_init(struct sheet *s)
{
	s->q = calloc(SHEET_QUEUE, sizeof(*s->q));
	if (!s->q)
		return false;
	for (size_t i = 0; i < SHEET_QUEUE; i++)
		rowbuf_init(&s->q[i], s->row_cap);
	for (size_t i = 0; i < SHEET_HEADER_SCAN; i++)
		rowbuf_init(&s->above[i], s->row_cap);
	return true;
}

void ahead_free(struct sheet *s)
{
	if (s->q)
		for (size_t i = 0; i < SHEET_QUEUE; i++)
			rowbuf_done(&s->q[i]);
	free(s->q);
	s->q = NULL;
	for (size_t i = 0; i < SHEET_HEADER_SCAN; i++)
		rowbuf_done(&s->above[i]);
	for (size_t i = 0; i < s->nsamples; i++)
		rowbuf_done(&s->samples[i]);
	s->nabove = s->nsamples = 0;
	s->sampled = false;
	free(s->roles);
	free(s->num_seen);
	free(s->cell_seen);
	free(s->summary);
	s->roles = NULL;
	s->num_seen = s->cell_seen = NULL;
	s->summary = NULL;
	s->nsummary = s->summary_cap = 0;
	s->counted = 0;
	s->keyed = false;
	s->qhead = s->qlen = 0;
	s->eof = false;
	s->pending = CODE_OK;
}

/* A numeric column: the judge says so, or most of its cells so far hold
 * numbers. */
static bool numeric_col(const struct sheet *s, size_t j)
{
	return (s->roles[j] & SHEET_COL_NUMERIC) || (s->num_seen[j] > 0 && s->num_seen[j] * 2 >= s->cell_seen[j]);
}

/* Is r a summary row, if it is at the end (PRODUCT §14)?  A total label
 * first; or only numbers under numeric columns, with every key and date
 * column empty.  Only once the header's roles are known. */
static bool summary_like(const struct sheet *s, const struct sheet_row *r)
{
	if (!s->roles)
		return false;
	size_t first = 0;
	while (first < r->ncells && blank(r->cells[first], r->lens[first]))
		first++;
	if (first == r->ncells)
		return false;
	if (cell_is_total_label(r->cells[first], r->lens[first]))
		return true;
	size_t ncols = s->header.row.ncells;
	if (!s->keyed)
		return false;
	for (size_t j = first; j < r->ncells; j++) {
		if (blank(r->cells[j], r->lens[j]))
			continue;
		if (j >= ncols || (s->roles[j] & (SHEET_COL_KEY | SHEET_COL_DATE)) ||
		    !cell_is_number(r->cells[j], r->lens[j]) || !numeric_col(s, j))
			return false;
	}
	return true;
}

/* Which columns hold numbers, from the first rows below the header: as
 * many as a person glances at (reading every cell of a big file for it
 * cost 10 % of a read). */
#define NUMBER_ROWS (SHEET_HEADER_SCAN + SHEET_SAMPLE_ROWS)

static void count_numbers(struct sheet *s, const struct sheet_row *r)
{
	size_t ncols = s->header.row.ncells;
	if (!s->num_seen || s->counted >= NUMBER_ROWS)
		return;
	s->counted++;
	for (size_t j = 0; j < r->ncells && j < ncols; j++) {
		if (blank(r->cells[j], r->lens[j]))
			continue;
		s->cell_seen[j]++;
		s->num_seen[j] += cell_is_number(r->cells[j], r->lens[j]);
	}
}

static void add_summary(struct sheet *s, unsigned number)
{
	if (s->nsummary == s->summary_cap) {
		size_t cap = s->summary_cap ? s->summary_cap * 2 : 8;
		unsigned *v = realloc(s->summary, cap * sizeof(*v));
		if (!v)
			return;   /* the list is a report; the row stays out anyway */
		s->summary = v;
		s->summary_cap = cap;
	}
	s->summary[s->nsummary++] = number;
}

/* At the end of the file: the queued rows at the tail that are summary
 * rows are left out and listed, in order. */
static void trim_summary(struct sheet *s)
{
	size_t keep = s->qlen;
	while (keep > 0 && summary_like(s, &qat(s, keep - 1)->row))
		keep--;
	for (size_t i = keep; i < s->qlen; i++)
		add_summary(s, qat(s, i)->row.number);
	s->qlen = keep;
}

/* Reads the next non-blank row onto the queue's tail: true, or false at
 * the end, when the queue is full, or after a failure (s->pending, its
 * message in s->msg; *static_msg, when given, receives the reader's). */
static bool read_one(struct sheet *s, const char **static_msg)
{
	if (s->eof || s->pending || s->qlen == SHEET_QUEUE)
		return false;
	struct rowbuf *rb = qat(s, s->qlen);
	bool eof = false;
	const char *msg = "";
	enum code rc = sheet_next_nonblank(s, rb, &eof, &msg);
	if (rc) {
		s->pending = rc;
		if (static_msg)
			*static_msg = msg == buf_str(&s->msg) ? NULL : msg;
		sheet_set_message(s, rb->number, msg);
		return false;
	}
	if (eof) {
		s->eof = true;
		trim_summary(s);
		return false;
	}
	s->qlen++;
	count_numbers(s, &rb->row);
	return true;
}

/* Moves the queue's front row to the rows above the header, keeping the
 * last SHEET_HEADER_SCAN of them. */
static void front_to_above(struct sheet *s)
{
	if (s->nabove == SHEET_HEADER_SCAN) {
		for (size_t i = 1; i < SHEET_HEADER_SCAN; i++)
			swap(&s->above[i - 1], &s->above[i]);
		s->nabove--;
	}
	swap(&s->above[s->nabove++], qat(s, 0));
	s->qhead = (s->qhead + 1) % SHEET_QUEUE;
	s->qlen--;
}

/* The judge's roles of a row, in a new array (NULL when out of memory,
 * and s->oom says so: the header decision must not quietly differ). */
static unsigned char *judge_row(struct sheet *s, const struct sheet_row *r, bool *ret_known)
{
	unsigned char *roles = calloc(r->ncells + 1, 1);
	*ret_known = false;
	if (!roles)
		s->oom = true;
	else if (s->judge)
		*ret_known = s->judge->judge(s->judge->arg, r, roles);
	return roles;
}

/* ---- Group rows ---- */

/* A group label is a word or three ("Pickup", "Ship To", "Final
 * Destination"), not a sentence: a report title directly above the header
 * is no group row. */
static bool short_label(const char *p, size_t n)
{
	size_t words = 0;
	for (size_t i = 0; i < n; i++)
		words += p[i] != ' ' && (i == 0 || p[i - 1] == ' ');
	return n <= 40 && words <= 3;
}

/* Where group labels stand, per header column: the label's column, or -1.
 * A label spans the columns from its own to the next label, as long as
 * their headers are parts of a group (SHEET_COL_PART: Name, City, ...):
 * "Pickup" over Name / City / State, merged or filled in its first column
 * only.  Returns how many header columns some label spans, 0 when `g` is
 * no group row of `h` (not directly above it, text other than labels, no
 * label spanning two columns). */
static size_t group_spans(const struct sheet_row *g, const struct sheet_row *h, const unsigned char *roles,
			  int *ret_label)
{
	if (g->number + 1 != h->number)
		return 0;
	size_t spanned = 0, widest = 0;
	int label = -1;
	size_t width = 0;
	for (size_t j = 0; j < h->ncells; j++) {
		bool has = j < g->ncells && !blank(g->cells[j], g->lens[j]);
		if (has && (!cell_is_text(g->cells[j], g->lens[j]) || !short_label(g->cells[j], g->lens[j])))
			return 0;
		/* A label repeated over each column of its group continues it. */
		bool same = has && label >= 0 && g->lens[j] == g->lens[label] &&
			    !memcmp(g->cells[j], g->cells[label], g->lens[j]);
		if (has && !same) {
			label = (int)j;
			width = 0;
		}
		if (label >= 0 && !(roles[j] & SHEET_COL_PART))
			label = -1;
		ret_label[j] = label;
		if (label >= 0) {
			spanned++;
			widest = ++width > widest ? width : widest;
		}
	}
	for (size_t j = h->ncells; j < g->ncells; j++)
		if (!blank(g->cells[j], g->lens[j]))
			return 0;   /* a label over no header */
	return widest >= 2 ? spanned : 0;
}

/* Does header text h start with the label's words already ("Pickup City"
 * under "Pickup")? */
static bool starts_with_label(const char *h, size_t hn, const char *l, size_t ln)
{
	while (ln && memchr(" \t", l[ln - 1], 2))
		ln--;
	while (ln && memchr(" \t", *l, 2))
		l++, ln--;
	return hn >= ln && !strncasecmp(h, l, ln) && (hn == ln || !((h[ln] | 0x20) >= 'a' && (h[ln] | 0x20) <= 'z'));
}

/* The header with the group labels joined in ("Pickup Name") into out. */
static int join_group(const struct sheet_row *g, const struct sheet_row *h, const int *label, struct rowbuf *out)
{
	rowbuf_clear(out);
	out->number = h->number;
	for (size_t j = 0; j < h->ncells; j++) {
		int l = label[j];
		bool join = l >= 0 && !blank(h->cells[j], h->lens[j]) &&
			    !starts_with_label(h->cells[j], h->lens[j], g->cells[l], g->lens[l]);
		if (rowbuf_begin_cell(out) ||
		    (join && (rowbuf_append(out, g->cells[l], g->lens[l]) || rowbuf_append(out, " ", 1))) ||
		    rowbuf_append(out, h->cells[j], h->lens[j]) || rowbuf_end_cell(out))
			return -1;
	}
	rowbuf_finish(out);
	return 0;
}

/* ---- The header row ---- */

/* Text cells of a row, and how many of them name a field. */
static void count_named(const struct sheet_row *r, const unsigned char *roles, size_t *ret_text, size_t *ret_named)
{
	*ret_text = *ret_named = 0;
	for (size_t j = 0; j < r->ncells; j++) {
		if (!cell_is_text(r->cells[j], r->lens[j]))
			continue;
		(*ret_text)++;
		*ret_named += (roles[j] & SHEET_COL_FIELD) != 0;
	}
}

static size_t text_cells(const struct sheet_row *r)
{
	size_t n = 0;
	for (size_t j = 0; j < r->ncells; j++)
		n += cell_is_text(r->cells[j], r->lens[j]);
	return n;
}

/* A data-like row below a header: values under two of its headers (one
 * when it has one): a "Page 1 of 3" line under a "From … To …" line is
 * no data. */
static bool data_below(const struct sheet_row *h, const struct sheet_row *d)
{
	size_t headers = 0, values = 0;
	for (size_t j = 0; j < h->ncells; j++) {
		if (blank(h->cells[j], h->lens[j]))
			continue;
		headers++;
		values += j < d->ncells && !blank(d->cells[j], d->lens[j]);
	}
	return values >= (headers < 2 ? headers : 2) && values > 0;
}

/* What candidate i (a queued row) reads as: known outright, a header (at
 * least two text cells, most naming fields, a data-like row below), and
 * whether the row above is its group row (*ret_group). */
struct verdict {
	bool known, header, group;
	size_t named;     /* its cells that name fields (joined with its group row) */
	bool likely;      /* reads as a header but for "most": two cells name fields */
};

/* The row below candidate i, read as a header: is candidate i its group
 * row ("Pickup" and "Delivery" read as headers, but they stand over Name
 * / City / State), and how many of its cells name fields (a header names
 * more than the data under it; a "From … To …" line above the header
 * names less than the header). */
static bool next_is_header_of(struct sheet *s, size_t i, size_t named)
{
	const struct sheet_row *g = &qat(s, i)->row, *h = &qat(s, i + 1)->row;
	bool known;
	unsigned char *roles = judge_row(s, h, &known);
	int *label = roles ? calloc(h->ncells + 1, sizeof(int)) : NULL;
	s->oom |= !label;
	size_t text, below = 0;
	if (label)
		count_named(h, roles, &text, &below);
	bool yes = !label || known || below >= named || group_spans(g, h, roles, label) > 0;
	free(label);
	free(roles);
	return yes;
}

static struct verdict judge_candidate(struct sheet *s, size_t i, struct rowbuf *tmp)
{
	struct verdict v = {0};
	const struct sheet_row *r = &qat(s, i)->row;
	size_t text = 0, named;
	for (size_t j = 0; j < r->ncells && text < 2; j++)
		text += cell_is_text(r->cells[j], r->lens[j]);
	if (text < 2)
		return v;   /* a title, a date line: not worth asking the judge */
	bool known;
	unsigned char *roles = judge_row(s, r, &known);
	int *label = roles ? calloc(r->ncells + 1, sizeof(int)) : NULL;
	if (!label) {
		s->oom = true;
		goto out;
	}
	v.known = known;
	count_named(r, roles, &text, &named);
	bool group = i > 0 && !known && group_spans(&qat(s, i - 1)->row, r, roles, label);
	if (group && join_group(&qat(s, i - 1)->row, r, label, tmp))
		s->oom = true;
	else if (group) {
		unsigned char *joined = judge_row(s, &tmp->row, &known);
		size_t jt, jn;
		s->oom |= !joined;
		if (joined) {
			count_named(&tmp->row, joined, &jt, &jn);
			v.group = true;
			v.known = known;
			named = jn > named ? jn : named;
		}
		free(joined);
	}
	v.named = named;
	v.likely = named >= 2 && i + 1 < s->qlen && data_below(r, &qat(s, i + 1)->row) &&
		   !next_is_header_of(s, i, named);
	v.header = v.likely && named * 2 > text;
out:
	free(label);
	free(roles);
	return v;
}

/* The header is queued row i: the rows before it go above, a group row
 * is joined in, the judge's roles of the result are kept, and counting
 * numbers per column begins.  0, or -1 when out of memory. */
static int take_header(struct sheet *s, size_t i)
{
	while (i-- > 0)
		front_to_above(s);
	const struct sheet_row *h = &qat(s, 0)->row, *g = s->nabove ? &s->above[s->nabove - 1].row : NULL;
	bool known;
	unsigned char *roles = judge_row(s, h, &known);
	int *label = roles ? calloc(h->ncells + 1, sizeof(int)) : NULL;
	int rc = label ? 0 : -1;
	if (!rc && s->judge && g && group_spans(g, h, roles, label))
		rc = join_group(g, h, label, &s->header);
	else if (!rc)
		swap(&s->header, qat(s, 0));
	free(label);
	free(roles);
	s->qhead = (s->qhead + 1) % SHEET_QUEUE;
	s->qlen--;
	h = &s->header.row;
	if (!rc && s->judge && !(s->roles = judge_row(s, h, &known)))
		rc = -1;
	for (size_t j = 0; !rc && s->roles && j < h->ncells; j++)
		s->keyed |= (s->roles[j] & (SHEET_COL_KEY | SHEET_COL_DATE)) != 0;
	size_t n = h->ncells + 1;
	if (!rc && s->judge && (!(s->num_seen = calloc(n, sizeof(size_t))) || !(s->cell_seen = calloc(n, sizeof(size_t)))))
		rc = -1;
	for (size_t k = 0; !rc && k < s->qlen; k++)
		count_numbers(s, &qat(s, k)->row);
	if (!rc && s->eof)
		trim_summary(s);
	return rc;
}

/* The first non-blank rows, read ahead for the decision: on failure
 * before any row, that failure (a static message). */
static enum code fill_scan(struct sheet *s, const char **ret_msg)
{
	const char *smsg = NULL;
	while (s->qlen < SHEET_HEADER_SCAN && read_one(s, &smsg))
		;
	if (s->qlen)
		return CODE_OK;
	if (s->pending) {
		enum code rc = s->pending;
		/* ret_msg must be static: s->msg goes with s. */
		*ret_msg = smsg ? smsg : rc == CODE_CELL_TOO_LONG
			? "a cell of the header row has more than 32,767 characters (Excel's limit)"
			: "the header row holds more text than the expansion limit";
		return rc;
	}
	*ret_msg = "the file has no rows: no header row and no data";
	return CODE_EMPTY_FILE;
}

/* ?headerRow=N: rows before N go above, row N is the header. */
static enum code header_at(struct sheet *s, unsigned n, const char **ret_msg)
{
	for (;;) {
		const char *smsg = NULL;
		if (!s->qlen && !read_one(s, &smsg)) {
			if (s->pending) {
				*ret_msg = smsg ? smsg : "the file cannot be read down to the header row";
				return s->pending;
			}
			snprintf(open_msg, sizeof open_msg, "the header row %u is past the end of the file", n);
			*ret_msg = open_msg;
			return CODE_EMPTY_FILE;
		}
		unsigned at = qat(s, 0)->row.number;
		if (at == n)
			break;
		if (at > n) {
			snprintf(open_msg, sizeof open_msg, "the header row %u is blank; the next row with text is %u",
				 n, at);
			*ret_msg = open_msg;
			return CODE_EMPTY_FILE;
		}
		front_to_above(s);
	}
	while (s->qlen < SHEET_HEADER_SCAN && read_one(s, NULL))
		;
	return CODE_OK;
}

enum code ahead_find_header(struct sheet *s, const struct sheet_options *opts, const char **ret_msg)
{
	s->judge = opts ? opts->judge : NULL;
	if (!s->q && !queue_init(s)) {
		*ret_msg = "out of memory while opening the file";
		return CODE_INTERNAL_ERROR;
	}
	enum code rc;
	size_t pick = 0;
	if (opts && opts->header_row) {
		rc = header_at(s, opts->header_row, ret_msg);
	} else {
		rc = fill_scan(s, ret_msg);
		struct rowbuf tmp;
		rowbuf_init(&tmp, s->row_cap);
		/* A confirmed shape, else the first row that reads as a header,
		 * else the row naming the most fields (two at least: real exports
		 * carry many columns no field takes), else the first row. */
		size_t known = SIZE_MAX, header = SIZE_MAX, likely = SIZE_MAX, most = 0, wide = 0;
		for (size_t i = 0; !rc && s->judge && i < s->qlen && known == SIZE_MAX; i++) {
			struct verdict v = judge_candidate(s, i, &tmp);
			if (v.known)
				known = i;
			else if (v.header && header == SIZE_MAX)
				header = i;
			/* Only a row wider in text than every row above it: a
			 * first row as wide is the header that names little. */
			size_t text = text_cells(&qat(s, i)->row);
			if (v.likely && v.named > most && text > wide) {
				likely = i;
				most = v.named;
			}
			wide = text > wide ? text : wide;
		}
		rowbuf_done(&tmp);
		pick = known != SIZE_MAX ? known : header != SIZE_MAX ? header : likely != SIZE_MAX ? likely : 0;
	}
	if (!rc && (s->oom || take_header(s, pick))) {
		*ret_msg = "out of memory while opening the file";
		rc = CODE_INTERNAL_ERROR;
	}
	for (size_t i = 0; i < s->nabove; i++)
		s->above_rows[i] = &s->above[i].row;
	return rc;
}

/* True when every queued row is a summary row. */
static bool all_summary(struct sheet *s)
{
	for (size_t i = 0; i < s->qlen; i++)
		if (!summary_like(s, &qat(s, i)->row))
			return false;
	return true;
}

enum code ahead_next(struct sheet *s, bool *ret_eof)
{
	*ret_eof = false;
	for (;;) {
		if (!s->qlen && !read_one(s, NULL)) {
			if (s->pending)
				return s->pending;
			if (!s->qlen) {
				*ret_eof = true;
				return CODE_OK;
			}
		}
		/* A summary-like row is data unless only summary rows follow
		 * it: read on until that is known (or the queue is full). */
		if (summary_like(s, &qat(s, 0)->row))
			while (all_summary(s) && read_one(s, NULL))
				;
		if (s->qlen)
			break;
	}
	swap(&s->row, qat(s, 0));
	s->qhead = (s->qhead + 1) % SHEET_QUEUE;
	s->qlen--;
	return CODE_OK;
}

static int copy_row(struct rowbuf *dst, const struct sheet_row *src, size_t cap)
{
	rowbuf_init(dst, cap);
	dst->number = src->number;
	for (size_t j = 0; j < src->ncells; j++)
		if (rowbuf_add_cell(dst, src->cells[j], src->lens[j]))
			return -1;
	rowbuf_finish(dst);
	return 0;
}

size_t sheet_samples(struct sheet *s, const struct sheet_row *const **ret_rows)
{
	*ret_rows = s->sample_rows;
	if (s->sampled || s->err)
		return s->nsamples;
	s->sampled = true;
	while (s->qlen < SHEET_SAMPLE_ROWS && read_one(s, NULL))
		;
	for (size_t i = 0; i < s->qlen && s->nsamples < SHEET_SAMPLE_ROWS; i++) {
		struct rowbuf *dst = &s->samples[s->nsamples];
		if (copy_row(dst, &qat(s, i)->row, SIZE_MAX / 4)) {
			rowbuf_done(dst);
			break;
		}
		s->sample_rows[s->nsamples++] = &dst->row;
	}
	return s->nsamples;
}
