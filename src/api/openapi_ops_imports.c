/* OpenAPI operations: the service, identity, uploads and import runs
 * (openapi_build.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codes.h"
#include "openapi_build.h"
#include "openapi_schemas.h"
#include "paging.h"

json_t *op_health(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The process is serving.", "Health", 0));
	add_problems(r, "", OP_NO_BODY);
	return public_op(operation("health", "Service", "Liveness",
		"No token needed; not rate-limited. Touches no database: 200 whenever the process answers.", NULL, r));
}

json_t *op_ready(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The database is reachable and migrated: ready for traffic.", "Health", 0));
	add_problems(r, "SERVICE_UNAVAILABLE", OP_NO_BODY);
	return public_op(operation("ready", "Service", "Readiness",
		"No token needed; not rate-limited. 503 when the database cannot be reached or its schema is "
		"behind this version.", NULL, r));
}

json_t *op_openapi(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_pack("{s:s,s:o,s:{s:{s:{s:s}}}}", "description", "This document.",
		"headers", headers_for(200, 0), "content", "application/json", "schema", "type", "object"));
	add_problems(r, "", OP_NO_BODY);
	return public_op(operation("openapi", "Service", "This OpenAPI 3.1 document",
		"No token needed; not rate-limited. Generated from the route list and the code table.", NULL, r));
}

static json_t *whoami(const char *id, const char *summary)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The key and the organization it is bound to.", "ApiKey", OP_AUTH));
	add_problems(r, "", OP_AUTH | OP_NO_BODY);
	return operation(id, "Identity", summary, "Verifies that a token is live and returns the organization it is "
		"bound to. Intended as a deploy smoke test.", NULL, r);
}

json_t *op_whoami(void)
{
	return whoami("whoami", "Verify a token");
}

json_t *op_whoami_alias(void)
{
	return whoami("whoamiContractPath", "Verify a token (contract path /v1/whoami)");
}

static json_t *upload_body(void)
{
	json_t *file = json_pack("{s:s,s:s,s:s}", "type", "string", "contentMediaType", "application/octet-stream",
		"description", "The spreadsheet: CSV (UTF-8 with or without BOM, else Windows-1252; delimiter , ; "
		"or tab) or XLSX (first visible worksheet). The format is judged by the bytes, so any part "
		"Content-Type is accepted. At most 5 MB (LOADLINE_MAX_FILE_BYTES) and 750 data rows "
		"(LOADLINE_MAX_ROWS). Its rows are described by the JobsRow schema (x-row-schema).");
	json_t *schema = json_pack("{s:s,s:[s],s:{s:o}}", "type", "object", "required", "file", "properties",
				   "file", file);
	json_t *enc = json_pack("{s:{s:s}}", "file", "contentType", "text/csv, text/plain, application/vnd.ms-excel, "
		"application/octet-stream, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
	return json_pack("{s:b,s:s,s:{s:{s:o,s:o}}}", "required", 1, "description", "multipart/form-data with exactly "
		"one part named `file`; other form fields are ignored.", "content", "multipart/form-data", "schema",
		schema, "encoding", enc);
}

json_t *op_import_upload(void)
{
	json_t *ok = accepted_response();
	json_t *r = json_object();
	json_object_set_new(r, "202", ok);
	add_problems(r, "MISSING_FILE INVALID_KIND IDEMPOTENCY_KEY_RESERVED EMPTY_BODY MALFORMED_MULTIPART "
		     "INVALID_HEADER INVALID_IMPORT_OPTION IMPORT_IN_PROGRESS TOO_LARGE UNSUPPORTED_MIME", OP_AUTH);
	json_t *op = operation("createImport", "Imports", "Upload a file for import", "Streams the file part to "
		"storage (over the size limit it is refused while streaming) and queues a run; processing is "
		"asynchronous. The kind is checked first, then Idempotency-Key, Service-Dry-Run, an empty body and "
		"the Content-Type. A file with identical contents and kind whose run is QUEUED or RUNNING (or awaits "
		"mapping confirmation) is refused with 409 IMPORT_IN_PROGRESS and existingRunUrl. A zero-byte file "
		"is accepted and its run fails EMPTY_FILE; other parse-level problems also end the run FAILED "
		"(ParseErrorCode) rather than failing the upload. `jobs` is the only import kind of v1: a POST to "
		"/api/v1/imports/<any other kind> answers 400 INVALID_KIND before anything else is checked.",
		json_pack("[o,o,o,o,o]", param("ServiceDryRun"), param("IdempotencyKey"), param("HeaderRow"),
			  param("SheetName"), param("CommitPolicy")), r);
	json_object_set_new(op, "requestBody", upload_body());
	json_object_set_new(op, "x-row-schema", oa_ref("JobsRow"));
	return op;
}

/* The 202 of an upload and of a re-run. */
json_t *accepted_response(void)
{
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:o}}}", "description", "Accepted: the run is QUEUED. Poll Location "
		"after Retry-After seconds, doubling the delay up to 30 s, until the state is terminal or nextAction "
		"is present.", "headers", headers_for(202, OP_AUTH), "content", "application/json", "schema",
		oa_ref("ImportRun"));
	json_t *h = json_object_get(ok, "headers");
	json_object_set_new(h, "Location", header_ref("Location"));
	json_object_set_new(h, "Retry-After", header_ref("Retry-After"));
	return ok;
}

json_t *op_run_rerun(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "202", accepted_response());
	add_problems(r, "NOT_FOUND INVALID_HEADER IMPORT_IN_PROGRESS UPLOAD_EXPIRED", OP_AUTH | OP_NO_BODY);
	return operation("rerunImport", "Imports", "Import a run's file again",
		"Creates a new run from the run's stored upload, exactly as pushing the same bytes again would: the "
		"same fingerprint (409 IMPORT_IN_PROGRESS with existingRunUrl while a run of those bytes is QUEUED, "
		"RUNNING or awaiting review), the same staging for review, the original file name. Service-Dry-Run "
		"is honoured. Use it after fixing what the results pointed at outside the file, e.g. adding a "
		"missing customer: rows whose references now resolve are updated. 410 UPLOAD_EXPIRED once "
		"retention deleted the stored file (the run's uploadExpiresAt). No request body.",
		json_pack("[o,o]", param("RunId"), param("ServiceDryRun")), r);
}

json_t *op_run_corrections(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "202", accepted_response());
	add_problems(r, "NOT_FOUND INVALID_REQUEST INVALID_CORRECTION INVALID_HEADER TOO_LARGE RUN_NOT_TERMINAL "
		     "NO_ROW_RESULTS IMPORT_IN_PROGRESS RESULTS_EXPIRED UPLOAD_EXPIRED", OP_AUTH);
	json_t *op = operation("correctImportRows", "Imports", "Import corrected failed rows",
		"Creates a new run of exactly the listed failed rows of the run, with the cells given replaced, as "
		"pushing a fix-up file of those rows would: the same rules and codes, 409 IMPORT_IN_PROGRESS while an "
		"identical correction is QUEUED or RUNNING, the same staging (a confirmed column shape is not "
		"reviewed again). The new run has correctionOf and its results keep the rows' rowIndex of the "
		"original file, so a row that still fails can be corrected again from the new run. 409 "
		"RUN_NOT_TERMINAL before the run is terminal; 410 once retention deleted its results or stored "
		"upload. Service-Dry-Run is honoured. The JSON body is at most 1 MiB.",
		json_pack("[o,o]", param("RunId"), param("ServiceDryRun")), r);
	json_object_set_new(op, "requestBody", json_pack("{s:b,s:{s:{s:o,s:o}}}", "required", 1, "content",
		"application/json", "schema", oa_ref("CorrectionsInput"), "example", json_pack("{s:[{s:i,s:{s:s}}]}",
		"rows", "rowIndex", 12, "cells", "Load Date", "2026-03-02")));
	return op;
}

json_t *op_run_revert(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "202", accepted_response());
	add_problems(r, "NOT_FOUND INVALID_HEADER IMPORT_IN_PROGRESS RUN_NOT_TERMINAL RESULTS_EXPIRED",
		     OP_AUTH | OP_NO_BODY);
	return operation("revertImport", "Imports", "Undo a run",
		"Creates a new run (revertOf: this run) that undoes what this run wrote (PRODUCT §15): every Load it "
		"created is removed and every Load or Project it updated gets its prior values back, unless a later "
		"run changed it since: then that record stays and its result is skipped with reason changed_since "
		"and laterRunId. Projects and locations the run created that nothing else uses are removed. The "
		"revert's results list each record (succeeded: undone; skipped: changed since) and its `revert` "
		"object the numbers removed, restored and changed since. Service-Dry-Run shows what a revert would "
		"do, writing nothing. Reverting a revert re-applies. Any token of the organization may revert; a "
		"revert and an import of the same Loads wait for each other. 409 RUN_NOT_TERMINAL before the run is "
		"terminal, 409 IMPORT_IN_PROGRESS while another revert of it is QUEUED or RUNNING, 410 "
		"RESULTS_EXPIRED once retention deleted its results (and with them what it changed). No request "
		"body.", json_pack("[o,o]", param("RunId"), param("ServiceDryRun")), r);
}

json_t *op_run_cancel(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("The run, now CANCELLED (finishedAt set).", "ImportRun", OP_AUTH));
	add_problems(r, "NOT_FOUND RUN_ALREADY_TERMINAL", OP_AUTH | OP_NO_BODY);
	return operation("cancelImport", "Imports", "Cancel a run",
		"Stops a QUEUED or RUNNING run (PRODUCT §16): it becomes CANCELLED at once, its long polls wake and "
		"an import_run.completed event is sent. A run that is being written stops after the batch it is "
		"committing; what was committed before stays (counts say how much) and can be undone with POST "
		"/api/v1/imports/runs/{id}/revert. Any token of the organization may cancel; in the web app only "
		"admins see Cancel import. 409 RUN_ALREADY_TERMINAL when the run had already finished (its "
		"detail names its state). No request body.", json_pack("[o]", param("RunId")), r);
}

json_t *op_import_template(void)
{
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:{s:s,s:s}},s:{s:{s:s,s:s}}}}", "description", "The jobs template: "
		"every schema field as a header, in the schema's order, and one example row. A file that keeps these "
		"headers (in any order, any subset) needs no column review.", "headers", headers_for(200, OP_AUTH),
		"content", "text/csv", "schema", "type", "string", "format", "binary",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "schema", "type", "string",
		"format", "binary");
	json_object_set_new(json_object_get(ok, "headers"), "Content-Disposition", header("`attachment` with the file "
		"name `loadline-jobs-template.csv` (or `.xlsx`).", oa_type("string"), true));
	json_t *r = json_object();
	json_object_set_new(r, "200", ok);
	add_problems(r, "INVALID_REQUEST", OP_AUTH | OP_NO_BODY);
	json_t *fmt = in_param("format", "query", false, "`csv` (default) or `xlsx`.",
			       json_pack("{s:s,s:[s,s],s:s}", "type", "string", "enum", "csv", "xlsx", "default", "csv"));
	return operation("getImportTemplate", "Imports", "Download the jobs template",
		"The same file as the web app's Download template.", json_pack("[o]", fmt), r);
}

json_t *op_run_list(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("A page of runs.", "ImportRunList", OP_AUTH));
	add_problems(r, "INVALID_LIMIT INVALID_CURSOR", OP_AUTH | OP_NO_BODY);
	return operation("listImportRuns", "Imports", "List import runs", "The organization's runs, newest first.",
			 json_pack("[o,o]", param("Limit"), param("Cursor")), r);
}

json_t *op_run_get(void)
{
	json_t *ok = json_ok("The run.", "ImportRun", OP_AUTH);
	json_t *same = json_pack("{s:s,s:o}", "description", "Not Modified: If-None-Match matches the current ETag "
				 "(or is *). No body.", "headers", headers_for(304, OP_AUTH));
	json_t *hs[] = {json_object_get(ok, "headers"), json_object_get(same, "headers")};
	for (size_t i = 0; i < 2; i++) {
		json_object_set_new(hs[i], "ETag", header_ref("ETag"));
		json_object_set_new(hs[i], "Cache-Control", header_ref("Cache-Control"));
		json_object_set_new(hs[i], "Preference-Applied", header_ref("Preference-Applied"));
	}
	json_t *r = json_object();
	json_object_set_new(r, "200", ok);
	json_object_set_new(r, "304", same);
	add_problems(r, "NOT_FOUND", OP_AUTH | OP_NO_BODY);
	return operation("getImportRun", "Imports", "Read an import run", "A run of another organization is 404, "
		"never revealed. Send the ETag back in If-None-Match to get 304 while nothing changed. Long poll: "
		"with If-None-Match and `Prefer: wait=N` (RFC 7240; N up to 60, larger is clamped) the request is held "
		"until the run's representation changes (200 with the new ETag) or N seconds pass (304), with "
		"`Preference-Applied: wait=N`, so a client learns the result the moment it exists; ask again at once "
		"after each answer. It holds no server thread and works across processes. Without the preference: "
		"poll from the upload's Retry-After (5 s), doubling up to 30 s; stop at a terminal state or when "
		"nextAction is present.", json_pack("[o,o,o]", param("RunId"), param("IfNoneMatch"), param("PreferWait")),
		r);
}

json_t *op_run_results(void)
{
	json_t *r = json_object();
	json_object_set_new(r, "200", json_ok("A page of the bucket's rows.", "RowResultList", OP_AUTH));
	add_problems(r, "NOT_FOUND INVALID_BUCKET INVALID_LIMIT INVALID_CURSOR RUN_NOT_TERMINAL RESULTS_EXPIRED",
		     OP_AUTH | OP_NO_BODY);
	return operation("listImportRunResults", "Imports", "Read per-row results of a terminal run",
		"Rows of one bucket in rowIndex order. Each row is in exactly one of succeeded, failed, skipped; a "
		"committed row with warnings is in warnings too. Checked in this order: the run (404), the bucket, "
		"limit and cursor, then that the run is terminal (409 RUN_NOT_TERMINAL), then that retention has not "
		"deleted the results (410 RESULTS_EXPIRED, from the run's resultsExpiresAt).",
		json_pack("[o,o,o,o]", param("RunId"), param("Bucket"), param("Limit"), param("Cursor")), r);
}

json_t *op_run_problems(void)
{
	json_t *ok = json_ok("A page of the run's problems.", "RunProblemList", OP_AUTH);
	json_t *same = json_pack("{s:s,s:o}", "description", "Not Modified: If-None-Match matches the page's ETag "
				 "(or is *). No body.", "headers", headers_for(304, OP_AUTH));
	json_t *hs[] = {json_object_get(ok, "headers"), json_object_get(same, "headers")};
	for (size_t i = 0; i < 2; i++) {
		json_object_set_new(hs[i], "ETag", header_ref("ETag"));
		json_object_set_new(hs[i], "Cache-Control", header_ref("Cache-Control"));
	}
	json_t *r = json_object();
	json_object_set_new(r, "200", ok);
	json_object_set_new(r, "304", same);
	add_problems(r, "NOT_FOUND INVALID_LIMIT INVALID_CURSOR RUN_NOT_TERMINAL RESULTS_EXPIRED", OP_AUTH | OP_NO_BODY);
	return operation("listImportRunProblems", "Imports", "Read a terminal run's problems, grouped",
		"The errors and warnings of the run's rows grouped by (code, field, value), the value compared "
		"exactly as stored (UNIT_NORMALIZED by code and field alone: one group per converted field, value "
		"null): errors before warnings, most rows first, ties by first appearance (the earlier first row, then the order "
		"of the entries in that row). A row with the same problem twice counts once. Each group gives its "
		"first 20 row numbers and the message of its first row; a LOOKUP_MISS of customer or branch carries "
		"`fix` (create the record, then import the file again). A run that failed as a whole, or has no "
		"problems, gives an empty list. Checked in the order of the results endpoint: the run (404), limit "
		"and cursor, that the run is terminal (409 RUN_NOT_TERMINAL), that retention has not deleted the "
		"results (410 RESULTS_EXPIRED). A finished run's problems never change: send the ETag back in "
		"If-None-Match to get 304.",
		json_pack("[o,o,o,o]", param("RunId"), param("Limit"), param("Cursor"), param("IfNoneMatch")), r);
}

json_t *op_run_failed_rows(void)
{
	json_t *ok = json_pack("{s:s,s:o,s:{s:{s:{s:s,s:s}},s:{s:{s:s,s:s}}}}", "description", "The fix-up file: the "
		"failed rows, with the original header row and columns plus a last column `errors`, as CSV or XLSX "
		"(`format`; by default the upload's own format). CSV keeps a CSV upload's delimiter and encoding "
		"(Windows-1252 stays Windows-1252); UTF-8 always begins with a BOM, so that spreadsheet programs "
		"open it as UTF-8. XLSX cells are all text, typed-in ones too, so leading zeros and long numbers "
		"survive any spreadsheet program: the recommended format. A run without failed rows gives the header "
		"row alone.", "headers", headers_for(200, OP_AUTH),
		"content", "text/csv", "schema", "type", "string", "format", "binary",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "schema", "type", "string",
		"format", "binary");
	json_t *h = json_object_get(ok, "headers");
	json_object_set_new(h, "Content-Disposition", header("`attachment` with the file name "
		"`<upload name>-failed-rows.csv` (or `.xlsx`).", oa_type("string"), true));
	json_object_set_new(h, "X-Failed-Rows", header("How many failed rows the file holds.", oa_type("integer"),
						       true));
	json_t *r = json_object();
	json_object_set_new(r, "200", ok);
	add_problems(r, "NOT_FOUND INVALID_REQUEST RUN_NOT_TERMINAL NO_ROW_RESULTS RESULTS_EXPIRED UPLOAD_EXPIRED",
		     OP_AUTH | OP_NO_BODY);
	json_t *fmt = in_param("format", "query", false, "`csv` or `xlsx`; left out, the upload's own format. "
			       "Anything else is 400 INVALID_REQUEST.",
			       json_pack("{s:s,s:[s,s]}", "type", "string", "enum", "csv", "xlsx"));
	return operation("getImportRunFailedRows", "Imports", "Download the failed rows to fix",
		"Fix the cells named in the `errors` column and push the file again: a last column named `errors` "
		"is left out of the column shape and mapping, so the file imports under the original file's "
		"mapping without review, and its own fix-up replaces that column instead of adding a second. "
		"Cells of rows wider than the header keep their own columns (blank headers) before `errors`. In "
		"CSV, cells that a spreadsheet would run as a formula (text starting with = + - @, tab or CR, "
		"not a number) get a leading apostrophe; a spreadsheet that saves the file keeps it, and the "
		"CSV reader takes it off again (an apostrophe followed by one of those characters), so the "
		"original text imports; the XLSX reader takes the same guard off a cell, for a CSV fix-up saved "
		"as .xlsx. 409 RUN_NOT_TERMINAL before the run is terminal; 409 "
		"NO_ROW_RESULTS for a FAILED or CANCELLED run; 410 RESULTS_EXPIRED or UPLOAD_EXPIRED once retention "
		"deleted the results or the stored upload it is built from.", json_pack("[o,o]", param("RunId"), fmt),
		r);
}

