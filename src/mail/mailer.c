/* The delivery thread: claim a due mail, send it, record the attempt;
 * on failure retry with exponential backoff (2 s, 4 s, ... up to 5 min). */
#include "mailer.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/waiter.h"
#include "notify/notify.h"

#define POLL_MS 1000
#define HOLD_MS 60000
#define BACKOFF_MAX_MS (5 * 60 * 1000)

struct mailer {
	struct store *st;
	char smtp_url[512], from[256];
	pthread_t thread;
	struct waiter own;   /* without a hub */
	struct waiter *w;    /* the hub's NOTIFY_MAIL sleeper, or &own */
};

void mailer_notify(void *mailer)
{
	struct mailer *m = mailer;
	if (m)
		waiter_wake(m->w);
}

static int64_t backoff(int attempt)
{
	int64_t ms = 2000;
	for (int i = 1; i < attempt && ms < BACKOFF_MAX_MS; i++)
		ms *= 2;
	return ms < BACKOFF_MAX_MS ? ms : BACKOFF_MAX_MS;
}

/* Sends one due mail; returns true when there was one. */
static bool deliver_one(struct mailer *m)
{
	struct arena *a = arena_new();
	struct outbox_mail mail;
	enum code rc = store_outbox_claim(m->st, a, HOLD_MS, &mail);
	if (rc) {
		arena_free(a);
		return false;
	}
	char err[512] = "";
	bool ok = smtp_send(m->smtp_url, m->from, &mail, err, sizeof err) == 0;
	store_outbox_record(m->st, mail.id, mail.attempts, ok, ok ? "sent" : err, now_ms() + backoff(mail.attempts));
	log_json(ok ? "info" : "warn", ok ? "mail sent" : "mail delivery failed; will retry",
		 json_pack("{s:s,s:s,s:s,s:i,s:s}", "mailId", mail.id, "runId", mail.run_id, "to", mail.recipients,
			   "attempt", mail.attempts, "detail", ok ? "sent" : err));
	arena_free(a);
	return true;
}

static void *mailer_main(void *arg)
{
	struct mailer *m = arg;
	unsigned long ticket;
	do {
		ticket = waiter_ticket(m->w);
		while (deliver_one(m))
			if (waiter_stopping(m->w))
				return NULL;
	} while (waiter_nap_since(m->w, ticket, POLL_MS));
	return NULL;
}

struct mailer *mailer_start(struct store *st, struct notify *n, const char *smtp_url, const char *from)
{
	if (!smtp_url || !*smtp_url)
		return NULL;
	struct mailer *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->st = st;
	snprintf(m->smtp_url, sizeof m->smtp_url, "%s", smtp_url);
	snprintf(m->from, sizeof m->from, "%s", from);
	waiter_init(&m->own);
	m->w = n ? notify_waiter(n, NOTIFY_MAIL) : &m->own;
	thread_start(&m->thread, mailer_main, m);
	return m;
}

void mailer_stop(struct mailer *m)
{
	if (!m)
		return;
	waiter_stop(m->w);
	pthread_join(m->thread, NULL);
	waiter_done(&m->own);
	free(m);
}
