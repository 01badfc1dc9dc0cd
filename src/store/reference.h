/* Reference data that rows are matched against: customers and branches
 * (PRODUCT §8).  Names are unique per organization by the same key the
 * import matches a row's `customer`/`branch` with (case- and
 * whitespace-insensitive, store/textkey.h). */
#ifndef LOADLINE_STORE_REFERENCE_H
#define LOADLINE_STORE_REFERENCE_H

#include <stdint.h>

#include "base/arena.h"
#include "store.h"

enum ref_kind { REF_CUSTOMER, REF_BRANCH };

struct ref_rec {
	char id[ID_MAX];
	const char *name;
	int64_t created_at;
};

/* Creates a record named name.  CODE_DUPLICATE_NAME (ret_existing set to
 * the record that has the name) when one exists; concurrent creators of one
 * name are serialized, so exactly one succeeds. */
enum code store_ref_create(struct store *st, enum ref_kind k, const char *org_id, const char *name,
			   char ret_id[ID_MAX], char ret_existing[ID_MAX]);
/* The record a row naming name would match (by the name rule of
 * store_ref_create): its id, or CODE_NOT_FOUND.  name is at most
 * NAME_MAX_LEN characters. */
enum code store_ref_find(struct store *st, enum ref_kind k, const char *org_id, const char *name, char ret_id[ID_MAX]);
enum code store_ref_get(struct store *st, struct arena *a, enum ref_kind k, const char *org_id, const char *id,
			struct ref_rec *ret);
/* Records whose name key contains key ("" = all), oldest first after the
 * cursor (created_at, id); at most limit. */
enum code store_ref_search(struct store *st, struct arena *a, enum ref_kind k, const char *org_id, const char *key,
			   int64_t after_created, const char *after_id, int limit, struct ref_rec *ret, int *ret_n);

/* "customer"/"branch", the id prefix "cus"/"brn", the table. */
const char *ref_noun(enum ref_kind k);
const char *ref_prefix(enum ref_kind k);

#endif
