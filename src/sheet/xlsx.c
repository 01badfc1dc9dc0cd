/* XLSX package reader: content types (macros), relationships, the workbook
 * (date system, first visible worksheet), then hands the worksheet part to
 * the row stream in xlsx_sheet.c. */
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "xlsx_int.h"

struct rel {
	const char *id, *type, *target;
};

struct rels {
	struct rel *v;
	size_t n;
};

#define MAX_RELS 4096

/* Macro-enabled workbooks, templates, add-ins, binary workbooks, VBA
 * projects and Excel 4 macro sheets all announce themselves here. */
static bool macro_content_type(const char *ct)
{
	return strcasestr(ct, "macroEnabled") || strcasestr(ct, "vbaProject") ||
	       strcasestr(ct, "macrosheet") || strcasestr(ct, "ms-excel.intlmacrosheet");
}

/* A content type only matters for parts that exist: writers such as SheetJS
 * declare a Default for ".bin" as the (macro-enabled) binary workbook type
 * in every package, with no .bin part in it. */
static bool declared_part_exists(struct xzip *z, struct xpart *p)
{
	const char *name = xpart_attr(p, "PartName");
	if (name)
		return xzip_has(z, name[0] == '/' ? name + 1 : name);
	const char *ext = xpart_attr(p, "Extension");
	return ext && xzip_has_extension(z, ext);
}

static enum code check_content_types(struct xzip *z, const char **ret_msg)
{
	struct xpart p;
	if (xpart_open(z, "[Content_Types].xml", &p, ret_msg)) {
		*ret_msg = "the package has no [Content_Types].xml, so it is not a workbook";
		return CODE_MALFORMED_XLSX;
	}
	enum code rc = CODE_OK;
	int r;
	while ((r = xpart_read(&p, ret_msg)) > 0) {
		if (p.type != XML_READER_TYPE_ELEMENT)
			continue;
		const char *ct = xpart_attr(&p, "ContentType");
		if (ct && macro_content_type(ct) && declared_part_exists(z, &p)) {
			/* An .xlsb carries no macros of its own, but its type is the
			 * macro-enabled binary one (PRODUCT §4: MACRO_REJECTED); the
			 * user needs to hear what it is and what to do. */
			*ret_msg = strcasestr(ct, "sheet.binary")
				? "the workbook is a binary .xlsb workbook (its content type is Excel's macro-enabled "
				  "binary format); open it in Excel and save it as .xlsx (Excel Workbook)"
				: "the workbook is macro-enabled (its content type says so); save it as .xlsx (Excel "
				  "Workbook), which keeps the data and drops the macros";
			rc = CODE_MACRO_REJECTED;
			break;
		}
	}
	if (r < 0 && !rc)
		rc = CODE_MALFORMED_XLSX;
	xpart_close(&p);
	return rc;
}

static bool type_is(const char *type, const char *suffix)
{
	size_t n = strlen(type), k = strlen(suffix);
	return n >= k && !strcmp(type + n - k, suffix);
}

/* Reads a .rels part; an absent one is an empty list (callers decide). */
static enum code out_of_memory(const char **ret_msg)
{
	*ret_msg = "out of memory while reading the workbook";
	return CODE_INTERNAL_ERROR;
}

/* An attribute's copy: false (out of memory) only when there was one. */
static bool attr_copy(struct arena *a, struct xpart *p, const char *name, const char **ret)
{
	const char *v = xpart_attr(p, name);
	*ret = v ? arena_strdup(a, v) : NULL;
	return !v || *ret;
}

static enum code load_rels(struct xzip *z, struct arena *a, const char *name, struct rels *out,
			   const char **ret_msg)
{
	if (!name)
		return out_of_memory(ret_msg);
	out->v = arena_alloc(a, MAX_RELS * sizeof(*out->v));
	out->n = 0;
	if (!out->v)
		return out_of_memory(ret_msg);
	if (!xzip_has(z, name))
		return CODE_OK;
	struct xpart p;
	if (xpart_open(z, name, &p, ret_msg))
		return CODE_MALFORMED_XLSX;
	int r;
	while ((r = xpart_read(&p, ret_msg)) > 0) {
		if (!xpart_is(&p, XML_READER_TYPE_ELEMENT, "Relationship") || out->n == MAX_RELS)
			continue;
		const char *mode = xpart_attr(&p, "TargetMode");
		if (mode && !strcasecmp(mode, "External"))
			continue;
		struct rel *rl = &out->v[out->n];
		if (!attr_copy(a, &p, "Id", &rl->id) || !attr_copy(a, &p, "Type", &rl->type) ||
		    !attr_copy(a, &p, "Target", &rl->target)) {
			xpart_close(&p);
			return out_of_memory(ret_msg);
		}
		if (rl->id && rl->type && rl->target)
			out->n++;
	}
	xpart_close(&p);
	return r < 0 ? CODE_MALFORMED_XLSX : CODE_OK;
}

/* Resolves a relationship target against the part that holds it: absolute
 * targets start at the package root, "." and ".." segments are applied. */
static const char *resolve(struct arena *a, const char *source, const char *target)
{
	const char *slash = strrchr(source, '/');
	size_t dir = target[0] == '/' ? 0 : slash ? (size_t)(slash - source) + 1 : 0;
	char *joined = arena_printf(a, "%.*s%s", (int)dir, source, target[0] == '/' ? target + 1 : target);
	char *out = joined ? arena_alloc(a, strlen(joined) + 1) : NULL;
	if (!out)
		return NULL;   /* out of memory: the caller says so */
	size_t o = 0;
	for (char *seg = joined; *seg;) {
		char *end = strchr(seg, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (o > 0 && out[o - 1] == '/')
				o--;
			while (o > 0 && out[o - 1] != '/')
				o--;
		} else if (!(n == 1 && seg[0] == '.') && n > 0) {
			memcpy(out + o, seg, n);
			o += n;
			if (end)
				out[o++] = '/';
		}
		seg += n + (end ? 1 : 0);
	}
	out[o] = '\0';
	return out;
}

/* "xl/workbook.xml" -> "xl/_rels/workbook.xml.rels" */
static const char *rels_of(struct arena *a, const char *part)
{
	const char *slash = strrchr(part, '/');
	size_t dir = slash ? (size_t)(slash - part) + 1 : 0;
	return arena_printf(a, "%.*s_rels/%s.rels", (int)dir, part, part + dir);
}

static const struct rel *find_type(const struct rels *rs, const char *suffix)
{
	for (size_t i = 0; i < rs->n; i++)
		if (type_is(rs->v[i].type, suffix))
			return &rs->v[i];
	return NULL;
}

static const struct rel *find_id(const struct rels *rs, const char *id)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].id, id))
			return &rs->v[i];
	return NULL;
}

static bool truthy(const char *v)
{
	return v && (!strcmp(v, "1") || !strcasecmp(v, "true"));
}

#define MAX_SHEETS 256

/* The visible worksheets, in workbook order: names and parts. */
struct sheet_list {
	const char *name[MAX_SHEETS], *part[MAX_SHEETS];
	size_t n;
};

/* One <sheet> element: a visible worksheet is added to the list (chart
 * and dialog sheets hold no rows: skipped).  False when out of memory. */
static bool add_sheet(struct xpart *p, struct arena *a, const char *wb, const struct rels *rels,
		      struct sheet_list *out)
{
	const char *state = xpart_attr(p, "state");
	if ((state && strcmp(state, "visible")) || out->n == MAX_SHEETS)
		return true;
	const char *id = xpart_attr(p, "id"), *name = xpart_attr(p, "name");
	const struct rel *rl = id ? find_id(rels, id) : NULL;
	if (!rl || !type_is(rl->type, "/worksheet"))
		return true;
	out->part[out->n] = resolve(a, wb, rl->target);
	out->name[out->n] = arena_strdup(a, name ? name : "");
	if (!out->part[out->n] || !out->name[out->n])
		return false;
	out->n++;
	return true;
}

/* Finds the date system and the visible worksheets, in workbook order. */
static enum code read_workbook(struct xzip *z, struct arena *a, const char *wb,
			       const struct rels *rels, bool *ret_1904, struct sheet_list *ret_sheets,
			       const char **ret_msg)
{
	struct xpart p;
	if (xpart_open(z, wb, &p, ret_msg))
		return CODE_MALFORMED_XLSX;
	ret_sheets->n = 0;
	int r;
	while ((r = xpart_read(&p, ret_msg)) > 0) {
		if (xpart_is(&p, XML_READER_TYPE_ELEMENT, "workbookPr")) {
			*ret_1904 = truthy(xpart_attr(&p, "date1904"));
		} else if (xpart_is(&p, XML_READER_TYPE_ELEMENT, "sheet")) {
			if (!add_sheet(&p, a, wb, rels, ret_sheets)) {
				xpart_close(&p);
				return out_of_memory(ret_msg);
			}
		} else if (xpart_is(&p, XML_READER_TYPE_END_ELEMENT, "sheets")) {
			break;
		}
	}
	xpart_close(&p);
	if (r < 0)
		return CODE_MALFORMED_XLSX;
	if (!ret_sheets->n) {
		*ret_msg = "the workbook has no visible worksheet";
		return CODE_EMPTY_FILE;
	}
	return CODE_OK;
}

/* Everything up to the worksheet stream; the arena holds names and rels. */
static enum code open_package(struct xzip *z, struct arena *a, const char **ret_sst,
			      struct xstyles *st, bool *date1904, struct sheet_list *ret_sheets,
			      const char **ret_msg)
{
	enum code rc = check_content_types(z, ret_msg);
	if (rc)
		return rc;
	struct rels root, wbrels;
	if ((rc = load_rels(z, a, "_rels/.rels", &root, ret_msg)))
		return rc;
	const struct rel *main = find_type(&root, "/officeDocument");
	const char *wb = main ? resolve(a, "", main->target) : "xl/workbook.xml";
	if (!wb)
		return out_of_memory(ret_msg);
	if (!xzip_has(z, wb)) {
		*ret_msg = "the package has no workbook part";
		return CODE_MALFORMED_XLSX;
	}
	if ((rc = load_rels(z, a, rels_of(a, wb), &wbrels, ret_msg)))
		return rc;
	if ((rc = read_workbook(z, a, wb, &wbrels, date1904, ret_sheets, ret_msg)))
		return rc;
	const struct rel *strings = find_type(&wbrels, "/sharedStrings");
	const char *part = strings ? resolve(a, wb, strings->target) : NULL;
	if (strings && !part)
		return out_of_memory(ret_msg);
	*ret_sst = part;  /* read lazily, by the worksheet stream */
	const struct rel *styles = find_type(&wbrels, "/styles");
	part = styles ? resolve(a, wb, styles->target) : NULL;
	if (styles && !part)
		return out_of_memory(ret_msg);
	if (styles && (rc = xstyles_load(z, part, st, ret_msg)))
		return rc;
	return CODE_OK;
}

/* The list's names as malloc'd copies for the sheet (it owns them). */
static enum code copy_names(const struct sheet_list *l, struct xlsx_choice *c, const char **ret_msg)
{
	c->names = calloc(l->n + 1, sizeof(char *));
	if (!c->names)
		return out_of_memory(ret_msg);
	for (size_t i = 0; i < l->n; i++) {
		if (!(c->names[i] = strdup(l->name[i])))
			return out_of_memory(ret_msg);
		c->nnames = i + 1;
	}
	return CODE_OK;
}

/* The index of the worksheet chosen by name (exact, then without case),
 * or -1. */
static int by_name(const struct sheet_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return (int)i;
	for (size_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->name[i], name))
			return (int)i;
	return -1;
}

enum code xlsx_reader_open(const char *data, size_t len, const struct sheet_limits *lim,
			   struct sheet_info *info, struct xlsx_choice *c, struct sheet_reader **ret,
			   const char **ret_msg)
{
	info->format = SHEET_XLSX;
	info->encoding = "xlsx";
	info->delimiter = 0;
	xml_init();
	struct xzip z;
	enum code rc = xzip_open(&z, data, len, lim, ret_msg);
	if (rc)
		return rc;
	struct xstyles st = {0};
	bool date1904 = false;
	const char *sst = NULL;
	struct sheet_list *sheets = NULL;
	struct arena *a = arena_try_new();
	if (a)
		sheets = arena_alloc(a, sizeof(*sheets));
	rc = a && sheets ? open_package(&z, a, &sst, &st, &date1904, sheets, ret_msg) : out_of_memory(ret_msg);
	if (!rc && !c->names)
		rc = copy_names(sheets, c, ret_msg);
	int pick = c->index;
	if (!rc && c->name && (pick = by_name(sheets, c->name)) < 0)
		rc = CODE_SHEET_NOT_FOUND;
	if (!rc && (size_t)pick >= sheets->n)
		pick = 0;
	if (rc) {
		xstyles_free(&st);
		xzip_close(&z);
	} else {
		c->index = pick;
		rc = xsheet_open(&z, sheets->part[pick], sst, &st, date1904, ret, ret_msg);
	}
	arena_free(a);
	return rc;
}
