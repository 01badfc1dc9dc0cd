/* Test helper: in-memory XLSX packages from XML strings (see xlsxgen.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "xlsxgen.h"

int xlsxgen_zip(const struct xg_part *parts, size_t n, int compress, void **ret_data,
		size_t *ret_len)
{
	zip_error_t err;
	zip_error_init(&err);
	zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &err);
	if (!src)
		return -1;
	zip_source_keep(src);
	zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, &err);
	if (!za) {
		zip_source_free(src);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = parts[i].len == (size_t)-1 ? strlen(parts[i].data) : parts[i].len;
		zip_source_t *s = zip_source_buffer(za, parts[i].data, len, 0);
		zip_int64_t idx = s ? zip_file_add(za, parts[i].name, s, ZIP_FL_OVERWRITE) : -1;
		if (idx < 0 ||
		    zip_set_file_compression(za, (zip_uint64_t)idx, compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 9)) {
			zip_source_free(s);
			zip_discard(za);
			zip_source_free(src);
			return -1;
		}
	}
	if (zip_close(za) || zip_source_open(src)) {
		zip_source_free(src);
		return -1;
	}
	zip_source_seek(src, 0, SEEK_END);
	zip_int64_t size = zip_source_tell(src);
	zip_source_seek(src, 0, SEEK_SET);
	void *out = malloc(size > 0 ? (size_t)size : 1);
	zip_int64_t got = out ? zip_source_read(src, out, (zip_uint64_t)size) : -1;
	zip_source_close(src);
	zip_source_free(src);
	if (got != size) {
		free(out);
		return -1;
	}
	*ret_data = out;
	*ret_len = (size_t)size;
	return 0;
}

static const char content_types[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
	"<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
	"<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
	"<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
	"<Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
	"<Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
	"<Override PartName=\"/xl/sharedStrings.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml\"/>"
	"<Override PartName=\"/xl/styles.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
	"</Types>";

static const char root_rels[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
	"<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"xl/workbook.xml\"/>"
	"</Relationships>";

static const char workbook[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
	"xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
	"<workbookPr/><sheets><sheet name=\"Sheet1\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";

static const char workbook_rels[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
	"<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
	"<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\" Target=\"sharedStrings.xml\"/>"
	"<Relationship Id=\"rId3\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles\" Target=\"styles.xml\"/>"
	"</Relationships>";

static const char styles[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<styleSheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
	"<numFmts count=\"1\"><numFmt numFmtId=\"164\" formatCode=\"dd/mm/yyyy\"/></numFmts>"
	"<cellXfs count=\"4\"><xf numFmtId=\"0\"/><xf numFmtId=\"14\"/><xf numFmtId=\"164\"/><xf numFmtId=\"20\"/></cellXfs>"
	"</styleSheet>";

static const char shared[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
	"<si><t>Job</t></si><si><t>Load</t></si><si><r><t>Da</t></r><r><rPr><b/></rPr><t>te</t></r></si>"
	"</sst>";

static const char sheet1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>"
	"<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c><c r=\"C1\" t=\"s\"><v>2</v></c></row>"
	"<row r=\"2\"><c r=\"A2\"><v>7</v></c><c r=\"B2\" t=\"inlineStr\"><is><t>L1</t></is></c><c r=\"C2\" s=\"1\"><v>45000</v></c></row>"
	"</sheetData></worksheet>";

int xlsxgen_workbook(const struct xg_part *over, size_t n, int compress, void **ret_data,
		     size_t *ret_len)
{
	enum { BASE = 7, MAX = 32 };
	struct xg_part parts[MAX] = {
		{"[Content_Types].xml", content_types, (size_t)-1},
		{"_rels/.rels", root_rels, (size_t)-1},
		{"xl/workbook.xml", workbook, (size_t)-1},
		{"xl/_rels/workbook.xml.rels", workbook_rels, (size_t)-1},
		{"xl/styles.xml", styles, (size_t)-1},
		{"xl/sharedStrings.xml", shared, (size_t)-1},
		{"xl/worksheets/sheet1.xml", sheet1, (size_t)-1},
	};
	size_t count = BASE;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < count && strcmp(parts[j].name, over[i].name))
			j++;
		if (j == count) {
			if (count == MAX)
				return -1;
			count++;
		}
		parts[j] = over[i];
	}
	/* Drop removed parts (data NULL). */
	size_t k = 0;
	for (size_t i = 0; i < count; i++)
		if (parts[i].data)
			parts[k++] = parts[i];
	return xlsxgen_zip(parts, k, compress, ret_data, ret_len);
}
