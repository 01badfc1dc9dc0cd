/* Storage: a pool of connections to SQLite or PostgreSQL and every query the
 * service makes.  Callers never see SQL or a driver type. */
#ifndef LOADLINE_STORE_STORE_H
#define LOADLINE_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/token.h"
#include "base/codes.h"
#include "base/ids.h"

struct store;

/* Opens a pool of up to pool_size connections (one is opened at once, to
 * fail early).  Returns CODE_OK, CODE_SERVICE_UNAVAILABLE or
 * CODE_INTERNAL_ERROR with a message in err. */
enum code store_open(const char *url, int pool_size, struct store **ret, char *err, size_t errlen);
struct notify;
/* Hands the store the process's notification hub (src/notify), right after
 * store_open and before any thread uses either: the store tells it of run
 * changes and of queued webhook deliveries and mails, and carries its
 * events between processes — on SQLite the DBPATH-authgen page's futex
 * words (mapped here), on PostgreSQL a LISTEN connection of its own that
 * the hub's listener thread blocks on.  The hub must outlive the store's
 * use of it: notify_stop before store_close. */
void store_use_notify(struct store *st, struct notify *n);
/* How long store_acquire waits for a free connection (default 5 s) before
 * it gives up: the caller answers 503 SERVICE_UNAVAILABLE. */
void store_set_acquire_wait(struct store *st, int64_t ms);
void store_close(struct store *st);
/* SQLite: when a writer of this process is waiting for the write lock,
 * waits (at most 100 ms) until it got it: a big import calls this between
 * its batches, so that others' writes get in (PRODUCT §16) instead of
 * losing every race for the lock.  Returns at once on PostgreSQL, whose
 * writers wait only for the rows they share. */
void store_yield_to_writers(struct store *st);
/* PostgreSQL: refreshes the planner's statistics of the Loads, Projects
 * and Locations, which a big import outgrows (planned for a few loads per
 * Project, a look-up of a batch's keys read every load of the Project;
 * planned for an empty projects table, every look-up of a batch's jobs
 * scanned it: docs/benchmarks.md).
 * Outside any transaction; a no-op on SQLite. */
void store_refresh_statistics(struct store *st);
bool store_is_postgres(const struct store *st);
/* Applies pending migrations; several processes may call it at once (a
 * database-wide lock serializes them).  Returns CODE_OK or an error with a
 * message in err. */
enum code store_migrate(struct store *st, char *err, size_t errlen);
/* Why the last store call of this thread failed: the database's own
 * message (for the log, never for clients) and whether the disk is full. */
struct store_failure {
	const char *message;
	bool disk_full;
};
struct store_failure store_last_failure(void);
/* Bounds every wait of connections opened from now on, relative to the
 * run lease (PostgreSQL; SQLite's busy wait is bounded at 15 s anyway): a
 * lock is waited for at most lease/2 (lock_timeout), a transaction left idle is ended by
 * PostgreSQL after 2 x lease, a statement after 4 x lease.  A frozen worker
 * thus holds nobody up for long, and its late commit fails (its session
 * is gone, and its final move matches only while it holds the lease). */
void store_bound_waits(struct store *st, int64_t lease_ms);
/* SQLite: moves the write-ahead log's checkpoints off the committing
 * connections onto a thread of the store's own (joined by store_close), so
 * that an import's commit does not also copy the log of the imports before
 * it into the database.  Connections opened from now on get it; nothing on
 * PostgreSQL. */
void store_checkpoint_in_background(struct store *st);
/* Readiness: CODE_OK when the database answers and has every migration of
 * this binary applied; CODE_SERVICE_UNAVAILABLE when it cannot be reached;
 * CODE_INTERNAL_ERROR when its schema is behind. */
enum code store_ready(struct store *st);
/* Cheap liveness probe: CODE_OK or CODE_SERVICE_UNAVAILABLE. */
enum code store_ping(struct store *st);

/* ---- identity ---- */

#define NAME_MAX_LEN 200
#define EMAIL_MAX_LEN 254

struct org {
	char id[ID_MAX];
	char name[NAME_MAX_LEN * 4 + 1];
	int64_t created_at;
};

struct api_key {
	char id[ID_MAX];
	char org_id[ID_MAX];
	char name[NAME_MAX_LEN * 4 + 1];
	char prefix[TOKEN_DISPLAY_LEN + 1];
	int64_t created_at;
	int64_t last_used_at;   /* 0 = never */
	int64_t revoked_at;     /* 0 = live */
};

enum user_role { ROLE_MEMBER, ROLE_ADMIN };

struct user {
	char id[ID_MAX];
	char org_id[ID_MAX];
	char email[EMAIL_MAX_LEN + 1];
	char name[NAME_MAX_LEN * 4 + 1];
	enum user_role role;
	int64_t created_at;
};

enum code store_org_count(struct store *st, int64_t *ret_n);
/* The gauges of GET /metrics: runs waiting for a worker (QUEUED, not
 * staged for review), mails not yet delivered, runs awaiting mapping
 * review (QUEUED and staged), and webhook deliveries queued. */
/* Leases up to want request slots of a token's shared rate-limit budget
 * (GCRA kept in the database, all times in ns): from b = max(tat, now), as
 * many slots as fit with b + n * interval <= now + span, tat moved to
 * b + n * interval.  *ret_granted = n (0: refused), *ret_tat = the new tat. */
enum code store_rate_lease(struct store *st, const char *key_id, int64_t now, int64_t interval, int64_t span,
			   int want, int *ret_granted, int64_t *ret_tat);
enum code store_metrics_gauges(struct store *st, int64_t *ret_queued, int64_t *ret_outbox, int64_t *ret_review,
			       int64_t *ret_webhooks);
enum code store_org_create(struct store *st, const char *name, struct org *ret);
/* Calls fn for each organization, oldest first. */
enum code store_org_list(struct store *st, void (*fn)(const struct org *o, void *ctx), void *ctx);
/* CODE_NOT_FOUND when no such org. */
enum code store_org_get(struct store *st, const char *id, struct org *ret);
/* CODE_INVALID_REQUEST with a message in err when the email is taken. */
enum code store_user_add(struct store *st, const char *org_id, const char *email,
			 const char *name, enum user_role role, struct user *ret,
			 char *err, size_t errlen);
enum code store_user_by_email(struct store *st, const char *email, struct user *ret);
enum code store_user_get(struct store *st, const char *id, struct user *ret);

/* Mints a token for the org; the token text exists only in ret_token. */
enum code store_key_create(struct store *st, const char *org_id, const char *name,
			   char ret_token[TOKEN_LEN + 1], struct api_key *ret);
/* Checks a presented token: CODE_OK with the key and its org (and
 * last_used_at updated), CODE_UNAUTHORIZED, or CODE_SERVICE_UNAVAILABLE. */
enum code store_key_authenticate(struct store *st, const char *token, size_t len,
				 struct api_key *ret_key, struct org *ret_org);
/* CODE_NOT_FOUND when no such key (in that org, when org_id is not NULL). */
enum code store_key_revoke(struct store *st, const char *org_id, const char *key_id);
/* Calls fn for each key of the org, newest first. */
enum code store_key_list(struct store *st, const char *org_id,
			 void (*fn)(const struct api_key *k, void *ctx), void *ctx);

/* A one-time sign-in link token valid for ttl_ms; only its hash is stored. */
enum code store_login_link_create(struct store *st, const char *user_id, int64_t ttl_ms,
				  char ret_token[TOKEN_LEN + 1]);
/* Consumes a link: CODE_OK with the user once, CODE_NOT_FOUND afterwards,
 * for unknown tokens and after expiry. */
enum code store_login_link_use(struct store *st, const char *token, struct user *ret);

/* Reference data (names are matched case- and whitespace-insensitively). */

struct location {
	char id[ID_MAX];
	const char *name, *street, *city, *state, *zip;   /* NULL when unset */
	bool has_coords;
	int64_t lat_e6, lon_e6;                           /* millionths of a degree */
	const char *geocode_precision, *geocode_source;   /* "zip"/"none", the geocoder */
	int64_t created_at;
};
enum code store_location_add(struct store *st, const char *org_id, const struct location *loc,
			     char ret_id[ID_MAX]);

/* Replaces the org's approver list (n = 0: back to all admins). */
enum code store_set_approvers(struct store *st, const char *org_id, const char *const *emails, int n);

#endif
