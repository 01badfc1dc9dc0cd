/* The delivery thread: claim a due delivery (one attempt in flight per
 * event and endpoint: the claim's hold outlasts the attempt's 10 s), build
 * and freeze its payload on the first attempt, sign it, POST it, record
 * the attempt; on failure retry with exponential backoff, and after
 * retry_for of failures disable the endpoint and mail the admins. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/ids.h"
#include "base/log.h"
#include "base/text.h"
#include "base/waiter.h"
#include "import/run_json.h"
#include "metrics/metrics.h"
#include "notify/notify.h"
#include "store/outbox.h"
#include "store/runs.h"
#include "store/webhooks.h"
#include "webhook.h"

/* Without a wake-up (none reaches a process with no hub), the sender still
 * looks this often; otherwise it sleeps until the next retry falls due. */
#define IDLE_MAX_MS 60000
#define TIMEOUT_MS 10000            /* PRODUCT §12: a 2xx within 10 s */
#define HOLD_MS (2 * TIMEOUT_MS)    /* no second attempt while one may still run */
#define BACKOFF_MAX_MS (3600 * 1000)

/* A small pool (issue 27): attempts in flight at once, each on its own
 * thread; at most one per endpoint, and at most ORG_SHARE of one
 * organization's, so that a hanging endpoint (10 s an attempt) never
 * delays another organization's deliveries. */
#define SENDERS WEBHOOK_SENDERS
#define ORG_SHARE 2

struct webhooks;
struct sender {
	struct webhooks *w;
	int slot;
};

struct webhooks {
	struct store *st;
	struct webhook_opts o;
	pthread_t threads[SENDERS];
	struct waiter own;   /* without a hub */
	struct waiter *w;    /* the hub's NOTIFY_WEBHOOKS sleeper, or &own */
	/* The claims: made one at a time under mu, which also guards what is
	 * in flight (a sender's endpoint and org, "" when idle). */
	pthread_mutex_t mu;
	char endpoint[SENDERS][ID_MAX], org[SENDERS][ID_MAX];
	struct sender senders[SENDERS];
};

void webhooks_notify(void *arg)
{
	struct webhooks *w = arg;
	if (w)
		waiter_wake(w->w);
}

int64_t webhook_backoff(int attempt, int64_t min_ms)
{
	int64_t ms = min_ms > 0 ? min_ms : 1000;
	for (int i = 1; i < attempt && ms < BACKOFF_MAX_MS; i++)
		ms *= 2;
	return ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS;
}

/* The event body: {"id","type","createdAt","data":{"object":…}}, the object
 * being the run as the API shows it at this first attempt. */
static char *build_payload(struct webhooks *w, const struct webhook_delivery *d)
{
	json_t *obj;
	if (*d->run_id) {
		struct run run;
		if (store_run_get(w->st, NULL, d->run_id, &run))
			return NULL;
		obj = run_json(&run, w->o.cfg);
	} else {
		obj = json_pack("{s:s,s:s}", "object", "webhook_test", "endpointId", d->endpoint_id);
	}
	char t[TIME_ISO_MAX];
	time_iso(d->event_created_at, t);
	json_t *o = json_pack("{s:s,s:s,s:s,s:{s:o}}", "id", d->event_id, "type", d->type, "createdAt", t, "data",
			      "object", obj);
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	return s;
}

struct attempt_ctx {
	struct waiter *w;
	bool allow_private;
	bool refused;   /* an address was refused */
};

/* The SSRF rule, at connect time: whatever the name resolved to (also
 * after a DNS change between checks), only public addresses. */
static curl_socket_t open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct attempt_ctx *c = arg;
	(void)purpose;
	if (!c->allow_private && !webhook_address_public(&a->addr)) {
		c->refused = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* A process that stops does not wait out a slow receiver: the attempt
 * ends (a failure, retried later, by this process or another). */
static int progress(void *arg, curl_off_t dlt, curl_off_t dl, curl_off_t ult, curl_off_t ul)
{
	(void)dlt, (void)dl, (void)ult, (void)ul;
	return waiter_stopping(((struct attempt_ctx *)arg)->w) ? 1 : 0;
}

/* The receiver's answer: its first WEBHOOK_RESPONSE_MAX bytes are kept
 * for the attempt log (PRODUCT §17), the rest read and dropped. */
struct answer {
	char head[WEBHOOK_RESPONSE_MAX + 1];
	size_t len;
};

static size_t keep_head(char *p, size_t size, size_t n, void *arg)
{
	struct answer *an = arg;
	size_t got = size * n, room = WEBHOOK_RESPONSE_MAX - an->len;
	size_t take = got < room ? got : room;
	memcpy(an->head + an->len, p, take);
	an->len += take;
	an->head[an->len] = '\0';
	return got;
}

/* "v1,<sig>" under the secret, then " v1,<sig>" under the rotated-out one
 * while it still signs (Standard Webhooks: space-separated signatures, the
 * receiver accepts any that verifies). */
static int signatures(const struct webhook_delivery *d, long long ts, const char *body, char *out, size_t outlen)
{
	if (webhook_sign(d->secret, d->event_id, ts, body, strlen(body), out, outlen))
		return -1;
	size_t n = strlen(out);
	if (!*d->previous_secret || n + 2 >= outlen)
		return 0;
	out[n] = ' ';
	/* A rotated-out secret that does not parse signs nothing. */
	if (webhook_sign(d->previous_secret, d->event_id, ts, body, strlen(body), out + n + 1, outlen - n - 1))
		out[n] = '\0';
	return 0;
}

static struct curl_slist *headers(const struct webhook_delivery *d, const char *body, char *err, size_t errlen)
{
	long long ts = (long long)(now_ms() / 1000);
	char sig[256];
	if (signatures(d, ts, body, sig, sizeof sig)) {
		snprintf(err, errlen, "the endpoint's secret is not whsec_<base64>");
		return NULL;
	}
	char h[320];
	struct curl_slist *l = curl_slist_append(NULL, "Content-Type: application/json");
	snprintf(h, sizeof h, "webhook-id: %s", d->event_id);
	l = curl_slist_append(l, h);
	snprintf(h, sizeof h, "webhook-timestamp: %lld", ts);
	l = curl_slist_append(l, h);
	snprintf(h, sizeof h, "webhook-signature: %s", sig);
	l = curl_slist_append(l, h);
	l = curl_slist_append(l, "User-Agent: Loadline-Webhooks/1");
	return curl_slist_append(l, "Expect:");
}

/* One POST; fills at (status 0 and an error when there was no answer;
 * response_body in an). */
static void post(struct webhooks *w, const struct webhook_delivery *d, const char *body, struct webhook_attempt *at,
		 struct answer *an, char *err, size_t errlen)
{
	int64_t t0 = now_ms();
	struct attempt_ctx ctx = {.w = w->w, .allow_private = w->o.allow_private};
	struct curl_slist *hl = headers(d, body, err, errlen);
	CURL *c = hl ? curl_easy_init() : NULL;
	if (c) {
		char cerr[CURL_ERROR_SIZE] = "";
		curl_easy_setopt(c, CURLOPT_URL, d->url);
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, w->o.allow_http ? "http,https" : "https");
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);   /* redirects are not followed */
		curl_easy_setopt(c, CURLOPT_PROXY, "");            /* no proxy from the environment */
		curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
		curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &ctx);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)TIMEOUT_MS);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, &ctx);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_head);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, an);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
		CURLcode rc = curl_easy_perform(c);
		long status = 0;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		at->status = (int)status;
		/* Not which address: the log is the tenant's, and what a name
		 * resolves to inside our network is not theirs to learn (item 13). */
		if (ctx.refused)
			snprintf(err, errlen, "refused: the host of %s is not a public address", d->url);
		else if (rc)
			snprintf(err, errlen, "%s", *cerr ? cerr : curl_easy_strerror(rc));
		else if (status < 200 || status > 299)
			snprintf(err, errlen, "HTTP %ld%s", status, status >= 300 && status < 400
				 ? " (redirects are not followed)" : "");
		curl_easy_cleanup(c);
	} else if (hl) {
		snprintf(err, errlen, "out of memory");
	}
	curl_slist_free_all(hl);
	at->duration_ms = now_ms() - t0;
	at->error = *err ? err : NULL;
	/* Stored as text on both backends: one line of valid UTF-8. */
	text_clean_in_place(an->head);
	at->response_body = an->len ? an->head : NULL;
}

/* The endpoint has failed for retry_for: disable it, tell the admins. */
static void disable(struct webhooks *w, struct arena *a, const struct webhook_delivery *d, int64_t failing_since,
		    const char *last_error)
{
	const char *to = "";
	store_org_admins(w->st, a, d->org_id, &to);
	struct outbox_mail mail = {.created_at = now_ms()};
	id_new("mail", mail.id);
	snprintf(mail.org_id, sizeof mail.org_id, "%s", d->org_id);
	char since[TIME_ISO_MAX];
	time_iso(failing_since, since);
	mail.recipients = to;
	mail.subject = arena_printf(a, "Webhook endpoint disabled: %s", d->url);
	mail.body = arena_printf(a,
		"Loadline disabled the webhook endpoint %s (%s):\n"
		"every delivery to it has failed since %s. The last attempt: %s.\n\n"
		"Events are no longer sent to it. Fix the receiver, then add the endpoint again\n"
		"under Settings > Webhooks (or POST /api/v1/webhook-endpoints).\n",
		d->url, d->endpoint_id, since, last_error);
	bool done = false;
	enum code rc = store_webhook_disable(w->st, d->endpoint_id, *to ? &mail : NULL, &done);
	log_json("warn", "webhook endpoint disabled", json_pack("{s:s,s:s,s:s,s:b}", "endpointId", d->endpoint_id,
		 "orgId", d->org_id, "failingSince", since, "mailed", !rc && done && *to));
	if (!rc && done && *to && w->o.mail_queued)
		w->o.mail_queued(w->o.mail_arg);
}

/* Under mu: what the others have in flight — their endpoints, and the
 * organizations that have their share. */
static void skips(struct webhooks *w, struct webhook_skip *sk)
{
	memset(sk, 0, sizeof(*sk));
	for (int i = 0; i < SENDERS; i++) {
		if (!*w->endpoint[i])
			continue;
		sk->endpoints[sk->nendpoints++] = w->endpoint[i];
		int same = 0;
		for (int j = 0; j < SENDERS; j++)
			same += !strcmp(w->org[j], w->org[i]);
		bool listed = false;
		for (int j = 0; j < sk->norgs; j++)
			listed |= !strcmp(sk->orgs[j], w->org[i]);
		if (same >= ORG_SHARE && !listed)
			sk->orgs[sk->norgs++] = w->org[i];
	}
}

/* Claims one due delivery that no other sender's rules exclude, and marks
 * it in flight on slot. */
static enum code claim(struct webhooks *w, int slot, struct arena *a, struct webhook_delivery *d)
{
	struct webhook_skip sk;
	pthread_mutex_lock(&w->mu);
	skips(w, &sk);
	enum code rc = store_webhook_claim(w->st, a, HOLD_MS, &sk, d);
	if (!rc) {
		snprintf(w->endpoint[slot], ID_MAX, "%s", d->endpoint_id);
		snprintf(w->org[slot], ID_MAX, "%s", d->org_id);
	}
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* The attempt on slot is over: others may take its endpoint and org. */
static void release(struct webhooks *w, int slot)
{
	pthread_mutex_lock(&w->mu);
	*w->endpoint[slot] = *w->org[slot] = '\0';
	pthread_mutex_unlock(&w->mu);
	waiter_wake(w->w);   /* a sender that passed over this endpoint looks again */
}

/* Delivers one due delivery; returns true when there was one. */
static bool deliver_one(struct webhooks *w, int slot)
{
	struct arena *a = arena_new();
	struct webhook_delivery d;
	enum code rc = claim(w, slot, a, &d);
	if (rc) {
		if (rc != CODE_NOT_FOUND)
			log_json("error", "webhook claim failed", json_pack("{s:s,s:s}", "code", code_name(rc), "cause",
									    store_last_failure().message));
		arena_free(a);
		return false;
	}
	char err[512] = "";
	struct webhook_attempt at = {0};
	struct answer *an = arena_alloc(a, sizeof(*an));
	an->len = 0;
	an->head[0] = '\0';
	if (!d.payload) {
		char *p = build_payload(w, &d);
		if (!p || store_webhook_set_payload(w->st, a, d.event_id, p, &d.payload))
			snprintf(err, sizeof err, "could not build the event's body (the database is unavailable?)");
		free(p);
	}
	if (d.payload)
		post(w, &d, d.payload, &at, an, err, sizeof err);
	else
		at.error = err;
	bool ok = !at.error;
	int64_t now = now_ms(), failing_since = 0;
	bool give_up = !ok && now - d.created_at >= w->o.retry_for_ms;
	store_webhook_record(w->st, &d, &at, ok, give_up, now + webhook_backoff(d.attempts, w->o.retry_min_ms),
			     &failing_since);
	metrics_webhook(ok ? WEBHOOK_DELIVERED : give_up ? WEBHOOK_FAILED : WEBHOOK_RETRYING,
			(double)at.duration_ms / 1000.0);
	log_json(ok ? "info" : "warn", ok ? "webhook delivered" : "webhook delivery failed; will retry",
		 json_pack("{s:s,s:s,s:s,s:i,s:i,s:I,s:s}", "eventId", d.event_id, "endpointId", d.endpoint_id,
			   "type", d.type, "attempt", d.attempts, "status", at.status, "durationMs",
			   (json_int_t)at.duration_ms, "detail", ok ? "delivered" : err));
	if (!ok && failing_since && now - failing_since >= w->o.retry_for_ms)
		disable(w, a, &d, failing_since, err);
	release(w, slot);
	arena_free(a);
	return true;
}

/* How long to sleep when nothing is due: until the next retry, at most
 * IDLE_MAX_MS (a new event wakes the sender through the hub). */
static int64_t idle_ms(struct webhooks *w)
{
	int64_t due = 0, now = now_ms();
	if (store_webhook_next_due(w->st, &due))
		return 1000;   /* the database is unavailable: look again soon */
	if (!due)
		return IDLE_MAX_MS;
	/* Due now but passed over (its endpoint or org is busy here): the
	 * attempt that ends wakes this sender. */
	if (due <= now)
		return IDLE_MAX_MS / 60;
	return due - now < IDLE_MAX_MS ? due - now : IDLE_MAX_MS;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct webhooks *w = s->w;
	unsigned long ticket;
	do {
		ticket = waiter_ticket(w->w);
		while (deliver_one(w, s->slot))
			if (waiter_stopping(w->w))
				return NULL;
	} while (waiter_nap_since(w->w, ticket, idle_ms(w)));
	return NULL;
}

struct webhooks *webhooks_start(struct store *st, const struct webhook_opts *o)
{
	struct webhooks *w = calloc(1, sizeof(*w));
	if (!w)
		abort();
	w->st = st;
	w->o = *o;
	waiter_init(&w->own);
	w->w = o->notify ? notify_waiter(o->notify, NOTIFY_WEBHOOKS) : &w->own;
	pthread_mutex_init(&w->mu, NULL);
	for (int i = 0; i < SENDERS; i++) {
		w->senders[i] = (struct sender){w, i};
		thread_start(&w->threads[i], sender_main, &w->senders[i]);
	}
	return w;
}

void webhooks_stop(struct webhooks *w)
{
	if (!w)
		return;
	waiter_stop(w->w);
	for (int i = 0; i < SENDERS; i++)
		pthread_join(w->threads[i], NULL);
	pthread_mutex_destroy(&w->mu);
	waiter_done(&w->own);
	free(w);
}
