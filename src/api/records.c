/* GET /api/v1/loads/{id} (with distanceMiles), /api/v1/projects/{id}, /api/v1/locations?q=. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/url.h"
#include "endpoints.h"
#include "geo/geocoder.h"
#include "model/names.h"
#include "model/normalize.h"
#include "paging.h"
#include "store/records.h"

static bool found(struct http_request *req, struct http_response *res, enum code rc, const char *what)
{
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, arena_printf(req->arena, "No %s with this id in your organization.", what), NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	return rc == CODE_OK;
}

/* Great-circle miles between the load's pickup and dropoff, to 0.1 mile,
 * when both locations have coordinates; else null. */
static json_t *distance(struct api_ctx *ctx, struct http_request *req, const struct load_rec *l, enum code *rc)
{
	struct location_rec ends[2];
	const char *ids[2] = {l->pickup_location_id, l->dropoff_location_id};
	for (int i = 0; i < 2; i++) {
		if (!ids[i])
			return json_null();
		*rc = store_location_get(ctx->app->store, req->arena, ctx->org.id, ids[i], &ends[i]);
		if (*rc == CODE_NOT_FOUND)
			*rc = CODE_OK;
		if (*rc || !ends[i].geo.has_coords)
			return json_null();
	}
	double miles = geo_distance_miles(ends[0].geo.lat_e6 / 1e6, ends[0].geo.lon_e6 / 1e6, ends[1].geo.lat_e6 / 1e6,
					  ends[1].geo.lon_e6 / 1e6);
	return json_real(round(miles * 10) / 10);
}

static void get_load(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct load_rec l;
	const char *id = api_id(ctx, req, res, "load", "load");
	if (!id || !found(req, res, store_load_get(ctx->app->store, req->arena, ctx->org.id, id, &l), "load"))
		return;
	enum code rc = CODE_OK;
	json_t *miles = distance(ctx, req, &l, &rc);
	if (rc) {
		json_decref(miles);
		api_store_failed(req, res, rc);
		return;
	}
	char r[NORM_NUM_SIZE] = "";
	if (l.has_rate)
		norm_format_cents(l.rate_cents, r, sizeof r);
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(l.id));
	json_object_set_new(o, "object", json_string("load"));
	json_object_set_new(o, "projectId", api_str(l.project_id));
	json_object_set_new(o, "jobCode", api_str(l.job_code));
	json_object_set_new(o, "loadNo", api_str(l.load_no));
	json_object_set_new(o, "loadDate", api_str(l.load_date));
	json_object_set_new(o, "material", api_str(l.material));
	json_object_set_new(o, "truckType", api_str(l.truck_type));
	json_object_set_new(o, "ticketNo", api_str(l.ticket_no));
	/* weight is in pounds, as a JSON number with at most two decimals */
	json_object_set_new(o, "weight", l.has_weight ? json_real((double)l.weight_centilb / 100.0) : json_null());
	json_object_set_new(o, "weightUnit", json_string("lb"));
	json_object_set_new(o, "rate", l.has_rate ? json_string(r) : json_null());
	json_object_set_new(o, "notes", api_str(l.notes));
	json_object_set_new(o, "pickupLocationId", api_str(l.pickup_location_id));
	json_object_set_new(o, "dropoffLocationId", api_str(l.dropoff_location_id));
	json_object_set_new(o, "distanceMiles", miles);
	json_object_set_new(o, "createdAt", api_time(l.created_at));
	json_object_set_new(o, "updatedAt", api_time(l.updated_at));
	api_json(req, res, 200, o);
}

const struct endpoint ep_load_get = {.finish = get_load};

static void get_project(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct project_rec p;
	const char *id = api_id(ctx, req, res, "prj", "project");
	if (!id || !found(req, res, store_project_get(ctx->app->store, req->arena, ctx->org.id, id, &p), "project"))
		return;
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(p.id));
	json_object_set_new(o, "object", json_string("project"));
	json_object_set_new(o, "jobCode", api_str(p.job_code));
	json_object_set_new(o, "name", api_str(p.name));
	json_object_set_new(o, "customerId", api_str(p.customer_id));
	json_object_set_new(o, "branchId", api_str(p.branch_id));
	json_object_set_new(o, "projectManagerId", api_str(p.project_manager_id));
	json_object_set_new(o, "pickupLocationId", api_str(p.pickup_location_id));
	json_object_set_new(o, "dropoffLocationId", api_str(p.dropoff_location_id));
	json_object_set_new(o, "createdAt", api_time(p.created_at));
	json_object_set_new(o, "updatedAt", api_time(p.updated_at));
	api_json(req, res, 200, o);
}

const struct endpoint ep_project_get = {.finish = get_project};

json_t *location_json(const struct location_rec *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(l->id));
	json_object_set_new(o, "object", json_string("location"));
	json_object_set_new(o, "name", api_str(l->name));
	json_object_set_new(o, "street", api_str(l->street));
	json_object_set_new(o, "city", api_str(l->city));
	json_object_set_new(o, "state", api_str(l->state));
	json_object_set_new(o, "zip", api_str(l->zip));
	json_object_set_new(o, "latitude", l->geo.has_coords ? json_real((double)l->geo.lat_e6 / 1e6) : json_null());
	json_object_set_new(o, "longitude", l->geo.has_coords ? json_real((double)l->geo.lon_e6 / 1e6) : json_null());
	json_object_set_new(o, "geocode", json_pack("{s:s,s:o}", "precision", l->geo.precision ? l->geo.precision : "none",
						    "source", api_str(l->geo.source)));
	json_object_set_new(o, "createdAt", api_time(l->created_at));
	return o;
}

static void get_location(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	struct location_rec l;
	const char *id = api_id(ctx, req, res, "loc", "location");
	if (id && found(req, res, store_location_get(ctx->app->store, req->arena, ctx->org.id, id, &l), "location"))
		api_json(req, res, 200, location_json(&l));
}

const struct endpoint ep_location_get = {.finish = get_location};

static void search_locations(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	const char *q = page_search_text(req, res);
	if (!q)
		return;
	char *scope = arena_printf(req->arena, "%s/locations/%s", ctx->org.id, q);
	struct time_page pg;
	if (!time_page_read(req, res, scope, &pg))
		return;
	size_t tl;
	const char *t = norm_trim(q, strlen(q), &tl);
	char *text = arena_strndup(req->arena, t, tl);
	char *key = name_key(req->arena, q, strlen(q));
	struct location_rec *locs = arena_alloc(req->arena, sizeof(*locs) * (size_t)(pg.limit + 1));
	int n = 0;
	enum code rc = store_locations_search(ctx->app->store, req->arena, ctx->org.id, key ? key : "", text,
					      pg.after_created, pg.after_id, pg.limit + 1, locs, &n);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	json_t *data = json_array();
	for (int i = 0; i < n && i < pg.limit; i++)
		json_array_append_new(data, location_json(&locs[i]));
	const struct location_rec *last = n > pg.limit ? &locs[pg.limit - 1] : NULL;
	time_page_answer(req, res, scope, &pg, data, n, last ? last->created_at : 0, last ? last->id : NULL,
			 arena_printf(req->arena, "q=%s", url_encode(req->arena, q, NULL)));
}

const struct endpoint ep_locations_search = {.finish = search_locations};
