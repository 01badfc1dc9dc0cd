/* A streaming multipart/form-data parser (RFC 7578 over RFC 2046 framing).
 *
 * The body is fed in chunks as it arrives; each part's name and file name
 * are announced, then its bytes are handed to the sink as they pass, never
 * held whole.  Memory is bounded by the part-header cap, whatever the body
 * size.  Knows nothing of HTTP servers: it parses bytes (and is fuzzed,
 * fuzz/fuzz_multipart.c). */
#ifndef LOADLINE_HTTP_MULTIPART_H
#define LOADLINE_HTTP_MULTIPART_H

#include <stdbool.h>
#include <stddef.h>

#define MULTIPART_BOUNDARY_MAX 70     /* RFC 2046 §5.1.1 */
#define MULTIPART_HEADERS_MAX 8192    /* one part's header block */
#define MULTIPART_NAME_MAX 256        /* name= and filename= values */

/* What the parser hands on.  A false return from a callback stops the
 * parse (MULTIPART_STOPPED). */
struct multipart_sink {
	/* A part begins.  name and filename are NUL-terminated, at most
	 * MULTIPART_NAME_MAX bytes; NULL when the part has none. */
	bool (*part_begin)(void *ctx, const char *name, const char *filename);
	/* Bytes of the current part's body, in order (len > 0). */
	bool (*part_data)(void *ctx, const char *data, size_t len);
	void *ctx;
};

enum multipart_status {
	MULTIPART_OK,          /* so far so good / complete */
	MULTIPART_MALFORMED,   /* framing broken; see multipart_error */
	MULTIPART_STOPPED,     /* a sink callback returned false */
};

struct multipart;

/* Reads the boundary from a Content-Type value ("multipart/form-data;
 * boundary=..."); NULL when it is not multipart/form-data or the boundary
 * is missing or not a valid one.  Free with multipart_free. */
struct multipart *multipart_new(const char *content_type, const struct multipart_sink *sink);
void multipart_free(struct multipart *m);
/* Parses the next chunk of the body.  Once it returns anything but
 * MULTIPART_OK, later calls return the same status. */
enum multipart_status multipart_feed(struct multipart *m, const char *data, size_t len);
/* The body has ended: MULTIPART_OK only when the closing boundary was
 * seen; MULTIPART_MALFORMED otherwise. */
enum multipart_status multipart_finish(struct multipart *m);
/* Parts begun so far. */
int multipart_parts(const struct multipart *m);
/* Why the parse failed (a sentence for a problem detail), or NULL. */
const char *multipart_error(const struct multipart *m);

#endif
