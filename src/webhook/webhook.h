/* Webhook delivery (PRODUCT §12): a thread that claims due deliveries from
 * the durable outbox (store/webhooks.h), signs them per the Standard
 * Webhooks specification and POSTs them with libcurl, with retries and
 * backoff.  Requests and imports only write to the outbox. */
#ifndef LOADLINE_WEBHOOK_WEBHOOK_H
#define LOADLINE_WEBHOOK_WEBHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct store;
struct config;
struct notify;

struct webhook_opts {
	const struct config *cfg;   /* the run resource's URLs and retention (run_json) */
	int64_t retry_min_ms;       /* LOADLINE_WEBHOOK_RETRY_MIN */
	int64_t retry_for_ms;       /* LOADLINE_WEBHOOK_RETRY_FOR: then the endpoint is disabled */
	bool allow_http, allow_private;
	void (*mail_queued)(void *arg);   /* the disabling mail was queued */
	void *mail_arg;
	struct notify *notify;      /* wakes the sender when deliveries are queued; NULL: it looks every minute */
};

/* Delivery threads per process: attempts in flight at once (at most one
 * per endpoint, at most two of one organization). */
#define WEBHOOK_SENDERS 4
/* Endpoints an organization may have (issue 27 item 12; each import run
 * queues one delivery per subscribed endpoint). */
#define WEBHOOK_ENDPOINTS_MAX 16
/* How long a rotated-out signing secret keeps signing beside the new one
 * (PRODUCT §17): receivers have a day to take the new one. */
#define WEBHOOK_SECRET_OVERLAP_MS (24LL * 3600 * 1000)

struct webhooks;
/* Starts the delivery threads; libcurl must be initialised before. */
struct webhooks *webhooks_start(struct store *st, const struct webhook_opts *o);
void webhooks_stop(struct webhooks *w);
/* Wakes the thread (an event was queued); w may be NULL (an app_hook). */
void webhooks_notify(void *w);

/* The delay before retry number `attempt` + 1: min_ms, doubling, at most
 * an hour. */
int64_t webhook_backoff(int attempt, int64_t min_ms);
/* The webhook-signature value for (id, timestamp, body) under secret
 * ("whsec_" + base64 key): "v1,<base64 HMAC-SHA256>".  -1 when the secret
 * is not of that form. */
int webhook_sign(const char *secret, const char *id, long long timestamp, const char *body, size_t len,
		 char *out, size_t outlen);
/* Why url cannot be an endpoint's URL (NULL: it can): absolute, https://
 * (or http:// when allow_http), a host, at most WEBHOOK_URL_MAX bytes, no
 * user name or password, no spaces or control characters. */
const char *webhook_url_check(const char *url, bool allow_http);
/* Why url can never be delivered to (NULL: it may be): its host is a
 * literal non-public address, or a name that resolves now only to
 * non-public ones (item 16; checked when saved unless
 * LOADLINE_WEBHOOK_ALLOW_PRIVATE; deliveries check again at connect time).
 * Resolves the name: may block for the resolver's time-out. */
const char *webhook_url_deliverable(const char *url);
/* A new signing secret: whsec_ + base64 of 24 random bytes (out holds
 * WEBHOOK_SECRET_MAX bytes). */
void webhook_new_secret(char *out);
/* Whether a delivery may connect to this address: false for loopback,
 * private, link-local, shared, multicast and every other special-purpose
 * range of IANA's IPv4 and IPv6 registries; IPv6 only in global unicast
 * 2000::/3; IPv4 embedded in IPv6 (mapped, NAT64, 6to4, SIIT) judged as
 * that IPv4 address. */
bool webhook_address_public(const struct sockaddr *sa);

#endif
