/* Safe streaming over one XML part: node by node with libxml2's
 * xmlTextReader, refusing DTDs and entity references outright (OOXML has
 * neither, so a document that does is hostile or broken). */
#include <pthread.h>
#include <string.h>

#include "xlsx_int.h"

/* No part may pull anything from outside the package, whatever options a
 * future caller passes: libxml2's loader is process-wide, so set it once. */
static xmlParserInputPtr deny_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	(void)url;
	(void)id;
	(void)ctxt;
	return NULL;
}

/* Some libxml2 errors (encoding conversion, I/O) bypass a reader's own
 * error handler and go to its global one, which prints to stderr: a hostile
 * upload must not write to the service's log that way. */
static void quiet_generic(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static void quiet_structured(void *ctx, xmlErrorPtr error)
{
	(void)ctx;
	(void)error;
}

static void init_once(void)
{
	xmlInitParser();
	xmlSetExternalEntityLoader(deny_loader);
	xmlThrDefSetGenericErrorFunc(NULL, quiet_generic);
	xmlThrDefSetStructuredErrorFunc(NULL, quiet_structured);
}

void xml_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init_once);
	/* The handlers are per thread in libxml2; this thread may predate the
	 * defaults set above. */
	xmlSetGenericErrorFunc(NULL, quiet_generic);
	xmlSetStructuredErrorFunc(NULL, quiet_structured);
}

int xpart_read(struct xpart *p, const char **ret_msg)
{
	int rc = xmlTextReaderRead(p->xr);
	if (rc < 0) {
		*ret_msg = p->e.z->err ? p->e.z->err : "the workbook's XML is corrupt";
		return -1;
	}
	if (rc == 0)
		return 0;
	int type = p->type = xmlTextReaderNodeType(p->xr);
	if (type == XML_READER_TYPE_DOCUMENT_TYPE || type == XML_READER_TYPE_ENTITY_REFERENCE ||
	    type == XML_READER_TYPE_ENTITY) {
		*ret_msg = "the workbook's XML declares a DTD or entities, which XLSX never does";
		return -1;
	}
	return 1;
}

const char *xpart_attr(struct xpart *p, const char *local)
{
	const char *found = NULL;
	if (xmlTextReaderMoveToFirstAttribute(p->xr) != 1)
		return NULL;
	do {
		const char *name = (const char *)xmlTextReaderConstLocalName(p->xr);
		if (name && !strcmp(name, local)) {
			found = (const char *)xmlTextReaderConstValue(p->xr);
			break;
		}
	} while (xmlTextReaderMoveToNextAttribute(p->xr) == 1);
	xmlTextReaderMoveToElement(p->xr);
	return found;
}

bool xpart_is(struct xpart *p, int type, const char *local)
{
	if (p->type != type)
		return false;
	const char *name = (const char *)xmlTextReaderConstLocalName(p->xr);
	return name && !strcmp(name, local);
}

static bool is_text(int type)
{
	return type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
	       type == XML_READER_TYPE_WHITESPACE || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE;
}

int xpart_text(struct xpart *p, struct buf *out, bool runs, const char **ret_msg)
{
	if (xmlTextReaderIsEmptyElement(p->xr))
		return 0;
	int depth = xmlTextReaderDepth(p->xr);
	int in_t = 0, in_rph = 0;  /* depth of the open <t> / <rPh>, or 0 */
	for (;;) {
		int rc = xpart_read(p, ret_msg);
		if (rc <= 0) {
			if (rc == 0)
				*ret_msg = "the workbook's XML ends in the middle of a cell";
			return -1;
		}
		int type = p->type, d = xmlTextReaderDepth(p->xr);
		if (type == XML_READER_TYPE_END_ELEMENT && d == depth)
			return 0;
		if (!runs) {
			if (is_text(type))
				goto append;
			continue;
		}
		if (type == XML_READER_TYPE_ELEMENT && !xmlTextReaderIsEmptyElement(p->xr)) {
			if (!in_rph && xpart_is(p, type, "rPh"))
				in_rph = d;
			else if (!in_t && xpart_is(p, type, "t"))
				in_t = d;
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			if (d == in_rph)
				in_rph = 0;
			if (d == in_t)
				in_t = 0;
		} else if (is_text(type) && in_t && !in_rph) {
			goto append;
		}
		continue;
append:;
		const char *v = (const char *)xmlTextReaderConstValue(p->xr);
		if (v && buf_puts(out, v)) {
			*ret_msg = "a cell's text is larger than the expansion limit";
			return -1;
		}
	}
}
