/* Every endpoint the router can reach (internal to src/api). */
#ifndef LOADLINE_API_ENDPOINTS_H
#define LOADLINE_API_ENDPOINTS_H

#include "api.h"
#include "import/run_json.h"

extern const struct endpoint ep_whoami;
extern const struct endpoint ep_openapi;
extern const struct endpoint ep_healthz;
extern const struct endpoint ep_readyz;
extern const struct endpoint ep_import_upload;
extern const struct endpoint ep_run_get;
extern const struct endpoint ep_run_list;
extern const struct endpoint ep_run_results;
extern const struct endpoint ep_run_failed_rows;
extern const struct endpoint ep_run_problems;
extern const struct endpoint ep_run_rerun;
extern const struct endpoint ep_run_corrections;
extern const struct endpoint ep_run_revert;
extern const struct endpoint ep_run_cancel;
extern const struct endpoint ep_import_template;
extern const struct endpoint ep_load_get;
extern const struct endpoint ep_load_history;
extern const struct endpoint ep_project_get;
extern const struct endpoint ep_location_get;
extern const struct endpoint ep_locations_search;
extern const struct endpoint ep_reference_list;
extern const struct endpoint ep_reference_create;
extern const struct endpoint ep_reference_get;
extern const struct endpoint ep_webhook_list;
extern const struct endpoint ep_webhook_create;
extern const struct endpoint ep_webhook_get;
extern const struct endpoint ep_webhook_delete;
extern const struct endpoint ep_webhook_test;
extern const struct endpoint ep_webhook_patch;
extern const struct endpoint ep_webhook_rotate;
extern const struct endpoint ep_webhook_attempts;
extern const struct endpoint ep_webhook_resend;

struct run;
struct location_rec;
struct config;
json_t *location_json(const struct location_rec *l);

struct api_ctx;
/* Answers what intake_create_run returned: 202 with the run (Location,
 * Retry-After) after waking the workers, 409 IMPORT_IN_PROGRESS with
 * existingRunUrl, or the storage failure.  The upload's and the re-run's
 * one ending.  api_dry_run_header reads Service-Dry-Run (false when absent)
 * or answers 400 INVALID_HEADER and returns false. */
bool api_dry_run_header(struct http_request *req, struct http_response *res, bool *ret_dry_run);
void api_run_created(struct api_ctx *ctx, struct http_request *req, struct http_response *res, enum code rc,
		     const struct run *run, const char *existing);

/* Serves the error reference page for a code, or the index. */
void docs_error_page(struct http_request *req, struct http_response *res, const char *code);
void docs_error_index(struct http_request *req, struct http_response *res);
/* Serves the API reference page ({docs_url}/api). */
void docs_api_reference(struct http_request *req, struct http_response *res);
/* {docs_url} itself: links to the reference, the error codes, the document. */
void docs_home(struct http_request *req, struct http_response *res);

#endif
