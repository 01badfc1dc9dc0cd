/* Before-images and a Load's history (history.h). */
#include "history.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "model/normalize.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *history_load_columns(const struct load_rec *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "load_date", str_or_null(l->load_date));
	json_object_set_new(o, "material", str_or_null(l->material));
	json_object_set_new(o, "truck_type", str_or_null(l->truck_type));
	json_object_set_new(o, "ticket_no", str_or_null(l->ticket_no));
	json_object_set_new(o, "notes", str_or_null(l->notes));
	json_object_set_new(o, "weight_unit", str_or_null(l->weight_unit));
	json_object_set_new(o, "weight_centilb", l->has_weight ? json_integer(l->weight_centilb) : json_null());
	json_object_set_new(o, "rate_cents", l->has_rate ? json_integer(l->rate_cents) : json_null());
	json_object_set_new(o, "pickup_location_id", str_or_null(l->pickup_location_id));
	json_object_set_new(o, "dropoff_location_id", str_or_null(l->dropoff_location_id));
	json_object_set_new(o, "content_hash", str_or_null(l->content_hash));
	return o;
}

json_t *history_project_columns(const struct project_rec *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", str_or_null(p->name));
	json_object_set_new(o, "customer_id", str_or_null(p->customer_id));
	json_object_set_new(o, "branch_id", str_or_null(p->branch_id));
	json_object_set_new(o, "project_manager_id", str_or_null(p->project_manager_id));
	json_object_set_new(o, "pickup_location_id", str_or_null(p->pickup_location_id));
	json_object_set_new(o, "dropoff_location_id", str_or_null(p->dropoff_location_id));
	return o;
}

/* old's values of the columns where now differs, as compact JSON text
 * (malloc'd), or NULL when none differs. */
static char *before_image(json_t *old, json_t *now)
{
	json_t *b = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(old, k, v)
		if (!json_equal(v, json_object_get(now, k)))
			json_object_set(b, k, v);
	char *s = json_object_size(b) ? json_dumps(b, JSON_COMPACT) : NULL;
	json_decref(b);
	json_decref(old);
	json_decref(now);
	return s;
}

/* before_image's text in a. */
static const char *in_arena(struct arena *a, char *s)
{
	const char *out = s ? arena_strdup(a, s) : NULL;
	free(s);
	return out;
}

/* The old value of a column that differs, into *b (made on first use):
 * compared in C, so that a row's update builds JSON for its changed
 * columns only (building both images cost ~5 µs a row). */
static void diff_str(json_t **b, const char *col, const char *old, const char *now)
{
	if (old == now || (old && now && !strcmp(old, now)))
		return;
	if (!*b)
		*b = json_object();
	json_object_set_new(*b, col, str_or_null(old));
}

static void diff_int(json_t **b, const char *col, bool had, int64_t old, bool has, int64_t now)
{
	if (had == has && (!had || old == now))
		return;
	if (!*b)
		*b = json_object();
	json_object_set_new(*b, col, had ? json_integer(old) : json_null());
}

/* Same columns as history_load_columns. */
const char *history_load_before(struct arena *a, const struct load_rec *old, const struct load_rec *now)
{
	json_t *b = NULL;
	diff_str(&b, "load_date", old->load_date, now->load_date);
	diff_str(&b, "material", old->material, now->material);
	diff_str(&b, "truck_type", old->truck_type, now->truck_type);
	diff_str(&b, "ticket_no", old->ticket_no, now->ticket_no);
	diff_str(&b, "notes", old->notes, now->notes);
	diff_str(&b, "weight_unit", old->weight_unit, now->weight_unit);
	diff_int(&b, "weight_centilb", old->has_weight, old->weight_centilb, now->has_weight, now->weight_centilb);
	diff_int(&b, "rate_cents", old->has_rate, old->rate_cents, now->has_rate, now->rate_cents);
	diff_str(&b, "pickup_location_id", old->pickup_location_id, now->pickup_location_id);
	diff_str(&b, "dropoff_location_id", old->dropoff_location_id, now->dropoff_location_id);
	diff_str(&b, "content_hash", old->content_hash, now->content_hash);
	if (!b)
		return NULL;
	const char *out = in_arena(a, json_dumps(b, JSON_COMPACT));
	json_decref(b);
	return out;
}

const char *history_project_before(struct arena *a, const struct project_rec *old, const struct project_rec *now)
{
	return in_arena(a, before_image(history_project_columns(old), history_project_columns(now)));
}

/* ---- the history of a Load ---- */

/* The API's name and form of a Load column; NULL: not shown (the unit the
 * file used, the hash). */
static const char *api_field(const char *column)
{
	static const char *const map[][2] = {
		{"load_date", "loadDate"}, {"material", "material"}, {"truck_type", "truckType"},
		{"ticket_no", "ticketNo"}, {"notes", "notes"}, {"weight_centilb", "weight"}, {"rate_cents", "rate"},
		{"pickup_location_id", "pickupLocationId"}, {"dropoff_location_id", "dropoffLocationId"}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(map[i][0], column))
			return map[i][1];
	return NULL;
}

/* A column's value as GET /api/v1/loads/{id} shows it: weight in pounds,
 * rate as a decimal string. */
static json_t *api_value(const char *column, json_t *v)
{
	if (!v || json_is_null(v))
		return json_null();
	if (!strcmp(column, "weight_centilb"))
		return json_real((double)json_integer_value(v) / 100.0);
	if (!strcmp(column, "rate_cents")) {
		char r[NORM_NUM_SIZE];
		norm_format_cents(json_integer_value(v), r, sizeof r);
		return json_string(r);
	}
	return json_incref(v);
}

/* {"<field>": {"from", "to"}} for the columns of from and to that differ
 * (either may be NULL: the record did not exist). */
static json_t *field_changes(json_t *from, json_t *to)
{
	json_t *out = json_object();
	json_t *keys = from ? from : to;
	const char *k;
	json_t *v;
	json_object_foreach(keys, k, v) {
		const char *f = api_field(k);
		json_t *a = from ? json_object_get(from, k) : NULL, *b = to ? json_object_get(to, k) : NULL;
		if (!f || (a && b && json_equal(a, b)) || (!a && json_is_null(b)) || (!b && json_is_null(a)))
			continue;
		json_object_set_new(out, f, json_pack("{s:o,s:o}", "from", api_value(k, a), "to", api_value(k, b)));
	}
	return out;
}

static json_t *change_item(const char *run_id, const char *action, int64_t at, const char *created_by,
			   json_t *changes)
{
	char t[TIME_ISO_MAX];
	time_iso(at, t);
	json_t *by = created_by ? json_loads(created_by, 0, NULL) : NULL;
	return json_pack("{s:s,s:s,s:s,s:s,s:o,s:o}", "object", "load_change", "runId", run_id, "action", action,
			 "at", t, "createdBy", by ? by : json_null(), "changes", changes);
}

/* One change, given the Load's columns just after it (*state, NULL when it
 * did not exist); *state becomes the columns just before it. */
static json_t *one_change(const struct record_change *c, json_t **state)
{
	json_t *before = c->before ? json_loads(c->before, 0, NULL) : NULL, *after = *state, *changes;
	if (!strcmp(c->op, "update")) {
		json_t *prior = after ? json_deep_copy(after) : json_object();
		if (before)
			json_object_update(prior, before);
		changes = field_changes(prior, after);
		json_decref(before);
		before = prior;
	} else {
		/* insert: nothing before; remove: the whole row before, nothing after */
		changes = field_changes(before, after);
	}
	json_decref(after);
	*state = before;
	return change_item(c->run_id, c->by_revert ? "reverted" : "updated", c->at, c->created_by, changes);
}

json_t *history_load_json(const struct load_rec *cur, const struct record_change *c, int n,
			  const struct record_change *created)
{
	json_t *out = json_array(), *state = history_load_columns(cur);
	for (int i = 0; i < n; i++)
		json_array_append_new(out, one_change(&c[i], &state));
	if (created->run_id && state)
		json_array_append_new(out, change_item(created->run_id, "created", created->at, created->created_by,
						       field_changes(NULL, state)));
	json_decref(state);
	return out;
}
