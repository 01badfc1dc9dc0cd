/* The application object: what a process builds once at start and hands
 * to its modules — configuration, the store pool, the rate limiter, the
 * page-cursor key and the hooks that wake background threads.  Nothing in
 * src/ reads configuration from anywhere else; modules below api/ and web/
 * get only the values they need (limits, URLs, callbacks), never this
 * struct.  Read-only once the process serves. */
#ifndef LOADLINE_APP_APP_H
#define LOADLINE_APP_APP_H

#include "base/config.h"

struct store;
struct ratelimit;
struct oidc;
struct geocoder;

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

struct app {
	struct config cfg;
	struct store *store;
	struct ratelimit *rl;             /* NULL in processes that do not serve */
	struct oidc *oidc;                /* web sign-in's relying party (src/auth/oidc.h) */
	struct geocoder *geo;             /* geocodes new locations (src/geo); NULL until opened */
	unsigned char cursor_key[32];     /* page-cursor MAC key, shared through the database */
	struct app_hook run_queued;       /* wakes this process's import workers */
	struct app_hook mail_queued;      /* wakes this process's mailer */
};

#endif
