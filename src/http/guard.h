/* The connection guard: which connections a server admits, and how long
 * one may take to send a request's headers (issue 20 item 2, slow-header
 * lockout).  It knows sockets, never libmicrohttpd: server.c calls it from
 * the acceptor and from libmicrohttpd's notifications.
 *
 * A connection is FRESH from its accept until its first request's headers
 * are complete, BUSY while a request runs, WAITING between the requests of
 * a kept-alive connection, DYING once the guard shut it down.
 *   - Header deadline: a FRESH connection must complete its headers within
 *     header_ms of its accept, a WAITING one within idle_ms + header_ms of
 *     its last response; past it, the socket is shut down, however steadily
 *     it trickles bytes (libmicrohttpd's idle time-out restarts with each).
 *   - Capacity: at most cap connections in all, and FRESH ones at most
 *     cap - cap/4: a quarter is kept for connections that completed a
 *     request.  A connection arriving when either bound is reached takes
 *     the place of a FRESH connection (shut down), so a client that sends
 *     its request at once is served during a flood of slow ones; at the cap
 *     with none FRESH, of a WAITING one (a keep-alive flood), then of a
 *     BUSY one whose request was not authenticated and has run longer than
 *     header_ms (a slow anonymous body).  Authenticated requests are never
 *     pushed out: that is their reserved capacity.  Only when every
 *     connection runs an authenticated or young request is a newcomer
 *     refused.
 *   - Who goes first: of the address with the most connections (IPv4, or
 *     an IPv6 /64), the oldest — a flood from a few addresses loses its own
 *     connections, not other clients'.
 * The socket of a connection is shut down (never closed) only while
 * libmicrohttpd still owns it open: between guard_started and guard_closed,
 * under the guard's lock. */
#ifndef LOADLINE_HTTP_GUARD_H
#define LOADLINE_HTTP_GUARD_H

#include <stdbool.h>

struct guard;
struct guard_conn;

/* cap: connections in all; per_ip: per address key (0: no limit), counted
 * until libmicrohttpd closes them, so its own per-address limit (the same
 * number) never refuses a connection the guard admitted. */
struct guard *guard_new(unsigned cap, unsigned per_ip, double header_ms, double idle_ms);
void guard_free(struct guard *g);

/* A new connection on fd (the acceptor, before handing it over): its entry,
 * or NULL when it must be refused (the caller closes fd).  May shut down
 * the oldest FRESH (or, at the cap, WAITING) connection to make room. */
struct sockaddr;
struct guard_conn *guard_admit(struct guard *g, int fd, const struct sockaddr *peer, double now_ms);
/* The connection was not handed over after all (its fd is closed).
 * guard_admit, guard_abandon and guard_expire are called by one thread,
 * the acceptor. */
void guard_abandon(struct guard *g, struct guard_conn *gc);
/* libmicrohttpd took the connection on fd: its entry (NULL when the guard
 * no longer tracks it — then nothing is enforced for it). */
struct guard_conn *guard_started(struct guard *g, int fd);
void guard_headers(struct guard *g, struct guard_conn *gc, double now_ms);   /* a request's headers are in */
/* The running request was authenticated (a token or a session): it is not
 * pushed out to make room (until its connection's next request). */
void guard_trust(struct guard *g, struct guard_conn *gc);
void guard_idle(struct guard *g, struct guard_conn *gc, double now_ms);   /* a response went out */
void guard_closed(struct guard *g, struct guard_conn *gc);    /* before libmicrohttpd closes fd */
/* Shuts down connections past their header deadline; the milliseconds
 * until the next deadline (at most max_wait_ms). */
double guard_expire(struct guard *g, double now_ms, double max_wait_ms);

/* For tests and logs: connections counted (not DYING), FRESH ones; the
 * connections counted for peer's address key. */
void guard_counts(struct guard *g, unsigned *total, unsigned *fresh);
unsigned guard_address_count(struct guard *g, const struct sockaddr *peer);

#endif
