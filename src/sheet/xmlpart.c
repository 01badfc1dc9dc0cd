/* Safe streaming over one XML part: node by node with libxml2's
 * xmlTextReader, refusing DTDs and entity references outright (OOXML has
 * neither, so a document that does is hostile or broken). */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <libxml/parserInternals.h>

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

/* ---- SAX2 push parsing ---- */

static void sax_silence(void *ctx, xmlErrorPtr error)
{
	(void)ctx;
	(void)error;
}

/* libxml2 passes callbacks the caller's context, not the xsax: the
 * security callbacks find it through this pointer, set around each
 * xmlParseChunk. */
static _Thread_local struct xsax *feeding;

static void sax_dtd(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
	(void)ctx;
	(void)name;
	(void)ext;
	(void)sys;
	if (feeding)
		xsax_fail(feeding, "the workbook's XML declares a DTD or entities, which XLSX never does");
}

static xmlEntityPtr sax_entity(void *ctx, const xmlChar *name)
{
	(void)ctx;
	(void)name;
	if (feeding)
		xsax_fail(feeding, "the workbook's XML declares a DTD or entities, which XLSX never does");
	return NULL;
}

int xsax_open(struct xzip *z, const char *name, struct xsax *s, xmlSAXHandler *h, void *user,
	      const char **ret_msg)
{
	memset(s, 0, sizeof(*s));
	h->initialized = XML_SAX2_MAGIC;
	h->internalSubset = sax_dtd;
	h->externalSubset = sax_dtd;
	h->getEntity = sax_entity;
	h->getParameterEntity = sax_entity;
	h->serror = sax_silence;
	h->warning = NULL;
	h->error = NULL;
	h->fatalError = NULL;
	s->handler = h;
	s->user = user;
	return xentry_open(z, name, &s->e, ret_msg);
}

void xsax_fail(struct xsax *s, const char *msg)
{
	if (!s->err)
		s->err = msg;
	if (s->ctxt)
		xmlStopParser(s->ctxt);
}

void xsax_stop(struct xsax *s)
{
	s->stopped = true;
	if (s->ctxt)
		xmlStopParser(s->ctxt);
}

/* Pushes n bytes of chunk (n == 0: the end) into libxml2, creating the
 * parser with the first ones (libxml2 detects the encoding from them).
 * Returns xmlParseChunk's result, or -1 with *ret_msg when out of memory. */
static int sax_push(struct xsax *s, const char *chunk, int n, const char **ret_msg)
{
	int rc;
	feeding = s;
	if (!s->ctxt) {
		s->ctxt = xmlCreatePushParserCtxt((xmlSAXHandlerPtr)s->handler, s->user, chunk, n, NULL);
		if (!s->ctxt) {
			feeding = NULL;
			*ret_msg = s->err = "out of memory while reading the workbook";
			return -1;
		}
		/* No XML_PARSE_NOENT, DTDLOAD, DTDATTR or HUGE. */
		xmlCtxtUseOptions(s->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		rc = xmlParseChunk(s->ctxt, NULL, 0, n == 0);
	} else {
		rc = xmlParseChunk(s->ctxt, chunk, n, n == 0);
	}
	feeding = NULL;
	return rc;
}

/* xsax_feed's result after libxml2 parsed a chunk (rc: xmlParseChunk's). */
static int sax_result(struct xsax *s, int rc, bool last, const char **ret_msg)
{
	if (s->err) {
		*ret_msg = s->err;
		return -1;
	}
	if (s->stopped)
		return 0;
	if (s->e.z->err) {
		*ret_msg = s->err = s->e.z->err;
		return -1;
	}
	if (rc || !s->ctxt->wellFormed) {
		*ret_msg = s->err = "the workbook's XML is corrupt";
		return -1;
	}
	if (last)
		s->finished = true;
	return last ? 0 : 1;
}

int xsax_feed(struct xsax *s, const char **ret_msg)
{
	if (s->err) {
		*ret_msg = s->err;
		return -1;
	}
	if (s->finished || s->stopped)
		return 0;
	/* A small first chunk: opening a workbook needs only its header row
	 * and the shared strings it uses, which come first. */
	char buf[XSAX_CHUNK];
	const char *chunk = buf;
	size_t want = s->ctxt ? XSAX_CHUNK : XSAX_FIRST_CHUNK;
	int n;
	if (s->e.mem) {
		/* Inflated whole: libxml2 reads the part where it is (it copies
		 * what it keeps into its own input buffer anyway). */
		chunk = s->e.mem + s->e.pos;
		n = xentry_advance(&s->e, want);
	} else {
		n = xentry_read(&s->e, buf, (int)want);
	}
	if (n < 0) {
		*ret_msg = s->err = s->e.z->err ? s->e.z->err : "a part of the workbook is corrupt";
		return -1;
	}
	bool had_ctxt = s->ctxt != NULL;
	int rc = sax_push(s, chunk, n, ret_msg);
	if (rc < 0 && !had_ctxt && !s->ctxt)
		return -1;
	return sax_result(s, rc, n == 0, ret_msg);
}

void xsax_close(struct xsax *s)
{
	if (s->ctxt) {
		if (s->ctxt->myDoc)
			xmlFreeDoc(s->ctxt->myDoc);
		xmlFreeParserCtxt(s->ctxt);
	}
	s->ctxt = NULL;
	xentry_close(&s->e);
}

void xsax_attr_copy(char *dst, size_t size, const xmlChar *start, const xmlChar *end)
{
	size_t n = (size_t)(end - start), o = 0;
	for (size_t i = 0; i < n; i++) {
		if (o + 1 >= size)
			goto too_long;
		/* libxml2 hands "&amp;" in an attribute over as "&#38;" (for a
		 * tree builder to decode again): read it as the '&' it is. */
		if (start[i] == '&' && n - i >= 5 && !memcmp(start + i, "&#38;", 5)) {
			dst[o++] = '&';
			i += 4;
		} else {
			dst[o++] = (char)start[i];
		}
	}
	dst[o] = '\0';
	return;
too_long:
	memcpy(dst, "!", 2);
}
