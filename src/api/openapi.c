/* OpenAPI document.  Schemas are written here once; the error-code enums
 * and the problem responses come from the code table. */
#include "openapi.h"

#include <stdio.h>
#include <string.h>

#include "base/codes.h"
#include "base/config.h"
#include "endpoints.h"

static json_t *ref(const char *name)
{
	char r[128];
	snprintf(r, sizeof r, "#/components/schemas/%s", name);
	return json_pack("{s:s}", "$ref", r);
}

static json_t *code_enum(int (*want)(enum code))
{
	json_t *a = json_array();
	for (int i = 1; i < CODE__COUNT; i++)
		if (want((enum code)i))
			json_array_append_new(a, json_string(code_name((enum code)i)));
	return a;
}

static int is_sync(enum code c) { return code_status(c) >= 400; }
static int is_parse(enum code c) { return code_kind(c) == CODE_KIND_PARSE; }
static int is_row_error(enum code c) { return code_kind(c) == CODE_KIND_ROW_ERROR; }
static int is_row_warning(enum code c) { return code_kind(c) == CODE_KIND_ROW_WARNING; }

/* A problem response listing the codes that can come with this status. */
static json_t *problem_response(int status, const char *only)
{
	json_t *codes = json_array();
	char desc[2048] = "";
	size_t used = 0;
	for (int i = 1; i < CODE__COUNT; i++) {
		enum code c = (enum code)i;
		if (code_status(c) != status || (only && !strstr(only, code_name(c))))
			continue;
		json_array_append_new(codes, json_string(code_name(c)));
		int w = snprintf(desc + used, sizeof desc - used, "%s`%s`: %s", used ? " " : "", code_name(c),
				 code_summary(c));
		if (w > 0 && (size_t)w < sizeof desc - used)
			used += (size_t)w;
	}
	json_t *schema = json_pack("{s:[o,{s:{s:{s:o}}}]}", "allOf", ref("Problem"), "properties", "code",
				   "enum", codes);
	return json_pack("{s:s,s:{s:{s:o}}}", "description", desc, "content", "application/problem+json",
			 "schema", schema);
}

static json_t *responses_std(json_t *ok, const char *codes_400)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", ok);
	if (codes_400)
		json_object_set_new(r, "400", problem_response(400, codes_400));
	json_object_set_new(r, "401", problem_response(401, NULL));
	json_object_set_new(r, "429", problem_response(429, NULL));
	json_object_set_new(r, "503", problem_response(503, NULL));
	return r;
}

static json_t *json_ok(const char *desc, const char *schema)
{
	return json_pack("{s:s,s:{s:{s:o}}}", "description", desc, "content", "application/json", "schema",
			 ref(schema));
}

static json_t *schemas(void)
{
	json_t *s = json_object();
	json_object_set_new(s, "Problem", json_pack(
		"{s:s,s:s,s:[s,s,s,s,s,s,s,s],s:{s:{s:s,s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s,s:o},"
		"s:{s:s,s:s},s:{s:s,s:s}}}",
		"type", "object", "description", "RFC 7807 problem body (application/problem+json).",
		"required", "type", "title", "status", "detail", "instance", "code", "requestId", "docUrl",
		"properties",
		"type", "type", "string", "format", "uri",
		"title", "type", "string",
		"status", "type", "integer",
		"detail", "type", "string",
		"instance", "type", "string",
		"code", "type", "string", "enum", code_enum(is_sync),
		"requestId", "type", "string", "pattern", "^req_[0-9A-Za-z]+$",
		"docUrl", "type", "string", "format", "uri"));
	json_object_set_new(s, "ParseErrorCode", json_pack("{s:s,s:o,s:s}", "type", "string", "enum",
		code_enum(is_parse), "description", "error.code of a FAILED run."));
	json_object_set_new(s, "RowErrorCode", json_pack("{s:s,s:o}", "type", "string", "enum", code_enum(is_row_error)));
	json_object_set_new(s, "RowWarningCode", json_pack("{s:s,s:o}", "type", "string", "enum", code_enum(is_row_warning)));
	json_object_set_new(s, "Timestamp", json_pack("{s:s,s:s,s:s}", "type", "string", "format", "date-time",
		"example", "2026-11-21T15:04:05.123Z"));
	json_object_set_new(s, "Organization", json_pack(
		"{s:s,s:[s,s,s,s],s:{s:{s:s,s:s},s:{s:s},s:{s:s},s:o}}",
		"type", "object", "required", "id", "object", "name", "createdAt", "properties",
		"id", "type", "string", "pattern", "^org_", "object", "const", "organization",
		"name", "type", "string", "createdAt", ref("Timestamp")));
	json_object_set_new(s, "ApiKey", json_pack(
		"{s:s,s:[s,s,s,s,s,s,s],s:{s:{s:s,s:s},s:{s:s},s:{s:s},s:{s:s,s:s},s:o,s:{s:[o,{s:s}]},s:o}}",
		"type", "object", "required", "id", "object", "name", "prefix", "createdAt", "lastUsedAt",
		"organization", "properties",
		"id", "type", "string", "pattern", "^key_", "object", "const", "api_key", "name", "type", "string",
		"prefix", "type", "string", "pattern", "^ll_live_",
		"createdAt", ref("Timestamp"), "lastUsedAt", "oneOf", ref("Timestamp"), "type", "null",
		"organization", ref("Organization")));
	return s;
}

static json_t *paths(void)
{
	json_t *p = json_object();
	json_t *whoami = json_pack("{s:{s:s,s:s,s:s,s:o}}", "get", "operationId", "whoami", "summary",
		"Verify a token", "description", "Returns the API key and the organization it is bound to. "
		"Intended as a deploy smoke test.", "responses", responses_std(json_ok("The key and its organization.",
		"ApiKey"), NULL));
	json_object_set(p, "/api/v1/whoami", whoami);
	json_t *alias = json_deep_copy(whoami);
	json_object_set_new(json_object_get(alias, "get"), "operationId", json_string("whoamiContractPath"));
	json_object_set_new(json_object_get(alias, "get"), "summary", json_string("Verify a token (contract path alias)"));
	json_object_set_new(p, "/v1/whoami", alias);
	json_decref(whoami);
	json_object_set_new(p, "/api/v1/openapi.json", json_pack("{s:{s:s,s:s,s:[],s:{s:{s:s}}}}", "get",
		"operationId", "openapi", "summary", "This document (no token needed)", "security",
		"responses", "200", "description", "OpenAPI 3.1 document."));
	json_object_set_new(p, "/healthz", json_pack("{s:{s:s,s:s,s:[],s:{s:{s:s},s:o}}}", "get",
		"operationId", "health", "summary", "Liveness and database reachability (no token needed)",
		"security", "responses", "200", "description", "Serving, database reachable.",
		"503", problem_response(503, NULL)));
	return p;
}

static json_t *error_codes(void)
{
	json_t *a = json_array();
	for (int i = 1; i < CODE__COUNT; i++) {
		enum code c = (enum code)i;
		json_t *e = json_pack("{s:s,s:s,s:s,s:s}", "code", code_name(c), "kind", code_kind_name(code_kind(c)),
				      "summary", code_summary(c), "hint", code_hint(c));
		if (code_status(c))
			json_object_set_new(e, "status", json_integer(code_status(c)));
		json_array_append_new(a, e);
	}
	return a;
}

json_t *openapi_document(const char *server_url)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "openapi", json_string("3.1.0"));
	json_object_set_new(doc, "info", json_pack("{s:s,s:s,s:s}", "title", "Loadline API", "version", "1.0.0",
		"description", "Bulk import of loads from CSV/XLSX files, and token verification. Every endpoint "
		"under /api/v1 needs `Authorization: Bearer <token>`. Errors are RFC 7807 problem bodies whose "
		"`code` is stable; see x-error-codes and {docs_url}/api/errors/<CODE>."));
	if (server_url)
		json_object_set_new(doc, "servers", json_pack("[{s:s}]", "url", server_url));
	json_object_set_new(doc, "security", json_pack("[{s:[]}]", "bearerAuth"));
	json_object_set_new(doc, "paths", paths());
	json_object_set_new(doc, "components", json_pack("{s:{s:{s:s,s:s,s:s}},s:o}", "securitySchemes",
		"bearerAuth", "type", "http", "scheme", "bearer", "bearerFormat", "ll_live_ + 38 base62",
		"schemas", schemas()));
	json_object_set_new(doc, "x-error-codes", error_codes());
	return doc;
}

static void serve(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	(void)ctx;
	api_json(req, res, 200, openapi_document(g_config.base_url));
}

const struct endpoint ep_openapi = {.finish = serve};
