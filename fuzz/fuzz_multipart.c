/* libFuzzer target: the streaming multipart parser (src/http/multipart.c).
 * The first byte picks where the body is split into two chunks; the
 * invariant is that the split changes nothing: the same status, the same
 * parts with the same names, file names and bytes as one whole chunk. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/multipart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	char log[1 << 16];   /* "B<name>|<file>\n" per part, then its bytes */
	size_t len;
	bool overflow;
};

static void add(struct seen *s, const char *p, size_t n)
{
	if (s->len + n > sizeof s->log) {
		s->overflow = true;
		return;
	}
	memcpy(s->log + s->len, p, n);
	s->len += n;
}

static bool on_begin(void *ctx, const char *name, const char *file)
{
	struct seen *s = ctx;
	add(s, "\nB", 2);
	if (name) {
		assert(strlen(name) <= MULTIPART_NAME_MAX);
		add(s, name, strlen(name));
	}
	add(s, "|", 1);
	if (file)
		add(s, file, strlen(file));
	add(s, "\n", 1);
	return true;
}

static bool on_data(void *ctx, const char *p, size_t n)
{
	assert(n > 0);
	add(ctx, p, n);
	return true;
}

static enum multipart_status parse(const char *ct, const char *body, size_t n, size_t split, struct seen *s)
{
	struct multipart_sink sink = {on_begin, on_data, s};
	struct multipart *m = multipart_new(ct, &sink);
	if (!m)
		return MULTIPART_STOPPED;   /* stands for "no parser": same for both */
	multipart_feed(m, body, split);
	multipart_feed(m, body + split, n - split);
	enum multipart_status st = multipart_finish(m);
	assert(st != MULTIPART_MALFORMED || multipart_error(m));
	multipart_free(m);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Input: split byte, then a Content-Type line, then the body. */
	if (size < 2)
		return 0;
	const char *rest = (const char *)data + 1;
	size_t rn = size - 1;
	const char *nl = memchr(rest, '\n', rn);
	if (!nl)
		return 0;
	size_t cl = (size_t)(nl - rest);
	char *ct = malloc(cl + 1);
	memcpy(ct, rest, cl);
	ct[cl] = '\0';
	const char *body = nl + 1;
	size_t n = rn - cl - 1;
	size_t split = n ? data[0] % (n + 1) : 0;
	static struct seen whole, parts;
	whole.len = parts.len = 0;
	whole.overflow = parts.overflow = false;
	enum multipart_status a = parse(ct, body, n, n, &whole);
	enum multipart_status b = parse(ct, body, n, split, &parts);
	assert(a == b);
	if (!whole.overflow && !parts.overflow && a == MULTIPART_OK) {
		assert(whole.len == parts.len);
		assert(!memcmp(whole.log, parts.log, whole.len));
	}
	free(ct);
	return 0;
}
