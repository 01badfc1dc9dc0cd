/* Bounded zip access for XLSX: declared sizes are checked before
 * anything is inflated, and actual inflated bytes are counted while reading,
 * because a hostile archive's headers can lie. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xlsx_int.h"

static bool ends_with_nocase(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* A worksheet, wherever the package keeps it ("xl/worksheets/sheet1.xml",
 * "worksheets/sheet1.xml" in POI's minimal packages): its declared size is
 * not held against it, because worksheets are streamed and the reader stops
 * at the row limit, so a large legitimate sheet is TOO_MANY_ROWS rather than
 * "zip bomb?" (the bytes actually inflated always count). */
static bool is_worksheet(const char *name)
{
	for (const char *p = name; (p = strcasestr(p, "worksheets")); p++)
		if ((p == name || p[-1] == '/' || p[-1] == '\\') && (p[10] == '/' || p[10] == '\\'))
			return true;
	return false;
}

/* Entry names in the order compare_names sorts them. */
static int compare_names(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	for (;; x++, y++) {
		int cx = tolower((unsigned char)(*x == '\\' ? '/' : *x));
		int cy = tolower((unsigned char)(*y == '\\' ? '/' : *y));
		if (cx != cy || !cx)
			return cx - cy;
	}
}

/* Two entries of one name (without regard to case, '\\' read as '/', as
 * parts are looked up): which copy a reader takes differs between readers
 * (libzip and Python take the last, others the first), so a package like
 * that can show one thing to a person and another to us. */
static enum code check_duplicates(struct xzip *z, zip_int64_t n, const char **ret_msg)
{
	const char **names = malloc((size_t)(n ? n : 1) * sizeof(*names));
	if (!names) {
		*ret_msg = "out of memory while reading the workbook";
		return CODE_INTERNAL_ERROR;
	}
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		names[i] = name ? name : "";
	}
	qsort(names, (size_t)n, sizeof(*names), compare_names);
	bool dup = false;
	for (zip_int64_t i = 1; i < n && !dup; i++)
		dup = !compare_names(&names[i - 1], &names[i]);
	free(names);
	if (dup) {
		*ret_msg = "the package has two parts of the same name (corrupt or hostile); open it in Excel and save it again";
		return CODE_MALFORMED_XLSX;
	}
	return CODE_OK;
}

/* Declared sizes, before anything is inflated: no part but a worksheet,
 * and not all of them together, may declare more than the budget.  No bare
 * ratio is judged (docs/sheet.md says why): the budget bounds the work. */
static enum code check_entries(struct xzip *z, const char **ret_msg)
{
	zip_int64_t n = zip_get_num_entries(z->za, 0);
	if (n < 0 || n > XZIP_MAX_ENTRIES) {
		*ret_msg = "the package has too many parts";
		return CODE_MALFORMED_XLSX;
	}
	uint64_t total = 0;
	for (zip_int64_t i = 0; i < n; i++) {
		zip_stat_t st;
		if (zip_stat_index(z->za, (zip_uint64_t)i, 0, &st) ||
		    (st.valid & (ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)) !=
			    (ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)) {
			*ret_msg = "the zip directory is corrupt";
			return CODE_MALFORMED_XLSX;
		}
		if (ends_with_nocase(st.name, "vbaProject.bin") ||
		    ends_with_nocase(st.name, "vbaProjectSignature.bin")) {
			*ret_msg = "the workbook contains a VBA project (macros); save it as .xlsx (Excel Workbook), "
				   "which keeps the data and drops the macros";
			return CODE_MACRO_REJECTED;
		}
		if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE) {
			*ret_msg = "the workbook is password-protected (encrypted zip entries)";
			return CODE_MALFORMED_XLSX;
		}
		if (is_worksheet(st.name))
			continue;
		if (st.size > z->lim->max_uncompressed) {
			*ret_msg = "a part of the workbook expands past the size limit (zip bomb?)";
			return CODE_MALFORMED_XLSX;
		}
		total += st.size;
	}
	if (total > z->lim->max_uncompressed) {
		*ret_msg = "the workbook expands past the size limit (zip bomb?)";
		return CODE_MALFORMED_XLSX;
	}
	return check_duplicates(z, n, ret_msg);
}

enum code xzip_open(struct xzip *z, const char *data, size_t len,
		    const struct sheet_limits *lim, const char **ret_msg)
{
	memset(z, 0, sizeof(*z));
	z->lim = lim;
	z->file_len = len;
	if (sniff_ole2_encrypted((const unsigned char *)data, len)) {
		*ret_msg = "the workbook is password-protected; remove the password and save it again";
		return CODE_MALFORMED_XLSX;
	}
	zip_error_t err;
	zip_error_init(&err);
	zip_source_t *src = zip_source_buffer_create(data, len, 0, &err);
	if (src)
		/* No ZIP_CHECKCONS: packages whose local headers differ slightly
		 * from the central directory (a time stamp, "version needed") are
		 * read by Excel, unzip, Python and POI; the bomb limits are checked
		 * on the central directory and again while inflating. */
		z->za = zip_open_from_source(src, ZIP_RDONLY, &err);
	zip_error_fini(&err);
	if (!z->za) {
		zip_source_free(src);
		*ret_msg = "the file is not a valid zip package (truncated or corrupt)";
		return CODE_MALFORMED_XLSX;
	}
	enum code rc = check_entries(z, ret_msg);
	if (rc)
		xzip_close(z);
	return rc;
}

void xzip_close(struct xzip *z)
{
	if (z->za)
		zip_discard(z->za);
	z->za = NULL;
	if (z->inflater)
		libdeflate_free_decompressor(z->inflater);
	z->inflater = NULL;
}

/* Same name with '\\' read as '/', ignoring ASCII case. */
static bool same_part_name(const char *entry, const char *name)
{
	for (; *entry && *name; entry++, name++) {
		char a = *entry == '\\' ? '/' : *entry;
		if (tolower((unsigned char)a) != tolower((unsigned char)*name))
			return false;
	}
	return !*entry && !*name;
}

/* The entry of a part, also when the package names it with backslashes
 * ("xl\\workbook.xml", written by some report exporters; Excel and unzip
 * read them). */
static zip_int64_t locate(struct xzip *z, const char *name)
{
	zip_int64_t idx = zip_name_locate(z->za, name, ZIP_FL_NOCASE);
	if (idx >= 0)
		return idx;
	zip_int64_t n = zip_get_num_entries(z->za, 0);
	for (zip_int64_t i = 0; i < n; i++) {
		const char *e = zip_get_name(z->za, (zip_uint64_t)i, 0);
		if (e && strchr(e, '\\') && same_part_name(e, name))
			return i;
	}
	return -1;
}

bool xzip_has(struct xzip *z, const char *name)
{
	return locate(z, name) >= 0;
}

/* Prologue bytes scanned for a DTD: XML allows one only before the root
 * element, which every OOXML writer puts in the first few hundred bytes. */
#define DTD_SCAN_WINDOW 4096

/* OOXML never has a DTD: refusing "<!DOCTYPE" before libxml2 sees it means
 * no entity declaration is ever parsed, let alone expanded.  (Parts in
 * UTF-16 do not match here; xpart_read refuses their DTD node instead.) */
static bool declares_dtd(struct xentry *e, const char *p, size_t n)
{
	static const char pat[] = "<!DOCTYPE";
	const size_t k = sizeof(pat) - 1;
	char win[16 + 64];
	for (size_t i = 0; i < n; i += 64) {
		size_t m = n - i < 64 ? n - i : 64;
		memcpy(win, e->tail, e->tail_len);
		memcpy(win + e->tail_len, p + i, m);
		size_t wl = e->tail_len + m;
		if (memmem(win, wl, pat, k))
			return true;
		e->tail_len = wl < k - 1 ? wl : k - 1;
		memcpy(e->tail, win + wl - e->tail_len, e->tail_len);
	}
	return false;
}

bool xzip_has_extension(struct xzip *z, const char *ext)
{
	zip_int64_t n = zip_get_num_entries(z->za, 0);
	size_t k = strlen(ext);
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z->za, (zip_uint64_t)i, 0);
		size_t len = name ? strlen(name) : 0;
		if (len > k && name[len - k - 1] == '.' && !strcasecmp(name + len - k, ext))
			return true;
	}
	return false;
}

/* Counts n freshly inflated bytes against the limits (and scans the first
 * ones for a DTD); -1 with z->err set when a limit is passed. */
static int account(struct xentry *e, const char *p, size_t n)
{
	struct xzip *z = e->z;
	if (e->inflated < DTD_SCAN_WINDOW && declares_dtd(e, p, n)) {
		z->err = "the workbook's XML declares a DTD or entities, which XLSX never does";
		return -1;
	}
	e->inflated += n;
	z->inflated += n;
	if (e->inflated > e->size) {
		z->err = "a part of the workbook is larger than its zip header says (corrupt or hostile)";
		return -1;
	}
	if (z->inflated > z->lim->max_uncompressed) {
		z->err = "the workbook expands past the size limit (zip bomb?)";
		return -1;
	}
	return 0;
}

int xentry_advance(struct xentry *e, size_t len)
{
	size_t n = e->size - e->pos < len ? e->size - e->pos : len;
	if (n && account(e, e->mem + e->pos, n))
		return -1;
	e->pos += n;
	return (int)n;
}

/* The read callback handed to libxml2: inflates and enforces the limits on
 * the bytes actually produced. */
int xentry_read(void *ctx, char *out, int len)
{
	struct xentry *e = ctx;
	if (len <= 0)
		return 0;
	if (e->mem) {
		const char *p = e->mem + e->pos;
		int n = xentry_advance(e, (size_t)len);
		if (n > 0)
			memcpy(out, p, (size_t)n);
		return n;
	}
	zip_int64_t n = zip_fread(e->zf, out, (zip_uint64_t)len);
	if (n < 0) {
		e->z->err = "a part of the workbook is corrupt (bad compressed data or checksum)";
		return -1;
	}
	return account(e, out, (size_t)n) ? -1 : (int)n;
}

/* Inflates a small deflated (or stored) entry whole with libdeflate.  Any
 * doubt (a short read, bad data, a size or CRC-32 other than declared)
 * leaves e->mem NULL: the entry is then streamed through libzip, which
 * finds and reports the same fault as before. */
static void inflate_whole(struct xzip *z, zip_uint64_t idx, const zip_stat_t *st, struct xentry *e)
{
	const zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC;
	if ((st->valid & need) != need || st->size > XZIP_WHOLE_MAX || st->comp_size > XZIP_WHOLE_MAX ||
	    (st->comp_method != ZIP_CM_DEFLATE && st->comp_method != ZIP_CM_STORE))
		return;
	if (st->comp_method == ZIP_CM_DEFLATE && !z->inflater && !(z->inflater = libdeflate_alloc_decompressor()))
		return;
	zip_file_t *zf = zip_fopen_index(z->za, idx, ZIP_FL_COMPRESSED);
	if (!zf)
		return;
	size_t clen = (size_t)st->comp_size, size = (size_t)st->size;
	char *comp = malloc(clen ? clen : 1), *out = malloc(size ? size : 1);
	char extra;
	bool ok = comp && out && zip_fread(zf, comp, clen) == (zip_int64_t)clen && zip_fread(zf, &extra, 1) == 0;
	zip_fclose(zf);
	if (ok && st->comp_method == ZIP_CM_STORE) {
		ok = clen == size;
		if (ok)
			memcpy(out, comp, size);
	} else if (ok) {
		size_t got = 0;
		ok = libdeflate_deflate_decompress(z->inflater, comp, clen, out, size, &got) == LIBDEFLATE_SUCCESS &&
		     got == size;
	}
	ok = ok && libdeflate_crc32(0, out, size) == st->crc;
	free(comp);
	if (!ok) {
		free(out);
		return;
	}
	e->mem = out;
}

static void silence(void *arg, xmlErrorPtr error)
{
	(void)arg;
	(void)error;
}

int xentry_open(struct xzip *z, const char *name, struct xentry *e, const char **ret_msg)
{
	memset(e, 0, sizeof(*e));
	e->z = z;
	zip_int64_t idx = locate(z, name);
	zip_stat_t st;
	if (idx < 0 || zip_stat_index(z->za, (zip_uint64_t)idx, 0, &st)) {
		*ret_msg = "a part the workbook refers to is missing";
		return -1;
	}
	e->comp_size = st.comp_size;
	e->size = st.size;
	inflate_whole(z, (zip_uint64_t)idx, &st, e);
	if (e->mem)
		return 0;
	e->zf = zip_fopen_index(z->za, (zip_uint64_t)idx, 0);
	if (!e->zf) {
		*ret_msg = "a part of the workbook cannot be opened (encrypted or unsupported compression)";
		return -1;
	}
	return 0;
}

void xentry_close(struct xentry *e)
{
	if (e->zf)
		zip_fclose(e->zf);
	e->zf = NULL;
	free(e->mem);
	e->mem = NULL;
}

int xpart_open(struct xzip *z, const char *name, struct xpart *p, const char **ret_msg)
{
	memset(p, 0, sizeof(*p));
	if (xentry_open(z, name, &p->e, ret_msg))
		return -1;
	/* No XML_PARSE_NOENT, DTDLOAD, DTDATTR or HUGE: entities stay
	 * unexpanded, no DTD is fetched, libxml2's size limits hold. */
	p->xr = xmlReaderForIO(xentry_read, NULL, &p->e, name, NULL,
			       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!p->xr) {
		xentry_close(&p->e);
		*ret_msg = "out of memory";
		return -1;
	}
	xmlTextReaderSetStructuredErrorHandler(p->xr, silence, NULL);
	return 0;
}

void xpart_close(struct xpart *p)
{
	if (p->xr)
		xmlFreeTextReader(p->xr);
	xentry_close(&p->e);
	p->xr = NULL;
}
