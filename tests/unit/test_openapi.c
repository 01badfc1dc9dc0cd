/* Unit tests for the OpenAPI document (src/api/openapi*.c): it is 3.1, it
 * describes every route of the router and nothing else, every code of the
 * table, every HTTP status a code can have, the headers the API always sends,
 * and every $ref in it resolves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "api/openapi.h"
#include "api/openapi_examples.h"
#include "base/codes.h"
#include "model/run_state.h"
#include "model/schema.h"

/* Codes with a status that no API operation answers with, and why. */
static const struct {
	enum code code;
	const char *why;
} not_api[] = {
	{CODE_FORBIDDEN, "web application only (roles, CSRF); no API route returns it"},
};

static const char *const methods[] = {"get", "put", "post", "delete", "options", "head", "patch", "trace"};

static int setup(void **state)
{
	*state = openapi_document("http://127.0.0.1:8080");
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	json_decref(*state);
	return 0;
}

/* Resolves a local JSON pointer ("#/components/schemas/Problem"); NULL when
 * it does not resolve or is not local. */
static json_t *resolve(json_t *doc, const char *ref)
{
	if (strncmp(ref, "#/", 2))
		return NULL;
	json_t *node = doc;
	const char *p = ref + 1;
	while (node && *p == '/') {
		p++;
		size_t n = strcspn(p, "/");
		char tok[256];
		size_t o = 0;
		for (size_t i = 0; i < n && o + 1 < sizeof tok; i++) {
			if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
				tok[o++] = p[i + 1] == '0' ? '~' : '/';
				i++;
			} else {
				tok[o++] = p[i];
			}
		}
		tok[o] = '\0';
		if (json_is_object(node)) {
			node = json_object_get(node, tok);
		} else if (json_is_array(node)) {
			char *end;
			long idx = strtol(tok, &end, 10);
			node = *tok && !*end && idx >= 0 ? json_array_get(node, (size_t)idx) : NULL;
		} else {
			node = NULL;
		}
		p += n;
	}
	return node;
}

/* The object itself, or what its $ref points at. */
static json_t *deref(json_t *doc, json_t *o)
{
	json_t *r = json_object_get(o, "$ref");
	return r ? resolve(doc, json_string_value(r)) : o;
}

/* Counts the $refs under node that do not resolve (printing each). */
static int bad_refs(json_t *doc, json_t *node)
{
	int bad = 0;
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_object(node)) {
		json_object_foreach(node, k, v) {
			if (!strcmp(k, "$ref") && (!json_is_string(v) || !resolve(doc, json_string_value(v)))) {
				printf("unresolved $ref: %s\n", json_is_string(v) ? json_string_value(v) : "(not a string)");
				bad++;
			} else {
				bad += bad_refs(doc, v);
			}
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, v)
			bad += bad_refs(doc, v);
	}
	return bad;
}

/* The codes a response lists: properties.code.enum anywhere inside it,
 * without following $refs (the base Problem schema lists them all). */
static void response_codes(json_t *node, json_t *out)
{
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_object(node)) {
		json_t *e = json_object_get(json_object_get(json_object_get(node, "properties"), "code"), "enum");
		json_array_foreach(e, i, v)
			json_array_append(out, v);
		json_object_foreach(node, k, v)
			if (strcmp(k, "properties"))
				response_codes(v, out);
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, v)
			response_codes(v, out);
	}
}

static bool is_method(const char *k)
{
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (!strcmp(k, methods[i]))
			return true;
	return false;
}

static void test_is_openapi_31(void **state)
{
	json_t *doc = *state;
	assert_string_equal(json_string_value(json_object_get(doc, "openapi")), "3.1.0");
	assert_non_null(json_object_get(json_object_get(doc, "info"), "title"));
	assert_non_null(json_object_get(json_object_get(doc, "info"), "version"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "servers"), 0), "url")),
			    "http://127.0.0.1:8080");
	/* The committed copy names the serving host relatively. */
	json_t *bare = openapi_document(NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(bare, "servers"), 0), "url")),
			    "/");
	json_decref(bare);
}

/* Every route is a path with its method, each {param} of the pattern is a
 * required path parameter; and every operation is a route. */
static void test_every_route_is_described(void **state)
{
	json_t *doc = *state, *paths = json_object_get(doc, "paths");
	size_t n;
	const struct route *routes = api_routes(&n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		char m[16];
		size_t j = 0;
		for (; routes[i].method[j] && j + 1 < sizeof m; j++)
			m[j] = (char)tolower((unsigned char)routes[i].method[j]);
		m[j] = '\0';
		const char *path = openapi_path_of(routes[i].pattern);
		json_t *op = json_object_get(json_object_get(paths, path), m);
		if (!op)
			printf("not described: %s %s\n", routes[i].method, routes[i].pattern);
		assert_non_null(op);
		assert_non_null(json_object_get(op, "responses"));
		for (const char *p = strchr(path, '{'); p; p = strchr(p + 1, '{')) {
			size_t len = strcspn(p + 1, "}");
			bool found = false;
			size_t k;
			json_t *prm;
			json_array_foreach(json_object_get(op, "parameters"), k, prm) {
				json_t *d = deref(doc, prm);
				const char *name = json_string_value(json_object_get(d, "name"));
				found |= name && strlen(name) == len && !strncmp(name, p + 1, len) &&
					 !strcmp(json_string_value(json_object_get(d, "in")), "path") &&
					 json_is_true(json_object_get(d, "required"));
			}
			if (!found)
				printf("%s %s: no path parameter %.*s\n", m, path, (int)len, p + 1);
			assert_true(found);
		}
	}
	const char *dpath, *k;
	json_t *item, *op;
	json_object_foreach(paths, dpath, item) {
		json_object_foreach(item, k, op) {
			bool routed = false;
			for (size_t i = 0; i < n; i++)
				routed |= !strcmp(openapi_path_of(routes[i].pattern), dpath) &&
					  !strcasecmp(routes[i].method, k);
			if (!routed)
				printf("described but not routed: %s %s\n", k, dpath);
			assert_true(routed);
		}
	}
}

static void test_operation_ids_unique(void **state)
{
	json_t *paths = json_object_get(*state, "paths"), *seen = json_object();
	const char *path, *k;
	json_t *item, *op;
	json_object_foreach(paths, path, item) {
		json_object_foreach(item, k, op) {
			if (!is_method(k))
				continue;
			const char *id = json_string_value(json_object_get(op, "operationId"));
			assert_non_null(id);
			assert_null(json_object_get(seen, id));
			json_object_set_new(seen, id, json_true());
		}
	}
	json_decref(seen);
}

static void test_every_code_in_x_error_codes(void **state)
{
	json_t *list = json_object_get(*state, "x-error-codes");
	assert_int_equal(json_array_size(list), CODE__COUNT - 1);
	for (int c = 1; c < CODE__COUNT; c++) {
		json_t *hit = NULL, *e;
		size_t i;
		json_array_foreach(list, i, e)
			if (!strcmp(json_string_value(json_object_get(e, "code")), code_name((enum code)c)))
				hit = e;
		assert_non_null(hit);
		assert_int_equal(json_integer_value(json_object_get(hit, "status")), code_status((enum code)c));
		assert_string_equal(json_string_value(json_object_get(hit, "kind")), code_kind_name(code_kind((enum code)c)));
	}
}

static int status_num(const char *key)
{
	char *end;
	long v = strtol(key, &end, 10);
	return *end ? -1 : (int)v;
}

/* Collects into covered the codes of every response under responses,
 * checking that each sits under its own status. */
static void cover(json_t *doc, json_t *responses, json_t *covered, bool keyed_by_status)
{
	const char *status;
	json_t *resp;
	json_object_foreach(responses, status, resp) {
		json_t *codes = json_array(), *v;
		size_t i;
		response_codes(deref(doc, resp), codes);
		json_array_foreach(codes, i, v) {
			enum code c = code_from_name(json_string_value(v));
			assert_int_not_equal(c, CODE_OK);
			if (keyed_by_status && code_status(c) != status_num(status))
				printf("%s listed under %s\n", code_name(c), status);
			if (keyed_by_status)
				assert_int_equal(code_status(c), status_num(status));
			json_object_set_new(covered, code_name(c), json_true());
		}
		json_decref(codes);
	}
}

static void test_every_status_code_is_a_response(void **state)
{
	json_t *doc = *state, *covered = json_object(), *item, *op;
	const char *path, *k;
	json_object_foreach(json_object_get(doc, "paths"), path, item)
		json_object_foreach(item, k, op)
			if (is_method(k))
				cover(doc, json_object_get(op, "responses"), covered, true);
	/* The 405 answered to undeclared methods lives in x-method-not-allowed. */
	json_t *other = json_pack("{s:O}", "405", json_object_get(doc, "x-method-not-allowed"));
	cover(doc, other, covered, false);
	json_decref(other);
	for (int c = 1; c < CODE__COUNT; c++) {
		if (!code_status((enum code)c))
			continue;
		bool excused = false;
		for (size_t i = 0; i < sizeof not_api / sizeof not_api[0]; i++)
			excused |= not_api[i].code == (enum code)c;
		if (excused) {
			/* When one starts to be answered, drop it from not_api. */
			assert_null(json_object_get(covered, code_name((enum code)c)));
			continue;
		}
		if (!json_object_get(covered, code_name((enum code)c)))
			printf("no response lists %s\n", code_name((enum code)c));
		assert_non_null(json_object_get(covered, code_name((enum code)c)));
	}
	json_decref(covered);
}

/* X-Request-Id on every response; the challenge on 401; Retry-After on 429
 * and 503; the rate-limit headers on every authenticated 2xx. */
static void test_response_headers(void **state)
{
	json_t *doc = *state, *item, *op, *resp;
	const char *path, *k, *status;
	json_object_foreach(json_object_get(doc, "paths"), path, item) {
		json_object_foreach(item, k, op) {
			bool authed = !json_is_array(json_object_get(op, "security"));
			json_object_foreach(json_object_get(op, "responses"), status, resp) {
				json_t *h = json_object_get(deref(doc, resp), "headers");
				assert_non_null(json_object_get(h, "X-Request-Id"));
				if (!strcmp(status, "401"))
					assert_non_null(json_object_get(h, "WWW-Authenticate"));
				if (!strcmp(status, "429") || !strcmp(status, "503"))
					assert_non_null(json_object_get(h, "Retry-After"));
				if (authed && status[0] == '2')
					assert_non_null(json_object_get(h, "RateLimit-Remaining"));
				if (!authed)
					assert_null(json_object_get(h, "RateLimit-Remaining"));
			}
			if (authed)
				assert_non_null(json_object_get(json_object_get(op, "responses"), "401"));
		}
	}
	json_t *upload = json_object_get(json_object_get(json_object_get(doc, "paths"), "/api/v1/imports/jobs"), "post");
	json_t *h202 = json_object_get(json_object_get(json_object_get(upload, "responses"), "202"), "headers");
	assert_non_null(json_object_get(h202, "Location"));
	assert_non_null(json_object_get(h202, "Retry-After"));
}

static void test_every_ref_resolves(void **state)
{
	assert_int_equal(bad_refs(*state, *state), 0);
	json_t *probe = json_pack("{s:s}", "$ref", "#/components/schemas/NoSuchSchema");
	assert_int_equal(bad_refs(*state, probe), 1);
	json_decref(probe);
}

/* PRODUCT §17: every JSON request body and response has an example, made
 * from its schema (Spectral's oas3-valid-media-example, in make check,
 * checks each against it); problem examples are true to their code. */
static void test_every_response_has_an_example(void **state)
{
	json_t *doc = *state;
	char missing[1024];
	assert_int_equal(openapi_add_examples(doc, missing, sizeof missing), 0);   /* all made already */
	assert_string_equal(missing, "");
	json_t *nf = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(
		json_object_get(doc, "paths"), "/api/v1/imports/runs/{id}"), "get"), "responses"), "404"), "content"),
		"application/problem+json");
	json_t *ex = json_object_get(nf, "example");
	assert_string_equal(json_string_value(json_object_get(ex, "code")), "NOT_FOUND");
	assert_int_equal(json_integer_value(json_object_get(ex, "status")), 404);
	assert_non_null(strstr(json_string_value(json_object_get(ex, "docUrl")), "/api/errors/NOT_FOUND"));
	json_t *run = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(
		json_object_get(doc, "paths"), "/api/v1/imports/runs/{id}"), "get"), "responses"), "200"), "content"),
		"application/json");
	assert_string_equal(json_string_value(json_object_get(json_object_get(run, "example"), "object")), "import_run");
	/* A schema with a pattern nobody taught the generator is named. */
	json_t *d2 = json_pack("{s:{s:{s:{s:{s:{s:{s:{s:{s:s,s:s}}}}}}}}}", "paths", "/x", "get", "responses", "200",
			       "content", "application/json", "schema", "type", "string", "pattern", "^zz[0-9]$");
	assert_int_equal(openapi_add_examples(d2, missing, sizeof missing), 0);
	assert_string_equal(missing, "get /x 200 application/json");
	json_decref(d2);
}

static void test_tables_feed_schemas(void **state)
{
	json_t *schemas = json_object_get(json_object_get(*state, "components"), "schemas");
	json_t *row = json_object_get(schemas, "JobsRow"), *props = json_object_get(row, "properties");
	assert_int_equal(json_object_size(props), FIELD__COUNT);
	size_t nreq = 0;
	for (int f = 0; f < FIELD__COUNT; f++) {
		json_t *p = json_object_get(props, field_name((enum field)f));
		assert_non_null(p);
		assert_int_equal(json_integer_value(json_object_get(p, "maxLength")), field_max_chars((enum field)f));
		nreq += field_required((enum field)f);
	}
	assert_int_equal(json_array_size(json_object_get(row, "required")), nreq);
	json_t *states = json_object_get(json_object_get(schemas, "RunState"), "enum");
	assert_int_equal(json_array_size(states), RUN__COUNT);
	for (int s = 0; s < RUN__COUNT; s++)
		assert_string_equal(json_string_value(json_array_get(states, (size_t)s)), run_state_name((enum run_state)s));
	size_t nrow = 0;
	for (int c = 1; c < CODE__COUNT; c++)
		nrow += code_kind((enum code)c) == CODE_KIND_ROW_WARNING;
	assert_int_equal(json_array_size(json_object_get(json_object_get(schemas, "RowWarningCode"), "enum")), nrow);
}

static void test_round_trips(void **state)
{
	char *s = json_dumps(*state, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_non_null(s);
	json_error_t err;
	json_t *back = json_loads(s, 0, &err);
	assert_non_null(back);
	assert_true(json_equal(back, *state));
	json_decref(back);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_openapi_31),
		cmocka_unit_test(test_every_route_is_described),
		cmocka_unit_test(test_operation_ids_unique),
		cmocka_unit_test(test_every_code_in_x_error_codes),
		cmocka_unit_test(test_every_status_code_is_a_response),
		cmocka_unit_test(test_response_headers),
		cmocka_unit_test(test_every_ref_resolves),
		cmocka_unit_test(test_every_response_has_an_example),
		cmocka_unit_test(test_tables_feed_schemas),
		cmocka_unit_test(test_round_trips),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
