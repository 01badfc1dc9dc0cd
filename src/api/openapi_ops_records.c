/* OpenAPI operations: records, reference data and webhook endpoints
 * (openapi_build.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codes.h"
#include "openapi_build.h"
#include "openapi_schemas.h"
#include "paging.h"

static json_t *get_record(const char *id, const char *what, const char *schema, const char *id_param)
{
	char summary[64], d[160];
	snprintf(summary, sizeof summary, "Read a %s", what);
	snprintf(d, sizeof d, "The %s with this id in the token's organization; any other id is 404.", what);
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok(summary, schema, OP_AUTH));
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation(id, "Records", summary, d, json_pack("[o]", param(id_param)), r);
}

json_t *op_load_get(void)
{
	return get_record("getLoad", "load", "Load", "LoadId");
}

json_t *op_load_history(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The Load's changes", "LoadChangeList", OP_AUTH));
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("getLoadHistory", "Records", "Read a load's history", "Who changed the Load and how "
		"(PRODUCT §15), newest first: the run that created it, each run that updated it (with the fields "
		"it changed, from and to) and each revert. A change is listed as long as its run's results are kept "
		"(LOADLINE_KEEP_RESULTS). One page: nextPageUrl is always null. Any id outside the token's "
		"organization is 404.", json_pack("[o]", param("LoadId")), r);
}

json_t *op_project_get(void)
{
	return get_record("getProject", "project", "Project", "ProjectId");
}

json_t *op_location_get(void)
{
	return get_record("getLocation", "location", "Location", "LocationId");
}

json_t *op_locations_search(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("A page of matching locations.", "LocationList", OP_AUTH));
	add_problems(r, "INVALID_REQUEST INVALID_LIMIT INVALID_CURSOR", OP_AUTH | OP_NO_BODY);
	return operation("searchLocations", "Records", "Search saved locations", "Address search: by name (ignoring "
		"case and surrounding whitespace) or by street, city or ZIP text. An empty or missing q lists every "
		"location. A q over 200 characters is 400 INVALID_REQUEST.",
		json_pack("[o,o,o]", param("LocationQuery"), param("Limit"), param("Cursor")), r);
}

/* ---- reference data: customers and branches ---- */

static json_t *ref_list(const char *id, const char *plural, const char *schema, const char *query)
{
	char summary[64], d[400];
	snprintf(summary, sizeof summary, "List or search %s", plural);
	snprintf(d, sizeof d, "The organization's %s, oldest first. q finds names containing it, ignoring case and "
		 "spaces (the way an import matches a row's name); an empty or missing q lists all. A q over 200 "
		 "characters is 400 INVALID_REQUEST.", plural);
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok(summary, schema, OP_AUTH));
	add_problems(r, "INVALID_REQUEST INVALID_LIMIT INVALID_CURSOR", OP_AUTH | OP_NO_BODY);
	return operation(id, "Reference data", summary, d, json_pack("[o,o,o]", param(query), param("Limit"),
			 param("Cursor")), r);
}

static json_t *ref_create(const char *id, const char *noun, const char *plural, const char *schema)
{
	char summary[64], d[500], hd[160];
	snprintf(summary, sizeof summary, "Add a %s", noun);
	snprintf(d, sizeof d, "Creates a %s that rows' `%s` column will match. A name that matches an existing %s "
		 "(ignoring case, spaces and look-alike characters, as imports match) is 409 DUPLICATE_NAME with existingId and "
		 "existingUrl; concurrent requests for one name create it once.", noun, noun, noun);
	snprintf(hd, sizeof hd, "Path of the new %s: /api/v1/%s/<id>.", noun, plural);
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:o}}}", "description", "Created.", "headers", headers_for(201, OP_AUTH),
			       "content", "application/json", "schema", oa_ref(schema));
	json_object_set_new(json_object_get(ok, "headers"), "Location", header(hd, oa_type("string"), true));
	json_t *r = json_object();
	json_object_set_new(r, "201", ok);
	add_problems(r, "INVALID_REQUEST TOO_LARGE DUPLICATE_NAME", OP_AUTH);
	json_t *op = operation(id, "Reference data", summary, d, json_array(), r);
	json_object_set_new(op, "requestBody", json_pack("{s:b,s:{s:{s:o}}}", "required", 1, "content",
							 "application/json", "schema", oa_ref("NameInput")));
	return op;
}

json_t *op_customers_list(void)
{
	return ref_list("listCustomers", "customers", "CustomerList", "NameQuery");
}

json_t *op_customer_create(void)
{
	return ref_create("createCustomer", "customer", "customers", "Customer");
}

json_t *op_customer_get(void)
{
	return get_record("getCustomer", "customer", "Customer", "CustomerId");
}

json_t *op_branches_list(void)
{
	return ref_list("listBranches", "branches", "BranchList", "NameQuery");
}

json_t *op_branch_create(void)
{
	return ref_create("createBranch", "branch", "branches", "Branch");
}

json_t *op_branch_get(void)
{
	return get_record("getBranch", "branch", "Branch", "BranchId");
}

/* ---- webhook endpoints (PRODUCT §12) ---- */

static const char webhooks_note[] = " Any API token of the organization may manage its endpoints (a token is "
	"organization-wide; in the web app, Settings > Webhooks is for admins).";

json_t *op_webhooks_list(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The organization's endpoints.", "WebhookEndpointList", OP_AUTH));
	add_problems(r, "", OP_AUTH | OP_NO_BODY);
	char d[400];
	snprintf(d, sizeof d, "Every webhook endpoint of the organization, oldest first, without secrets.%s",
		 webhooks_note);
	return operation("listWebhookEndpoints", "Webhooks", "List webhook endpoints", d, NULL, r);
}

json_t *op_webhook_create(void)
{
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:o}}}", "description", "Created; the body shows the secret, once.",
			       "headers", headers_for(201, OP_AUTH), "content", "application/json", "schema",
			       oa_ref("WebhookEndpointCreated"));
	json_object_set_new(json_object_get(ok, "headers"), "Location", header("Path of the new endpoint: "
			    "/api/v1/webhook-endpoints/<id>.", oa_type("string"), true));
	json_t *r = json_object();
	json_object_set_new(r, "201", ok);
	add_problems(r, "INVALID_REQUEST INVALID_WEBHOOK_URL INVALID_WEBHOOK_EVENTS TOO_LARGE WEBHOOK_ENDPOINT_LIMIT", OP_AUTH);
	char d[700];
	snprintf(d, sizeof d, "Adds an endpoint that the chosen events are POSTed to, signed per the Standard "
		 "Webhooks specification with the secret this response shows (and no other ever will). The URL "
		 "must be https:// and, when a delivery connects, resolve to a public address; redirects are not "
		 "followed. An organization has at most 16 endpoints (409 WEBHOOK_ENDPOINT_LIMIT beyond).%s", webhooks_note);
	json_t *op = operation("createWebhookEndpoint", "Webhooks", "Add a webhook endpoint", d, json_array(), r);
	json_object_set_new(op, "requestBody", json_pack("{s:b,s:{s:{s:o,s:o}}}", "required", 1, "content",
		"application/json", "schema", oa_ref("WebhookEndpointInput"), "example", json_pack("{s:s,s:[s]}",
		"url", "https://hooks.example.com/loadline", "events", "import_run.completed")));
	return op;
}

json_t *op_webhook_get(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The endpoint (never its secret).", "WebhookEndpoint", OP_AUTH));
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("getWebhookEndpoint", "Webhooks", "Get a webhook endpoint", "One endpoint of the "
			 "organization; another organization's id is 404.", json_pack("[o]", param("WebhookEndpointId")),
			 r);
}

json_t *op_webhook_delete(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "204", json_pack("{s:s,s:o}", "description", "Deleted.", "headers",
						headers_for(204, OP_AUTH)));
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("deleteWebhookEndpoint", "Webhooks", "Delete a webhook endpoint", "Stops every delivery "
			 "to the endpoint, queued retries included.", json_pack("[o]", param("WebhookEndpointId")), r);
}

json_t *op_webhook_test(void)
{
	json_t *r = json_object();
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:{s:s,s:[s,s,s],s:{s:{s:s,s:s},s:{s:s},s:{s:s,s:s}}},s:o}}}",
		"description", "Queued: the event is delivered like any other, within moments.", "headers",
		headers_for(202, OP_AUTH), "content", "application/json", "schema", "type", "object", "required",
		"object", "endpointId", "type", "properties", "object", "type", "string", "const", "webhook_test",
		"endpointId", "type", "string", "type", "type", "string", "const", "webhook.test", "example",
		json_pack("{s:s,s:s,s:s}", "object", "webhook_test", "endpointId", "whe_2x9KfQ7mZ1", "type",
			  "webhook.test"));
	json_object_set_new(r, "202", ok);
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("testWebhookEndpoint", "Webhooks", "Send a test event", "Queues a `webhook.test` event "
			 "for this endpoint alone, signed like any other; its `data.object` is `{\"object\": "
			 "\"webhook_test\", \"endpointId\"}`. The attempt shows in the delivery log (Settings > "
			 "Webhooks).", json_pack("[o]", param("WebhookEndpointId")), r);
}


json_t *op_webhook_patch(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The endpoint as changed (never its secret).", "WebhookEndpoint",
					      OP_AUTH));
	add_problems(r, "NOT_FOUND INVALID_REQUEST INVALID_WEBHOOK_URL INVALID_WEBHOOK_EVENTS TOO_LARGE", OP_AUTH);
	json_t *op = operation("updateWebhookEndpoint", "Webhooks", "Change a webhook endpoint", "Changes the URL "
		"(validated as when it is added), the event types, or whether it is enabled: `enabled: true` "
		"re-enables an endpoint that was disabled after 3 days of failures, with a fresh retry window; "
		"`enabled: false` stops deliveries to it and drops the queued ones.",
		json_pack("[o]", param("WebhookEndpointId")), r);
	json_object_set_new(op, "requestBody", json_pack("{s:b,s:{s:{s:o,s:o}}}", "required", 1, "content",
		"application/json", "schema", oa_ref("WebhookEndpointPatch"), "example", json_pack("{s:b}",
		"enabled", 1)));
	return op;
}

json_t *op_webhook_rotate(void)
{
	json_t *r = json_object();
	json_t *ok = json_ok("The endpoint with its new secret: the only time it is shown.", "WebhookEndpointCreated",
			     OP_AUTH);
	json_object_set_new(json_object_get(ok, "headers"), "Cache-Control", header("no-store: the secret is "
			    "shown once.", oa_type("string"), true));
	json_object_set_new(r, "200", ok);
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("rotateWebhookSecret", "Webhooks", "Rotate an endpoint's signing secret", "Makes a new "
		"signing secret, returned this once. For 24 hours the old secret keeps signing beside it: each "
		"delivery's webhook-signature then carries two space-separated `v1,` signatures (Standard Webhooks "
		"allows several), so a receiver verifies with either while it switches; "
		"`previousSecretExpiresAt` says until when. Rotating again during the overlap drops the oldest.",
		json_pack("[o]", param("WebhookEndpointId")), r);
}

json_t *op_webhook_attempts(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("A page of the endpoint's attempts.", "WebhookAttemptList", OP_AUTH));
	add_problems(r, "NOT_FOUND INVALID_LIMIT INVALID_CURSOR", OP_AUTH | OP_NO_BODY);
	return operation("listWebhookAttempts", "Webhooks", "List an endpoint's delivery attempts", "Every attempt "
		"to deliver an event to this endpoint, newest first: status, duration, error, the first 1 KB of the "
		"receiver's answer, and the event sent (its id; the same body on every attempt).",
		json_pack("[o,o,o]", param("WebhookEndpointId"), param("Limit"), param("Cursor")), r);
}

json_t *op_webhook_resend(void)
{
	json_t *r = json_object();
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:{s:s,s:[s,s,s,s],s:{s:{s:s,s:s},s:o,s:o,s:o}},s:o}}}",
		"description", "Queued: the event is delivered again, within moments, with the same webhook-id.",
		"headers", headers_for(202, OP_AUTH), "content", "application/json", "schema", "type", "object",
		"required", "object", "attemptId", "eventId", "endpointId", "properties", "object", "type", "string",
		"const", "webhook_resend", "attemptId", oa_type("string"), "eventId", oa_type("string"), "endpointId",
		oa_type("string"), "example", json_pack("{s:s,s:s,s:s,s:s}", "object", "webhook_resend", "attemptId",
		"wha_5RkT0cLq2WmZ8yBvH3nJ1a", "eventId", "evt_7Hq2LmX9TaZ4pR0sV6kW3b", "endpointId",
		"whe_2x9KfQ7mZ1aB4cD6eF8gH0"));
	json_object_set_new(r, "202", ok);
	add_problems(r, "NOT_FOUND WEBHOOK_ENDPOINT_DISABLED", OP_AUTH | OP_NO_BODY);
	return operation("resendWebhookAttempt", "Webhooks", "Resend an attempt's event", "Delivers the attempt's "
		"event to its endpoint again (a new attempt, the same event id and body), with a fresh retry window. "
		"An event still queued for that endpoint is left to its next attempt. A disabled endpoint is 409 "
		"WEBHOOK_ENDPOINT_DISABLED.", json_pack("[o]", in_param("id", "path", true, "The attempt's id (wha_).",
		oa_type("string"))), r);
}
