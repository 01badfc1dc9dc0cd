/* OpenAPI document: the builders the operations share (openapi_build.h),
 * the paths table, parameters, headers, webhooks and the assembled
 * document.  The operations are in openapi_ops_imports.c and
 * openapi_ops_records.c, the schemas in openapi_schemas.c.  Each operation names the codes its endpoint
 * can answer with; the problem responses, grouped by status, are generated
 * from the code table, and the codes every request can meet are added here
 * once (see add_problems). */
#include "openapi.h"
#include "openapi_examples.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/codes.h"
#include "app/app.h"
#include "endpoints.h"
#include "openapi_build.h"
#include "openapi_schemas.h"
#include "paging.h"

json_t *header_ref(const char *name)
{
	return oa_ref_to("headers", name);
}

/* The headers of a response with this status: X-Request-Id always; the
 * rate-limit headers once the token was accepted (so not on 401, 414, 431);
 * the challenge on 401; Retry-After on 429 and 503. */
json_t *headers_for(int status, unsigned flags)
{
	json_t *h = json_object();
	json_object_set_new(h, "X-Request-Id", header_ref("X-Request-Id"));
	if ((flags & OP_AUTH) && status != 401 && status != 414 && status != 431) {
		json_object_set_new(h, "RateLimit-Limit", header_ref("RateLimit-Limit"));
		json_object_set_new(h, "RateLimit-Remaining", header_ref("RateLimit-Remaining"));
		json_object_set_new(h, "RateLimit-Reset", header_ref("RateLimit-Reset"));
	}
	if (status == 401)
		json_object_set_new(h, "WWW-Authenticate", header_ref("WWW-Authenticate"));
	if (status == 429 || status == 503)
		json_object_set_new(h, "Retry-After", header_ref("Retry-After"));
	return h;
}

/* The problem schema a code's body follows when it is the only code of a
 * response (its envelope has extra members). */
static const char *problem_base(enum code c)
{
	return c == CODE_IMPORT_IN_PROGRESS ? "ImportInProgressProblem" : "Problem";
}

static const char *summary_for(enum code c, unsigned flags)
{
	if (c == CODE_TOO_LARGE && (flags & OP_NO_BODY))
		return "This endpoint takes no request body and one over 64 KiB was sent.";
	return code_summary(c);
}

/* A problem response for status listing the codes of the table that have
 * that status and are words of codes. */
static json_t *problem_response(int status, const char *codes, unsigned flags)
{
	json_t *names = json_array();
	struct buf d;
	buf_init(&d, 64 * 1024);
	enum code only = CODE_OK;
	for (int i = 1; i < CODE__COUNT; i++) {
		enum code c = (enum code)i;
		if (code_status(c) != status || !oa_has_word(codes, code_name(c)))
			continue;
		json_array_append_new(names, json_string(code_name(c)));
		buf_printf(&d, "%s`%s`: %s", d.len ? " " : "", code_name(c), summary_for(c, flags));
		only = json_array_size(names) == 1 ? c : CODE_OK;
	}
	json_t *schema = json_pack("{s:[o,{s:{s:{s:o}}}]}", "allOf", oa_ref(only ? problem_base(only) : "Problem"),
				   "properties", "code", "enum", names);
	json_t *r = json_pack("{s:s,s:o,s:{s:{s:o}}}", "description", buf_str(&d), "headers", headers_for(status, flags),
			      "content", "application/problem+json", "schema", schema);
	buf_done(&d);
	return r;
}

/* Asserts that every word of list is a code with an HTTP status: a typo
 * would otherwise drop a response silently. */
static void check_codes(const char *list)
{
	json_t *w = oa_words(list);
	size_t i;
	json_t *v;
	json_array_foreach(w, i, v)
		assert(code_status(code_from_name(json_string_value(v))) >= 400);
	json_decref(w);
}

/* Adds to r one problem response per status, in status order, for the
 * endpoint's codes plus those every request of its kind can meet. */
void add_problems(json_t *r, const char *codes, unsigned flags)
{
	check_codes(codes);
	char all[1024];
	snprintf(all, sizeof all, "%s %s %s %s", codes, CODES_ANY, flags & OP_AUTH ? CODES_AUTH : "",
		 flags & OP_NO_BODY ? CODES_NO_BODY : "");
	for (int status = 400; status < 600; status++) {
		bool any = false;
		for (int i = 1; i < CODE__COUNT && !any; i++)
			any = code_status((enum code)i) == status && oa_has_word(all, code_name((enum code)i));
		if (any) {
			char key[8];
			snprintf(key, sizeof key, "%d", status);
			json_object_set_new(r, key, problem_response(status, all, flags));
		}
	}
}

json_t *json_ok(const char *d, const char *schema, unsigned flags)
{
	return json_pack("{s:s,s:o,s:{s:{s:o}}}", "description", d, "headers", headers_for(200, flags), "content",
			 "application/json", "schema", oa_ref(schema));
}

json_t *param(const char *name)
{
	return oa_ref_to("parameters", name);
}

json_t *operation(const char *id, const char *tag, const char *summary, const char *d, json_t *params,
			 json_t *responses)
{
	json_t *op = json_pack("{s:s,s:[s],s:s,s:s}", "operationId", id, "tags", tag, "summary", summary,
			       "description", d);
	if (params)
		json_object_set_new(op, "parameters", params);
	json_object_set_new(op, "responses", responses);
	return op;
}

json_t *public_op(json_t *op)
{
	json_object_set_new(op, "security", json_array());
	return op;
}

/* ---- the document ---- */

/* One entry per route of api.c; the unit test checks that none is missing.
 * The document names the SPEC's paths as written: the router's
 * /api/v1/imports/{kind} (which takes any kind so that others answer
 * INVALID_KIND) is described as /api/v1/imports/jobs, the only kind. */
static const struct {
	const char *method, *route, *path;
	json_t *(*build)(void);
} ops[] = {
	{"get", "/healthz", NULL, op_health},
	{"get", "/readyz", NULL, op_ready},
	{"get", "/api/v1/openapi.json", NULL, op_openapi},
	{"get", "/api/v1/whoami", NULL, op_whoami},
	{"get", "/v1/whoami", NULL, op_whoami_alias},
	{"post", "/api/v1/imports/{kind}", "/api/v1/imports/jobs", op_import_upload},
	{"get", "/api/v1/imports/runs", NULL, op_run_list},
	{"get", "/api/v1/imports/runs/{id}", NULL, op_run_get},
	{"get", "/api/v1/imports/runs/{id}/results/{bucket}", NULL, op_run_results},
	{"get", "/api/v1/imports/runs/{id}/failed-rows", NULL, op_run_failed_rows},
	{"get", "/api/v1/imports/runs/{id}/problems", NULL, op_run_problems},
	{"post", "/api/v1/imports/runs/{id}/rerun", NULL, op_run_rerun},
	{"post", "/api/v1/imports/runs/{id}/corrections", NULL, op_run_corrections},
	{"post", "/api/v1/imports/runs/{id}/revert", NULL, op_run_revert},
	{"post", "/api/v1/imports/runs/{id}/cancel", NULL, op_run_cancel},
	{"get", "/api/v1/imports/jobs/template", NULL, op_import_template},
	{"get", "/api/v1/loads/{id}", NULL, op_load_get},
	{"get", "/api/v1/loads/{id}/history", NULL, op_load_history},
	{"get", "/api/v1/projects/{id}", NULL, op_project_get},
	{"get", "/api/v1/locations", NULL, op_locations_search},
	{"get", "/api/v1/locations/{id}", NULL, op_location_get},
	{"get", "/api/v1/customers", NULL, op_customers_list},
	{"post", "/api/v1/customers", NULL, op_customer_create},
	{"get", "/api/v1/customers/{id}", NULL, op_customer_get},
	{"get", "/api/v1/branches", NULL, op_branches_list},
	{"post", "/api/v1/branches", NULL, op_branch_create},
	{"get", "/api/v1/branches/{id}", NULL, op_branch_get},
	{"get", "/api/v1/webhook-endpoints", NULL, op_webhooks_list},
	{"post", "/api/v1/webhook-endpoints", NULL, op_webhook_create},
	{"get", "/api/v1/webhook-endpoints/{id}", NULL, op_webhook_get},
	{"delete", "/api/v1/webhook-endpoints/{id}", NULL, op_webhook_delete},
	{"patch", "/api/v1/webhook-endpoints/{id}", NULL, op_webhook_patch},
	{"post", "/api/v1/webhook-endpoints/{id}/test", NULL, op_webhook_test},
	{"post", "/api/v1/webhook-endpoints/{id}/rotate-secret", NULL, op_webhook_rotate},
	{"get", "/api/v1/webhook-endpoints/{id}/attempts", NULL, op_webhook_attempts},
	{"post", "/api/v1/webhook-attempts/{id}/resend", NULL, op_webhook_resend},
};

const char *openapi_path_of(const char *route)
{
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(ops[i].route, route))
			return ops[i].path ? ops[i].path : ops[i].route;
	return route;
}

static json_t *paths(void)
{
	json_t *p = json_object();
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		const char *path = ops[i].path ? ops[i].path : ops[i].route;
		json_t *item = json_object_get(p, path);
		if (!item) {
			item = json_object();
			json_object_set_new(p, path, item);
		}
		json_object_set_new(item, ops[i].method, ops[i].build());
	}
	return p;
}

json_t *header(const char *d, json_t *schema, bool required)
{
	return json_pack("{s:s,s:b,s:o}", "description", d, "required", required, "schema", schema);
}

static json_t *headers(void)
{
	json_t *h = json_object();
	json_object_set_new(h, "X-Request-Id", header("Request identifier, on every response; problem bodies repeat "
		"it as requestId.", json_pack("{s:s,s:s}", "type", "string", "pattern", "^req_[0-9A-Za-z]+$"), true));
	json_object_set_new(h, "RateLimit-Limit", header("Requests the token may make per window (LOADLINE_RATE_LIMIT, "
		"default 600 per 60 s). On every response once the token is accepted, except a 503 when the "
		"database was unreachable while checking it.", oa_type("integer"), false));
	json_object_set_new(h, "RateLimit-Remaining", header("Requests left in the current window; every request "
		"with the token counts, a 404 too.", oa_type("integer"), false));
	json_object_set_new(h, "RateLimit-Reset", header("Seconds until the window resets.", oa_type("integer"), false));
	json_object_set_new(h, "Retry-After", header("Seconds to wait before the next request (the first poll, after "
		"an upload).", oa_type("integer"), true));
	json_object_set_new(h, "WWW-Authenticate", header("The Bearer challenge: `Bearer realm=\"loadline\"`.",
							  oa_type("string"), true));
	json_object_set_new(h, "Location", header("Path of the new run: /api/v1/imports/runs/<run id>.",
		json_pack("{s:s,s:s}", "type", "string", "pattern", "^/api/v1/imports/runs/run_"), true));
	json_object_set_new(h, "ETag", header("Strong validator of the run's current representation.",
					      oa_type("string"), true));
	json_object_set_new(h, "Cache-Control", header("`no-cache`: revalidate with If-None-Match.", oa_type("string"),
						       true));
	json_object_set_new(h, "Preference-Applied", header("`wait=N` (RFC 7240) when the request's `Prefer: wait` "
		"was honoured: the answer came when the run changed (200) or after N seconds (304). Absent when the "
		"server held no more long polls (LOADLINE_MAX_WAITERS) and answered at once.", oa_type("string"), false));
	return h;
}

json_t *in_param(const char *name, const char *in, bool required, const char *d, json_t *schema)
{
	return json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", name, "in", in, "required", required, "description", d,
			 "schema", schema);
}

static json_t *parameters(void)
{
	json_t *p = json_object();
	json_object_set_new(p, "Limit", in_param("limit", "query", false, "Page size, a whole number from 1 to "
		"1000; anything else is 400 INVALID_LIMIT.", json_pack("{s:s,s:i,s:i,s:i}", "type", "integer",
		"minimum", 1, "maximum", PAGE_MAX, "default", PAGE_DEFAULT)));
	json_object_set_new(p, "Cursor", in_param("cursor", "query", false, "Opaque page cursor taken from "
		"nextPageUrl, bound to its list; anything else is 400 INVALID_CURSOR. Following nextPageUrl is "
		"equivalent.", oa_type("string")));
	json_object_set_new(p, "RunId", in_param("id", "path", true, "The run's id (the SPEC's {transactionId}).",
						 oa_type("string")));
	json_object_set_new(p, "LoadId", in_param("id", "path", true, "The load's id.", oa_type("string")));
	json_object_set_new(p, "ProjectId", in_param("id", "path", true, "The project's id.", oa_type("string")));
	json_object_set_new(p, "LocationId", in_param("id", "path", true, "The location's id.", oa_type("string")));
	json_object_set_new(p, "Bucket", in_param("bucket", "path", true, "Results bucket; anything else is 400 "
		"INVALID_BUCKET.", json_pack("{s:s,s:[s,s,s,s]}", "type", "string", "enum", "succeeded", "failed",
		"warnings", "skipped")));
	json_object_set_new(p, "ServiceDryRun", in_param("Service-Dry-Run", "header", false, "`true` runs the whole "
		"pipeline without writing anything (dryRun: true, same results). Compared ignoring case; any value "
		"but true or false is 400 INVALID_HEADER.", json_pack("{s:s,s:[s,s]}", "type", "string", "enum",
		"true", "false")));
	json_object_set_new(p, "HeaderRow", in_param("headerRow", "query", false, "The header's row number as the "
		"spreadsheet shows it (PRODUCT §14); without it the header is detected: the first of the first 20 "
		"non-blank rows that reads as one. Rows above it are not data. Not a number from 1 to 1048576: 400 "
		"INVALID_IMPORT_OPTION; blank or past the end: the run fails EMPTY_FILE.",
		json_pack("{s:s,s:i,s:i}", "type", "integer", "minimum", 1, "maximum", 1048576)));
	json_object_set_new(p, "CommitPolicy", in_param("commit", "query", false, "all: nothing is written when "
		"any row fails; the run ends FAILED with ROWS_FAILED, its failed rows in the failed results and "
		"counts.notCommitted the rows it would otherwise have written, all in one transaction (PRODUCT §15). "
		"partial (the default unless the organization's Settings → Imports say all): the rows that pass "
		"are written. Anything else: 400 INVALID_IMPORT_OPTION.",
		json_pack("{s:s,s:[s,s]}", "type", "string", "enum", "all", "partial")));
	json_object_set_new(p, "SheetName", in_param("sheet", "query", false, "The worksheet of a workbook to read, "
		"by name (exact, then ignoring case); without it, the first visible worksheet whose header maps "
		"jobCode or loadNo, else the first visible one. A name the workbook lacks fails the run with "
		"SHEET_NOT_FOUND. Empty or over 31 characters: 400 INVALID_IMPORT_OPTION. Ignored for CSV.",
		json_pack("{s:s,s:i,s:i}", "type", "string", "minLength", 1, "maxLength", 31)));
	json_object_set_new(p, "IdempotencyKey", in_param("Idempotency-Key", "header", false, "Reserved: any "
		"non-empty value is 400 IDEMPOTENCY_KEY_RESERVED. Re-pushing a file is already safe.",
		json_pack("{s:s,s:i}", "type", "string", "maxLength", 0)));
	json_object_set_new(p, "IfNoneMatch", in_param("If-None-Match", "header", false, "An ETag this run returned "
		"before (or *): 304 while it still matches.", oa_type("string")));
	json_object_set_new(p, "PreferWait", in_param("Prefer", "header", false, "`wait=N` (RFC 7240): with "
		"If-None-Match, hold the request up to N seconds (at most 60) until the run changes.",
		json_pack("{s:s,s:s,s:s}", "type", "string", "pattern", "^.*wait=[0-9]+.*$", "example", "wait=25")));
	json_object_set_new(p, "CustomerId", in_param("id", "path", true, "The customer's id.", oa_type("string")));
	json_object_set_new(p, "WebhookEndpointId", in_param("id", "path", true, "The webhook endpoint's id.",
							     oa_type("string")));
	json_object_set_new(p, "BranchId", in_param("id", "path", true, "The branch's id.", oa_type("string")));
	json_object_set_new(p, "NameQuery", in_param("q", "query", false, "Search text: part of a name, matched "
		"ignoring case and spaces; at most 200 characters.", json_pack("{s:s,s:i}", "type", "string",
		"maxLength", 200)));
	json_object_set_new(p, "LocationQuery", in_param("q", "query", false, "Search text: a location name, or "
		"street, city or ZIP text; at most 200 characters.", json_pack("{s:s,s:i}", "type", "string",
		"maxLength", 200)));
	return p;
}

static json_t *method_not_allowed(void)
{
	json_t *resp = problem_response(405, code_name(CODE_METHOD_NOT_ALLOWED), OP_AUTH);
	json_object_set_new(json_object_get(resp, "headers"), "Allow", json_pack("{s:s,s:b,s:{s:s}}", "description",
		"The methods the path takes.", "required", 1, "schema", "type", "string"));
	json_object_set_new(resp, "description", json_string("Answered to a method a path does not declare (HEAD is "
		"answered as GET), so it belongs to no operation. Under /api and /v1 the token is checked first."));
	return resp;
}

static json_t *components(void)
{
	json_t *c = json_object();
	json_object_set_new(c, "securitySchemes", json_pack("{s:{s:s,s:s,s:s}}", "bearerAuth", "type", "http",
		"scheme", "bearer", "bearerFormat", "ll_live_ + 38 base62 characters"));
	json_object_set_new(c, "parameters", parameters());
	json_object_set_new(c, "headers", headers());
	json_object_set_new(c, "schemas", openapi_schemas());
	return c;
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

static const char *intro =
	"Bulk import of loads from CSV/XLSX files, reads of what was imported, and token verification. Every "
	"endpoint under /api/v1 (and /v1/whoami) needs `Authorization: Bearer <token>` and is rate-limited per "
	"token (RateLimit-Limit/-Remaining/-Reset on its responses); /healthz and this document need neither. "
	"Every response carries X-Request-Id. GET paths also answer HEAD; other methods get 405 (see "
	"x-method-not-allowed). Errors are RFC 7807 problem bodies whose `code` is stable; "
	"x-error-codes lists every code, and {docs_url}/api/errors/<CODE> explains each. Lists are "
	"`{object: \"list\", data, nextPageUrl}`: follow nextPageUrl until it is null.";

/* The OpenAPI 3.1 webhooks object: what Loadline POSTs to endpoints. */
static const char staged_example[] =
	"{\"id\":\"evt_4QzWbJ2m8RkT0uYh6LdNcA\",\"type\":\"import_run.staged\",\"createdAt\":"
	"\"2026-11-21T15:04:05.456Z\",\"data\":{\"object\":{\"id\":\"run_7Hc2LmQ9pXs4TbV1wNk8Ez\",\"object\":"
	"\"import_run\",\"kind\":\"jobs\",\"state\":\"QUEUED\",\"dryRun\":false,\"nextAction\":{\"type\":"
	"\"review_in_app\",\"url\":\"https://loadline.example.com/imports/runs/run_7Hc2LmQ9pXs4TbV1wNk8Ez/review\","
	"\"expiresAt\":\"2026-11-24T15:04:05.123Z\"},\"counts\":{\"succeeded\":0,\"warnings\":0,\"failed\":0,"
	"\"skipped\":0},\"fileName\":\"loads.csv\",\"rowCount\":312,\"file\":{\"format\":\"csv\",\"encoding\":"
	"null,\"delimiter\":null,\"headerRow\":null,\"sheet\":null,\"sheets\":[],\"summaryRows\":[]},\"createdAt\":\"2026-11-21T15:04:05.123Z\",\"startedAt\":null,\"finishedAt\":null,"
	"\"uploadExpiresAt\":null,\"resultsExpiresAt\":null,\"createdBy\":{\"type\":\"token\",\"id\":"
	"\"key_3Fq8NwR2mLx7VcT1bHs9Kd\",\"name\":\"nightly sync\"},\"commit\":\"partial\",\"revertOf\":null}}}";
static const char completed_example[] =
	"{\"id\":\"evt_9LwXq3Vb7NcK2tRz5HsPdE\",\"type\":\"import_run.completed\",\"createdAt\":"
	"\"2026-11-21T15:04:05.201Z\",\"data\":{\"object\":{\"id\":\"run_7Hc2LmQ9pXs4TbV1wNk8Ez\",\"object\":"
	"\"import_run\",\"kind\":\"jobs\",\"state\":\"PARTIAL\",\"dryRun\":false,\"counts\":{\"succeeded\":"
	"748,\"warnings\":3,\"failed\":2,\"skipped\":0},\"fileName\":\"loads.csv\",\"rowCount\":750,\"file\":"
	"{\"format\":\"csv\",\"encoding\":\"utf-8\",\"delimiter\":\",\",\"headerRow\":1,\"sheet\":null,\"sheets\":[],"
	"\"summaryRows\":[]},\"createdAt\":"
	"\"2026-11-21T15:04:05.123Z\",\"startedAt\":\"2026-11-21T15:04:05.140Z\",\"finishedAt\":"
	"\"2026-11-21T15:04:05.198Z\",\"uploadExpiresAt\":\"2026-12-21T15:04:05.198Z\",\"resultsExpiresAt\":"
	"\"2027-02-19T15:04:05.198Z\",\"createdBy\":{\"type\":\"token\",\"id\":\"key_3Fq8NwR2mLx7VcT1bHs9Kd\","
	"\"name\":\"nightly sync\"},\"commit\":\"partial\",\"revertOf\":null}}}";

static json_t *webhook_header(const char *name, const char *d, const char *example)
{
	return json_pack("{s:s,s:s,s:b,s:s,s:{s:s,s:s}}", "name", name, "in", "header", "required", 1, "description", d,
			 "schema", "type", "string", "example", example);
}

static json_t *webhook_op(const char *type, const char *summary, const char *d, const char *example)
{
	json_t *params = json_pack("[o,o,o]",
		webhook_header("webhook-id", "The event id (evt_...), the same on every retry: deduplicate on it.",
			       "evt_9LwXq3Vb7NcK2tRz5HsPdE"),
		webhook_header("webhook-timestamp", "Unix seconds when this attempt was signed; reject old ones.",
			       "1763737445"),
		webhook_header("webhook-signature", "v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>."
			       "<body>\">, keyed with the base64-decoded part of the endpoint's secret after whsec_ "
			       "(Standard Webhooks; its libraries verify it).",
			       "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="));
	json_t *responses = json_pack("{s:{s:s}}", "200", "description", "Any 2xx answered within 10 s is success; "
		"anything else (or no answer) is retried with exponential backoff for 3 days, after which the endpoint "
		"is disabled and the organization's admins are mailed. Redirects are not followed.");
	json_t *op = operation(type, "Webhooks", summary, d, params, responses);
	json_object_set_new(op, "security", json_array());
	json_object_set_new(op, "requestBody", json_pack("{s:b,s:{s:{s:o,s:o}}}", "required", 1, "content",
		"application/json", "schema", oa_ref("WebhookEvent"), "example", json_loads(example, 0, NULL)));
	return op;
}

static json_t *webhooks(void)
{
	return json_pack("{s:{s:o},s:{s:o}}",
		"import_run.staged", "post", webhook_op("importRunStaged", "A run waits for mapping review",
			"Sent when a live run of a column shape the organization has not confirmed was read and waits "
			"for an admin's review: data.object.nextAction says where.", staged_example),
		"import_run.completed", "post", webhook_op("importRunCompleted", "A run reached a terminal state",
			"Sent when a run became SUCCEEDED, PARTIAL, SKIPPED, FAILED or CANCELLED; data.object is the "
			"run as GET /api/v1/imports/runs/{id} shows it.", completed_example));
}

json_t *openapi_document(const char *server_url)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "openapi", json_string("3.1.0"));
	json_object_set_new(doc, "info", json_pack("{s:s,s:s,s:s,s:{s:s}}", "title", "Loadline API", "version",
						   "1.0.0", "description", intro, "contact", "name",
						   "The operator of your Loadline service"));
	/* The committed copy (no server_url) names the host that serves it. */
	json_object_set_new(doc, "servers", server_url ? json_pack("[{s:s}]", "url", server_url)
		: json_pack("[{s:s,s:s}]", "url", "/", "description", "The Loadline server this document came from."));
	json_object_set_new(doc, "security", json_pack("[{s:[]}]", "bearerAuth"));
	json_object_set_new(doc, "tags", json_pack("[{s:s},{s:s},{s:s},{s:s},{s:s},{s:s}]", "name", "Imports", "name",
						   "Records", "name", "Reference data", "name", "Webhooks", "name",
						   "Identity", "name", "Service"));
	json_object_set_new(doc, "paths", paths());
	json_object_set_new(doc, "webhooks", webhooks());
	json_object_set_new(doc, "components", components());
	json_object_set_new(doc, "x-error-codes", error_codes());
	/* Not a component: no operation answers it (it belongs to the methods a
	 * path does not declare), and OpenAPI has no place for path-level
	 * responses; an unused component would fail Spectral's lint. */
	json_object_set_new(doc, "x-method-not-allowed", method_not_allowed());
	/* A run as the service sends it (the completed webhook's object), for
	 * every example that shows a run. */
	json_t *ev = json_loads(completed_example, 0, NULL);
	json_object_set(json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "ImportRun"),
			"example", json_object_get(json_object_get(ev, "data"), "object"));
	json_decref(ev);
	/* Last: examples are made from the finished schemas. */
	char missing[1024];
	openapi_add_examples(doc, missing, sizeof missing);
	return doc;
}

static void serve(struct api_ctx *ctx, struct http_request *req, struct http_response *res)
{
	api_json(req, res, 200, openapi_document(ctx->app->cfg.base_url));
}

const struct endpoint ep_openapi = {.finish = serve};
