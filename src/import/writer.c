/* Writing one checked row: in-file duplicates, re-import skips, look-ups,
 * the Project, the address groups and the Load.  Runs inside the run's
 * transaction; any storage error aborts the whole run attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "geo/geocoder.h"
#include "model/names.h"
#include "store/records.h"
#include "writer.h"

/* Text of a field, or NULL when blank. */
static const char *val(const struct row *r, enum field f)
{
	return r->v[f].blank ? NULL : r->v[f].text;
}

static const char *raw_excerpt(struct write_ctx *w, const struct row *r, enum field f)
{
	return r->raw[f] ? norm_excerpt(w->a, r->raw[f], r->raw_len[f], 200) : NULL;
}

static void lookup_miss(struct write_ctx *w, struct row *r, enum field f)
{
	const char *q = norm_quote(w->a, r->v[f].text, r->v[f].len, 60), *msg;
	if (f == FIELD_PROJECT_MANAGER)
		msg = arena_printf(w->a, "No user named \"%s\" (by name or e-mail) in your organization; the row was saved "
				   "without a project manager. A project manager must be a user of the organization "
				   "(your Loadline operator adds users), or correct the name.", q);
	else
		msg = arena_printf(w->a, "No %s named \"%s\" in your organization; the row was saved without it. Add it on "
				   "the %s page of the web app (or POST /api/v1/%s), or correct the name.",
				   f == FIELD_BRANCH ? "branch" : "customer", q,
				   f == FIELD_BRANCH ? "Branches" : "Customers", f == FIELD_BRANCH ? "branches" : "customers");
	row_add_warning(r, CODE_LOOKUP_MISS, f, w->map->field_col[f], raw_excerpt(w, r, f), msg);
}

/* Customer, branch, project manager: an id, or NULL with a LOOKUP_MISS. */
static enum code look_up(struct write_ctx *w, struct row *r, enum field f, const char **ret_id)
{
	*ret_id = NULL;
	const char *v = val(r, f);
	if (!v)
		return CODE_OK;
	char *key = name_key(w->a, v, strlen(v));
	char *ckey = arena_printf(w->a, "%d:%s", (int)f, key ? key : "");
	const char *hit = strmap_get(w->lookups, ckey);
	char id[ID_MAX];
	enum code rc;
	if (hit) {
		rc = *hit ? CODE_OK : CODE_NOT_FOUND;
		snprintf(id, sizeof id, "%s", hit);
	} else {
		rc = f == FIELD_PROJECT_MANAGER ? store_lookup_user(w->tx, w->org_id, key, id)
		     : store_lookup_named(w->tx, f == FIELD_CUSTOMER ? "customers" : "branches", w->org_id, key, id);
		if (rc == CODE_OK || rc == CODE_NOT_FOUND)
			strmap_put(w->lookups, ckey, arena_strdup(w->a, rc == CODE_OK ? id : ""));
	}
	if (rc == CODE_NOT_FOUND) {
		lookup_miss(w, r, f);
		return CODE_OK;
	}
	if (!rc)
		*ret_id = arena_strdup(w->a, id);
	return rc;
}

static const char *part(const struct row *r, enum field_group g, enum addr_part p)
{
	return val(r, field_of_group(g, p));
}

static bool part_differs(struct write_ctx *w, enum addr_part p, const char *row_value, const char *saved)
{
	if (!row_value)
		return false;   /* the row says nothing about this part */
	if (!saved)
		return true;
	const char *a = name_address_part_key(w->a, p, row_value, strlen(row_value));
	const char *b = name_address_part_key(w->a, p, saved, strlen(saved));
	return strcmp(a ? a : "", b ? b : "");
}

static void group_warning(struct write_ctx *w, struct row *r, enum code c, enum field_group g, enum addr_part p,
			  const char *msg)
{
	enum field f = field_of_group(g, p);
	row_add_warning(r, c, f, w->map->field_col[f], raw_excerpt(w, r, f), msg);
}

struct named {
	struct location_rec found[2];
	int n;
};

/* A named group: reuse the saved location of that name, or create one. */
static enum code resolve_named(struct write_ctx *w, struct row *r, enum field_group g, const char **ret_id)
{
	const char *name = part(r, g, PART_NAME), *street = part(r, g, PART_STREET);
	char *key = name_key(w->a, name, strlen(name));
	struct named *cached = strmap_get(w->by_name, key);
	if (!cached) {
		cached = arena_alloc(w->a, sizeof(*cached));
		enum code rc = store_locations_by_name(w->tx, w->a, w->org_id, key, cached->found, 2, &cached->n);
		if (rc)
			return rc;
		strmap_put(w->by_name, key, cached);
	}
	struct location_rec *found = cached->found;
	int n = cached->n;
	const char *shown = norm_quote(w->a, name, strlen(name), 60);
	if (n >= 2) {
		group_warning(w, r, CODE_LOCATION_NAME_AMBIGUOUS, g, PART_NAME, arena_printf(w->a,
			"More than one saved location is named \"%s\"; the oldest was used. The Locations page of "
			"the web app lists them; ask your Loadline operator to merge the duplicates.", shown));
	} else if (n == 1 && (part_differs(w, PART_STREET, street, found[0].street) ||
			      part_differs(w, PART_CITY, part(r, g, PART_CITY), found[0].city) ||
			      part_differs(w, PART_ZIP, part(r, g, PART_ZIP), found[0].zip))) {
		group_warning(w, r, CODE_LOCATION_NAME_ADDRESS_MISMATCH, g, PART_NAME, arena_printf(w->a,
			"The saved location \"%s\" has a different address; it was used unchanged. Correct the row's "
			"address, or give a different place its own name.", shown));
	}
	if (n >= 1) {
		*ret_id = arena_strdup(w->a, found[0].id);
		return CODE_OK;
	}
	if (!street) {
		group_warning(w, r, CODE_LOCATION_NAME_LOOKUP_MISS, g, PART_NAME, arena_printf(w->a,
			"No saved location is named \"%s\" and the row has no street to create it from; the load was "
			"saved without this location.", shown));
		return CODE_OK;
	}
	enum code rc = writer_create_location(w, r, g, key, ret_id);
	if (!rc) {
		/* Later rows naming it find the one just made, with its address. */
		struct location_rec *made = &cached->found[0];
		memset(made, 0, sizeof(*made));
		snprintf(made->id, sizeof made->id, "%s", *ret_id);
		made->name = name;
		made->street = street;
		made->city = part(r, g, PART_CITY);
		made->state = part(r, g, PART_STATE);
		made->zip = part(r, g, PART_ZIP);
		cached->n = 1;
	}
	return rc;
}

/* Geocodes a location about to be created from group g of row r; a warning
 * when its ZIP cannot place it (PRODUCT §8). */
static void geocode(struct write_ctx *w, struct row *r, enum field_group g, struct location_rec *loc)
{
	loc->geo.precision = "none";
	if (!w->geo)
		return;
	loc->geo.source = w->geo->name;
	struct geo_query q = {.street = loc->street, .city = loc->city, .state = loc->state, .zip = loc->zip};
	struct geo_result res;
	w->geo->lookup(w->geo, &q, &res);
	const char *zip = q.zip ? norm_quote(w->a, q.zip, strlen(q.zip), 20) : NULL;
	switch (res.status) {
	case GEO_FOUND:
		loc->geo.has_coords = true;
		loc->geo.lat_e6 = geo_e6(res.lat);
		loc->geo.lon_e6 = geo_e6(res.lon);
		loc->geo.precision = geo_precision_name(res.precision);
		return;
	case GEO_NO_ZIP:
		/* Only a full address without its ZIP is worth a warning; a street
		 * alone was never meant to be placed. */
		if (q.street && q.city && q.state)
			group_warning(w, r, CODE_ADDRESS_NOT_GEOCODED, g, PART_ZIP,
				      "The address has no ZIP, so it could not be placed on the map; the location was "
				      "saved without coordinates. Add the ZIP and push the row again.");
		return;
	case GEO_UNKNOWN_ZIP:
		group_warning(w, r, CODE_ADDRESS_NOT_GEOCODED, g, PART_ZIP, arena_printf(w->a,
			"\"%s\" is not a US ZIP code, so the address could not be placed on the map; the location was "
			"saved without coordinates. Correct the ZIP and push the row again.", zip));
		return;
	case GEO_STATE_MISMATCH:
		group_warning(w, r, CODE_ADDRESS_ZIP_STATE_MISMATCH, g, PART_ZIP, arena_printf(w->a,
			"ZIP %s is in %s (%s), not in %s; the location was saved without coordinates. Correct the ZIP "
			"or the state and push the row again.", zip, res.found_state, res.found_city, q.state));
		return;
	}
}

enum code writer_create_location(struct write_ctx *w, struct row *r, enum field_group g, const char *name_key_,
				 const char **ret_id)
{
	struct location_rec loc = {.name = name_key_ ? part(r, g, PART_NAME) : NULL, .street = part(r, g, PART_STREET),
				   .city = part(r, g, PART_CITY), .state = part(r, g, PART_STATE),
				   .zip = part(r, g, PART_ZIP)};
	id_new("loc", loc.id);
	const char *akey = name_address_key(w->a, loc.street, strlen(loc.street), loc.city,
					    loc.city ? strlen(loc.city) : 0, loc.state, loc.state ? strlen(loc.state) : 0,
					    loc.zip, loc.zip ? strlen(loc.zip) : 0);
	/* The warnings are the row's only if it creates the location: keep
	 * them aside until the insert says so. */
	int nwarn = r->nwarnings;
	geocode(w, r, g, &loc);
	char id[ID_MAX];
	bool created = false;
	enum code rc = store_location_create_import(w->tx, w->org_id, &loc, name_key_, akey, w->run_id, id, &created);
	if (rc)
		return rc;
	if (!created)
		r->nwarnings = nwarn;
	*ret_id = arena_strdup(w->a, id);
	if (created)
		row_add_id(r, w->a, id);
	return CODE_OK;
}

/* An address group: a location id, or NULL (with a warning when the row
 * had part of an address). */
static enum code resolve_group(struct write_ctx *w, struct row *r, enum field_group g, const char **ret_id)
{
	*ret_id = NULL;
	if (part(r, g, PART_NAME))
		return resolve_named(w, r, g, ret_id);
	const char *street = part(r, g, PART_STREET);
	if (!street) {
		if (part(r, g, PART_CITY) || part(r, g, PART_STATE) || part(r, g, PART_ZIP))
			group_warning(w, r, CODE_LOOKUP_MISS, g, PART_STREET,
				      "City, state or ZIP without a street is not an address; the load was saved "
				      "without this location. Add the street.");
		return CODE_OK;
	}
	const char *akey = name_address_key(w->a, street, strlen(street), part(r, g, PART_CITY),
					    part(r, g, PART_CITY) ? strlen(part(r, g, PART_CITY)) : 0,
					    part(r, g, PART_STATE), part(r, g, PART_STATE) ? 2 : 0,
					    part(r, g, PART_ZIP), part(r, g, PART_ZIP) ? strlen(part(r, g, PART_ZIP)) : 0);
	const char *hit = strmap_get(w->by_address, akey);
	if (hit) {
		*ret_id = hit;
		return CODE_OK;
	}
	char id[ID_MAX];
	enum code rc = store_location_by_address(w->tx, w->org_id, akey, id);
	if (rc == CODE_NOT_FOUND)
		rc = writer_create_location(w, r, g, NULL, ret_id);
	else if (!rc)
		*ret_id = arena_strdup(w->a, id);
	if (!rc)
		strmap_put(w->by_address, akey, (void *)*ret_id);
	return rc;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

struct lookups {
	const char *customer, *branch, *manager;
};

/* Sets the Project's fields from the first written row of its job. */
static enum code write_project(struct write_ctx *w, struct row *r, struct project_rec *p, bool exists,
			       const struct lookups *lk)
{
	struct project_rec want = *p;
	const char *cust = lk->customer, *brn = lk->branch, *pm = lk->manager, *pick, *drop;
	enum code rc;
	if ((rc = resolve_group(w, r, GROUP_PROJECT_PICKUP, &pick)) ||
	    (rc = resolve_group(w, r, GROUP_PROJECT_DROPOFF, &drop)))
		return rc;
	if (!exists) {
		id_new("prj", want.id);
		want.job_code = val(r, FIELD_JOB_CODE);
	}
	/* A blank cell leaves the Project's value as it was. */
	want.name = val(r, FIELD_PROJECT_NAME) ? val(r, FIELD_PROJECT_NAME) : exists ? p->name : want.job_code;
	if (cust) want.customer_id = cust;
	if (brn) want.branch_id = brn;
	if (pm) want.project_manager_id = pm;
	if (pick) want.pickup_location_id = pick;
	if (drop) want.dropoff_location_id = drop;
	if (!exists) {
		rc = store_project_insert(w->tx, w->org_id, &want);
	} else if (!same(want.name, p->name) || !same(want.customer_id, p->customer_id) ||
		   !same(want.branch_id, p->branch_id) || !same(want.project_manager_id, p->project_manager_id) ||
		   !same(want.pickup_location_id, p->pickup_location_id) ||
		   !same(want.dropoff_location_id, p->dropoff_location_id)) {
		rc = store_project_update(w->tx, &want);
	} else {
		return CODE_OK;
	}
	if (!rc) {
		*p = want;
		w->project_touched = true;
	}
	return rc;
}

static void fill_load(const struct row *r, struct load_rec *l)
{
	l->load_no = val(r, FIELD_LOAD_NO);
	l->load_date = val(r, FIELD_LOAD_DATE);
	l->material = val(r, FIELD_MATERIAL);
	l->truck_type = val(r, FIELD_TRUCK_TYPE);
	l->ticket_no = val(r, FIELD_TICKET_NO);
	l->notes = val(r, FIELD_NOTES);
	l->has_weight = !r->v[FIELD_WEIGHT].blank;
	l->weight_centilb = r->v[FIELD_WEIGHT].num;
	l->weight_unit = val(r, FIELD_WEIGHT_UNIT);
	l->has_rate = !r->v[FIELD_RATE].blank;
	l->rate_cents = r->v[FIELD_RATE].num;
	l->content_hash = r->content_hash;
}

struct cached_project {
	struct project_rec p;
	bool exists, created_here;
};

void writer_init(struct write_ctx *w)
{
	w->projects = strmap_new(w->a);
	w->lookups = strmap_new(w->a);
	w->by_address = strmap_new(w->a);
	w->by_name = strmap_new(w->a);
}

/* The row's Project as this run knows it: from the per-run cache, else
 * looked up once. */
static enum code project_of(struct write_ctx *w, const char *job, struct cached_project **ret)
{
	struct cached_project *cp = strmap_get(w->projects, job);
	if (cp) {
		*ret = cp;
		return CODE_OK;
	}
	struct project_rec p = {0};
	enum code rc = store_project_find(w->tx, w->a, w->org_id, job, &p);
	if (rc && rc != CODE_NOT_FOUND)
		return rc;
	cp = arena_alloc(w->a, sizeof(*cp));
	cp->p = p;
	cp->exists = rc == CODE_OK;
	strmap_put(w->projects, job, cp);
	*ret = cp;
	return CODE_OK;
}

/* The Load this row's key already has (*ret_exists), and whether the row
 * is a no-op duplicate of the import that wrote it (*ret_same). */
static enum code existing_load(struct write_ctx *w, const struct cached_project *cp, const char *load_no,
			       const struct row *r, struct load_rec *ret, bool *ret_exists, bool *ret_same)
{
	*ret_exists = *ret_same = false;
	/* A Project made by this run has only this run's Loads, and an earlier
	 * row with the same key was an in-file duplicate: no look-up needed. */
	if (!cp->exists || cp->created_here)
		return CODE_OK;
	enum code rc = store_load_find(w->tx, w->a, cp->p.id, load_no, ret);
	if (rc == CODE_NOT_FOUND)
		return CODE_OK;
	if (rc)
		return rc;
	*ret_exists = true;
	*ret_same = !strcmp(ret->content_hash, r->content_hash);
	return CODE_OK;
}

/* Inserts or updates the Load of the row under project_id. */
static enum code write_load(struct write_ctx *w, struct row *r, const char *project_id, const struct load_rec *old,
			    bool exists, struct load_rec *l)
{
	fill_load(r, l);
	l->project_id = project_id;
	enum code rc;
	if ((rc = resolve_group(w, r, GROUP_PICKUP, &l->pickup_location_id)) ||
	    (rc = resolve_group(w, r, GROUP_DROPOFF, &l->dropoff_location_id)))
		return rc;
	if (exists) {
		memcpy(l->id, old->id, sizeof l->id);
		return store_load_update(w->tx, w->run_id, l);
	}
	id_new("load", l->id);
	return store_load_insert(w->tx, w->org_id, w->run_id, l);
}

/* createdRecordIds: the Load first, then the Project, then the locations
 * (already added while resolving the address groups). */
static void order_ids(struct write_ctx *w, struct row *r, const char *load_id, const char *project_id)
{
	const char *later[ROW_MAX_IDS];
	int nlater = r->nids;
	memcpy(later, r->ids, sizeof(char *) * (size_t)nlater);
	r->nids = 0;
	row_add_id(r, w->a, load_id);
	if (w->project_touched)
		row_add_id(r, w->a, project_id);
	for (int i = 0; i < nlater; i++)
		row_add_id(r, w->a, later[i]);
}

enum code writer_row(struct write_ctx *w, struct row *r, bool first_of_job)
{
	const char *job = val(r, FIELD_JOB_CODE), *load_no = val(r, FIELD_LOAD_NO);
	struct cached_project *cp;
	struct load_rec old = {0};
	bool load_exists, same;
	enum code rc;
	if ((rc = project_of(w, job, &cp)) || (rc = existing_load(w, cp, load_no, r, &old, &load_exists, &same)))
		return rc;
	if (same) {
		r->bucket = BUCKET_SKIPPED;
		r->reason = "duplicate_of_prior_import";
		return CODE_OK;
	}
	/* Every row's names are checked, so each row reports its own misses,
	 * though only the first row of a job sets the Project. */
	struct lookups lk;
	if ((rc = look_up(w, r, FIELD_CUSTOMER, &lk.customer)) || (rc = look_up(w, r, FIELD_BRANCH, &lk.branch)) ||
	    (rc = look_up(w, r, FIELD_PROJECT_MANAGER, &lk.manager)))
		return rc;
	struct project_rec p = cp->p;
	w->project_touched = false;
	if ((!cp->exists || first_of_job) && (rc = write_project(w, r, &p, cp->exists, &lk)))
		return rc;
	if (!cp->exists)
		cp->created_here = true;
	cp->p = p;
	cp->exists = true;
	struct load_rec l = {0};
	if ((rc = write_load(w, r, p.id, &old, load_exists, &l)))
		return rc;
	order_ids(w, r, l.id, p.id);
	r->bucket = BUCKET_SUCCEEDED;
	return CODE_OK;
}

static int cmp_keys(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The key of the location an address group would resolve to: its name's,
 * or its address's when it has a street; NULL when none. */
static const char *group_key(struct write_ctx *w, const struct row *r, enum field_group g, char *ret_kind)
{
	const char *name = part(r, g, PART_NAME), *street = part(r, g, PART_STREET);
	const char *city = part(r, g, PART_CITY), *state = part(r, g, PART_STATE), *zip = part(r, g, PART_ZIP);
	if (name) {
		*ret_kind = 'n';
		return name_key(w->a, name, strlen(name));
	}
	if (!street)
		return NULL;
	*ret_kind = 'a';
	return name_address_key(w->a, street, strlen(street), city, city ? strlen(city) : 0, state, state ? 2 : 0,
				zip, zip ? strlen(zip) : 0);
}

enum code writer_lock_keys(struct write_ctx *w, const struct row *rows, int n)
{
	static const enum field_group groups[] = {GROUP_PICKUP, GROUP_DROPOFF, GROUP_PROJECT_PICKUP,
						  GROUP_PROJECT_DROPOFF};
	int64_t *keys = arena_alloc(w->a, sizeof(int64_t) * ((size_t)n * 5 + 1));
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (r->bucket == BUCKET_FAILED)
			continue;
		keys[k++] = store_key_hash(w->org_id, 'j', val(r, FIELD_JOB_CODE));
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
			char kind;
			const char *key = group_key(w, r, groups[g], &kind);
			if (key)
				keys[k++] = store_key_hash(w->org_id, kind, key);
		}
	}
	qsort(keys, (size_t)k, sizeof(int64_t), cmp_keys);
	return store_tx_lock_keys(w->tx, keys, k);
}
