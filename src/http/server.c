/* libmicrohttpd glue: one arena per request, hooks into the application,
 * bounded draining of unwanted bodies, graceful stop. */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "base/text.h"
#include "base/waiter.h"
#include "guard.h"
#include "http.h"
#include "notify/notify.h"

#define LINGER_MAX 256   /* connections closing gracefully at once */

/* Connections answered before their body was read are closed gracefully
 * by one thread of their own, so no HTTP pool thread ever waits on a
 * client that keeps sending. */
struct lingerer {
	pthread_mutex_t mu;
	pthread_cond_t wake;
	int fds[LINGER_MAX];
	double until[LINGER_MAX];
	int n;
	bool stop;
	pthread_t thread;
};

struct http_server {
	struct MHD_Daemon *d;
	const struct http_app *app;
	atomic_int active;
	int port;
	struct lingerer lg;
	int listen_fd;             /* ours: libmicrohttpd gets connections from acceptor_main */
	pthread_t acceptor;
	struct guard *guard;       /* admission and header deadlines (guard.h) */
	double header_ms;          /* the header time-out */
	struct notify *notify;     /* long polls are held in its table; NULL: none */
	atomic_bool stopping;
};

/* libmicrohttpd's socket context: what one connection carries across its
 * requests. */
struct sock_ctx {
	bool linger;               /* close it gracefully (on_connection) */
	struct guard_conn *gc;     /* its guard entry; NULL when untracked */
};

struct conn_state {
	struct http_request req;
	struct http_response res;
	size_t discarded;
	double t_headers;          /* mono_ms() when the headers were in */
	struct http_server *srv;
	int hold;                  /* http_hold's registration, or NOTIFY_HOLD_NONE */
	/* The request as it was when it registered its hold: what the
	 * handler built after it is dropped while the request is parked. */
	struct arena_mark hold_mark;
	int hold_nheaders;
};

const char *http_header(const struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *http_query(const struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

bool http_peer_loopback(const struct http_request *req)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

const char *http_peer_addr(const struct http_request *req, char *out, size_t cap)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	const void *addr = !sa ? NULL
			   : sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
			   : sa->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
						       : NULL;
	if (cap && (!addr || !inet_ntop(sa->sa_family, addr, out, (socklen_t)cap)))
		*out = '\0';
	return out;
}

struct same_values {
	const char *name;
	const char *first;
	bool differ;
};

static enum MHD_Result compare_value(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	struct same_values *s = cls;
	if (strcasecmp(key, s->name))
		return MHD_YES;
	if (!s->first)
		s->first = value ? value : "";
	else if (strcmp(s->first, value ? value : ""))
		s->differ = true;
	return MHD_YES;
}

/* RFC 9110 §5.1: a field name is a token.  libmicrohttpd keeps a name
 * such as "Content-Length " (space before the colon) as it came, and would
 * then read the request as having no body. */
static bool is_token(const char *s)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      strchr(extra, *s)))
			return false;
	return true;
}

struct request_scan {
	struct http_scan *out;
	struct same_values cl;
};

static enum MHD_Result request_scan_value(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct request_scan *s = cls;
	size_t n = strlen(key) + (value ? strlen(value) : 0) + 4;
	if (kind == MHD_GET_ARGUMENT_KIND) {
		s->out->query_bytes += n;
		if (!text_utf8_valid(key) || (value && !text_utf8_valid(value)))
			s->out->query_not_utf8 = true;
		return MHD_YES;
	}
	s->out->header_bytes += n;
	s->out->header_fields++;
	if (!is_token(key))
		s->out->bad_field_name = true;
	if (!strcasecmp(key, "Transfer-Encoding"))
		s->out->has_transfer_encoding = true;
	return compare_value(&s->cl, kind, key, value);
}

void http_request_scan(const struct http_request *req, struct http_scan *ret)
{
	*ret = (struct http_scan){0};
	struct request_scan s = {ret, {"Content-Length", NULL, false}};
	MHD_get_connection_values(req->conn, (enum MHD_ValueKind)(MHD_HEADER_KIND | MHD_GET_ARGUMENT_KIND),
				  request_scan_value, &s);
	ret->length_conflicts = s.cl.differ;
	ret->has_length = s.cl.first != NULL;
}

void http_respond(struct http_request *req, struct http_response *res, int status,
		  const char *content_type, const char *body, size_t len)
{
	res->answered = true;
	res->status = status;
	res->content_type = content_type ? arena_strdup(req->arena, content_type) : NULL;
	res->body = body ? arena_strndup(req->arena, body, len) : NULL;
	res->body_len = body ? len : 0;
}

void http_add_header(struct http_request *req, struct http_response *res, const char *name,
		     const char *value)
{
	for (int i = 0; i < res->nheaders; i++) {
		if (!strcasecmp(res->headers[i].name, name)) {
			res->headers[i].value = arena_strdup(req->arena, value);
			return;
		}
	}
	http_append_header(req, res, name, value);
}

void http_append_header(struct http_request *req, struct http_response *res, const char *name,
			const char *value)
{
	if (res->nheaders == HTTP_MAX_HEADERS_OUT)
		return;
	res->headers[res->nheaders].name = arena_strdup(req->arena, name);
	res->headers[res->nheaders].value = arena_strdup(req->arena, value);
	res->nheaders++;
}

static void mark_lingering(struct MHD_Connection *c);

static enum MHD_Result send_response(struct MHD_Connection *c, struct conn_state *cs)
{
	struct http_response *res = &cs->res;
	/* No body (a 304, a 204): nothing to copy. */
	struct MHD_Response *r = res->body_len ? MHD_create_response_from_buffer(res->body_len, (void *)res->body,
										 MHD_RESPMEM_MUST_COPY)
					       : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (res->content_type && res->status != 304)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type);
	MHD_add_response_header(r, "X-Request-Id", cs->req.request_id);
	for (int i = 0; i < res->nheaders; i++)
		MHD_add_response_header(r, res->headers[i].name, res->headers[i].value);
	if (res->close) {
		/* libmicrohttpd ends the connection after this response and reads
		 * nothing more from it; what the client still sends is drained by
		 * the lingerer so the response is not lost to a reset. */
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
		mark_lingering(c);
	}
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)res->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* A response sent before the request body was read makes libmicrohttpd
 * close a socket that still has unread input, which the kernel turns into
 * a reset that can destroy the response before the client reads it.  Such
 * connections are marked, and closed gracefully in on_connection. */
static struct sock_ctx *sock_ctx(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

static void mark_lingering(struct MHD_Connection *c)
{
	struct sock_ctx *sc = sock_ctx(c);
	if (sc)
		sc->linger = true;
}

#define LINGER_MS 2000

/* Takes over a connection that is being closed: half-closes it at once and
 * leaves the draining to the lingerer thread.  Full: closes it now. */
static void linger_add(struct lingerer *lg, int fd)
{
	int own = dup(fd);
	if (own < 0)
		return;
	shutdown(own, SHUT_WR);
	pthread_mutex_lock(&lg->mu);
	if (lg->n == LINGER_MAX || lg->stop) {
		close(own);
	} else {
		lg->fds[lg->n] = own;
		lg->until[lg->n++] = mono_ms() + LINGER_MS;
		pthread_cond_signal(&lg->wake);
	}
	pthread_mutex_unlock(&lg->mu);
}

/* Reads and drops what a client still sends; false once it is done (end
 * of stream or error). */
static bool drain(int fd)
{
	char sink[16384];
	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
		if (n > 0)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
	}
	return true;
}

/* Drops the i-th lingering connection (lock held). */
static void linger_drop(struct lingerer *lg, int i)
{
	close(lg->fds[i]);
	lg->fds[i] = lg->fds[--lg->n];
	lg->until[i] = lg->until[lg->n];
}

static void *lingerer_main(void *arg)
{
	struct lingerer *lg = arg;
	struct pollfd p[LINGER_MAX];
	pthread_mutex_lock(&lg->mu);
	while (!lg->stop) {
		if (lg->n == 0) {
			pthread_cond_wait(&lg->wake, &lg->mu);
			continue;
		}
		int n = lg->n > 0 && lg->n <= LINGER_MAX ? lg->n : 1;
		for (int i = 0; i < n; i++)
			p[i] = (struct pollfd){.fd = lg->fds[i], .events = POLLIN};
		pthread_mutex_unlock(&lg->mu);
		poll(p, (nfds_t)(unsigned)n, 100);
		bool done[LINGER_MAX] = {0};
		for (int i = 0; i < n; i++)
			done[i] = (p[i].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(p[i].fd);
		pthread_mutex_lock(&lg->mu);
		double now = mono_ms();
		/* New fds were only appended after index n; drop from the end so
		 * indices below stay valid. */
		for (int i = n - 1; i >= 0; i--)
			if (done[i] || now >= lg->until[i])
				linger_drop(lg, i);
	}
	while (lg->n)
		linger_drop(lg, lg->n - 1);
	pthread_mutex_unlock(&lg->mu);
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		struct sock_ctx *sc = calloc(1, sizeof(*sc));
		*socket_context = sc;
		if (sc && ci)
			sc->gc = guard_started(srv->guard, ci->connect_fd);
		return;
	}
	struct sock_ctx *sc = *socket_context;
	if (sc && sc->linger && ci)
		linger_add(&srv->lg, ci->connect_fd);
	if (sc && sc->gc)
		guard_closed(srv->guard, sc->gc);   /* before libmicrohttpd closes the fd */
	free(sc);
	*socket_context = NULL;
}

/* True when the request announces (Content-Length) or may have (chunked)
 * a body larger than limit. */
static bool body_exceeds(const struct http_request *req, size_t limit)
{
	const char *cl = http_header(req, "Content-Length");
	if (cl) {
		char *end;
		unsigned long long n = strtoull(cl, &end, 10);
		return *end != '\0' || n > limit;
	}
	return http_header(req, "Transfer-Encoding") != NULL;
}

/* "req_" and ID_RANDOM_CHARS uniform base62 characters, as id_new writes
 * them, from a per-thread pool of CSPRNG bytes: one getrandom call per some
 * hundred requests rather than one each. */
static void request_id_new(char out[ID_MAX])
{
	static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	static _Thread_local unsigned char pool[4096];
	static _Thread_local size_t used = sizeof pool;
	memcpy(out, "req_", 4);
	for (size_t i = 0; i < ID_RANDOM_CHARS;) {
		if (used == sizeof pool) {
			randombytes_buf(pool, sizeof pool);
			used = 0;
		}
		unsigned char b = pool[used];
		pool[used++] = 0; /* a byte is used once */
		if (b < 248) /* 4 * 62: every character stays uniform */
			out[4 + i++] = alphabet[b % 62];
	}
	out[4 + ID_RANDOM_CHARS] = '\0';
}

/* Each pool thread keeps one request's state and arena (reset, its first
 * block kept) for the next request, so a request costs no malloc of its
 * own; what a thread keeps is freed when it exits. */
struct spare {
	struct conn_state *cs;
	struct arena *arena;
};

static pthread_key_t spare_key;
static bool spare_key_ok;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *p)
{
	struct spare *sp = p;
	free(sp->cs);
	arena_free(sp->arena);
	free(sp);
}

static void spare_init(void)
{
	spare_key_ok = pthread_key_create(&spare_key, spare_free) == 0;
}

static struct spare *thread_spare(void)
{
	pthread_once(&spare_once, spare_init);
	if (!spare_key_ok)
		return NULL;
	struct spare *sp = pthread_getspecific(spare_key);
	if (!sp) {
		sp = calloc(1, sizeof(*sp));
		if (sp && pthread_setspecific(spare_key, sp)) {
			free(sp);
			sp = NULL;
		}
	}
	return sp; /* NULL: nothing is kept on this thread */
}

/* A request that may be held (a GET with a Prefer header: a long poll)
 * gets its own small arena rather than the thread's 16 KiB one: while it
 * is parked it keeps only what it had when it registered (issue 27: 10,000
 * held requests in ≤ 100 MB). */
static struct conn_state *conn_state_new(bool may_hold)
{
	struct spare *sp = thread_spare();
	struct conn_state *cs = sp ? sp->cs : NULL;
	struct arena *a = sp && !may_hold ? sp->arena : NULL;
	if (sp) {
		sp->cs = NULL;
		if (!may_hold)
			sp->arena = NULL;
	}
	if (may_hold)
		a = arena_new_sized(HTTP_HOLD_ARENA);
	if (cs) {
		memset(cs, 0, sizeof(*cs));
	} else if (!(cs = calloc(1, sizeof(*cs)))) {
		arena_free(a);
		return NULL;
	}
	cs->req.arena = a ? a : arena_new();
	return cs;
}

static void conn_state_free(struct conn_state *cs)
{
	struct spare *sp = thread_spare();
	if (!sp) {
		arena_free(cs->req.arena);
		free(cs);
		return;
	}
	if (!sp->arena) {
		arena_reset(cs->req.arena); /* runs its cleanups, as arena_free would */
		sp->arena = cs->req.arena;
	} else {
		arena_free(cs->req.arena);
	}
	if (!sp->cs)
		sp->cs = cs;
	else
		free(cs);
}

/* The body is in (or the request was resumed): the application answers,
 * or holds the request (http_hold before it reads, then no answer), which
 * suspends it here.  A hold woken between its registration and here is
 * resumed at once, and the application reads again. */
static enum MHD_Result complete(struct MHD_Connection *c, struct conn_state *cs)
{
	struct notify *n = cs->srv->notify;
	cs->hold = NOTIFY_HOLD_NONE;
	if (!cs->res.answered)
		cs->srv->app->on_complete(&cs->req, &cs->res);
	if (cs->hold != NOTIFY_HOLD_NONE && cs->res.answered) {
		notify_hold_cancel(n, cs->hold);
	} else if (cs->hold != NOTIFY_HOLD_NONE) {
		arena_rewind(cs->req.arena, cs->hold_mark);
		cs->res.nheaders = cs->hold_nheaders;
		MHD_suspend_connection(c);
		if (!notify_hold_park(n, cs->hold))
			MHD_resume_connection(c);   /* on_complete again, soon */
		return MHD_YES;
	}
	if (!cs->res.answered)
		http_respond(&cs->req, &cs->res, 500, "text/plain", "no response", 11);
	return send_response(c, cs);
}

static void resume_connection(void *c)
{
	MHD_resume_connection(c);
}

bool http_hold(struct http_request *req, const char *topic, int64_t deadline_ms)
{
	struct conn_state *cs = (struct conn_state *)req;
	if (!cs->srv->notify || cs->hold != NOTIFY_HOLD_NONE)
		return false;
	cs->hold_mark = arena_mark(req->arena);
	cs->hold_nheaders = cs->res.nheaders;
	cs->hold = notify_hold_add(cs->srv->notify, topic, req->org_id, deadline_ms, resume_connection, req->conn);
	return cs->hold != NOTIFY_HOLD_NONE;
}

int http_held(struct http_server *srv)
{
	return srv && srv->notify ? notify_held(srv->notify) : 0;
}

/* Issue 27 item 10: after the header time-out's grace, a body must have
 * averaged the minimum rate since its headers (checked as bytes arrive; a
 * body that sends nothing meets libmicrohttpd's idle time-out). */
static bool body_too_slow(const struct http_server *srv, const struct conn_state *cs)
{
	unsigned rate = srv->app->min_body_rate;
	double elapsed = mono_ms() - cs->t_headers;
	return rate && elapsed > srv->header_ms && (double)cs->req.body_bytes < (elapsed - srv->header_ms) / 1000.0 * rate;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	(void)version;
	struct http_server *srv = cls;
	const struct http_app *app = srv->app;
	struct conn_state *cs = *con_cls;
	if (!cs) {
		cs = conn_state_new(!strcmp(method, "GET") && MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Prefer"));
		if (!cs)
			return MHD_NO;
		atomic_fetch_add(&srv->active, 1);
		*con_cls = cs;
		struct sock_ctx *sc = sock_ctx(c);
		if (sc && sc->gc)
			guard_headers(srv->guard, sc->gc, mono_ms());   /* its header deadline is met */
		cs->req.method = arena_strdup(cs->req.arena, method);
		cs->req.path = arena_strdup(cs->req.arena, url);
		cs->req.conn = c;
		cs->req.app = app->app;
		cs->t_headers = mono_ms();
		cs->srv = srv;
		request_id_new(cs->req.request_id);
		app->on_headers(&cs->req, &cs->res);
		if (sc && sc->gc && cs->req.org_id[0])
			guard_trust(srv->guard, sc->gc);   /* authenticated: not pushed out for room */
		/* libmicrohttpd can only send a response before the body is read
		 * from this first call; do so when the body is too big to drain. */
		if (cs->res.answered && body_exceeds(&cs->req, app->max_discard)) {
			mark_lingering(c);
			return send_response(c, cs);
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;
		cs->req.body_bytes += n;
		if (body_too_slow(srv, cs))
			return MHD_NO;   /* the connection ends: no answer for a trickle */
		if (!cs->res.answered) {
			*upload_data_size = 0;
			app->on_body(&cs->req, &cs->res, upload_data, n);
			return MHD_YES;
		}
		/* Already answered: drop the rest of the body so the client sees
		 * our response rather than a reset.  A body that turns out larger
		 * than announced-or-bounded ends the connection. */
		*upload_data_size = 0;
		cs->discarded += n;
		return cs->discarded > app->max_discard_hard ? MHD_NO : MHD_YES;
	}
	return complete(c, cs);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)toe;
	struct http_server *srv = cls;
	struct conn_state *cs = *con_cls;
	if (!cs)
		return;
	/* A kept-alive connection's next request is due within its idle time
	 * plus the header time (guard.h); a closing one is forgotten in
	 * on_connection. */
	struct sock_ctx *sc = sock_ctx(c);
	if (sc && sc->gc)
		guard_idle(srv->guard, sc->gc, mono_ms());
	if (srv->app->on_done)
		srv->app->on_done(&cs->req, &cs->res);
	conn_state_free(cs);
	*con_cls = NULL;
	atomic_fetch_sub(&srv->active, 1);
}

static int parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[256];
	const char *colon = strrchr(listen, ':');
	if (!colon || colon == listen || (size_t)(colon - listen) >= sizeof host)
		return -1;
	memcpy(host, listen, (size_t)(colon - listen));
	host[colon - listen] = '\0';
	char *h = host;
	if (h[0] == '[') { /* [::1]:8080 */
		h++;
		char *e = strchr(h, ']');
		if (e)
			*e = '\0';
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *ai = NULL;
	if (getaddrinfo(h, colon + 1, &hints, &ai) || !ai)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void lingerer_stop(struct lingerer *lg)
{
	pthread_mutex_lock(&lg->mu);
	lg->stop = true;
	pthread_cond_signal(&lg->wake);
	pthread_mutex_unlock(&lg->mu);
	pthread_join(lg->thread, NULL);
	pthread_mutex_destroy(&lg->mu);
	pthread_cond_destroy(&lg->wake);
}

/* The listening socket, bound and listening, or -1 with errno set.
 * SO_REUSEADDR lets a restarted server bind while its old connections sit
 * in TIME_WAIT; it never lets two sockets listen on one address on Linux.
 * SO_REUSEPORT does, and the kernel then splits connections between the
 * processes: only on request (LOADLINE_REUSEPORT=1), since a second
 * `serve` started by mistake would silently take half of the traffic
 * (issue 21).  IPv6 only on an IPv6 address. */
static int listen_on(const struct sockaddr_storage *ss, socklen_t sslen, bool reuse_port)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	int on = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (reuse_port)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
	if (bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, SOMAXCONN)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int http_listen(const char *listen, bool reuse_port)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	if (parse_listen(listen, &ss, &sslen)) {
		fprintf(stderr, "loadline: cannot parse listen address \"%s\" (want HOST:PORT)\n", listen);
		return -1;
	}
	int fd = listen_on(&ss, sslen, reuse_port);
	if (fd < 0 && errno == EADDRINUSE)
		fprintf(stderr, "loadline: cannot listen on %s: the address is already in use (another loadline "
			"serve?). Stop that process, choose another address (--listen or LOADLINE_LISTEN), or set "
			"LOADLINE_REUSEPORT=1 to share the port with it on purpose\n", listen);
	else if (fd < 0)
		fprintf(stderr, "loadline: cannot listen on %s: %s\n", listen, strerror(errno));
	return fd;
}

static int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Gives a new connection to libmicrohttpd, when the guard admits it. */
static void hand_over(struct http_server *srv, int fd, struct sockaddr_storage *peer, socklen_t len)
{
	struct guard_conn *gc = guard_admit(srv->guard, fd, (struct sockaddr *)peer, mono_ms());
	if (!gc) {
		close(fd);   /* every slot holds a connection that sent a request */
		return;
	}
	/* libmicrohttpd closes fd itself when it cannot take it (its own
	 * connection limit, the per-address limit). */
	if (MHD_add_connection(srv->d, fd, (struct sockaddr *)peer, len) != MHD_YES)
		guard_abandon(srv->guard, gc);
}

/* Accepts connections and hands them to libmicrohttpd, until http_stop
 * shuts the listening socket down.  Why not libmicrohttpd's own listening
 * socket: stopping it takes MHD_quiesce_daemon, which in 0.9.75 (and
 * later) races with its epoll threads taking the same socket out of their
 * epoll sets and aborts the process when it loses ("Failed to remove
 * listen FD from epoll set"), now and then at SIGTERM. */
static void *acceptor_main(void *arg)
{
	struct http_server *srv = arg;
	for (;;) {
		/* Between connections it enforces the header deadlines (guard.h).
		 * A deadline other threads add (guard_idle) is at least a header
		 * time-out away, so sleeping up to one never misses one — and an
		 * idle server does not wake four times a second (issue 27). */
		double wait = guard_expire(srv->guard, mono_ms(), srv->header_ms);
		struct pollfd p = {.fd = srv->listen_fd, .events = POLLIN};
		if (poll(&p, 1, (int)wait + 1) == 0 && !atomic_load(&srv->stopping))
			continue;
		struct sockaddr_storage peer;
		socklen_t len = sizeof peer;
		int fd = accept4(srv->listen_fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			hand_over(srv, fd, &peer, len);
			continue;
		}
		if (atomic_load(&srv->stopping) || errno == EINVAL || errno == EBADF || errno == ENOTSOCK)
			return NULL;   /* shut down (EINVAL), or nothing left to accept on */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* Out of descriptors or memory: the backlog waits. */
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		/* EINTR, ECONNABORTED, a connection's own error: next one. */
	}
}

struct http_server *http_start(const char *listen, int threads, const struct http_app *app)
{
	int lfd = http_listen(listen, app->reuse_port);
	return lfd < 0 ? NULL : http_start_fd(lfd, listen, threads, app);
}

struct http_server *http_start_fd(int lfd, const char *listen, int threads, const struct http_app *app)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	if (!srv)
		abort();
	srv->app = app;
	srv->listen_fd = lfd;
	unsigned cap = app->max_connections ? app->max_connections : 4096u;
	unsigned idle_s = app->idle_timeout_s ? app->idle_timeout_s : 15u;
	srv->header_ms = app->header_timeout_ms ? app->header_timeout_ms : 5000.0;
	srv->guard = guard_new(cap, app->max_per_ip, srv->header_ms, idle_s * 1000.0);
	pthread_mutex_init(&srv->lg.mu, NULL);
	pthread_cond_init(&srv->lg.wake, NULL);
	thread_start(&srv->lg.thread, lingerer_main, &srv->lg);
	srv->notify = app->notify;
	if (srv->notify)
		notify_holds_open(srv->notify);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET |
			 MHD_ALLOW_SUSPEND_RESUME;
	srv->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, srv,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
				  /* Well beyond our own 8 KiB URL / 32 KiB / 100-field
				   * header checks, MHD refuses anything that would not fit
				   * this per-connection budget with its own 431 (http.h). */
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY,
				  /* Silent connections (opened and never finished)
				   * are closed soon: an idle-connection flood ends
				   * when the attacker stops, not minutes later.  One
				   * client's share (max_per_ip) is the guard's:
				   * libmicrohttpd's own per-address limit refused
				   * connections it had accepted from the guard after
				   * MHD_add_connection returned, so they held a guard
				   * slot, never started, until their header deadline. */
				  /* The guard holds connections to cap.  libmicrohttpd's
				   * own limit must never be reached: it splits it evenly
				   * among its threads, a connection goes to a thread by
				   * its descriptor number, and 0.9.75 leaves a thread's
				   * mutex locked when a connection added from outside
				   * meets its thread's share (that thread then deadlocks,
				   * seen under the slow-header flood test).  So each
				   * thread's share is the whole cap plus the connections
				   * the guard shut down that are not closed yet. */
				  MHD_OPTION_CONNECTION_LIMIT, (cap + cap / 4 + 16) * (unsigned)threads,
				  MHD_OPTION_CONNECTION_TIMEOUT, idle_s,
				  MHD_OPTION_END);
	if (!srv->d) {
		fprintf(stderr, "loadline: cannot start the HTTP server on %s\n", listen);
		lingerer_stop(&srv->lg);
		guard_free(srv->guard);
		close(lfd);
		free(srv);
		return NULL;
	}
	srv->port = bound_port(lfd);
	thread_start(&srv->acceptor, acceptor_main, srv);
	return srv;
}

int http_port(const struct http_server *srv)
{
	return srv->port;
}

void http_stop(struct http_server *srv, int grace_ms)
{
	if (!srv)
		return;
	/* New connections are refused at once (a listening socket shut down
	 * accepts nothing, and the acceptor's accept returns); in-flight
	 * requests finish. */
	atomic_store(&srv->stopping, true);
	shutdown(srv->listen_fd, SHUT_RDWR);
	pthread_join(srv->acceptor, NULL);
	/* Held long polls are answered now (as if their time were up), and
	 * no new one is held. */
	if (srv->notify)
		notify_holds_close(srv->notify);
	for (int waited = 0; atomic_load(&srv->active) > 0 && waited < grace_ms; waited += 20) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(srv->d);
	close(srv->listen_fd);
	lingerer_stop(&srv->lg);
	guard_free(srv->guard);
	free(srv);
}
