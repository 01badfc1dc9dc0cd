/* Workbook-wide XLSX parts the worksheet needs: the shared string table and
 * the cell styles' number formats (which cells are dates). */
#include <stdlib.h>
#include <string.h>

#include "xlsx_int.h"

static int push_off(struct xsst *sst, size_t off)
{
	if (sst->n == sst->cap) {
		size_t cap = sst->cap ? sst->cap * 2 : 256;
		size_t *v = realloc(sst->offs, cap * sizeof(*v));
		if (!v)
			return -1;
		sst->offs = v;
		sst->cap = cap;
	}
	sst->offs[sst->n++] = off;
	return 0;
}

/* The table is as large as the part's text, which the expansion limit
 * bounds; strings are kept because cells may refer to any of them. */
enum code xsst_load(struct xzip *z, const char *name, struct xsst *sst, const char **ret_msg)
{
	size_t max_bytes = z->lim->max_shared_bytes ? z->lim->max_shared_bytes : z->lim->max_uncompressed;
	buf_init(&sst->pool, max_bytes);
	if (!xzip_has(z, name))
		return CODE_OK;  /* a dangling reference is harmless until a cell uses it */
	struct xpart p;
	if (xpart_open(z, name, &p, ret_msg))
		return CODE_MALFORMED_XLSX;
	int r;
	while ((r = xpart_read(&p, ret_msg)) > 0) {
		if (!xpart_is(&p, XML_READER_TYPE_ELEMENT, "si"))
			continue;
		size_t off = sst->pool.len;
		if (z->lim->max_shared_strings && sst->n >= z->lim->max_shared_strings) {
			*ret_msg = "the workbook's shared string table has more than 1,000,000 entries; save the "
				   "sheet to import on its own as .xlsx or CSV";
			r = -1;
			break;
		}
		if (xpart_text(&p, &sst->pool, true, ret_msg)) {
			if (sst->pool.len + 4096 >= max_bytes)   /* the table's cap, not one cell */
				*ret_msg = "the workbook's shared strings hold more than 16 MB of text; save the sheet "
					   "to import on its own as .xlsx or CSV";
			r = -1;
			break;
		}
		buf_unescape_xstring(&sst->pool, off);
		if (buf_append(&sst->pool, "", 1) || push_off(sst, off)) {
			*ret_msg = "the workbook's shared strings hold more than 16 MB of text; save the sheet to "
				   "import on its own as .xlsx or CSV";
			r = -1;
			break;
		}
	}
	xpart_close(&p);
	return r < 0 ? CODE_MALFORMED_XLSX : CODE_OK;
}

void xsst_free(struct xsst *sst)
{
	buf_done(&sst->pool);
	free(sst->offs);
	memset(sst, 0, sizeof(*sst));
}

#define MAX_NUMFMTS 1024
#define MAX_XFS 65536

struct fmtmap {
	int id[MAX_NUMFMTS];
	uint8_t kind[MAX_NUMFMTS];
	size_t n;
};

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

static int push_xf(struct xstyles *st, uint8_t kind)
{
	if (st->n == MAX_XFS)
		return 0;  /* Excel's own maximum; later styles read as General */
	if (!st->kind && !(st->kind = malloc(MAX_XFS)))
		return -1;
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
				m->kind[m->n++] = (uint8_t)sheet_numfmt_kind(id, code);
			}
		} else if (xpart_is(&p, type, "cellXfs")) {
			in_xfs = type == XML_READER_TYPE_ELEMENT && !xmlTextReaderIsEmptyElement(p.xr);
		} else if (in_xfs && xpart_is(&p, XML_READER_TYPE_ELEMENT, "xf")) {
			if (push_xf(st, kind_of(m, parse_id(xpart_attr(&p, "numFmtId"))))) {
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
	memset(st, 0, sizeof(*st));
}
