/* Format sniffing: decides CSV, XLSX or unsupported from the bytes alone,
 * because browsers send spreadsheets under any MIME type and any name. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "sheet_int.h"

static const unsigned char ole2_magic[8] = {0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1};

static bool starts(const unsigned char *p, size_t len, const void *magic, size_t n)
{
	return len >= n && memcmp(p, magic, n) == 0;
}

static unsigned rd16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Walks the zip central directory: an OPC package ([Content_Types].xml)
 * with a part under xl/, or one with package relationships (_rels/.rels)
 * and no part of the other Office formats (word/, ppt/): Excel finds the
 * workbook through the relationships wherever it lives (Apache POI's
 * minimal_package.xlsx and wtf_path.xlsx keep it outside xl/).  Returns 1
 * (workbook), 0 (some other zip: .docx, .ods, a plain archive) or -1
 * (cannot tell: damaged, zip64), which the caller treats as a workbook so
 * that sheet_open answers MALFORMED_XLSX. */
static int zip_is_workbook(const unsigned char *p, size_t len)
{
	if (len < 22)
		return -1;
	size_t stop = len > 22 + 65535 ? len - 22 - 65535 : 0;
	size_t eocd = SIZE_MAX;
	for (size_t i = len - 22 + 1; i-- > stop;) {
		if (p[i] == 'P' && p[i + 1] == 'K' && p[i + 2] == 5 && p[i + 3] == 6) {
			eocd = i;
			break;
		}
	}
	if (eocd == SIZE_MAX)
		return -1;
	unsigned entries = rd16(p + eocd + 10);
	uint32_t cd_size = rd32(p + eocd + 12), cd_off = rd32(p + eocd + 16);
	if (entries == 0xFFFF || cd_off == UINT32_MAX || cd_off > eocd || cd_size > eocd - cd_off)
		return -1;
	bool types = false, xl = false, rels = false, other = false;
	size_t at = cd_off, end = cd_off + cd_size;
	for (unsigned e = 0; e < entries; e++) {
		if (end - at < 46 || rd32(p + at) != 0x02014b50)
			return -1;
		size_t nlen = rd16(p + at + 28);
		size_t skip = 46 + nlen + rd16(p + at + 30) + rd16(p + at + 32);
		if (end - at < skip)
			return -1;
		const char *name = (const char *)p + at + 46;
		if (nlen == 19 && !strncasecmp(name, "[Content_Types].xml", 19))
			types = true;
		/* Some report exporters write "xl\\workbook.xml"; Excel opens them. */
		if (nlen > 3 && (!strncasecmp(name, "xl/", 3) || !strncasecmp(name, "xl\\", 3)))
			xl = true;
		if (nlen == 11 && !strncasecmp(name, "_rels/.rels", 11))
			rels = true;
		if ((nlen > 5 && !strncasecmp(name, "word/", 5)) || (nlen > 4 && !strncasecmp(name, "ppt/", 4)))
			other = true;
		at += skip;
	}
	return types && (xl || (rels && !other));
}

/* An OLE2 compound file's directory entries are 128 bytes, aligned on 128
 * from offset 512 in both sector sizes; each starts with its UTF-16LE name.
 * Excel stores an encrypted .xlsx as such a file holding "EncryptionInfo". */
bool sniff_ole2_encrypted(const unsigned char *p, size_t len)
{
	static const char name[] = "EncryptionInfo";
	const size_t n = sizeof(name);  /* with the terminating NUL */
	if (!starts(p, len, ole2_magic, sizeof(ole2_magic)))
		return false;
	for (size_t at = 512; at + 128 <= len; at += 128) {
		size_t k = 0;
		while (k < n && p[at + 2 * k] == (unsigned char)name[k] && p[at + 2 * k + 1] == 0)
			k++;
		if (k == n)
			return true;
	}
	return false;
}

/* Text is what has few control bytes.  Up to 8 controls (NUL included) are
 * always tolerated, and up to 1 in 32 bytes of the first 8 KiB beyond that:
 * a CSV with a stray NUL stays CSV (and is then MALFORMED_CSV), while UTF-16
 * text, executables and most binary formats have far more. */
static bool looks_like_text(const unsigned char *p, size_t len)
{
	size_t n = len < 8192 ? len : 8192, ctl = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' &&
		    c != 0x1A && c != 0x1B)
			ctl++;
	}
	return ctl <= 8 || ctl * 32 <= n;
}

/* Case-insensitive: does the text at p (n bytes) start with s? */
static bool starts_nocase(const unsigned char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	return n >= k && !strncasecmp((const char *)p, s, k);
}

/* One line of at most 8 KiB from p[*at], without its line end; false at
 * the end. */
static bool next_line(const unsigned char *p, size_t n, size_t *at, size_t *ret_start, size_t *ret_len)
{
	size_t i = *at, look = n < 8192 ? n : 8192;
	while (i < look && (p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i >= look)
		return false;
	size_t s = i;
	while (i < look && p[i] != '\r' && p[i] != '\n')
		i++;
	*ret_start = s;
	*ret_len = i - s;
	*at = i;
	return true;
}

/* Fields of a line separated by runs of two or more spaces; -1 when it has
 * a CSV delimiter (comma, semicolon, tab, pipe). */
static int padded_fields(const unsigned char *l, size_t n)
{
	int fields = 0;
	for (size_t i = 0; i < n;) {
		if (memchr(",;\t|", l[i], 4))
			return -1;
		if (l[i] == ' ' && i + 1 < n && l[i + 1] == ' ') {
			while (i < n && l[i] == ' ')
				i++;
			continue;
		}
		if (i == 0 || (l[i - 1] == ' ' && i >= 2 && l[i - 2] == ' '))
			fields++;
		i++;
	}
	return fields;
}

/* Excel's "Formatted Text (Space delimited)" (.prn): columns padded with
 * spaces to their widths, no delimiter anywhere.  Read as CSV it is one
 * column a row, which no import can use.  Judged on the first 5 lines of
 * the first 8 KiB: none has a delimiter, the first has at least three
 * fields apart by two or more spaces, and so has every other. */
static bool fixed_width(const unsigned char *p, size_t n)
{
	size_t at = 0, s, len;
	int lines = 0;
	while (lines < 5 && next_line(p, n, &at, &s, &len)) {
		int f = padded_fields(p + s, len);
		if (f < 0 || (lines == 0 && f < 3) || f < 2)
			return false;
		lines++;
	}
	return lines >= 2;
}

/* "Export to Excel" files that are not CSV or XLSX: HTML tables, Excel 2003
 * XML (SpreadsheetML), SYLK and DIF.  Read as CSV they would be one column
 * of markup; say what they are instead.  NULL for anything else. */
static const char *other_export(const unsigned char *p, size_t len)
{
	size_t i = starts(p, len, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	const unsigned char *t = p + i;
	size_t n = len - i;
	if (starts_nocase(t, n, "<!doctype html") || starts_nocase(t, n, "<html") || starts_nocase(t, n, "<table"))
		return "an HTML page (an \"Export to Excel\" that is really a web page)";
	if (starts_nocase(t, n, "<?xml")) {
		size_t look = n < 4096 ? n : 4096;
		if (memmem(t, look, "urn:schemas-microsoft-com:office:spreadsheet", 45) || memmem(t, look, "<Workbook", 9))
			return "an Excel 2003 XML spreadsheet";
		return "an XML document";
	}
	if (fixed_width(t, n))
		return "a fixed-width text file (.prn)";
	if (starts(t, n, "ID;P", 4))
		return "a SYLK spreadsheet";
	if (starts(t, n, "TABLE\r\n0,1", 10) || starts(t, n, "TABLE\n0,1", 9))
		return "a DIF spreadsheet";
	return NULL;
}

enum sheet_format sniff_detail(const void *data, size_t len, const char **ret_what)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} binaries[] = {
		{"%PDF-", 5, "a PDF document"},
		{"\x89PNG\r\n\x1a\n", 8, "a PNG image"},
		{"\xff\xd8\xff", 3, "a JPEG image"},
		{"GIF87a", 6, "a GIF image"},
		{"GIF89a", 6, "a GIF image"},
		{"\x1f\x8b", 2, "a gzip archive"},
		{"7z\xbc\xaf\x27\x1c", 6, "a 7-Zip archive"},
		{"Rar!\x1a\x07", 6, "a RAR archive"},
		{"\x7f" "ELF", 4, "an executable"},
	};
	const unsigned char *p = data;
	const char *what = "text";
	enum sheet_format f = SHEET_CSV;

	if (starts(p, len, "PK\x03\x04", 4) || starts(p, len, "PK\x05\x06", 4) ||
	    starts(p, len, "PK\x07\x08", 4)) {
		int wb = zip_is_workbook(p, len);
		f = wb ? SHEET_XLSX : SHEET_UNKNOWN;
		what = wb ? "an XLSX workbook" : "a zip archive that is not an Excel workbook";
		/* OpenDocument keeps its type in a first, stored entry "mimetype". */
		if (!wb && memmem(p, len < 256 ? len : 256, "application/vnd.oasis.opendocument.spreadsheet", 46))
			what = "an OpenDocument spreadsheet (.ods)";
	} else if (starts(p, len, ole2_magic, sizeof(ole2_magic))) {
		bool enc = sniff_ole2_encrypted(p, len);
		f = enc ? SHEET_XLSX : SHEET_UNKNOWN;
		what = enc ? "a password-protected workbook" : "a legacy Excel .xls (OLE2) file";
	} else if (starts(p, len, "\xff\xfe", 2) || starts(p, len, "\xfe\xff", 2)) {
		/* UTF-16 with a byte-order mark: Excel's "Unicode Text" (tab-
		 * separated UTF-16LE); sheet_open decodes it and reads it as CSV. */
		what = "UTF-16 text";
	} else {
		for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++) {
			if (starts(p, len, binaries[i].magic, binaries[i].len)) {
				f = SHEET_UNKNOWN;
				what = binaries[i].what;
				break;
			}
		}
		if (f == SHEET_CSV && !looks_like_text(p, len)) {
			f = SHEET_UNKNOWN;
			what = "a binary file";
		}
		const char *export = f == SHEET_CSV ? other_export(p, len) : NULL;
		if (export) {
			f = SHEET_UNKNOWN;
			what = export;
		}
	}
	if (ret_what)
		*ret_what = what;
	return f;
}

enum sheet_format sheet_sniff(const void *data, size_t len)
{
	return sniff_detail(data, len, NULL);
}
