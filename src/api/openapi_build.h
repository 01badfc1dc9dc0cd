/* The builders the OpenAPI document's operations share (internal to
 * src/api/openapi*.c): openapi.c has the builders and assembles the
 * document; openapi_ops_imports.c describes the service, identity, upload
 * and run operations, openapi_ops_records.c the records, reference data
 * and webhook endpoints; the schemas are in openapi_schemas.c. */
#ifndef LOADLINE_API_OPENAPI_BUILD_H
#define LOADLINE_API_OPENAPI_BUILD_H

#include <jansson.h>
#include <stdbool.h>

/* What an operation is subject to. */
enum {
	OP_AUTH = 1,    /* Bearer token and rate limit (every /api path but openapi.json) */
	OP_NO_BODY = 2, /* takes no body: one over 64 KiB is answered TOO_LARGE */
};

/* Codes any request can meet before or around its endpoint (api.c). */
#define CODES_ANY "URI_TOO_LONG HEADERS_TOO_LARGE INTERNAL_ERROR"
#define CODES_AUTH "UNAUTHORIZED RATE_LIMIT_EXCEEDED SERVICE_UNAVAILABLE"
#define CODES_NO_BODY "TOO_LARGE"

/* A header object, a parameter object, the response headers of a status. */
json_t *header(const char *d, json_t *schema, bool required);
json_t *in_param(const char *name, const char *in, bool required, const char *d, json_t *schema);
json_t *headers_for(int status, unsigned flags);
/* A reference to a shared response header by name. */
json_t *header_ref(const char *name);
/* The problem responses of the codes listed (plus those every request can
 * meet), one per status, into r. */
void add_problems(json_t *r, const char *codes, unsigned flags);
/* A 200 of a JSON schema; a reference to a shared parameter; an
 * operation; one that needs no token; the 202 of an upload-like POST. */
json_t *json_ok(const char *d, const char *schema, unsigned flags);
json_t *param(const char *name);
json_t *operation(const char *id, const char *tag, const char *summary, const char *d, json_t *params,
		  json_t *responses);
json_t *public_op(json_t *op);
json_t *accepted_response(void);

/* The operations, one per route (the paths table in openapi.c). */
json_t *op_health(void);
json_t *op_ready(void);
json_t *op_openapi(void);
json_t *op_whoami(void);
json_t *op_whoami_alias(void);
json_t *op_import_upload(void);
json_t *op_run_rerun(void);
json_t *op_run_corrections(void);
json_t *op_run_revert(void);
json_t *op_run_cancel(void);
json_t *op_import_template(void);
json_t *op_run_list(void);
json_t *op_run_get(void);
json_t *op_run_results(void);
json_t *op_run_problems(void);
json_t *op_run_failed_rows(void);
json_t *op_load_get(void);
json_t *op_load_history(void);
json_t *op_project_get(void);
json_t *op_location_get(void);
json_t *op_locations_search(void);
json_t *op_customers_list(void);
json_t *op_customer_create(void);
json_t *op_customer_get(void);
json_t *op_branches_list(void);
json_t *op_branch_create(void);
json_t *op_branch_get(void);
json_t *op_webhooks_list(void);
json_t *op_webhook_create(void);
json_t *op_webhook_get(void);
json_t *op_webhook_delete(void);
json_t *op_webhook_test(void);
json_t *op_webhook_patch(void);
json_t *op_webhook_rotate(void);
json_t *op_webhook_attempts(void);
json_t *op_webhook_resend(void);

#endif
