/* The HTTP server: libmicrohttpd glue with a per-request arena.
 *
 * The server knows nothing of routes or of the API.  For each request it
 * calls the application's three hooks, in order:
 *   on_headers  — headers are in; route, authenticate, maybe respond at once;
 *   on_body     — zero or more chunks of the body (never when already answered);
 *   on_complete — the body is complete; produce the response.
 * A hook answers by calling one of the http_respond_* functions; once answered
 * the rest of the body is read and dropped (bounded), then the response goes. */
#ifndef LOADLINE_HTTP_HTTP_H
#define LOADLINE_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ids.h"

struct arena;
struct notify;

#define HTTP_MAX_HEADERS_OUT 24
#define HTTP_MAX_URL 8192
#define HTTP_MAX_HEADER_BYTES (32 * 1024)
/* Request header fields, at most (Apache's LimitRequestFields and Tomcat's
 * maxHeaderCount default; clients send 10-25).  More get our 431 problem. */
#define HTTP_MAX_HEADER_FIELDS 100
/* libmicrohttpd's memory per connection: a request that does not fit gets
 * its own bare 431.  It zeroes all of it after every request (a keep-alive
 * poll pays that), so it costs CPU too (docs/benchmarks.md, goal 6).  64 KiB
 * holds every request our own checks answer: with an 8 KiB URL and 32 KiB
 * of headers, up to ~390 fields (the cap is 100), and 100 fields in up to
 * ~50 KB; 48 KiB would fail at 135 fields or 34 KB.  Test:
 * tests/api/test_problems.py::test_many_header_fields_within_limits_reach_our_code */
#define HTTP_CONNECTION_MEMORY (64 * 1024)
/* The first arena block of a request that may be held (a long poll): what
 * it has when it registers (routing, its key and organization, its poll
 * state: 3.7 KB measured) fits in one 4 KiB malloc chunk with the block's
 * header; the run's read and JSON after that take a second block, dropped
 * while it is parked (issue 27: 10,000 held requests). */
#define HTTP_HOLD_ARENA (4 * 1024 - 64)

struct http_request {
	struct arena *arena;       /* freed when the response has been sent */
	const char *method;
	const char *path;          /* without the query string, %-decoded */
	char request_id[ID_MAX];   /* "req_..." */
	char org_id[ID_MAX];       /* set once authenticated; "" before (for the log) */
	void *conn;                /* struct MHD_Connection (only src/http/ looks inside) */
	void *app;                 /* http_app.app: the application object, opaque here */
	void *app_data;            /* the application's per-request state */
	size_t body_bytes;         /* bytes received so far */
};

struct http_header {
	const char *name, *value;
};

struct http_response {
	bool answered;
	bool close;                /* end the connection after this response */
	int status;
	const char *content_type;
	const char *body;          /* arena-owned or static */
	size_t body_len;
	struct http_header headers[HTTP_MAX_HEADERS_OUT];
	int nheaders;
};

struct http_app {
	void (*on_headers)(struct http_request *req, struct http_response *res);
	void (*on_body)(struct http_request *req, struct http_response *res, const char *data, size_t size);
	void (*on_complete)(struct http_request *req, struct http_response *res);
	/* Called once per request after the response was sent (or the client went away). */
	void (*on_done)(struct http_request *req, const struct http_response *res);
	/* An unwanted body announced larger than max_discard is not read: the
	 * answer goes out at once and the connection closes gracefully.  A
	 * smaller one is read and dropped, up to max_discard_hard bytes (a
	 * chunked body has no announced size). */
	size_t max_discard;
	size_t max_discard_hard;
	void *app;   /* handed to every request as req->app */
	/* Connection budget: in all (0 = 4096), per client IP (0 = no limit:
	 * behind a proxy every client has its address), and the seconds a
	 * connection may stay silent before it is closed (0 = 15). */
	unsigned max_connections, max_per_ip, idle_timeout_s;
	/* A connection's request line and headers are due within this many
	 * milliseconds of its accept (0 = 5000); see guard.h. */
	unsigned header_timeout_ms;
	/* A request body must average at least this many bytes a second,
	 * counted from its headers after a grace of the header time-out; a
	 * slower one ends its connection (0: no minimum).  A body trickled a
	 * byte every few seconds held its connection for as long as it liked. */
	unsigned min_body_rate;
	/* Share the port with other processes (SO_REUSEPORT, LOADLINE_REUSEPORT=1);
	 * otherwise an address in use is refused. */
	bool reuse_port;
	/* The process's notification hub, whose table holds the long polls
	 * (http_hold; its size is LOADLINE_MAX_WAITERS); NULL: none held. */
	struct notify *notify;
};

/* Request accessors (values live as long as the request). NULL when absent. */
const char *http_header(const struct http_request *req, const char *name);
const char *http_query(const struct http_request *req, const char *name);
/* What a request's first checks need, in one pass over the headers and
 * query arguments.  Sizes count each name and value plus 4 bytes. */
struct http_scan {
	size_t query_bytes;        /* the query string's names and values */
	size_t header_bytes;       /* the request headers' names and values */
	size_t header_fields;      /* the request header fields, each repeat counted */
	bool length_conflicts;     /* Content-Length given twice, differently */
	bool has_length;           /* a Content-Length header */
	bool has_transfer_encoding; /* a Transfer-Encoding header */
	bool query_not_utf8;       /* a query parameter's name or value is not UTF-8 */
	bool bad_field_name;       /* a header name that is not an RFC 9110 token
				    * ("Content-Length :", a space before the colon) */
};
void http_request_scan(const struct http_request *req, struct http_scan *ret);
/* The client's address as text ("203.0.113.9", "2001:db8::1") into
 * out[cap] (46 bytes hold any); "" when unknown.  Returns out. */
const char *http_peer_addr(const struct http_request *req, char *out, size_t cap);
/* True when the client connected from a loopback address (127.0.0.0/8,
 * ::1, or 127.x mapped into IPv6). */
bool http_peer_loopback(const struct http_request *req);

/* Response builders: set status/body (copied into the request arena when
 * copy is true) and mark the request answered.  Headers may be added before
 * or after. */
void http_respond(struct http_request *req, struct http_response *res, int status,
		  const char *content_type, const char *body, size_t len);
void http_add_header(struct http_request *req, struct http_response *res, const char *name,
		     const char *value);
/* Adds a header even when one of that name is already set (Set-Cookie). */
void http_append_header(struct http_request *req, struct http_response *res, const char *name,
			const char *value);

struct http_server;

/* Long poll (issue 27): called from on_complete *before* reading what the
 * request waits for (register, then read: a change in between is not
 * missed).  Then the handler either answers — the registration is dropped
 * — or returns without answering: the request is held, without an HTTP
 * thread, until the topic changes (notify_run_changed) or deadline_ms
 * (clock.h's now_ms) passes, and on_complete is called again to answer or
 * hold again.  A handler answers or holds, never both.  False when no more
 * may be held (the table, the organization's share — req->org_id — or the
 * server is stopping): answer now.  topic is copied. */
bool http_hold(struct http_request *req, const char *topic, int64_t deadline_ms);
/* Requests held now. */
int http_held(struct http_server *srv);

/* A socket listening on "HOST:PORT", or -1 with a message on stderr (one
 * that says what to do when the address is already in use).  SO_REUSEPORT
 * only with reuse_port. */
int http_listen(const char *listen, bool reuse_port);
/* Starts serving with a thread pool on lfd (from http_listen; taken over,
 * closed on failure too); listen names it in messages.  NULL with a message
 * on stderr when the server cannot start. */
struct http_server *http_start_fd(int lfd, const char *listen, int threads, const struct http_app *app);
/* http_listen(listen, app->reuse_port) and http_start_fd. */
struct http_server *http_start(const char *listen, int threads, const struct http_app *app);
/* Stops accepting, waits up to grace_ms for in-flight requests, stops. */
void http_stop(struct http_server *srv, int grace_ms);
/* The port actually bound (useful with port 0). */
int http_port(const struct http_server *srv);

#endif
