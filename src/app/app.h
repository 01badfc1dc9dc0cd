/* The application object: what a process builds once at start and hands
 * to its modules — configuration, the store pool, the rate limiter, the
 * page-cursor key, the API's shared state and the hooks that wake
 * background threads.  Nothing in
 * src/ reads configuration from anywhere else; modules below api/ and web/
 * get only the values they need (limits, URLs, callbacks), never this
 * struct.  Read-only once the process serves. */
#ifndef LOADLINE_APP_APP_H
#define LOADLINE_APP_APP_H

#include <stdatomic.h>

#include "base/config.h"
#include "webhook/webhook.h"

struct store;
struct ratelimit;
struct oidc;
struct geocoder;
struct api_state;
struct upload_slots;
struct notify;

/* Wakes a background thread: a run was queued, a mail was queued.  Both
 * may be called from any thread; fn may be NULL (nothing to wake). */
struct app_hook {
	void (*fn)(void *arg);
	void *arg;
};

static inline void app_hook_call(const struct app_hook *h)
{
	if (h->fn)
		h->fn(h->arg);
}

/* The store pool's size: one connection for every thread that may hold
 * one at a time, so that no thread ever waits for another to give one
 * back — the HTTP threads (0 in a worker process), the metrics listener's
 * thread, the import workers, their heartbeat and sweeper, the mailer,
 * the webhook senders (WEBHOOK_SENDERS) and the main thread.  (The runs listener and the
 * checkpointer open connections of their own.) */
static inline int app_store_pool_size(const struct config *c, int http_threads)
{
	return http_threads + (c->metrics_listen[0] ? 1 : 0) + c->workers + 2 + (c->smtp_url[0] ? 1 : 0) +
	       WEBHOOK_SENDERS + 1;
}

struct app {
	struct config cfg;
	struct store *store;
	struct ratelimit *rl;             /* NULL in processes that do not serve */
	struct oidc *oidc;                /* web sign-in's relying party (src/auth/oidc.h) */
	struct geocoder *geo;             /* geocodes new locations (src/geo); NULL until opened */
	unsigned char cursor_key[32];     /* page-cursor MAC key, shared through the database */
	struct api_state *api;            /* the API's ETag cache (src/api/api.h) */
	/* Uploads read and stored at once, one per core, the API's and the
	 * web form's alike (src/import/envelope.h); NULL outside serve. */
	struct upload_slots *uploads;
	/* Run changes and queued webhook deliveries and mails: built by main
	 * before anything else, handed to the store as it opens (src/notify). */
	struct notify *notify;
	struct app_hook run_queued;       /* wakes this process's import workers */
	/* serve: the API listener, whose held long polls /metrics counts;
	 * NULL in other processes and while it starts or stops. */
	_Atomic(struct http_server *) http;
};

#endif
