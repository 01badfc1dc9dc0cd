/* Streaming multipart/form-data parser.
 *
 * The whole body is scanned for the delimiter CRLF "--" boundary; the
 * first delimiter may come without its CRLF, so the scan starts as if a
 * CRLF had just been read.  The delimiter starts with CR, which occurs
 * nowhere else in it (boundaries cannot hold CR), so after a mismatch the
 * bytes matched so far are plain data and the scan restarts at the current
 * byte: no backtracking, and memchr skips to the next CR. */
#include "multipart.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum state {
	S_BODY,        /* scanning for the delimiter (preamble or a part's body) */
	S_AFTER,       /* right after a delimiter: "--", padding or CRLF follows */
	S_DASH,        /* "-" of the closing "--" seen */
	S_PAD,         /* transport padding (spaces, tabs) before CRLF */
	S_CR,          /* CR seen, LF expected */
	S_HEADERS,     /* a part's header block, up to an empty line */
	S_EPILOGUE,    /* after the closing delimiter: ignored */
};

struct multipart {
	struct multipart_sink sink;
	char delim[4 + MULTIPART_BOUNDARY_MAX + 1];   /* CRLF "--" boundary */
	size_t dlen, matched;
	bool in_part;           /* body bytes belong to a part (else preamble) */
	enum state state;
	char hdr[MULTIPART_HEADERS_MAX];
	size_t hlen;
	int parts;
	enum multipart_status status;
	const char *error;
};

/* RFC 2046 §5.1.1 bchars. */
static bool is_bchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       strchr("'()+_,-./:=? ", c) != NULL;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Reads a token or quoted-string value at p into out (truncated to n-1
 * bytes); returns the position after it. */
static const char *read_value(const char *p, const char *end, char *out, size_t n)
{
	size_t o = 0;
	if (p < end && *p == '"') {
		for (p++; p < end && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			if (o + 1 < n)
				out[o++] = *p;
		}
		if (p < end)
			p++;
	} else {
		for (; p < end && *p != ';' && *p != ' ' && *p != '\t'; p++)
			if (o + 1 < n)
				out[o++] = *p;
	}
	out[o] = '\0';
	return p;
}

/* Finds parameter `key` in "type; a=b; key=value" (p .. end); true when
 * present, with its value in out. */
static bool find_param(const char *p, const char *end, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		if (!semi)
			return false;
		p = skip_ws(semi + 1);
		if ((size_t)(end - p) > kl && !strncasecmp(p, key, kl) && p[kl] == '=') {
			read_value(p + kl + 1, end, out, n);
			return true;
		}
	}
	return false;
}

struct multipart *multipart_new(const char *content_type, const struct multipart_sink *sink)
{
	static const char type[] = "multipart/form-data";
	if (!content_type || strncasecmp(content_type, type, sizeof type - 1))
		return NULL;
	const char *end = content_type + strlen(content_type);
	char b[MULTIPART_BOUNDARY_MAX + 2];
	if (!find_param(content_type, end, "boundary", b, sizeof b))
		return NULL;
	size_t bl = strlen(b);
	if (bl == 0 || bl > MULTIPART_BOUNDARY_MAX || b[bl - 1] == ' ')
		return NULL;
	for (size_t i = 0; i < bl; i++)
		if (!is_bchar((unsigned char)b[i]))
			return NULL;
	struct multipart *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->sink = *sink;
	memcpy(m->delim, "\r\n--", 4);
	memcpy(m->delim + 4, b, bl);
	m->dlen = 4 + bl;
	m->matched = 2;   /* the first delimiter needs no CRLF before it */
	return m;
}

void multipart_free(struct multipart *m)
{
	free(m);
}

static enum multipart_status fail(struct multipart *m, const char *why)
{
	m->status = MULTIPART_MALFORMED;
	m->error = why;
	return m->status;
}

static bool emit(struct multipart *m, const char *p, size_t n)
{
	if (!m->in_part || n == 0 || m->sink.part_data(m->sink.ctx, p, n))
		return true;
	m->status = MULTIPART_STOPPED;
	return false;
}

/* Scans body bytes from *i; stops after a whole delimiter (state S_AFTER)
 * or at the end of the chunk. */
static void scan_body(struct multipart *m, const char *d, size_t len, size_t *i)
{
	while (*i < len) {
		if (m->matched == 0) {
			const char *cr = memchr(d + *i, '\r', len - *i);
			size_t stop = cr ? (size_t)(cr - d) : len;
			if (!emit(m, d + *i, stop - *i))
				return;
			*i = stop;
			if (!cr)
				return;
			m->matched = 1;
			(*i)++;
			continue;
		}
		if (d[*i] == m->delim[m->matched]) {
			(*i)++;
			if (++m->matched == m->dlen) {
				m->matched = 0;
				m->state = S_AFTER;
				return;
			}
			continue;
		}
		/* Not a delimiter after all: what matched was data. */
		size_t was = m->matched;
		m->matched = 0;
		if (!emit(m, m->delim, was))
			return;
	}
}

/* The Content-Disposition of a finished header block; starts the part. */
static enum multipart_status begin_part(struct multipart *m)
{
	char name[MULTIPART_NAME_MAX + 1], file[MULTIPART_NAME_MAX + 1];
	bool has_name = false, has_file = false;
	const char *p = m->hdr, *end = m->hdr + m->hlen;
	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		if (!eol)
			eol = end;
		static const char cd[] = "content-disposition:";
		if ((size_t)(eol - p) >= sizeof cd - 1 && !strncasecmp(p, cd, sizeof cd - 1)) {
			has_name = find_param(p, eol, "name", name, sizeof name);
			has_file = find_param(p, eol, "filename", file, sizeof file);
		}
		p = eol + 2;
	}
	m->parts++;
	m->in_part = true;
	m->state = S_BODY;
	if (!m->sink.part_begin(m->sink.ctx, has_name ? name : NULL, has_file ? file : NULL))
		m->status = MULTIPART_STOPPED;
	return m->status;
}

/* One byte of a part's header block. */
static enum multipart_status header_byte(struct multipart *m, char c)
{
	if (m->hlen == sizeof m->hdr)
		return fail(m, "A part's headers are larger than 8 KiB.");
	m->hdr[m->hlen++] = c;
	if (c != '\n')
		return MULTIPART_OK;
	if (m->hlen >= 2 && m->hdr[m->hlen - 2] != '\r')
		return fail(m, "A part's header lines must end with CRLF.");
	bool blank = m->hlen == 2 || (m->hlen >= 4 && !memcmp(m->hdr + m->hlen - 4, "\r\n\r\n", 4));
	return blank ? begin_part(m) : MULTIPART_OK;
}

/* One byte right after a delimiter: "--" closes, padding then CRLF opens
 * the next part. */
static enum multipart_status after_byte(struct multipart *m, char c)
{
	switch (m->state) {
	case S_AFTER:
		m->in_part = false;
		if (c == '-')
			m->state = S_DASH;
		else if (c == ' ' || c == '\t')
			m->state = S_PAD;
		else if (c == '\r')
			m->state = S_CR;
		else
			return fail(m, "A boundary line is followed by something other than CRLF or \"--\".");
		return MULTIPART_OK;
	case S_DASH:
		if (c != '-')
			return fail(m, "A boundary line is followed by something other than CRLF or \"--\".");
		m->state = S_EPILOGUE;
		return MULTIPART_OK;
	case S_PAD:
		if (c == '\r')
			m->state = S_CR;
		else if (c != ' ' && c != '\t')
			return fail(m, "A boundary line is followed by something other than CRLF or \"--\".");
		return MULTIPART_OK;
	default: /* S_CR */
		if (c != '\n')
			return fail(m, "A boundary line must end with CRLF.");
		m->state = S_HEADERS;
		m->hlen = 0;
		return MULTIPART_OK;
	}
}

enum multipart_status multipart_feed(struct multipart *m, const char *data, size_t len)
{
	size_t i = 0;
	while (m->status == MULTIPART_OK && i < len) {
		switch (m->state) {
		case S_BODY:
			scan_body(m, data, len, &i);
			break;
		case S_HEADERS:
			header_byte(m, data[i++]);
			break;
		case S_EPILOGUE:
			return m->status;
		default:
			after_byte(m, data[i++]);
		}
	}
	return m->status;
}

enum multipart_status multipart_finish(struct multipart *m)
{
	if (m->status != MULTIPART_OK || m->state == S_EPILOGUE)
		return m->status;
	return fail(m, m->parts ? "The multipart body ends before its closing boundary."
			       : "No part was found between the boundaries the Content-Type announces.");
}

int multipart_parts(const struct multipart *m)
{
	return m->parts;
}

const char *multipart_error(const struct multipart *m)
{
	return m->error;
}
