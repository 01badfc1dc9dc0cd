/* The transactional outbox of emails: written in the transaction that
 * stages a run, delivered later by the mailer with retries. */
#ifndef LOADLINE_STORE_OUTBOX_H
#define LOADLINE_STORE_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "store.h"

struct outbox_mail {
	char id[ID_MAX];
	char org_id[ID_MAX];
	char run_id[ID_MAX];
	const char *recipients;   /* comma-separated addresses */
	const char *subject, *body;
	const char *state;        /* "queued" | "sent" | "failed" */
	int attempts;
	int64_t created_at, sent_at, next_attempt_at;
	const char *last_error;
};

/* Takes the oldest due queued mail and holds it for hold_ms (so another
 * process does not send it too); CODE_NOT_FOUND when none is due. */
enum code store_outbox_claim(struct store *st, struct arena *a, int64_t hold_ms, struct outbox_mail *ret);
/* Records one delivery attempt; on failure the mail is due again at retry_at. */
enum code store_outbox_record(struct store *st, const char *id, int attempt, bool ok, const char *detail,
			      int64_t retry_at);
/* Mails of an org (all orgs when NULL), newest first. */
enum code store_outbox_list(struct store *st, struct arena *a, const char *org_id,
			    void (*fn)(const struct outbox_mail *m, void *ctx), void *ctx);
/* Approval recipients: the configured list, or every admin's email.
 * Returns a comma-separated list (arena), "" when there is nobody. */
enum code store_approver_list(struct store *st, struct arena *a, const char *org_id, const char **ret);

#endif
