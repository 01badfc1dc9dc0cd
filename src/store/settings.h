/* Organization settings as the web app's Settings pages show them. */
#ifndef LOADLINE_STORE_SETTINGS_H
#define LOADLINE_STORE_SETTINGS_H

#include "base/arena.h"
#include "store.h"

/* The configured "Bulk import mapping approvals" recipients of the org,
 * sorted (arena-owned strings); *ret_n = 0 when none is configured, which
 * means every admin gets the emails.  At most max are returned. */
enum code store_approvers_configured(struct store *st, struct arena *a, const char *org_id, const char **ret,
				     int max, int *ret_n);

/* The organization's default commit policy for imports (Settings →
 * Imports, PRODUCT §15): "all" or "partial" (also when never set) in
 * ret (8 bytes); set stores "all" or "partial". */
enum code store_org_commit_policy(struct store *st, const char *org_id, char ret[8]);
enum code store_org_set_commit_policy(struct store *st, const char *org_id, const char *policy);

/* A random secret of len bytes (at most 64) shared by every process using
 * this database, created on first use: concurrent first calls agree on one
 * value.  Returns CODE_OK or the store's error. */
enum code store_secret(struct store *st, const char *name, unsigned char *ret, size_t len);

#endif
