/* Held requests (long poll): a request the application chose not to answer
 * yet is suspended in libmicrohttpd (no HTTP thread waits for it) until it
 * is woken — its topic named by http_wake, every one by http_wake_all — or
 * its deadline passes; then libmicrohttpd calls the application's
 * on_complete again and it answers (or holds again).  Internal to
 * src/http: server.c owns one table; http.h has the application's calls. */
#ifndef LOADLINE_HTTP_HOLD_H
#define LOADLINE_HTTP_HOLD_H

#include <stdbool.h>
#include <stdint.h>

struct MHD_Connection;
struct holds;

/* A table of at most max held requests and the thread that resumes them at
 * their deadlines. */
struct holds *holds_new(int max);
/* Resumes every held request and refuses new holds (the server stops), then
 * waits for the deadline thread.  holds_free after the daemon stopped. */
void holds_stop(struct holds *h);
void holds_free(struct holds *h);

/* Registers c under topic until deadline (ms, clock.h's now_ms); false when
 * the table is full or stopping.  Then the handler calls holds_suspend. */
bool holds_add(struct holds *h, struct MHD_Connection *c, const char *topic, int64_t deadline);
/* From the handler that called holds_add, as it returns: suspends c, or
 * returns false when c was woken meanwhile (the handler answers at once). */
bool holds_suspend(struct holds *h, struct MHD_Connection *c);
/* Resumes the requests held under topic (NULL: all); returns how many. */
int holds_wake(struct holds *h, const char *topic);
int holds_count(struct holds *h);

#endif
