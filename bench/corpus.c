/* Corpus reading and scoring (corpus.h). */
#include "corpus.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "import/propose.h"

#define MAX_COLS 128
#define MAX_CELL 512
#define MAX_ROWS 50

struct entry {
	char title[200];
	size_t n;
	char hdr[MAX_COLS][MAX_CELL];
	size_t len[MAX_COLS];
	enum field want[MAX_COLS];
	size_t nrows;
	char cell[MAX_ROWS][MAX_COLS][MAX_CELL / 2];
	size_t clen[MAX_ROWS][MAX_COLS];
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One quoted string with \" \\ \t \xHH \uHHHH escapes into out (cap bytes);
 * returns its length, or -1 when malformed.  *ret_end is past the quote. */
static long unquote(const char *s, char *out, size_t cap, const char **ret_end)
{
	size_t o = 0;
	if (*s++ != '"')
		return -1;
	while (*s && *s != '"' && o + 8 < cap) {
		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		s++;
		if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			out[o++] = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 3;
		} else if (*s == 'u' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0 && hexval(s[3]) >= 0 &&
			   hexval(s[4]) >= 0) {
			int32_t cp = ((hexval(s[1]) * 16 + hexval(s[2])) * 16 + hexval(s[3])) * 16 + hexval(s[4]);
			o += (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)out + o);
			s += 5;
		} else if (*s) {
			out[o++] = *s == 't' ? '\t' : *s;
			s++;
		}
	}
	if (*s != '"')
		return -1;
	out[o] = '\0';
	*ret_end = s + 1;
	return (long)o;
}

static int expected_field(const char *s, enum field *ret)
{
	while (*s == ' ' || *s == '=')
		s++;
	size_t len = strcspn(s, " \r\n");
	if (len == 1 && *s == '-') {
		*ret = FIELD_NONE;
		return 0;
	}
	*ret = field_from_name_n(s, len);
	return *ret == FIELD_NONE ? -1 : 0;
}

static int header_line(struct entry *e, const char *line)
{
	const char *end;
	if (e->n >= MAX_COLS)
		return -1;
	long len = unquote(line, e->hdr[e->n], MAX_CELL, &end);
	if (len < 0 || expected_field(end, &e->want[e->n]))
		return -1;
	e->len[e->n++] = (size_t)len;
	return 0;
}

/* "@ "v1" "v2" ...": one data row; missing trailing values are blank. */
static int values_line(struct entry *e, const char *line)
{
	if (e->nrows >= MAX_ROWS)
		return 0;
	size_t r = e->nrows++, j = 0;
	const char *p = line + 1;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '"')
			break;
		if (j >= MAX_COLS)
			return -1;
		long len = unquote(p, e->cell[r][j], MAX_CELL / 2, &p);
		if (len < 0)
			return -1;
		e->clen[r][j++] = (size_t)len;
	}
	for (; j < MAX_COLS; j++)
		e->cell[r][j][0] = '\0', e->clen[r][j] = 0;
	return *p == '\0' || *p == '\r' || *p == '\n' ? 0 : -1;
}

/* The proposal of one entry, with its data rows unless headers_only.
 * CORPUS_OLD_API builds against a propose.h without values (the "before"
 * figure of docs/benchmarks.md is measured so). */
static void propose_entry(const struct entry *e, bool headers_only, struct proposal *p)
{
	const char *h[MAX_COLS];
	for (size_t i = 0; i < e->n; i++)
		h[i] = e->hdr[i];
#ifdef CORPUS_OLD_API
	(void)headers_only;
	propose_mapping(h, e->len, e->n, p);
#else
	static const char *cells[MAX_ROWS][MAX_COLS];
	static struct sheet_row rows[MAX_ROWS];
	const struct sheet_row *rp[MAX_ROWS];
	for (size_t r = 0; r < e->nrows; r++) {
		for (size_t j = 0; j < e->n; j++)
			cells[r][j] = e->cell[r][j];
		rows[r] = (struct sheet_row){ .number = (unsigned)r + 2, .ncells = e->n, .cells = cells[r],
					      .lens = e->clen[r] };
		rp[r] = &rows[r];
	}
	struct propose_input in = { rp, headers_only ? 0 : e->nrows, NULL, 0 };
	propose_mapping_with(h, e->len, e->n, &in, p);
#endif
}

static const char *name_of(enum field f)
{
	return f == FIELD_NONE ? "-" : field_name(f);
}

/* A file needs no edit when every required field is on the labelled column
 * (or unmapped when the file has none). */
static void score_entry(const struct entry *e, bool headers_only, FILE *log, struct corpus_score *s)
{
	struct proposal p[MAX_COLS];
	propose_entry(e, headers_only, p);
	bool ok = true;
	s->rows++;
	for (size_t i = 0; i < e->n; i++) {
		s->columns++;
		if (p[i].field == e->want[i])
			s->right++;
		else if (log)
			fprintf(log, "  [%s] \"%s\": got %s, want %s\n", e->title, e->hdr[i], name_of(p[i].field),
				name_of(e->want[i]));
		if (field_required(e->want[i])) {
			s->required++;
			s->found += p[i].field == e->want[i];
		}
		if ((field_required(e->want[i]) || field_required(p[i].field)) && p[i].field != e->want[i])
			ok = false;
	}
	s->no_edit += ok;
}

int corpus_score_file(const char *path, bool headers_only, FILE *log, struct corpus_score *ret)
{
	FILE *fp = fopen(path, "r");
	static char line[65536];
	static struct entry e;
	int rc = 0, lineno = 0;
	memset(ret, 0, sizeof(*ret));
	if (!fp) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	e.n = 0;
	while (rc == 0 && fgets(line, sizeof line, fp)) {
		lineno++;
		if (line[0] == '>') {
			if (e.n)
				score_entry(&e, headers_only, log, ret);
			e.n = e.nrows = 0;
			snprintf(e.title, sizeof e.title, "%.*s", (int)strcspn(line + 1, "\r\n"), line + 1);
		} else if (line[0] == '"') {
			rc = header_line(&e, line);
		} else if (line[0] == '@') {
			rc = values_line(&e, line);
		}
	}
	if (rc == 0 && e.n)
		score_entry(&e, headers_only, log, ret);
	if (rc)
		fprintf(stderr, "%s:%d: malformed line\n", path, lineno);
	fclose(fp);
	return rc;
}

void corpus_add(struct corpus_score *a, const struct corpus_score *b)
{
	a->rows += b->rows;
	a->columns += b->columns;
	a->right += b->right;
	a->no_edit += b->no_edit;
	a->required += b->required;
	a->found += b->found;
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
}

void corpus_print(FILE *out, const char *name, const struct corpus_score *s)
{
	fprintf(out, "%-28s %4zu/%-4zu columns (%5.1f%%)  %3zu/%-3zu files no edit (%5.1f%%)  %3zu/%-3zu required found (%5.1f%%)\n",
		name, s->right, s->columns, pct(s->right, s->columns), s->no_edit, s->rows, pct(s->no_edit, s->rows),
		s->found, s->required, pct(s->found, s->required));
}
