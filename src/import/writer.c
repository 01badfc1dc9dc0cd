/* Writing one checked row: in-file duplicates, re-import skips, look-ups,
 * the Project, the address groups and the Load.  Runs inside the run's
 * transaction; any storage error aborts the whole run attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/digest.h"
#include "base/ids.h"
#include "base/log.h"
#include "geo/geocoder.h"
#include "model/names.h"
#include "store/records.h"
#include "writer.h"

#include "history.h"

/* Text of a field, or NULL when blank. */
static const char *val(const struct row *r, enum field f)
{
	return r->v[f].blank ? NULL : r->v[f].text;
}

static const char *raw_excerpt(struct write_ctx *w, const struct row *r, enum field f)
{
	return r->raw[f] ? norm_excerpt(w->a, r->raw[f], r->raw_len[f], 200) : NULL;
}

static struct msg *lookup_miss_msg(struct write_ctx *w, struct row *r, enum field f)
{
	struct msg *m = arena_alloc(w->a, sizeof(*m));
	*m = (struct msg){f == FIELD_PROJECT_MANAGER ? MSG_NO_USER : MSG_NO_NAMED,
			  {norm_quote(w->a, r->v[f].text, r->v[f].len, MSG_QUOTE_CHARS)}};
	return m;
}

/* What looking up one cell text found: an id, or a miss with its message. */
struct looked {
	const char *id;
	const struct msg *miss;
};

/* Customer, branch, project manager: an id, or NULL with a LOOKUP_MISS. */
static enum code look_up(struct write_ctx *w, struct row *r, enum field f, const char **ret_id)
{
	*ret_id = NULL;
	const char *v = val(r, f);
	if (!v)
		return CODE_OK;
	struct strmap *memo = w->looked_up[f == FIELD_CUSTOMER ? 0 : f == FIELD_BRANCH ? 1 : 2];
	struct looked *seen = strmap_get(memo, v);
	if (seen) {
		if (seen->miss)
			row_add_warning(r, CODE_LOOKUP_MISS, f, w->map->field_col[f], raw_excerpt(w, r, f), *seen->miss);
		*ret_id = seen->id;
		return CODE_OK;
	}
	/* Customers and branches match by their look-alike-proof key; a
	 * project manager by the key users are saved with. */
	char *key = f == FIELD_PROJECT_MANAGER ? name_key(w->a, v, strlen(v)) : name_ref_key(w->a, v, strlen(v));
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
	if (rc && rc != CODE_NOT_FOUND)
		return rc;
	seen = arena_alloc(w->a, sizeof(*seen));
	if (rc == CODE_NOT_FOUND) {
		seen->miss = lookup_miss_msg(w, r, f);
		row_add_warning(r, CODE_LOOKUP_MISS, f, w->map->field_col[f], raw_excerpt(w, r, f), *seen->miss);
	} else {
		seen->id = *ret_id = arena_strdup(w->a, id);
	}
	strmap_put(memo, v, seen);
	return CODE_OK;
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
			  struct msg m)
{
	enum field f = field_of_group(g, p);
	row_add_warning(r, c, f, w->map->field_col[f], raw_excerpt(w, r, f), m);
}

struct named {
	struct location_rec found[2];
	int n;
	/* The last street, city and ZIP compared with found[0], and whether
	 * they differed: rows naming a site mostly repeat its address. */
	const char *seen_street, *seen_city, *seen_zip;
	bool seen, differs;
};

/* A location name as written in the file: its match key, and the name as
 * its warnings quote it. */
struct name_memo {
	const char *key, *shown;
};

static struct name_memo *name_of(struct write_ctx *w, const char *name)
{
	struct name_memo *m = strmap_get(w->names, name);
	if (!m) {
		m = arena_alloc(w->a, sizeof(*m));
		m->key = name_key(w->a, name, strlen(name));
		m->shown = norm_quote(w->a, name, strlen(name), MSG_QUOTE_CHARS);
		strmap_put(w->names, name, m);
	}
	return m;
}

/* The address key of street/city/state/zip, made once per distinct text. */
static const char *address_key_of(struct write_ctx *w, const char *street, const char *city, const char *state,
				  const char *zip)
{
	const char *parts[] = {street, city, state, zip};
	char memo[1024];
	size_t n = 0;
	bool fits = true;
	for (int i = 0; i < 4 && fits; i++) {
		const char *p = parts[i] ? parts[i] : "\x1e";   /* NULL is not "" */
		size_t l = strlen(p);
		if (n + l + 2 > sizeof memo) {
			fits = false;
			break;
		}
		memcpy(memo + n, p, l);
		n += l;
		memo[n++] = '\x1f';
	}
	memo[n] = '\0';
	const char *hit = fits ? strmap_get(w->addresses, memo) : NULL;
	if (hit)
		return hit;
	const char *key = name_address_key(w->a, street, strlen(street), city, city ? strlen(city) : 0, state,
					   state ? 2 : 0, zip, zip ? strlen(zip) : 0);
	if (fits && key)
		strmap_put(w->addresses, memo, (void *)key);
	return key;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A named group: reuse the saved location of that name, or create one. */
static enum code resolve_named(struct write_ctx *w, struct row *r, enum field_group g, const char **ret_id)
{
	const char *name = part(r, g, PART_NAME), *street = part(r, g, PART_STREET);
	struct name_memo *nm = name_of(w, name);
	const char *key = nm->key;
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
	const char *shown = nm->shown;
	if (n >= 2) {
		group_warning(w, r, CODE_LOCATION_NAME_AMBIGUOUS, g, PART_NAME, (struct msg){MSG_LOC_AMBIGUOUS, {shown}});
	} else if (n == 1) {
		const char *city = part(r, g, PART_CITY), *zip = part(r, g, PART_ZIP);
		if (!cached->seen || !same(street, cached->seen_street) || !same(city, cached->seen_city) ||
		    !same(zip, cached->seen_zip)) {
			cached->differs = part_differs(w, PART_STREET, street, found[0].street) ||
					  part_differs(w, PART_CITY, city, found[0].city) ||
					  part_differs(w, PART_ZIP, zip, found[0].zip);
			cached->seen = true;
			cached->seen_street = street;
			cached->seen_city = city;
			cached->seen_zip = zip;
		}
		if (cached->differs)
			group_warning(w, r, CODE_LOCATION_NAME_ADDRESS_MISMATCH, g, PART_NAME,
				      (struct msg){MSG_LOC_MISMATCH, {shown}});
	}
	if (n >= 1) {
		*ret_id = arena_strdup(w->a, found[0].id);
		return CODE_OK;
	}
	if (!street) {
		group_warning(w, r, CODE_LOCATION_NAME_LOOKUP_MISS, g, PART_NAME, (struct msg){MSG_LOC_MISS, {shown}});
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
		cached->seen = false;
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
			group_warning(w, r, CODE_ADDRESS_NOT_GEOCODED, g, PART_ZIP, (struct msg){MSG_GEO_NO_ZIP, {NULL}});
		return;
	case GEO_UNKNOWN_ZIP:
		group_warning(w, r, CODE_ADDRESS_NOT_GEOCODED, g, PART_ZIP, (struct msg){MSG_GEO_UNKNOWN_ZIP, {zip}});
		return;
	case GEO_STATE_MISMATCH:
		group_warning(w, r, CODE_ADDRESS_ZIP_STATE_MISMATCH, g, PART_ZIP,
			      (struct msg){MSG_GEO_STATE, {zip, arena_strdup(w->a, res.found_state),
							   arena_strdup(w->a, res.found_city), q.state}});
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
	geocode(w, r, g, &loc);
	/* Inserted with the next batch (writer_flush).  The keys were locked
	 * and looked up in this transaction, so nobody else can have made it
	 * meanwhile; should the insert find one anyway, the attempt is
	 * retried (and then finds it). */
	int i = w->nnew_locs++;
	w->new_locs[i] = loc;
	w->new_loc_names[i] = name_key_ ? arena_strdup(w->a, name_key_) : NULL;
	w->new_loc_addresses[i] = akey;
	*ret_id = arena_strdup(w->a, loc.id);
	row_add_id(r, w->a, loc.id);
	/* A later unnamed group with this address finds it, as the look-up by
	 * address would once it is inserted (it is the oldest when the
	 * prefetch found none). */
	const char *have = akey ? strmap_get(w->by_address, akey) : "";
	if (!have || !*have)
		strmap_put(w->by_address, akey, (void *)*ret_id);
	return w->nnew_locs == w->max_new_locs ? writer_flush(w) : CODE_OK;
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
			group_warning(w, r, CODE_LOOKUP_MISS, g, PART_STREET, (struct msg){MSG_NO_STREET, {NULL}});
		return CODE_OK;
	}
	const char *akey = address_key_of(w, street, part(r, g, PART_CITY), part(r, g, PART_STATE), part(r, g, PART_ZIP));
	const char *hit = strmap_get(w->by_address, akey);
	if (hit && *hit) {
		*ret_id = hit;
		return CODE_OK;
	}
	char id[ID_MAX];
	/* "" = prefetched, and there is none. */
	enum code rc = hit ? CODE_NOT_FOUND : store_location_by_address(w->tx, w->org_id, akey, id);
	if (rc == CODE_NOT_FOUND)
		rc = writer_create_location(w, r, g, NULL, ret_id);
	else if (!rc)
		*ret_id = arena_strdup(w->a, id);
	if (!rc)
		strmap_put(w->by_address, akey, (void *)*ret_id);
	return rc;
}

struct lookups {
	const char *customer, *branch, *manager;
};

/* The Project as the first written row of its job leaves it (*want; a new
 * one when !exists), and whether that differs from *p.  Resolves the
 * Project's address groups; writes nothing else. */
static enum code project_want(struct write_ctx *w, struct row *r, const struct project_rec *p, bool exists,
			      const struct lookups *lk, struct project_rec *want, bool *ret_changed)
{
	const char *cust = lk->customer, *brn = lk->branch, *pm = lk->manager, *pick, *drop;
	enum code rc;
	*want = *p;
	if ((rc = resolve_group(w, r, GROUP_PROJECT_PICKUP, &pick)) ||
	    (rc = resolve_group(w, r, GROUP_PROJECT_DROPOFF, &drop)))
		return rc;
	if (!exists) {
		id_new("prj", want->id);
		want->job_code = val(r, FIELD_JOB_CODE);
	}
	/* A blank cell leaves the Project's value as it was. */
	want->name = val(r, FIELD_PROJECT_NAME) ? val(r, FIELD_PROJECT_NAME) : exists ? p->name : want->job_code;
	if (cust) want->customer_id = cust;
	if (brn) want->branch_id = brn;
	if (pm) want->project_manager_id = pm;
	if (pick) want->pickup_location_id = pick;
	if (drop) want->dropoff_location_id = drop;
	*ret_changed = !exists || !same(want->name, p->name) || !same(want->customer_id, p->customer_id) ||
		       !same(want->branch_id, p->branch_id) || !same(want->project_manager_id, p->project_manager_id) ||
		       !same(want->pickup_location_id, p->pickup_location_id) ||
		       !same(want->dropoff_location_id, p->dropoff_location_id);
	return CODE_OK;
}

/* Keeps the before-image of an update (NULL: nothing changed), stored
 * with the next flush: one statement per STORE_CHANGE_BATCH updates. */
static enum code keep_change(struct write_ctx *w, const char *kind, const char *id, const char *before)
{
	if (!before)
		return CODE_OK;
	w->chg_kinds[w->nchg] = kind;
	w->chg_ids[w->nchg] = arena_strdup(w->a, id);
	w->chg_befores[w->nchg++] = before;
	return w->nchg == STORE_CHANGE_BATCH ? writer_flush(w) : CODE_OK;
}

/* Inserts or updates the Project as project_want made it (*p becomes it). */
static enum code write_project(struct write_ctx *w, struct project_rec *p, bool exists, const struct project_rec *want)
{
	enum code rc;
	if (!exists) {
		/* Inserted with the next Loads (writer_flush), before them. */
		w->new_projects[w->nnew_projects++] = *want;
		rc = w->nnew_projects == w->max_new_projects ? writer_flush(w) : CODE_OK;
	} else {
		/* (Only Projects that exist get here, but an UPDATE must never
		 * run before a pending INSERT it could be meant for.) */
		rc = w->nnew_projects ? writer_flush(w) : CODE_OK;
		if (!rc)
			rc = store_project_update(w->tx, w->run_id, want);
		if (!rc)
			rc = keep_change(w, "project", want->id, history_project_before(w->a, p, want));
	}
	if (!rc) {
		*p = *want;
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
}

struct cached_project {
	struct project_rec p;        /* as this run has left it */
	struct project_rec before;   /* as this run found it */
	bool exists, created_here;
};

void writer_init(struct write_ctx *w)
{
	w->projects = strmap_new(w->a);
	w->lookups = strmap_new(w->a);
	w->by_address = strmap_new(w->a);
	w->by_name = strmap_new(w->a);
	w->names = strmap_new(w->a);
	w->addresses = strmap_new(w->a);
	for (int i = 0; i < 3; i++)
		w->looked_up[i] = strmap_new(w->a);
	w->pending = arena_alloc(w->a, sizeof(struct load_rec) * STORE_LOAD_BATCH);
	w->npending = 0;
	w->chg_kinds = arena_alloc(w->a, sizeof(char *) * STORE_CHANGE_BATCH);
	w->chg_ids = arena_alloc(w->a, sizeof(char *) * STORE_CHANGE_BATCH);
	w->chg_befores = arena_alloc(w->a, sizeof(char *) * STORE_CHANGE_BATCH);
	w->nchg = 0;
	w->max_new_projects = 64;
	w->new_projects = arena_alloc(w->a, sizeof(struct project_rec) * (size_t)w->max_new_projects);
	w->nnew_projects = 0;
	w->loads = NULL;
	w->max_new_locs = 40;
	w->new_locs = arena_alloc(w->a, sizeof(struct location_rec) * (size_t)w->max_new_locs);
	w->new_loc_names = arena_alloc(w->a, sizeof(char *) * (size_t)w->max_new_locs);
	w->new_loc_addresses = arena_alloc(w->a, sizeof(char *) * (size_t)w->max_new_locs);
	w->nnew_locs = 0;
}

/* Distinct texts of a file, in first-seen order. */
struct distinct {
	struct strmap *seen;
	const char **v;
	int n;
};

static void distinct_add(struct distinct *d, const char *s)
{
	if (s && !strmap_get(d->seen, s)) {
		strmap_put(d->seen, s, (void *)s);
		d->v[d->n++] = s;
	}
}

/* The distinct job codes, location name keys and address keys of the rows
 * that did not fail. */
static void collect_keys(struct write_ctx *w, const struct row *rows, int n, struct distinct *jobs,
			 struct distinct *names, struct distinct *addrs)
{
	static const enum field_group groups[] = {GROUP_PICKUP, GROUP_DROPOFF, GROUP_PROJECT_PICKUP,
						  GROUP_PROJECT_DROPOFF};
	*jobs = (struct distinct){strmap_new(w->a), arena_alloc(w->a, sizeof(char *) * (size_t)(n + 1)), 0};
	*names = (struct distinct){strmap_new(w->a), arena_alloc(w->a, sizeof(char *) * (size_t)(4 * n + 1)), 0};
	*addrs = (struct distinct){strmap_new(w->a), arena_alloc(w->a, sizeof(char *) * (size_t)(4 * n + 1)), 0};
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (r->bucket == BUCKET_FAILED)
			continue;
		distinct_add(jobs, val(r, FIELD_JOB_CODE));
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
			const char *name = part(r, groups[g], PART_NAME), *street = part(r, groups[g], PART_STREET);
			if (name)
				distinct_add(names, name_of(w, name)->key);
			else if (street)
				distinct_add(addrs, address_key_of(w, street, part(r, groups[g], PART_CITY),
								   part(r, groups[g], PART_STATE),
								   part(r, groups[g], PART_ZIP)));
		}
	}
}

/* Projects: every job code of the file is then known, found or not. */
static enum code prefetch_projects(struct write_ctx *w, const struct distinct *jobs)
{
	struct project_rec *found;
	int nfound;
	enum code rc = store_projects_find_many(w->tx, w->a, w->org_id, jobs->v, jobs->n, &found, &nfound);
	if (rc)
		return rc;
	for (int i = 0; i < jobs->n; i++) {
		struct cached_project *cp = arena_alloc(w->a, sizeof(*cp));
		strmap_put(w->projects, jobs->v[i], cp);
	}
	for (int i = 0; i < nfound; i++) {
		struct cached_project *cp = strmap_get(w->projects, found[i].job_code);
		if (cp && !cp->exists) {
			cp->p = cp->before = found[i];
			cp->exists = true;
		}
	}
	return CODE_OK;
}

/* Locations by name: up to two per key, oldest first. */
static enum code prefetch_named(struct write_ctx *w, const struct distinct *names)
{
	struct location_rec *locs;
	const char **keys;
	int nlocs;
	enum code rc;
	if (!names->n)
		return CODE_OK;
	if ((rc = store_locations_by_names(w->tx, w->a, w->org_id, names->v, names->n, &locs, &keys, &nlocs)))
		return rc;
	for (int i = 0; i < names->n; i++)
		strmap_put(w->by_name, names->v[i], arena_alloc(w->a, sizeof(struct named)));
	for (int i = 0; i < nlocs; i++) {
		struct named *nd = keys[i] ? strmap_get(w->by_name, keys[i]) : NULL;
		if (nd && nd->n < 2)
			nd->found[nd->n++] = locs[i];
	}
	return CODE_OK;
}

/* Unnamed locations by address: the oldest per key, or "" for none. */
static enum code prefetch_addressed(struct write_ctx *w, const struct distinct *addrs)
{
	const char **ids, **keys;
	int nlocs;
	enum code rc;
	if (!addrs->n)
		return CODE_OK;
	if ((rc = store_locations_by_addresses(w->tx, w->a, w->org_id, addrs->v, addrs->n, &ids, &keys, &nlocs)))
		return rc;
	for (int i = 0; i < addrs->n; i++)
		strmap_put(w->by_address, addrs->v[i], "");
	for (int i = 0; i < nlocs; i++) {
		const char *have = keys[i] ? strmap_get(w->by_address, keys[i]) : NULL;
		if (have && !*have && ids[i])
			strmap_put(w->by_address, keys[i], (void *)ids[i]);
	}
	return CODE_OK;
}

/* The distinct (existing Project, load number) keys of the rows. */
static int load_keys(struct write_ctx *w, const struct row *rows, int n, const char ***ret_pids,
		     const char ***ret_nos)
{
	struct strmap *seen = strmap_new(w->a);
	const char **pids = arena_alloc(w->a, sizeof(char *) * (size_t)(n + 1));
	const char **nos = arena_alloc(w->a, sizeof(char *) * (size_t)(n + 1));
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		if (r->bucket == BUCKET_FAILED || !val(r, FIELD_LOAD_NO))
			continue;
		struct cached_project *cp = strmap_get(w->projects, val(r, FIELD_JOB_CODE));
		if (!cp || !cp->exists)
			continue;
		char *key = arena_printf(w->a, "%s\x1f%s", cp->p.id, val(r, FIELD_LOAD_NO));
		if (strmap_get(seen, key))
			continue;
		strmap_put(seen, key, key);
		pids[k] = cp->p.id;
		nos[k++] = val(r, FIELD_LOAD_NO);
	}
	*ret_pids = pids;
	*ret_nos = nos;
	return k;
}

/* Loads of the Projects that exist, for the rows' keys. */
static enum code prefetch_loads(struct write_ctx *w, const struct row *rows, int n)
{
	const char **pids, **nos;
	int nkeys = load_keys(w, rows, n, &pids, &nos);
	w->loads = strmap_new(w->a);
	struct load_rec *loads;
	int nloads = 0;
	enum code rc = nkeys ? store_loads_find_pairs(w->tx, w->a, pids, nos, nkeys, &loads, &nloads) : CODE_OK;
	for (int i = 0; !rc && i < nloads; i++) {
		char *key = arena_printf(w->a, "%s\x1f%s", loads[i].project_id, loads[i].load_no);
		if (!strmap_get(w->loads, key))
			strmap_put(w->loads, key, &loads[i]);
	}
	return rc;
}

enum code writer_prefetch(struct write_ctx *w, const struct row *rows, int n)
{
	struct distinct jobs, names, addrs;
	collect_keys(w, rows, n, &jobs, &names, &addrs);
	enum code rc = prefetch_projects(w, &jobs);
	if (!rc)
		rc = prefetch_named(w, &names);
	if (!rc)
		rc = prefetch_addressed(w, &addrs);
	if (!rc)
		rc = prefetch_loads(w, rows, n);
	return rc;
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
	cp->p = cp->before = p;
	cp->exists = rc == CODE_OK;
	strmap_put(w->projects, job, cp);
	*ret = cp;
	return CODE_OK;
}

/* The Load this row's key already has (*ret_exists). */
static enum code existing_load(struct write_ctx *w, const struct cached_project *cp, const char *load_no,
			       struct load_rec *ret, bool *ret_exists)
{
	*ret_exists = false;
	/* A Project made by this run has only this run's Loads, and an earlier
	 * row with the same key was an in-file duplicate: no look-up needed. */
	if (!cp->exists || cp->created_here)
		return CODE_OK;
	enum code rc;
	if (w->loads) {
		/* Prefetched (writer_prefetch): absent means there is none. */
		char key[2 * ID_MAX + 512];
		const struct load_rec *hit = NULL;
		/* "projectId\x1floadNo", made without snprintf: every row of a
		 * re-push comes here. */
		size_t np = strlen(cp->p.id), nl = strlen(load_no);
		if (np + nl + 2 > sizeof key)
			goto one;
		memcpy(key, cp->p.id, np);
		key[np] = '\x1f';
		memcpy(key + np + 1, load_no, nl + 1);
		hit = strmap_get(w->loads, key);
		if (!hit)
			return CODE_OK;
		*ret = *hit;
		rc = CODE_OK;
	} else {
one:
		rc = store_load_find(w->tx, w->a, cp->p.id, load_no, ret);
	}
	if (rc == CODE_NOT_FOUND)
		return CODE_OK;
	if (rc)
		return rc;
	*ret_exists = true;
	return CODE_OK;
}

/* Inserts or updates the Load of the row under project_id (l: its
 * locations and hash already set). */
static enum code write_load(struct write_ctx *w, struct row *r, const char *project_id, const struct load_rec *old,
			    bool exists, struct load_rec *l)
{
	fill_load(r, l);
	l->project_id = arena_strdup(w->a, project_id);   /* kept past this row while pending */
	if (exists) {
		memcpy(l->id, old->id, sizeof l->id);
		enum code rc = store_load_update(w->tx, w->run_id, l);
		return rc ? rc : keep_change(w, "load", l->id, history_load_before(w->a, old, l));
	}
	id_new_ordered("load", l->id);
	w->pending[w->npending++] = *l;
	return w->npending == STORE_LOAD_BATCH ? writer_flush(w) : CODE_OK;
}

enum code writer_flush(struct write_ctx *w)
{
	int nl = w->nnew_locs, np = w->nnew_projects, n = w->npending;
	w->nnew_locs = w->nnew_projects = w->npending = 0;
	enum code rc = CODE_OK;
	if (nl) {
		int created = 0;
		rc = store_locations_create_import_many(w->tx, w->org_id, w->new_locs, w->new_loc_names,
							w->new_loc_addresses, nl, w->run_id, &created);
		if (!rc && created != nl) {
			log_json("warn", "an import-made location appeared meanwhile; the run will be retried",
				 json_pack("{s:s,s:i,s:i}", "runId", w->run_id, "locations", nl, "created", created));
			rc = CODE_SERVICE_UNAVAILABLE;
		}
	}
	if (!rc && np)
		rc = store_projects_insert_many(w->tx, w->org_id, w->run_id, w->new_projects, np);
	if (!rc && n)
		rc = store_load_insert_many(w->tx, w->org_id, w->run_id, w->pending, n);
	int nc = w->nchg;
	w->nchg = 0;
	if (!rc && nc)
		rc = store_changes_add_many(w->tx, w->org_id, w->run_id, w->chg_kinds, w->chg_ids, w->chg_befores, nc);
	return rc;
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

/* The hash stored with a Load: its row's cells and the customer, branch and
 * project manager their names resolved to, so that the same cells naming a
 * customer added since are not a no-op (PRODUCT §11).  The locations are
 * compared with the Load's own columns. */
static void load_hash(const struct row *r, const struct lookups *lk, char out[DIGEST_HEX])
{
	const char *refs[] = {lk->customer, lk->branch, lk->manager};
	/* One update of "load\0<cells>\0<customer>\0<branch>\0<manager>\0". */
	char in[5 + DIGEST_HEX + 3 * ID_MAX];
	size_t n = 5 + DIGEST_HEX;
	memcpy(in, "load\0", 5);
	memcpy(in + 5, r->content_hash, DIGEST_HEX);
	for (int i = 0; i < 3; i++) {
		size_t k = refs[i] ? strnlen(refs[i], ID_MAX - 1) : 0;
		memcpy(in + n, refs[i] ? refs[i] : "", k);
		in[n + k] = '\0';
		n += k + 1;
	}
	struct digest d;
	digest_init(&d);
	digest_update(&d, in, n);
	digest_final_hex(&d, out);
}

/* Whether writing the row would leave its stored Load as it is: the same
 * locations, and the same cells resolving to the same records.  A Load
 * written before the hash held the references has its cells' hash alone;
 * its references are then those of its Project as this run found it: a
 * name that now resolves to another record is a change, a miss is not
 * (writing it would set nothing). */
static bool load_unchanged(const struct load_rec *old, const struct row *r, const struct load_rec *l,
			   const struct lookups *lk, const struct project_rec *before)
{
	if (!same(old->pickup_location_id, l->pickup_location_id) ||
	    !same(old->dropoff_location_id, l->dropoff_location_id))
		return false;
	if (!strcmp(old->content_hash, l->content_hash))
		return true;
	return !strcmp(old->content_hash, r->content_hash) && (!lk->customer || same(lk->customer, before->customer_id)) &&
	       (!lk->branch || same(lk->branch, before->branch_id)) &&
	       (!lk->manager || same(lk->manager, before->project_manager_id));
}

/* What a customer, branch or manager cell resolved to earlier in this run;
 * *known becomes false when its text was not looked up yet. */
static const char *peek_lookup(struct write_ctx *w, const struct row *r, enum field f, bool *known)
{
	const char *v = val(r, f);
	struct looked *seen = v ? strmap_get(w->looked_up[f == FIELD_CUSTOMER ? 0 : f == FIELD_BRANCH ? 1 : 2], v) : NULL;
	if (v && !seen)
		*known = false;
	return seen ? seen->id : NULL;
}

/* The saved location group g of row r resolves to, from what writer_prefetch
 * (or an earlier row) found; *known becomes false when resolve_group has
 * more to do (create one, or report a miss). */
static const char *peek_group(struct write_ctx *w, const struct row *r, enum field_group g, bool *known)
{
	const char *name = part(r, g, PART_NAME), *street = part(r, g, PART_STREET);
	if (name) {
		struct name_memo *nm = strmap_get(w->names, name);
		struct named *nd = nm ? strmap_get(w->by_name, nm->key) : NULL;
		if (nd && nd->n >= 1)
			return nd->found[0].id;
	} else if (!street) {
		return NULL;
	} else {
		const char *akey = address_key_of(w, street, part(r, g, PART_CITY), part(r, g, PART_STATE),
						  part(r, g, PART_ZIP));
		const char *hit = akey ? strmap_get(w->by_address, akey) : NULL;
		if (hit && *hit)
			return hit;
	}
	*known = false;
	return NULL;
}

/* The re-push's fast path: a row that does not write its Project, whose
 * references resolve from the run's caches, is judged without making the
 * warnings a skipped row does not report.  False means "not sure": the
 * full path decides. */
static bool quick_skip(struct write_ctx *w, const struct row *r, const struct cached_project *cp,
		       const struct load_rec *old)
{
	bool known = true;
	struct lookups lk = {peek_lookup(w, r, FIELD_CUSTOMER, &known), peek_lookup(w, r, FIELD_BRANCH, &known),
			     peek_lookup(w, r, FIELD_PROJECT_MANAGER, &known)};
	struct load_rec l = {.pickup_location_id = peek_group(w, r, GROUP_PICKUP, &known),
			     .dropoff_location_id = peek_group(w, r, GROUP_DROPOFF, &known)};
	if (!known)
		return false;
	char hash[DIGEST_HEX];
	load_hash(r, &lk, hash);
	l.content_hash = hash;
	return load_unchanged(old, r, &l, &lk, &cp->before);
}

static void skip(struct row *r)
{
	r->bucket = BUCKET_SKIPPED;
	r->reason = "duplicate_of_prior_import";
	r->nwarnings = r->nids = 0;   /* a skipped row reports only why */
}

/* A row is resolved whole before anything is written: it is skipped only
 * when the Load (and, for the first written row of its job, the Project)
 * it would write equal the stored ones.  Resolving writes nothing a skip
 * would leave behind: a location it has to create is new, so a row that
 * needs one is never a no-op. */
enum code writer_row(struct write_ctx *w, struct row *r, bool first_of_job)
{
	const char *job = val(r, FIELD_JOB_CODE), *load_no = val(r, FIELD_LOAD_NO);
	struct cached_project *cp;
	struct load_rec old = {0}, l = {0};
	bool load_exists, project_changed = false;
	enum code rc;
	if ((rc = project_of(w, job, &cp)) || (rc = existing_load(w, cp, load_no, &old, &load_exists)))
		return rc;
	if (load_exists && !first_of_job && quick_skip(w, r, cp, &old)) {
		skip(r);
		return CODE_OK;
	}
	/* Every row's names are checked, so each row reports its own misses,
	 * though only the first row of a job sets the Project. */
	struct lookups lk;
	if ((rc = look_up(w, r, FIELD_CUSTOMER, &lk.customer)) || (rc = look_up(w, r, FIELD_BRANCH, &lk.branch)) ||
	    (rc = look_up(w, r, FIELD_PROJECT_MANAGER, &lk.manager)))
		return rc;
	struct project_rec p = cp->p, want;
	bool writes_project = !cp->exists || first_of_job;
	w->project_touched = false;
	if (writes_project && (rc = project_want(w, r, &p, cp->exists, &lk, &want, &project_changed)))
		return rc;
	if ((rc = resolve_group(w, r, GROUP_PICKUP, &l.pickup_location_id)) ||
	    (rc = resolve_group(w, r, GROUP_DROPOFF, &l.dropoff_location_id)))
		return rc;
	char *hash = arena_alloc(w->a, DIGEST_HEX);   /* kept while the Load is pending */
	load_hash(r, &lk, hash);
	l.content_hash = hash;
	if (load_exists && !project_changed && load_unchanged(&old, r, &l, &lk, &cp->before)) {
		skip(r);
		return CODE_OK;
	}
	if (project_changed && (rc = write_project(w, &p, cp->exists, &want)))
		return rc;
	if (!cp->exists)
		cp->created_here = true;
	cp->p = p;
	cp->exists = true;
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
		return name_of(w, name)->key;
	}
	if (!street)
		return NULL;
	*ret_kind = 'a';
	return address_key_of(w, street, city, state, zip);
}

enum code writer_lock_keys(struct write_ctx *w, const struct row *rows, int n)
{
	static const enum field_group groups[] = {GROUP_PICKUP, GROUP_DROPOFF, GROUP_PROJECT_PICKUP,
						  GROUP_PROJECT_DROPOFF};
	/* SQLite has one writer at a time: its transaction is the lock. */
	if (!store_tx_is_postgres(w->tx))
		return CODE_OK;
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
	/* Each key once: a 750-row file repeats its 40 jobs and 60 sites
	 * thousands of times, and each repeat was a lock call in PostgreSQL. */
	int u = 0;
	for (int i = 0; i < k; i++)
		if (!u || keys[u - 1] != keys[i])
			keys[u++] = keys[i];
	return store_tx_lock_keys(w->tx, keys, u);
}
