/* Reference data rows are matched against (PRODUCT §8):
 * GET/POST /api/v1/customers, GET /api/v1/customers/{id}, and the same for
 * /api/v1/branches. */
#include <string.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/url.h"
#include "endpoints.h"
#include "model/names.h"
#include "model/normalize.h"
#include "paging.h"
#include "store/reference.h"

/* Which kind a route serves: the path says it. */
static enum ref_kind kind_of(const struct http_request *req)
{
	return !strncmp(req->path, "/api/v1/branches", 16) ? REF_BRANCH : REF_CUSTOMER;
}

static const char *plural(enum ref_kind k)
{
	return k == REF_CUSTOMER ? "customers" : "branches";
}

static json_t *ref_json(enum ref_kind k, const struct ref_rec *r)
{
	return json_pack("{s:s,s:s,s:o,s:o}", "id", r->id, "object", ref_noun(k), "name", api_str(r->name),
			 "createdAt", api_time(r->created_at));
}

static void get_one(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	enum ref_kind k = kind_of(req);
	const char *id = api_id(ctx, req, res, ref_prefix(k), ref_noun(k));
	if (!id)
		return;
	struct ref_rec r;
	enum code rc = store_ref_get(ctx->app->store, req->arena, k, ctx->org.id, id, &r);
	if (rc == CODE_NOT_FOUND)
		api_problem(req, res, rc, arena_printf(req->arena, "No %s with this id in your organization.", ref_noun(k)),
			    NULL);
	else if (rc)
		api_store_failed(req, res, rc);
	else
		api_json_etag(req, res, ref_json(k, &r));
}

const struct endpoint ep_reference_get = {.finish = get_one};

static void list(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	enum ref_kind k = kind_of(req);
	const char *q = page_search_text(req, res);
	if (!q)
		return;
	char *scope = arena_printf(req->arena, "%s/%s/%s", ctx->org.id, plural(k), q);
	struct time_page pg;
	if (!time_page_read(req, res, scope, &pg))
		return;
	/* q matches the way a row's name is matched: by its key, here as a
	 * substring ("acme" finds "ACME Paving"). */
	char *key = name_ref_key(req->arena, q, strlen(q));
	struct ref_rec *recs = arena_alloc(req->arena, sizeof(*recs) * (size_t)(pg.limit + 1));
	int n = 0;
	enum code rc = store_ref_search(ctx->app->store, req->arena, k, ctx->org.id, key ? key : "", pg.after_created,
					pg.after_id, pg.limit + 1, recs, &n);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	json_t *data = json_array();
	for (int i = 0; i < n && i < pg.limit; i++)
		json_array_append_new(data, ref_json(k, &recs[i]));
	const struct ref_rec *last = n > pg.limit ? &recs[pg.limit - 1] : NULL;
	time_page_answer(req, res, scope, &pg, data, n, last ? last->created_at : 0, last ? last->id : NULL,
			 arena_printf(req->arena, "q=%s", url_encode(req->arena, q, NULL)));
}

const struct endpoint ep_reference_list = {.finish = list};

static size_t chars(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

/* The name of a POST body: trimmed, 1..200 characters, no control
 * characters; NULL after answering 400. */
static const char *posted_name(struct http_request *req, struct http_response *res, json_t *body)
{
	json_t *jn = json_object_get(body, "name");
	const char *why = NULL;
	size_t len = 0;
	const char *t = NULL;
	if (!json_is_string(jn)) {
		why = "name is required and must be a string.";
	} else {
		t = norm_trim(json_string_value(jn), json_string_length(jn), &len);
		if (len == 0)
			why = "name is empty.";
		else if (chars(t, len) > NAME_MAX_LEN)
			why = "name is longer than 200 characters.";
		for (size_t i = 0; !why && i < len; i++)
			if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
				why = "name contains a control character (a line break or tab).";
	}
	if (why) {
		api_problem(req, res, CODE_INVALID_REQUEST, why, NULL);
		return NULL;
	}
	return arena_strndup(req->arena, t, len);
}

static void create(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	enum ref_kind k = kind_of(req);
	json_t *body = api_body_json(ctx, req, res);
	if (!body)
		return;
	const char *name = posted_name(req, res, body);
	json_decref(body);
	if (!name)
		return;
	char id[ID_MAX], existing[ID_MAX] = "";
	enum code rc = store_ref_create(ctx->app->store, k, ctx->org.id, name, id, existing);
	if (rc == CODE_DUPLICATE_NAME) {
		const char *url = arena_printf(req->arena, "/api/v1/%s/%s", plural(k), existing);
		json_t *extra = json_pack("{s:s,s:s}", "existingId", existing, "existingUrl", url);
		api_problem(req, res, rc, arena_printf(req->arena, "A %s named \"%s\" already exists (%s); names match "
			    "ignoring case, spaces and look-alike characters.", ref_noun(k),
			    norm_quote(req->arena, name, strlen(name), 60), existing), extra);
		json_decref(extra);
		return;
	}
	struct ref_rec r;
	if (!rc)
		rc = store_ref_get(ctx->app->store, req->arena, k, ctx->org.id, id, &r);
	if (rc) {
		api_store_failed(req, res, rc);
		return;
	}
	api_json(req, res, 201, ref_json(k, &r));
	http_add_header(req, res, "Location", arena_printf(req->arena, "/api/v1/%s/%s", plural(k), id));
}

const struct endpoint ep_reference_create = {.begin = NULL, .body = api_collect_body, .finish = create};
