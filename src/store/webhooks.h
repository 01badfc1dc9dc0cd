/* Webhook endpoints, events and their deliveries (PRODUCT §12).  Events are
 * written in the transaction of the run change they tell of (runs.c), so a
 * crash never loses one; deliveries are claimed like the mail outbox. */
#ifndef LOADLINE_STORE_WEBHOOKS_H
#define LOADLINE_STORE_WEBHOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "store.h"

#define WEBHOOK_URL_MAX 2048
#define WEBHOOK_SECRET_MAX 80

struct webhook_endpoint {
	char id[ID_MAX];
	char org_id[ID_MAX];
	const char *url;
	const char *events;        /* comma-separated event types */
	char secret[WEBHOOK_SECRET_MAX];   /* whsec_...; only for the one who creates or delivers */
	int64_t created_at, disabled_at, failing_since;
	int64_t previous_until;    /* the rotated-out secret signs too until then (0: none) */
};

/* Adds e unless its organization already has max endpoints (not deleted):
 * then CODE_WEBHOOK_ENDPOINT_LIMIT. */
enum code store_webhook_endpoint_create(struct store *st, const struct webhook_endpoint *e, int max);
/* The org's endpoints (not deleted), oldest first. */
enum code store_webhook_endpoint_list(struct store *st, struct arena *a, const char *org_id,
				      void (*fn)(const struct webhook_endpoint *e, void *ctx), void *ctx);
enum code store_webhook_endpoint_get(struct store *st, struct arena *a, const char *org_id, const char *id,
				     struct webhook_endpoint *ret);
/* Deletes the endpoint (its log stays); queued deliveries to it are
 * dropped.  CODE_NOT_FOUND when the org has no such endpoint. */
enum code store_webhook_endpoint_delete(struct store *st, const char *org_id, const char *id);
/* What a PATCH changes: url and events when not NULL; enabled 1 clears
 * disabled_at and failing_since (a fresh retry window), 0 disables (its
 * queued deliveries fail, as when the sender disables it), -1 leaves it. */
struct webhook_endpoint_change {
	const char *url, *events;
	int enabled;
};
/* Applies c and reads the endpoint back into *ret (in a); CODE_NOT_FOUND
 * when the org has no such endpoint. */
enum code store_webhook_endpoint_update(struct store *st, struct arena *a, const char *org_id, const char *id,
					const struct webhook_endpoint_change *c, struct webhook_endpoint *ret);
/* Makes secret the endpoint's signing secret; the one it replaces keeps
 * signing beside it until until_ms (a rotation during an overlap drops the
 * oldest).  CODE_NOT_FOUND when the org has no such endpoint. */
enum code store_webhook_rotate_secret(struct store *st, const char *org_id, const char *id, const char *secret,
				      int64_t until_ms);

/* A delivery as the delivery thread claims it. */
struct webhook_delivery {
	char event_id[ID_MAX];
	char endpoint_id[ID_MAX];
	char org_id[ID_MAX];
	char run_id[ID_MAX];
	const char *type;
	const char *payload;       /* NULL until its first attempt builds it */
	const char *url;
	char secret[WEBHOOK_SECRET_MAX];
	char previous_secret[WEBHOOK_SECRET_MAX];   /* "" unless a rotation's overlap is on */
	int attempts;              /* this attempt's number */
	int64_t created_at, event_created_at;
};

/* What a claim must pass over: endpoints with an attempt in flight in
 * this process (one at a time per endpoint) and organizations at their
 * share of the senders (one hanging org never takes them all). */
#define WEBHOOK_SKIP_MAX 8
struct webhook_skip {
	const char *endpoints[WEBHOOK_SKIP_MAX];
	const char *orgs[WEBHOOK_SKIP_MAX];
	int nendpoints, norgs;
};
/* Takes the oldest due queued delivery of an enabled endpoint (none of
 * skip's, which may be NULL) and holds it for hold_ms (its next_attempt_at
 * moves past this attempt's time limit, so no other thread or process
 * tries it meanwhile); CODE_NOT_FOUND when none is due. */
enum code store_webhook_claim(struct store *st, struct arena *a, int64_t hold_ms, const struct webhook_skip *skip,
			      struct webhook_delivery *ret);
/* When the next queued delivery falls due (ms; 0: none queued): the
 * sender sleeps until then unless woken. */
enum code store_webhook_next_due(struct store *st, int64_t *ret_at);
/* Freezes the event's payload when it has none yet; *ret is the payload
 * stored (this one or one another attempt stored first), in a. */
enum code store_webhook_set_payload(struct store *st, struct arena *a, const char *event_id, const char *payload,
				    const char **ret);
struct webhook_attempt {
	int status;              /* HTTP status; 0 when there was no answer */
	int64_t duration_ms;
	const char *error;       /* NULL on success */
	const char *response_body;   /* the first WEBHOOK_RESPONSE_MAX bytes of the answer, one line; may be NULL */
};
#define WEBHOOK_RESPONSE_MAX 1024
/* Records attempt number d->attempts (while no later claim took it over):
 * delivered on a 2xx; else due again at retry_at, or failed when
 * give_up.  The endpoint's failing_since is set by its first failure and
 * cleared by a success; *ret_failing_since tells it (0: not failing). */
enum code store_webhook_record(struct store *st, const struct webhook_delivery *d, const struct webhook_attempt *at,
			       bool ok, bool give_up, int64_t retry_at, int64_t *ret_failing_since);
struct outbox_mail;
/* Disables the endpoint, fails its queued deliveries and queues the mail
 * to the org's admins (NULL: nobody to tell), in one transaction;
 * *ret_done is false when it was disabled or deleted already. */
enum code store_webhook_disable(struct store *st, const char *endpoint_id, const struct outbox_mail *mail,
				bool *ret_done);
/* The org's admins' addresses, comma-separated ("" when none). */
enum code store_org_admins(struct store *st, struct arena *a, const char *org_id, const char **ret);

/* One logged attempt, with what it was for. */
struct webhook_log {
	char id[ID_MAX];           /* wha_... */
	char event_id[ID_MAX];
	char endpoint_id[ID_MAX];
	const char *type;
	int attempt, status;
	int64_t at, duration_ms;
	const char *error;
	const char *response_body;   /* NULL when none was kept */
};
/* The org's last n attempts, newest first. */
enum code store_webhook_log(struct store *st, struct arena *a, const char *org_id, int n,
			    void (*fn)(const struct webhook_log *l, void *ctx), void *ctx);
/* A page of one endpoint's attempts, newest first: at most n, those
 * after (after_at, after_id) in that order when after_id is not NULL. */
struct webhook_log_page {
	const char *endpoint_id;
	int n;
	int64_t after_at;
	const char *after_id;
};
enum code store_webhook_attempts(struct store *st, struct arena *a, const char *org_id,
				 const struct webhook_log_page *p, void (*fn)(const struct webhook_log *l, void *ctx),
				 void *ctx);
/* One attempt of the org by its id; CODE_NOT_FOUND when there is none. */
enum code store_webhook_attempt_get(struct store *st, struct arena *a, const char *org_id, const char *id,
				    struct webhook_log *ret);
/* Queues a webhook.test event to one endpoint of the org: "Send test
 * event" (its payload is built at its first attempt). */
enum code store_webhook_test(struct store *st, const char *org_id, const char *endpoint_id);
/* Queues the delivery of event_id to endpoint_id again (a new attempt,
 * same event id): "Resend".  CODE_NOT_FOUND unless the org has it. */
enum code store_webhook_resend(struct store *st, const char *org_id, const char *event_id, const char *endpoint_id);

#endif
