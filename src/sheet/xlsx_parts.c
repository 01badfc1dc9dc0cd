/* Workbook-wide XLSX parts the worksheet needs: the shared string table and
 * the cell styles' number formats (which cells are dates). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/spool.h"
#include "xlsx_int.h"

/* Appends the offset of string n (the window's next). */
static int push_off(struct xsst *sst, size_t off)
{
	size_t k = sst->n - sst->base_n;
	if (k == sst->cap) {
		size_t cap = sst->cap ? sst->cap * 2 : 256;
		size_t *v = realloc(sst->offs, cap * sizeof(*v));
		if (!v)
			return -1;
		sst->offs = v;
		sst->cap = cap;
	}
	sst->offs[k] = off;
	sst->n++;
	return 0;
}

/* Static: a message may outlive the table (a header that cannot be read
 * frees the reader before the caller sees why).  Without a spool directory
 * the caps are sheet_limits_default's. */
static const char *count_msg(const struct xsst *sst)
{
	return sst->spool_dir
		? "the workbook's shared string table has more entries than LOADLINE_MAX_ROWS allows (32 a row, "
		  "1,000,000 at least); save the sheet to import on its own as CSV (which has no such table), or split it"
		: "the workbook's shared string table has more than 1,000,000 entries; save the sheet to import on "
		  "its own as CSV (which has no such table), or split it";
}

static const char *bytes_msg(const struct xsst *sst)
{
	return sst->spool_dir
		? "the workbook's shared strings hold more text than the expansion limit (4 KB a row of "
		  "LOADLINE_MAX_ROWS, 50 MB at least); save the sheet to import on its own as CSV (which has no such "
		  "table), or split it"
		: "the workbook's shared strings hold more than 16 MB of text; save the sheet to import on its own "
		  "as CSV (which has no such table), or split it";
}

/* Whether the table's text could take n more bytes (the window and what
 * went to the spool files count alike). */
static bool has_room(const struct xsst *sst, size_t n)
{
	return sst->base_off + sst->pool.len <= sst->max_bytes &&
	       n <= sst->max_bytes - (size_t)sst->base_off - sst->pool.len;
}

/* Moves the window (whole strings only: called between two) to the spool
 * files, which are made at the first call. */
static int spill(struct xsst *sst)
{
	if (!sst->cache) {
		sst->cache = calloc(XSST_CACHE_SLOTS, sizeof(*sst->cache));
		if (!sst->cache || spool_open(&sst->text, sst->spool_dir, SIZE_MAX / 2) ||
		    spool_open(&sst->offsets, sst->spool_dir, SIZE_MAX / 2))
			return -1;
	}
	size_t k = sst->n - sst->base_n;
	for (size_t i = 0; i < k; i++)
		sst->offs[i] += (size_t)sst->base_off;   /* offsets in the text file */
	_Static_assert(sizeof(size_t) == sizeof(uint64_t), "offsets are written as uint64_t");
	if (spool_write(&sst->text, sst->pool.data, sst->pool.len) ||
	    spool_write(&sst->offsets, sst->offs, k * sizeof(*sst->offs)))
		return -1;
	sst->base_off += sst->pool.len;
	sst->base_n = sst->n;
	buf_clear(&sst->pool);
	sst->done = 0;
	return 0;
}

/* SAX callbacks: <si> at any depth starts a string (a nested one is part
 * of it); its text is the text inside <t> elements, phonetic runs (<rPh>)
 * left out, as xpart_text(runs = true) reads it. */
static void sst_start(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
		      int nns, const xmlChar **ns, int nattrs, int ndefaulted, const xmlChar **attrs)
{
	(void)prefix;
	(void)uri;
	(void)nns;
	(void)ns;
	(void)nattrs;
	(void)ndefaulted;
	(void)attrs;
	struct xsst *sst = ctx;
	int d = ++sst->depth;
	const char *name = (const char *)local;
	if (!sst->si) {
		if (strcmp(name, "si"))
			return;
		if (sst->max_strings && sst->n >= sst->max_strings) {
			xsax_fail(&sst->part, count_msg(sst));
			return;
		}
		sst->si = d;
		sst->cur = sst->pool.len;
	} else if (!sst->rph && !strcmp(name, "rPh")) {
		sst->rph = d;
	} else if (!sst->t && !strcmp(name, "t")) {
		sst->t = d;
	}
}

static void sst_end(void *ctx, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
	(void)local;
	(void)prefix;
	(void)uri;
	struct xsst *sst = ctx;
	int d = sst->depth--;
	if (d == sst->rph)
		sst->rph = 0;
	if (d == sst->t)
		sst->t = 0;
	if (d != sst->si)
		return;
	sst->si = 0;
	buf_unescape_xstring(&sst->pool, sst->cur);
	if (!has_room(sst, 1) || buf_append(&sst->pool, "", 1) || push_off(sst, sst->cur)) {
		xsax_fail(&sst->part, bytes_msg(sst));
		return;
	}
	sst->done = sst->pool.len;
	if (sst->spill_at && sst->pool.len >= sst->spill_at && spill(sst)) {
		sst->io_failed = true;
		xsax_fail(&sst->part, "the workbook's shared strings could not be written to LOADLINE_SPOOL_DIR "
			  "(is its disk full?); the import is tried again later");
	}
}

static void sst_text(void *ctx, const xmlChar *s, int len)
{
	struct xsst *sst = ctx;
	if (sst->si && sst->t && !sst->rph &&
	    (!has_room(sst, (size_t)len) || buf_append(&sst->pool, s, (size_t)len)))
		xsax_fail(&sst->part, bytes_msg(sst));
}

/* The table is as large as the part's text, which the caps bound; strings
 * are kept because cells may refer to any of them.  Nothing is parsed
 * here: xsst_get parses as far as a cell needs. */
enum code xsst_open(struct xzip *z, const char *name, struct xsst *sst, const char **ret_msg)
{
	memset(sst, 0, sizeof(*sst));
	sst->text.fd = sst->offsets.fd = -1;
	sheet_shared_caps(z->lim, &sst->max_strings, &sst->max_bytes);
	buf_init(&sst->pool, sst->max_bytes);
	if ((sst->spool_dir = z->lim->spool_dir))
		sst->spill_at = z->lim->sst_spill_bytes ? z->lim->sst_spill_bytes : XSST_SPILL_BYTES;
	sst->complete = true;
	if (!name || !xzip_has(z, name))
		return CODE_OK;  /* a dangling reference is harmless until a cell uses it */
	sst->sax.startElementNs = sst_start;
	sst->sax.endElementNs = sst_end;
	sst->sax.characters = sst_text;
	sst->sax.cdataBlock = sst_text;
	sst->sax.ignorableWhitespace = sst_text;
	if (xsax_open(z, name, &sst->part, &sst->sax, sst, ret_msg))
		return CODE_MALFORMED_XLSX;
	sst->open = true;
	sst->complete = false;
	return CODE_OK;
}

/* Parses chunks until string i exists or the part ends or fails. */
static void sst_parse_to(struct xsst *sst, size_t i)
{
	while (i >= sst->n && !sst->complete && !sst->err) {
		const char *msg;
		int r = xsax_feed(&sst->part, &msg);
		if (r < 0)
			sst->err = msg;
		else if (r == 0)
			sst->complete = true;
	}
	if ((sst->complete || sst->err) && sst->open) {
		xsax_close(&sst->part);
		sst->open = false;
	}
}

static int pread_all(int fd, void *p, size_t n, uint64_t at)
{
	char *c = p;
	while (n > 0) {
		ssize_t r = pread(fd, c, n, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
		at += (uint64_t)r;
	}
	return 0;
}

/* String i < base_n, from the cache or the spool files. */
static enum code spilled_get(struct xsst *sst, size_t i, const char **ret_s, size_t *ret_len,
			     const char **ret_msg)
{
	struct xsst_cached *c = &sst->cache[i % XSST_CACHE_SLOTS];
	if (c->idx1 == i + 1) {
		*ret_s = c->text;
		*ret_len = c->len;
		return CODE_OK;
	}
	uint64_t off[2] = {0, sst->base_off};   /* string i's offset, and the next one's */
	size_t n = i + 1 < sst->base_n ? 2 : 1;
	if (pread_all(sst->offsets.fd, off, n * sizeof(*off), (uint64_t)i * sizeof(*off)) || off[1] <= off[0])
		goto failed;
	size_t len = (size_t)(off[1] - off[0] - 1);
	if (len >= sst->scratch_cap) {
		/* len is at most the table's text, which the caps bound */
		char *p = realloc(sst->scratch, len + 1);
		if (!p)
			goto failed;
		sst->scratch = p;
		sst->scratch_cap = len + 1;
	}
	if (len && pread_all(sst->text.fd, sst->scratch, len, off[0]))
		goto failed;
	sst->scratch[len] = 0;
	if (len < sizeof c->text) {
		c->idx1 = i + 1;
		c->len = (uint32_t)len;
		memcpy(c->text, sst->scratch, len);
		c->text[len] = 0;
	}
	*ret_s = sst->scratch;
	*ret_len = len;
	return CODE_OK;
failed:
	*ret_msg = "the workbook's shared strings could not be read back from LOADLINE_SPOOL_DIR; "
		   "the import is tried again later";
	return CODE_SERVICE_UNAVAILABLE;
}

enum code xsst_get(struct xsst *sst, size_t i, const char **ret_s, size_t *ret_len,
		   const char **ret_msg)
{
	sst_parse_to(sst, i);
	if (i < sst->base_n)
		return spilled_get(sst, i, ret_s, ret_len, ret_msg);
	if (i < sst->n) {
		size_t k = i - sst->base_n;
		size_t off = sst->offs[k];
		/* Not pool.len: the parse may have stopped inside the next <si>. */
		size_t end = i + 1 < sst->n ? sst->offs[k + 1] : sst->done;
		*ret_s = sst->pool.data + off;
		*ret_len = end - off - 1;
		return CODE_OK;
	}
	*ret_msg = sst->err ? sst->err : "a cell refers to a shared string that does not exist";
	return sst->io_failed ? CODE_SERVICE_UNAVAILABLE : CODE_MALFORMED_XLSX;
}

enum code xsst_finish(struct xsst *sst, const char **ret_msg)
{
	sst_parse_to(sst, SIZE_MAX);
	if (sst->err) {
		*ret_msg = sst->err;
		return sst->io_failed ? CODE_SERVICE_UNAVAILABLE : CODE_MALFORMED_XLSX;
	}
	return CODE_OK;
}

void xsst_free(struct xsst *sst)
{
	if (sst->open)
		xsax_close(&sst->part);
	buf_done(&sst->pool);
	free(sst->scratch);
	free(sst->offs);
	free(sst->cache);
	spool_close(&sst->text);
	spool_close(&sst->offsets);
	memset(sst, 0, sizeof(*sst));
	sst->text.fd = sst->offsets.fd = -1;
}

#define MAX_NUMFMTS 1024
#define MAX_XFS 65536

struct fmtmap {
	int id[MAX_NUMFMTS];
	uint8_t kind[MAX_NUMFMTS];
	uint16_t affix[MAX_NUMFMTS];   /* 0, or 1 + index into the styles' affixes */
	size_t n;
};

/* Keeps a custom format's affixes (sheet_numfmt_affix) for its styles:
 * 0 when it has none, else 1 + their index; 0 when out of memory. */
static uint16_t keep_affix(struct xstyles *st, const char *code)
{
	char pre[SHEET_AFFIX_MAX], suf[SHEET_AFFIX_MAX];
	if (!sheet_numfmt_affix(code, pre, suf))
		return 0;
	if (!st->affixes && !(st->affixes = calloc(MAX_NUMFMTS, sizeof(*st->affixes))))
		return 0;
	memcpy(st->affixes[st->naffixes][0], pre, SHEET_AFFIX_MAX);
	memcpy(st->affixes[st->naffixes][1], suf, SHEET_AFFIX_MAX);
	return (uint16_t)(++st->naffixes);
}

static uint16_t affix_of(const struct fmtmap *m, int id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return m->affix[i];
	return 0;
}

static int parse_id(const char *s)
{
	if (!s)
		return -1;
	char *end;
	long v = strtol(s, &end, 10);
	return end != s && !*end && v >= 0 && v < 100000 ? (int)v : -1;
}

static uint8_t kind_of(const struct fmtmap *m, int id)
{
	/* A custom code for an id (even a built-in one) wins. */
	for (size_t i = 0; i < m->n; i++)
		if (m->id[i] == id)
			return m->kind[i];
	return (uint8_t)sheet_numfmt_is_date(id, NULL);
}

static int push_xf(struct xstyles *st, uint8_t kind, uint16_t affix)
{
	if (st->n == MAX_XFS)
		return 0;  /* Excel's own maximum; later styles read as General */
	if (!st->kind && !(st->kind = malloc(MAX_XFS)))
		return -1;
	if (!st->affix_of && !(st->affix_of = malloc(MAX_XFS * sizeof(uint16_t))))
		return -1;
	st->affix_of[st->n] = affix;
	st->kind[st->n++] = kind;
	return 0;
}

enum code xstyles_load(struct xzip *z, const char *name, struct xstyles *st, const char **ret_msg)
{
	if (!xzip_has(z, name))
		return CODE_OK;
	struct xpart p;
	if (xpart_open(z, name, &p, ret_msg))
		return CODE_MALFORMED_XLSX;
	struct fmtmap *m = calloc(1, sizeof(*m));
	if (!m) {
		xpart_close(&p);
		*ret_msg = "out of memory while reading the workbook's styles";
		return CODE_INTERNAL_ERROR;
	}
	bool in_xfs = false;
	int r;
	while ((r = xpart_read(&p, ret_msg)) > 0) {
		int type = p.type;
		if (xpart_is(&p, XML_READER_TYPE_ELEMENT, "numFmt") && m->n < MAX_NUMFMTS) {
			int id = parse_id(xpart_attr(&p, "numFmtId"));
			const char *code = xpart_attr(&p, "formatCode");
			if (id >= 0 && code) {
				m->id[m->n] = id;
				m->affix[m->n] = keep_affix(st, code);
				m->kind[m->n++] = (uint8_t)sheet_numfmt_kind(id, code);
			}
		} else if (xpart_is(&p, type, "cellXfs")) {
			in_xfs = type == XML_READER_TYPE_ELEMENT && !xmlTextReaderIsEmptyElement(p.xr);
		} else if (in_xfs && xpart_is(&p, XML_READER_TYPE_ELEMENT, "xf")) {
			int id = parse_id(xpart_attr(&p, "numFmtId"));
			if (push_xf(st, kind_of(m, id), affix_of(m, id))) {
				r = -1;
				*ret_msg = "out of memory";
				break;
			}
		}
	}
	free(m);
	xpart_close(&p);
	return r < 0 ? CODE_MALFORMED_XLSX : CODE_OK;
}

void xstyles_free(struct xstyles *st)
{
	free(st->kind);
	free(st->affix_of);
	free(st->affixes);
	memset(st, 0, sizeof(*st));
}
