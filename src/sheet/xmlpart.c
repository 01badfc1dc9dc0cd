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


/* ---- the scanner ----
 *
 * libxml2 reads a part up to the start tag of an element whose content is
 * plain and large (a worksheet's sheetData, the shared-string table's sst);
 * from there, when the part was inflated whole, a scanner reads the strict
 * subset of XML that writers put there (start and end tags with printable
 * ASCII attributes, text of XML characters in UTF-8 with the five
 * predefined entities) and calls the same SAX callbacks, with the same
 * arguments, as libxml2 would.  Anything outside that subset (a comment, a
 * CDATA section, a character or other reference, a CR, a namespace prefix
 * not bound where the scanner started, an xmlns attribute, a mismatched
 * tag, the part ending early...) hands the part back to libxml2: it parses
 * it again from its first byte (the restart callback forgets what the
 * callbacks built; the bytes are not counted against the limits twice), so
 * every error is still libxml2's own.  docs/design.md says why. */

enum { FAST_MORE = 1, FAST_DONE = 0, FAST_ERROR = -1, FAST_GIVE_UP = 2, FAST_WAIT = 3 };

/* Byte classes (ASCII only; every other byte is none). */
enum { C_SPACE = 1, C_NAME_START = 2, C_NAME = 4, C_TEXT = 8, C_ATTR = 16 };
static const unsigned char cclass[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	25, 24, 24, 24, 24, 24, 0, 24, 24, 24, 24, 24, 24, 28, 28, 24,
	28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 24, 24, 8, 24, 24, 24,
	24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
	30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 24, 24, 16, 24, 30,
	24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
	30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 24, 24, 24, 24, 0,
};

static inline bool is_space(char c)
{
	return cclass[(unsigned char)c] & C_SPACE;
}

static inline bool is_name_start(char c)
{
	return cclass[(unsigned char)c] & C_NAME_START;
}

static inline bool is_name(char c)
{
	return cclass[(unsigned char)c] & C_NAME;
}

/* memcmp for names of a few bytes, without a call. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

bool xsax_scan_from(struct xsax *s, const char *local, bool root)
{
	struct xentry *e = &s->e;
	xmlParserCtxtPtr ctxt = s->ctxt;
	size_t llen = strlen(local);
	if (e->z->lim->reference_xml || s->fast_off || !e->mem || !ctxt || !ctxt->input || !ctxt->input->buf ||
	    ctxt->input->buf->encoder || ctxt->charset != XML_CHAR_ENCODING_UTF8 || ctxt->inSubset ||
	    llen >= XFAST_NAME ||
	    /* libxml2 refuses documents deeper than xmlParserMaxDepth. */
	    (unsigned)ctxt->nameNr + XFAST_DEPTH + 2 >= xmlParserMaxDepth)
		return false;
	xmlParserInputPtr in = ctxt->input;
	size_t off = (size_t)in->consumed + (size_t)(in->cur - in->base);
	if (off >= e->pos || e->mem[off] != '>')
		return false;
	/* ... and that '>' ends "<local": the offset is right. */
	const char *lt = memrchr(e->mem, '<', off);
	if (!lt || (size_t)(e->mem + off - lt) < llen + 1 || memcmp(lt + 1, local, llen) ||
	    !(lt[llen + 1] == '>' || is_space(lt[llen + 1]) || lt[llen + 1] == '\r'))
		return false;
	/* nsTab holds prefix, URI pairs; nsNr counts both. */
	s->nprefix = 0;
	for (int i = 0; i + 1 < ctxt->nsNr && s->nprefix < XFAST_PREFIXES; i += 2) {
		const char *pre = (const char *)ctxt->nsTab[i];
		size_t plen = pre ? strlen(pre) : XFAST_NAME;
		if (plen < XFAST_NAME)
			memcpy(s->prefix[s->nprefix++], pre, plen + 1);
	}
	memcpy(s->fast_elem, local, llen + 1);
	s->fast_elem_len = llen;
	s->fast_root = root;
	s->fast_tail = false;
	s->fast = true;
	s->fpos = off + 1;
	s->sp = 0;
	xmlStopParser(ctxt);
	return true;
}

static bool bound_prefix(const struct xsax *s, const char *p, size_t n)
{
	for (int i = 0; i < s->nprefix; i++)
		if (!strncmp(s->prefix[i], p, n) && !s->prefix[i][n])
			return true;
	return false;
}

struct fast_attr {
	const char *name, *local, *val, *end;
	size_t nlen, llen;
	bool prefixed;
};

/* An attribute's name at m[*at] (an optional bound prefix, then the local
 * name) into a; *at moves past it.  FAST_MORE, FAST_WAIT or FAST_GIVE_UP. */
static int fast_attr_name(const struct xsax *s, const char *m, size_t *at, size_t end, struct fast_attr *a)
{
	size_t i = *at;
	a->name = a->local = m + i;
	while (i < end && is_name(m[i]))
		i++;
	if (i == end)
		return FAST_WAIT;
	a->prefixed = m[i] == ':';
	if (a->prefixed) {
		if (!bound_prefix(s, a->name, (size_t)(m + i - a->name)))
			return FAST_GIVE_UP;
		a->local = m + ++i;
		if (i == end)
			return FAST_WAIT;
		if (!is_name_start(m[i]))
			return FAST_GIVE_UP;
		while (i < end && is_name(m[i]))
			i++;
	}
	a->nlen = (size_t)(m + i - a->name);
	a->llen = (size_t)(m + i - a->local);
	*at = i;
	/* xmlns declarations change the namespaces: libxml2's business. */
	if (a->nlen >= 5 && a->name[0] == 'x' && same_bytes(a->name, "xmlns", 5) && (a->nlen == 5 || a->prefixed))
		return FAST_GIVE_UP;
	return FAST_MORE;
}

/* One attribute, m[*at] at its name: name, '=', quoted value of printable
 * ASCII; a repeat of an earlier one (at[0..nat)) gives up, as libxml2
 * reports it as an error. */
static int fast_attr(const struct xsax *s, const char *m, size_t *at, size_t end, struct fast_attr *at_v, int nat)
{
	struct fast_attr *a = &at_v[nat];
	int rc = fast_attr_name(s, m, at, end, a);
	if (rc != FAST_MORE)
		return rc;
	size_t i = *at;
	while (i < end && is_space(m[i]))
		i++;
	if (i == end)
		return FAST_WAIT;
	if (m[i] != '=')
		return FAST_GIVE_UP;
	for (i++; i < end && is_space(m[i]); i++)
		;
	if (i == end)
		return FAST_WAIT;
	if (m[i] != '"' && m[i] != '\'')
		return FAST_GIVE_UP;
	char q = m[i++];
	a->val = m + i;
	for (; i < end && m[i] != q; i++)
		if (!(cclass[(unsigned char)m[i]] & C_ATTR))
			return FAST_GIVE_UP;
	if (i == end)
		return FAST_WAIT;
	a->end = m + i++;
	*at = i;
	/* Two prefixed ones with the same local name may share a namespace. */
	for (int j = 0; j < nat; j++)
		if ((at_v[j].nlen == a->nlen && same_bytes(at_v[j].name, a->name, a->nlen)) ||
		    (a->prefixed && at_v[j].prefixed && at_v[j].llen == a->llen &&
		     same_bytes(at_v[j].local, a->local, a->llen)))
			return FAST_GIVE_UP;
	return FAST_MORE;
}

/* The callbacks for a start tag read whole (and its end, for an empty
 * element), with libxml2's arguments: per attribute local name, prefix,
 * URI, value, value end; local names NUL-terminated in a scratch copy. */
static int fast_emit_start(struct xsax *s, const char *name_src, size_t nlen, const struct fast_attr *at,
			   int nat, bool empty)
{
	const xmlChar *av[5 * XFAST_ATTRS];
	char names[XFAST_ATTRS][XFAST_NAME];
	for (int j = 0; j < nat; j++) {
		if (at[j].llen >= XFAST_NAME)
			return FAST_GIVE_UP;
		memcpy(names[j], at[j].local, at[j].llen);
		names[j][at[j].llen] = '\0';
		av[5 * j] = (const xmlChar *)names[j];
		av[5 * j + 1] = av[5 * j + 2] = NULL;
		av[5 * j + 3] = (const xmlChar *)at[j].val;
		av[5 * j + 4] = (const xmlChar *)at[j].end;
	}
	char *name = s->open[s->sp];
	memcpy(name, name_src, nlen);
	name[nlen] = '\0';
	s->handler->startElementNs(s->user, (const xmlChar *)name, NULL, NULL, 0, NULL, nat, 0, av);
	if (s->err)
		return FAST_ERROR;
	if (empty) {
		s->handler->endElementNs(s->user, (const xmlChar *)name, NULL, NULL);
		return s->err ? FAST_ERROR : FAST_MORE;
	}
	s->open_len[s->sp++] = nlen;
	return FAST_MORE;
}

/* One start tag, m[i] just past its '<': FAST_MORE with *ret_next past its
 * '>', FAST_WAIT when it does not end before `end`.  Nothing is handed to
 * the callbacks unless the whole tag is read and within the subset. */
static int fast_start_tag(struct xsax *s, const char *m, size_t i, size_t end, size_t *ret_next)
{
	size_t ns = i;
	while (i < end && is_name(m[i]))
		i++;
	size_t nlen = i - ns;
	if (nlen >= XFAST_NAME || s->sp == XFAST_DEPTH)
		return FAST_GIVE_UP;
	struct fast_attr at[XFAST_ATTRS];
	int nat = 0;
	for (;;) {
		size_t ws = i;
		while (i < end && is_space(m[i]))
			i++;
		if (i == end || (m[i] == '/' && i + 1 == end))
			return FAST_WAIT;
		if (m[i] == '>' || m[i] == '/') {
			bool empty = m[i] == '/';
			if (empty && m[i + 1] != '>')
				return FAST_GIVE_UP;
			int rc = fast_emit_start(s, m + ns, nlen, at, nat, empty);
			*ret_next = i + (empty ? 2 : 1);
			return rc;
		}
		if (i == ws || nat == XFAST_ATTRS || !is_name_start(m[i]))
			return FAST_GIVE_UP;
		int rc = fast_attr(s, m, &i, end, at, nat);
		if (rc != FAST_MORE)
			return rc;
		nat++;
	}
}

/* Length of the XML character in UTF-8 at p (at most n bytes there), 0 when
 * it is not one (malformed, overlong, a surrogate, U+FFFE/U+FFFF, beyond
 * U+10FFFF), -1 when it may continue past n. */
static int utf8_char(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (!len || c > 0xf4)
		return 0;
	if ((size_t)len > n)
		return -1;
	for (int k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if (len == 3) {
		unsigned v = (c & 0x0f) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		if (v < 0x800 || (v >= 0xd800 && v <= 0xdfff) || v >= 0xfffe)
			return 0;
	} else if (len == 4) {
		unsigned v = (c & 0x07) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
		if (v < 0x10000 || v > 0x10ffff)
			return 0;
	}
	return len;
}

static const struct {
	const char *ref, *ch;
	size_t len;
} predefined[] = {{"&amp;", "&", 5}, {"&lt;", "<", 4}, {"&gt;", ">", 4}, {"&quot;", "\"", 6}, {"&apos;", "'", 6}};

/* The predefined entity at m[q] ('&'): its index, -1 when there is none,
 * -2 when the part so far ends inside what may be one. */
static int entity_at(const char *m, size_t q, size_t end)
{
	size_t nk = sizeof(predefined) / sizeof(predefined[0]);
	for (size_t k = 0; k < nk; k++) {
		size_t l = predefined[k].len;
		if (end - q < l && !memcmp(m + q, predefined[k].ref, end - q))
			return -2;
		if (end - q >= l && same_bytes(m + q, predefined[k].ref, l))
			return (int)k;
	}
	return -1;
}

/* Checks the text from m[p] to the next '<' (at *ret_q): XML characters
 * in UTF-8, the predefined entities (*ret_amp when there are any), no
 * "]]>".  FAST_MORE, FAST_WAIT (the '<' is not there yet) or FAST_GIVE_UP. */
static int fast_text_check(const char *m, size_t p, size_t end, size_t *ret_q, bool *ret_amp)
{
	size_t q = p;
	while (q < end && m[q] != '<') {
		unsigned char c = (unsigned char)m[q];
		if (cclass[c] & C_TEXT) {
			q++;
		} else if (c == ']') {
			if (q + 2 >= end)
				return FAST_WAIT;
			if (m[q + 1] == ']' && m[q + 2] == '>')
				return FAST_GIVE_UP;
			q++;
		} else if (c == '&') {
			int k = entity_at(m, q, end);
			if (k < 0)
				return k == -2 ? FAST_WAIT : FAST_GIVE_UP;
			q += predefined[k].len;
			*ret_amp = true;
		} else {
			int l = c >= 0x80 ? utf8_char((const unsigned char *)m + q, end - q) : 0;
			if (l <= 0)
				return l < 0 ? FAST_WAIT : FAST_GIVE_UP;
			q += (size_t)l;
		}
	}
	*ret_q = q;
	return q == end ? FAST_WAIT : FAST_MORE;
}

/* Text m[p..q) with entities, handed over as libxml2 does: the text
 * between them in runs, each entity as its own character. */
static int fast_text_entities(struct xsax *s, const char *m, size_t p, size_t q)
{
	while (p < q) {
		size_t r = p;
		while (r < q && m[r] != '&')
			r++;
		if (r > p)
			s->handler->characters(s->user, (const xmlChar *)m + p, (int)(r - p));
		if (s->err)
			return FAST_ERROR;
		if (r == q)
			break;
		int k = entity_at(m, r, q);
		s->handler->characters(s->user, (const xmlChar *)predefined[k].ch, 1);
		if (s->err)
			return FAST_ERROR;
		p = r + predefined[k].len;
	}
	return FAST_MORE;
}

/* Text up to the next '<', checked whole first: nothing is handed over
 * unless all of it is fine.  *ret_p is moved past what was handed over. */
static int fast_text(struct xsax *s, const char *m, size_t *ret_p, size_t end)
{
	size_t p = *ret_p, q = p;
	bool amp = false;
	int rc = fast_text_check(m, p, end, &q, &amp);
	if (rc != FAST_MORE)
		return rc;
	if (amp) {
		rc = fast_text_entities(s, m, p, q);
	} else {
		s->handler->characters(s->user, (const xmlChar *)m + p, (int)(q - p));
		rc = s->err ? FAST_ERROR : FAST_MORE;
	}
	if (rc == FAST_MORE)
		*ret_p = q;
	return rc;
}

/* One end tag, m[i] just past its "</": it must close the innermost open
 * element (or the scanned one).  FAST_MORE with *ret_next past its '>',
 * FAST_DONE when a callback stopped the part there, FAST_WAIT, FAST_ERROR
 * or FAST_GIVE_UP. */
static int fast_end_tag(struct xsax *s, const char *m, size_t i, size_t end, size_t *ret_next)
{
	size_t ns = i;
	while (i < end && is_name(m[i]))
		i++;
	size_t nlen = i - ns;
	while (i < end && is_space(m[i]))
		i++;
	if (i == end)
		return FAST_WAIT;
	const char *want = s->sp ? s->open[s->sp - 1] : s->fast_elem;
	size_t wlen = s->sp ? s->open_len[s->sp - 1] : s->fast_elem_len;
	if (m[i] != '>' || wlen != nlen || !same_bytes(want, m + ns, nlen))
		return FAST_GIVE_UP;
	*ret_next = i + 1;
	bool last = !s->sp;
	if (s->sp)
		s->sp--;
	s->handler->endElementNs(s->user, (const xmlChar *)want, NULL, NULL);
	if (s->err)
		return FAST_ERROR;
	if (s->stopped)
		return FAST_DONE;
	if (last) {
		if (!s->fast_root)
			return FAST_GIVE_UP;
		s->fast_tail = true;
	}
	return FAST_MORE;
}

/* Scans what the part handed out so far, token by token; a token not yet
 * complete waits for the next chunk. */
static int fast_scan(struct xsax *s)
{
	const char *m = s->e.mem;
	size_t end = s->e.pos, p = s->fpos;
	while (p < end) {
		if (s->fast_tail) {
			/* After the root element: only white space to the end. */
			if (!is_space(m[p]) && m[p] != '\r')
				return FAST_GIVE_UP;
			s->fpos = ++p;
			continue;
		}
		int rc;
		if (m[p] != '<') {
			rc = fast_text(s, m, &p, end);
			if (rc == FAST_WAIT)
				break;
			if (rc != FAST_MORE)
				return rc;
			s->fpos = p;
			continue;
		}
		size_t i = p + 1, next = 0;
		if (i == end)
			break;
		if (m[i] == '/')
			rc = fast_end_tag(s, m, i + 1, end, &next);
		else if (is_name_start(m[i]))
			rc = fast_start_tag(s, m, i, end, &next);
		else
			return FAST_GIVE_UP;
		if (rc == FAST_WAIT)
			break;
		if (rc == FAST_DONE)
			s->fpos = next;  /* a callback stopped the part at this end tag */
		if (rc != FAST_MORE)
			return rc;
		s->fpos = p = next;
	}
	return FAST_MORE;
}

/* The next chunk of the part, counted against the limits as libxml2's
 * would be, then scanned. */
static int fast_feed(struct xsax *s)
{
	int n = xentry_advance(&s->e, XSAX_CHUNK);
	if (n < 0)
		return FAST_ERROR;
	if (n == 0) {
		/* The end: fine after the root element, early anywhere else. */
		if (s->fast_tail && s->fpos == s->e.pos) {
			s->finished = true;
			return FAST_DONE;
		}
		return FAST_GIVE_UP;
	}
	return fast_scan(s);
}

/* Hands the part back to libxml2, from its first byte. */
static void fast_give_up(struct xsax *s)
{
	if (s->ctxt) {
		if (s->ctxt->myDoc)
			xmlFreeDoc(s->ctxt->myDoc);
		xmlFreeParserCtxt(s->ctxt);
		s->ctxt = NULL;
	}
	s->err = NULL;
	s->stopped = s->finished = false;
	s->fast = false;
	s->fast_off = true;
	xentry_rewind(&s->e);
	if (s->restart)
		s->restart(s->user);
}

/* xsax_feed's result for what the scanner did. */
static int fast_result(struct xsax *s, int rc, const char **ret_msg)
{
	if (rc == FAST_ERROR) {
		if (!s->err)
			s->err = s->e.z->err ? s->e.z->err : "a part of the workbook is corrupt";
		*ret_msg = s->err;
		return -1;
	}
	return rc == FAST_DONE ? 0 : 1;
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
	if (s->fast) {
		int rc = fast_feed(s);
		if (rc != FAST_GIVE_UP)
			return fast_result(s, rc, ret_msg);
		fast_give_up(s);
	}
	/* A small first chunk: opening a workbook needs only its header row
	 * and the shared strings it uses, which come first. */
	char chunk[XSAX_CHUNK];
	int n = xentry_read(&s->e, chunk, s->ctxt ? XSAX_CHUNK : XSAX_FIRST_CHUNK);
	if (n < 0) {
		*ret_msg = s->err = s->e.z->err ? s->e.z->err : "a part of the workbook is corrupt";
		return -1;
	}
	bool had_ctxt = s->ctxt != NULL;
	int rc = sax_push(s, chunk, n, ret_msg);
	if (rc < 0 && !had_ctxt && !s->ctxt)
		return -1;
	if (s->fast && !s->err) {
		/* The scanner took over in this chunk: it reads the rest. */
		rc = fast_scan(s);
		if (rc != FAST_GIVE_UP)
			return fast_result(s, rc, ret_msg);
		fast_give_up(s);
		return 1;
	}
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
