/* components.schemas of the OpenAPI document: every body the API sends,
 * written once.  Code enums come from the code table, run states from the
 * state table, and JobsRow from the jobs schema table, so none of them can
 * drift from the code that emits them. */
#include "openapi_schemas.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/codes.h"
#include "base/ids.h"
#include "import/corrections.h"
#include "model/run_state.h"
#include "model/schema.h"
#include "store/webhooks.h"

/* ---- small builders ---- */

json_t *oa_ref_to(const char *section, const char *name)
{
	char r[160];
	snprintf(r, sizeof r, "#/components/%s/%s", section, name);
	return json_pack("{s:s}", "$ref", r);
}

json_t *oa_ref(const char *name)
{
	return oa_ref_to("schemas", name);
}

json_t *oa_type(const char *type)
{
	return json_pack("{s:s}", "type", type);
}

json_t *oa_nullable(const char *type)
{
	return json_pack("{s:[s,s]}", "type", type, "null");
}

json_t *oa_with(json_t *schema, const char *key, json_t *value)
{
	json_object_set_new(schema, key, value);
	return schema;
}

json_t *oa_withs(json_t *schema, const char *key, const char *value)
{
	return oa_with(schema, key, json_string(value));
}

bool oa_has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; p && *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n == wl && !memcmp(p, word, n))
			return true;
		p += n;
	}
	return false;
}

json_t *oa_words(const char *list)
{
	json_t *a = json_array();
	for (const char *p = list; p && *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n)
			json_array_append_new(a, json_stringn(p, n));
		p += n;
	}
	return a;
}

static json_t *desc(json_t *schema, const char *text)
{
	return oa_withs(schema, "description", text);
}

static json_t *const_str(const char *value)
{
	return json_pack("{s:s,s:s}", "type", "string", "const", value);
}

static json_t *str_enum(const char *words)
{
	return oa_with(oa_type("string"), "enum", oa_words(words));
}

/* A string of at most max characters, nullable or not. */
static json_t *text(size_t max, bool nullable)
{
	json_t *s = nullable ? oa_nullable("string") : oa_type("string");
	return max ? oa_with(s, "maxLength", json_integer((json_int_t)max)) : s;
}

/* An id of the form prefix_ + 22 base62 characters. */
static json_t *id_schema(const char *prefix, bool nullable)
{
	char pat[64];
	snprintf(pat, sizeof pat, "^%s_[0-9A-Za-z]{%d}$", prefix, ID_RANDOM_CHARS);
	return oa_withs(nullable ? oa_nullable("string") : oa_type("string"), "pattern", pat);
}

static json_t *count(const char *what)
{
	return desc(oa_with(oa_type("integer"), "minimum", json_integer(0)), what);
}

/* {"type":"object","description":d,"required":[...],"properties":{...}}.
 * The variadic part is (name, schema) pairs ending with NULL; schemas are
 * stolen.  Every word of required must name a property. */
static json_t *object_of(const char *d, const char *required, ...)
{
	json_t *props = json_object();
	va_list ap;
	va_start(ap, required);
	for (const char *k; (k = va_arg(ap, const char *));)
		json_object_set_new(props, k, va_arg(ap, json_t *));
	va_end(ap);
	json_t *o = oa_type("object");
	if (d)
		desc(o, d);
	json_t *req = oa_words(required);
	size_t i;
	json_t *v;
	json_array_foreach(req, i, v)
		assert(json_object_get(props, json_string_value(v)));
	oa_with(o, "required", req);
	return oa_with(o, "properties", props);
}

static json_t *closed(json_t *object_schema)
{
	return oa_with(object_schema, "additionalProperties", json_false());
}

static json_t *array_of(json_t *items)
{
	return oa_with(oa_type("array"), "items", items);
}

/* ---- codes and states, from their tables ---- */

static int is_sync(enum code c) { return code_status(c) >= 400; }
static int is_parse(enum code c) { return code_kind(c) == CODE_KIND_PARSE; }
static int is_row_error(enum code c) { return code_kind(c) == CODE_KIND_ROW_ERROR; }
static int is_row_warning(enum code c) { return code_kind(c) == CODE_KIND_ROW_WARNING; }

static json_t *code_enum(int (*want)(enum code), const char *d)
{
	json_t *a = json_array();
	for (int i = 1; i < CODE__COUNT; i++)
		if (want((enum code)i))
			json_array_append_new(a, json_string(code_name((enum code)i)));
	return desc(oa_with(oa_type("string"), "enum", a), d);
}

static json_t *run_state(void)
{
	json_t *all = json_array(), *terminal = json_array();
	for (int s = 0; s < RUN__COUNT; s++) {
		json_array_append_new(all, json_string(run_state_name((enum run_state)s)));
		if (run_state_terminal((enum run_state)s))
			json_array_append_new(terminal, json_string(run_state_name((enum run_state)s)));
	}
	json_t *o = desc(oa_with(oa_type("string"), "enum", all), "State of an import run. QUEUED and RUNNING "
			 "are non-terminal; the states in x-terminal-states are final. There is no COMPLETED state.");
	return oa_with(o, "x-terminal-states", terminal);
}

/* ---- problems ---- */

static json_t *problem(void)
{
	return object_of("RFC 7807 problem body (application/problem+json). Clients branch on `code`, never on "
		"`detail`.", "type title status detail instance code requestId docUrl",
		"type", desc(oa_withs(oa_type("string"), "format", "uri"), "Error reference URL: "
			     "{docs_url}/api/errors/<CODE>, a page the service itself serves."),
		"title", desc(oa_type("string"), "HTTP reason phrase of status."),
		"status", desc(oa_type("integer"), "HTTP status of the response."),
		"detail", desc(oa_type("string"), "Human-readable explanation; its text may change."),
		"instance", desc(oa_type("string"), "The request path."),
		"code", code_enum(is_sync, "Stable wire code (permanent for v1)."),
		"requestId", desc(oa_withs(oa_type("string"), "pattern", "^req_[0-9A-Za-z]+$"),
				  "Same as the response's X-Request-Id header."),
		"docUrl", desc(oa_withs(oa_type("string"), "format", "uri"), "Same as type."),
		NULL);
}

static json_t *import_in_progress_problem(void)
{
	json_t *extra = object_of(NULL, "code existingRunUrl",
		"code", const_str(code_name(CODE_IMPORT_IN_PROGRESS)),
		"existingRunUrl", desc(oa_withs(oa_type("string"), "pattern", "^/api/v1/imports/runs/run_"),
			"Path of the run already importing this file (prefix it with the base address); poll it "
			"instead of pushing again."),
		NULL);
	return json_pack("{s:s,s:[o,o]}", "description", "Problem body of IMPORT_IN_PROGRESS: the envelope plus "
			 "existingRunUrl.", "allOf", oa_ref("Problem"), extra);
}

/* ---- import runs ---- */

static json_t *next_action(void)
{
	return object_of("Present on a QUEUED run staged for a one-time column-mapping confirmation by a person in "
		"the web application. Stop polling when it appears.", "type url expiresAt",
		"type", const_str("review_in_app"),
		"url", desc(oa_withs(oa_type("string"), "format", "uri"), "Deep link (under {app_url}) to the "
			    "mapping confirmation screen."),
		"expiresAt", desc(oa_ref("Timestamp"), "72 hours after the run was created; unconfirmed, the run "
				  "then ends FAILED with STAGING_EXPIRED."),
		NULL);
}

static json_t *run_error(void)
{
	return object_of("Why a FAILED run could not produce per-row results (present on FAILED runs only).",
		"code message", "code", oa_ref("ParseErrorCode"),
		"message", desc(oa_type("string"), "What was wrong, in words; branch on code, not on this."),
		NULL);
}

static json_t *run_counts(void)
{
	return object_of("Rows per bucket; a committed row with warnings counts in succeeded and in warnings.",
		"succeeded warnings failed skipped",
		"succeeded", count("Rows whose Load was created or updated."),
		"warnings", count("Committed rows that carry warnings (also counted in succeeded)."),
		"failed", count("Rows validation rejected."),
		"skipped", count("No-op duplicate rows."),
		"notCommitted", count("Present only on an all-or-nothing run (commit: all) that ended FAILED with "
			"ROWS_FAILED: the rows it would otherwise have written. None was written."),
		NULL);
}

/* How far a RUNNING run has got (PRODUCT §16). */
static json_t *run_progress(void)
{
	return object_of("Present while the run is RUNNING: how far it has got, updated as each batch of rows "
		"commits (at least once a second; the run's ETag changes, so a long poll answers). A big file "
		"commits in batches of at most 5,000 rows; after a worker's crash the run resumes after its last "
		"committed batch.", "rowsDone rowsTotal rowsPerSecond",
		"rowsDone", count("Data rows read, checked and committed so far (failed and skipped rows too)."),
		"rowsTotal", desc(oa_with(oa_nullable("integer"), "minimum", json_integer(0)), "The file's data rows; "
			"null until they are counted (a file that fits one batch is never counted ahead)."),
		"rowsPerSecond", count("Rows per second of the current attempt; time left is "
			"(rowsTotal - rowsDone) / rowsPerSecond."),
		NULL);
}

/* Who made a run or a change (PRODUCT §15). */
static json_t *created_by(void)
{
	json_t *o = object_of("Who made the run: an API token (`type: token`, its key id and name) or a person "
		"in the web application (`type: user`, their id and email). null on runs made before this was "
		"kept.", "type id",
		"type", str_enum("token user"),
		"id", desc(oa_type("string"), "The API key's id (key_…) or the user's id (usr_…)."),
		"name", desc(oa_type("string"), "type token: the token's name."),
		"email", desc(oa_type("string"), "type user: the person's email address."),
		NULL);
	json_object_set_new(o, "type", json_pack("[s,s]", "object", "null"));
	return o;
}

static json_t *run_file(void)
{
	json_t *enc = oa_with(oa_nullable("string"), "enum", json_pack("[s,s,s,s,s,s,s,n]", "utf-8", "utf-8-bom",
								      "utf-16le", "utf-16be", "windows-1252", "macintosh",
								      "xlsx"));
	json_t *delim = oa_with(oa_nullable("string"), "enum", json_pack("[s,s,s,s,n]", ",", ";", "\t", "|"));
	json_t *row = oa_with(oa_nullable("integer"), "minimum", json_integer(1));
	json_t *sum = oa_with(oa_type("array"), "items", json_pack("{s:s,s:i}", "type", "integer", "minimum", 1));
	return object_of("What the reader found in the file (PRODUCT §4, §14). encoding, delimiter, headerRow "
		"and sheet are null until the file is parsed; delimiter is null for XLSX.",
		"format encoding delimiter headerRow sheet sheets summaryRows",
		"format", desc(str_enum("csv xlsx"), "Judged by the file's bytes, not its name or part type."),
		"encoding", desc(enc, "Text encoding of a CSV (text that is not valid UTF-8 is read as "
			"Windows-1252; UTF-16 with a byte-order mark, Excel's \"Unicode Text\", as utf-16le or "
			"utf-16be), or xlsx."),
		"delimiter", desc(delim, "CSV delimiter detected from the header line. In a ;-separated file numbers "
			"follow the European convention (1.234,56)."),
		"headerRow", desc(row, "The header's row number as the spreadsheet shows it: detected below any "
			"title rows, or set by ?headerRow."),
		"sheet", desc(oa_nullable("string"), "The worksheet read (XLSX; null for CSV)."),
		"sheets", desc(oa_with(oa_type("array"), "items", oa_type("string")), "The workbook's visible "
			"worksheets in order (empty for CSV): another can be chosen with ?sheet."),
		"summaryRows", desc(sum, "Row numbers of the summary rows at the end of the data (Total, Grand "
			"Total, Subtotal, Sum, or numbers only under numeric columns), ignored like blank rows."),
		NULL);
}

static json_t *import_run(void)
{
	return object_of("An import run (`object: import_run`). The upload returns it QUEUED; poll it until its "
		"state is terminal or nextAction is present, then read the results.",
		"id object kind state dryRun counts fileName rowCount file createdAt startedAt finishedAt "
		"uploadExpiresAt resultsExpiresAt createdBy commit revertOf",
		"id", desc(id_schema("run", false), "The run id: `{id}` (the SPEC's `{transactionId}`) in run paths."),
		"object", const_str("import_run"),
		"kind", desc(str_enum("jobs"), "The import kind; `jobs` is the only one in v1."),
		"state", oa_ref("RunState"),
		"dryRun", desc(oa_type("boolean"), "True when the upload sent `Service-Dry-Run: true`: the run "
			       "produced every result without writing anything."),
		"correctionOf", desc(id_schema("run", false), "Present on a run of corrected rows (POST "
				     "/api/v1/imports/runs/{id}/corrections, or Import corrected rows in the web app): "
				     "the run whose failed rows it corrects. Its results report the rows' rowIndex in "
				     "the original file."),
		"nextAction", oa_ref("NextAction"),
		"error", oa_ref("RunError"),
		"counts", oa_ref("RunCounts"),
		"progress", oa_ref("RunProgress"),
		"fileName", desc(oa_type("string"), "File name from the part's Content-Disposition (`upload` when "
				 "none was sent)."),
		"rowCount", desc(oa_nullable("integer"), "Data rows read; null until the file is parsed and on "
				 "FAILED runs."),
		"file", oa_ref("RunFile"),
		"createdBy", oa_ref("CreatedBy"),
		"commit", desc(str_enum("all partial"), "The commit policy (PRODUCT §15): `all` writes nothing when "
			       "a row fails (the run ends FAILED with ROWS_FAILED); `partial` writes the rows that "
			       "pass. Set by ?commit, else the organization's default (Settings → Imports)."),
		"revertOf", desc(id_schema("run", true), "On a run that undoes another (POST "
				 "/api/v1/imports/runs/{id}/revert): that run's id; else null."),
		"revert", object_of("On a finished revert run: what it undid (or, dry, would undo).",
			"removed restored changedSince unusedRemoved",
			"removed", count("Loads removed (the run had created them)."),
			"restored", count("Loads and Projects given their prior values back (or put back)."),
			"changedSince", count("Records a later run changed since: they stay (skipped, changed_since)."),
			"unusedRemoved", count("Projects and locations the run created that nothing uses any more, "
				"removed."), NULL),
		"createdAt", oa_ref("Timestamp"),
		"startedAt", desc(oa_ref("TimestampOrNull"), "When a worker first claimed the run; null before."),
		"finishedAt", desc(oa_ref("TimestampOrNull"), "When the run reached a terminal state; null before."),
		"uploadExpiresAt", desc(oa_ref("TimestampOrNull"), "When retention deletes (or deleted) the stored "
				       "upload: finishedAt + LOADLINE_KEEP_UPLOADS (30 days by default); null before the run "
				       "is terminal or when uploads are kept forever. From then on the fix-up file answers "
				       "410 UPLOAD_EXPIRED."),
		"resultsExpiresAt", desc(oa_ref("TimestampOrNull"), "When retention deletes (or deleted) the per-row "
					"results: finishedAt + LOADLINE_KEEP_RESULTS (90 days by default); null before the "
					"run is terminal or when results are kept forever. From then on results and the "
					"fix-up file answer 410 RESULTS_EXPIRED; the run and its counts stay."),
		NULL);
}

/* The list envelope around items of schema item. */
static json_t *list_of(const char *item, const char *d);

/* One entry of a Load's history (PRODUCT §15). */
static json_t *load_change(void)
{
	json_t *fc = object_of("A field's value before and after the change (as GET /api/v1/loads/{id} shows "
		"it; null when unset or when the Load did not exist).", "from to",
		"from", desc(json_pack("{s:[s,s,s]}", "type", "string", "number", "null"), "Before."),
		"to", desc(json_pack("{s:[s,s,s]}", "type", "string", "number", "null"), "After."), NULL);
	return object_of("A change of a Load: the run that made it and the fields it changed.",
		"object runId action at createdBy changes",
		"object", const_str("load_change"),
		"runId", id_schema("run", false),
		"action", desc(str_enum("created updated reverted"), "created: the run created the Load; updated: "
			       "it changed fields; reverted: a revert run (revertOf) removed, restored or re-applied it."),
		"at", oa_ref("Timestamp"),
		"createdBy", oa_ref("CreatedBy"),
		"changes", desc(oa_with(oa_type("object"), "additionalProperties", fc), "Per field name "
				"(loadDate, material, truckType, ticketNo, weight, rate, notes, pickupLocationId, "
				"dropoffLocationId): from and to."),
		NULL);
}

static json_t *list_of(const char *item, const char *d)
{
	return object_of(d, "object data nextPageUrl",
		"object", const_str("list"),
		"data", array_of(oa_ref(item)),
		"nextPageUrl", desc(oa_nullable("string"), "Path and query of the next page (prefix it with the base "
				    "address and follow it as is); null on the last page."),
		NULL);
}

/* ---- per-row results ---- */

static json_t *row_source(void)
{
	return object_of("Echo of the row's natural keys as read (trimmed; at most 200 characters, then …). "
		"A key whose cell is empty or unmapped is null.", "loadNo jobCode",
		"loadNo", text(201, true), "jobCode", text(201, true),
		"projectName", desc(text(201, false), "Present when the row has a project name."),
		NULL);
}

static json_t *row_diag(const char *code_schema, const char *d)
{
	json_t *field = json_pack("{s:[o,{s:s}],s:s}", "oneOf", oa_ref("JobsField"), "type", "null",
				  "description", "The schema field; null when the entry is about the row as a whole.");
	return object_of(d, "code field column cell value message docUrl",
		"code", oa_ref(code_schema),
		"field", field,
		"column", desc(oa_nullable("string"), "The file's header text for the field; null when unmapped."),
		"cell", desc(oa_withs(oa_nullable("string"), "pattern", "^[A-Z]+[0-9]+$"), "A1 reference of the "
			     "cell (e.g. C12); null when the field is unmapped."),
		"value", desc(text(201, true), "The raw cell text as read (at most 200 characters, then …)."),
		"message", desc(oa_type("string"), "One sentence saying what is wrong and what to do."),
		"docUrl", desc(oa_withs(oa_type("string"), "format", "uri"), "{docs_url}/api/errors/<CODE>."),
		NULL);
}

static json_t *row_index(void)
{
	return desc(oa_with(oa_type("integer"), "minimum", json_integer(2)), "The row's number as a spreadsheet "
		    "shows it: the header row is 1 and ignored blank rows keep their numbers.");
}

static json_t *record_ids(void)
{
	return desc(array_of(oa_type("string")), "The Load's id first, then ids of Projects and Locations this "
		    "row created or updated; [] in a dry run.");
}

static json_t *succeeded_row(void)
{
	return closed(object_of("An entry of the succeeded bucket: the Load was created or updated.",
		"rowIndex source createdRecordIds", "rowIndex", row_index(), "source", oa_ref("RowSource"),
		"createdRecordIds", record_ids(), NULL));
}

static json_t *warnings_row(void)
{
	return closed(object_of("An entry of the warnings bucket: the row committed (it is in succeeded too) "
		"but something was normalized or resolved in a way worth flagging.",
		"rowIndex source warnings createdRecordIds", "rowIndex", row_index(), "source", oa_ref("RowSource"),
		"warnings", oa_with(array_of(oa_ref("RowWarning")), "minItems", json_integer(1)),
		"createdRecordIds", record_ids(), NULL));
}

static json_t *failed_row(void)
{
	return closed(object_of("An entry of the failed bucket: validation rejected the row and nothing of it "
		"was written.", "rowIndex source errors", "rowIndex", row_index(), "source", oa_ref("RowSource"),
		"errors", oa_with(array_of(oa_ref("RowError")), "minItems", json_integer(1)), NULL));
}

static json_t *skipped_row(void)
{
	json_t *reason = desc(str_enum("duplicate_of_prior_import duplicate_in_file changed_since"),
		"duplicate_of_prior_import: writing the row would change nothing (same natural key and content as "
		"the last import of it, its names and locations resolving to the same records, its Project "
		"unchanged); duplicate_in_file: same key and content as an earlier row of this file; changed_since "
		"(revert runs only): a later run changed the record since, so the revert left it as it is.");
	return closed(object_of("An entry of the skipped bucket: a no-op duplicate, or a record a revert left "
		"as it is.", "rowIndex source reason",
		"rowIndex", row_index(), "source", oa_ref("RowSource"), "reason", reason,
		"laterRunId", desc(id_schema("run", false), "changed_since: the run that changed the record since."),
		NULL));
}

static json_t *row_result(void)
{
	return json_pack("{s:s,s:[o,o,o,o]}", "description", "A per-row result; its shape is that of the bucket "
		"it was read from.", "oneOf", oa_ref("SucceededRow"), oa_ref("WarningsRow"), oa_ref("FailedRow"),
		oa_ref("SkippedRow"));
}

/* ---- records ---- */

/* PRODUCT §11 "Problems, grouped". */
static json_t *run_problem(void)
{
	json_t *field = json_pack("{s:[o,{s:s}],s:s}", "oneOf", oa_ref("JobsField"), "type", "null",
				  "description", "The schema field; null when the problem is about the row as a whole.");
	json_t *code = json_pack("{s:[o,o],s:s}", "oneOf", oa_ref("RowErrorCode"), oa_ref("RowWarningCode"),
				 "description", "The per-row code the group's rows share.");
	json_t *fix = object_of("Present only when the product can fix the problem in place: a LOOKUP_MISS of "
		"customer or branch is fixed by creating the record (POST /api/v1/customers or /api/v1/branches with "
		"this name, or the button in the group on the run page); then import the file again (POST "
		"/api/v1/imports/runs/{id}/rerun).", "type name",
		"type", str_enum("create_customer create_branch"),
		"name", desc(text(200, false), "The name to create: the cell value trimmed."), NULL);
	return closed(object_of("The rows of a run that share one problem: the same code, field and value "
		"(compared exactly as stored, so values that differ only in case or surrounding spaces are separate "
		"groups; UNIT_NORMALIZED groups by code and field alone, its value null).",
		"object code severity field column value rowCount rowIndexes message docUrl",
		"object", const_str("run_problem"),
		"code", code,
		"severity", desc(str_enum("error warning"), "error: the rows failed (an entry of their errors[]); "
				 "warning: the rows committed (warnings[])."),
		"field", field,
		"column", desc(oa_nullable("string"), "The file's header text for the field; null when unmapped."),
		"value", desc(text(200, true), "The raw cell text as read (at most 200 characters); null when "
			      "the problem has no cell value."),
		"rowCount", desc(oa_with(oa_type("integer"), "minimum", json_integer(1)), "How many rows have it."),
		"rowIndexes", desc(oa_with(array_of(row_index()), "maxItems", json_integer(20)), "The first 20 of "
				   "those rows (rowIndex, ascending)."),
		"message", desc(oa_type("string"), "The message of the group's first row."),
		"docUrl", desc(oa_withs(oa_type("string"), "format", "uri"), "{docs_url}/api/errors/<CODE>."),
		"fix", fix,
		NULL));
}

static json_t *load(void)
{
	return object_of("A load (`object: load`) as the last import of it wrote it.",
		"id object projectId jobCode loadNo loadDate material truckType ticketNo weight weightUnit rate "
		"notes pickupLocationId dropoffLocationId distanceMiles createdAt updatedAt",
		"id", id_schema("load", false), "object", const_str("load"),
		"projectId", id_schema("prj", false),
		"jobCode", text(0, false), "loadNo", text(0, false),
		"loadDate", desc(oa_withs(oa_type("string"), "format", "date"), "YYYY-MM-DD."),
		"material", text(0, true), "truckType", text(0, true), "ticketNo", text(0, true),
		"weight", desc(oa_nullable("number"), "Pounds, to 0.01 lb."),
		"weightUnit", desc(const_str("lb"), "Always lb: weights are stored in pounds."),
		"rate", desc(oa_withs(oa_nullable("string"), "pattern", "^-?[0-9]+\\.[0-9]{2}$"),
			     "US dollars as a decimal string with two decimals (1250.00)."),
		"notes", text(0, true),
		"pickupLocationId", id_schema("loc", true), "dropoffLocationId", id_schema("loc", true),
		"distanceMiles", desc(oa_nullable("number"), "Great-circle miles (to 0.1) between the pickup and "
				      "dropoff locations when both have coordinates; else null. Not a driving distance."),
		"createdAt", oa_ref("Timestamp"), "updatedAt", oa_ref("Timestamp"),
		NULL);
}

static json_t *project(void)
{
	return object_of("A project (`object: project`); ids are null where unset.",
		"id object jobCode name customerId branchId projectManagerId pickupLocationId dropoffLocationId "
		"createdAt updatedAt",
		"id", id_schema("prj", false), "object", const_str("project"),
		"jobCode", text(0, false), "name", text(0, false),
		"customerId", id_schema("cus", true), "branchId", id_schema("brn", true),
		"projectManagerId", id_schema("usr", true),
		"pickupLocationId", id_schema("loc", true), "dropoffLocationId", id_schema("loc", true),
		"createdAt", oa_ref("Timestamp"), "updatedAt", oa_ref("Timestamp"),
		NULL);
}

static json_t *location(void)
{
	return object_of("A saved location (`object: location`); name is null for an unnamed one.",
		"id object name street city state zip latitude longitude geocode createdAt",
		"id", id_schema("loc", false), "object", const_str("location"),
		"name", text(0, true), "street", text(0, true), "city", text(0, true),
		"state", desc(text(0, true), "USPS two-letter code."),
		"zip", desc(oa_withs(oa_nullable("string"), "pattern", "^[0-9]{5}(-[0-9]{4})?$"), "ZIP or ZIP+4."),
		"latitude", desc(oa_nullable("number"), "Degrees north (WGS 84), or null when the address could not "
				 "be placed."),
		"longitude", desc(oa_nullable("number"), "Degrees east (WGS 84; negative in the US), or null."),
		"geocode", object_of("How the coordinates were found. Saved locations that an import reuses keep "
				     "theirs; they are never re-geocoded.",
			"precision source",
			"precision", desc(str_enum("zip street none"), "zip: the ZIP code's centroid (the offline "
					  "US ZIP gazetteer); none: not placed."),
			"source", desc(oa_nullable("string"), "The geocoder that tried (us-zip-gazetteer), or null "
				       "for a location saved before geocoding existed."),
			NULL),
		"createdAt", oa_ref("Timestamp"),
		NULL);
}

/* Customers and branches: reference data rows are matched against. */
static json_t *reference(const char *noun, const char *prefix)
{
	char d[200];
	snprintf(d, sizeof d, "A %s (`object: %s`) that rows' `%s` column is matched against by name.", noun, noun,
		 noun);
	return object_of(d, "id object name createdAt",
		"id", id_schema(prefix, false), "object", const_str(noun),
		"name", desc(text(200, false), "As entered; matched ignoring case and spaces."),
		"createdAt", oa_ref("Timestamp"),
		NULL);
}

/* ---- identity ---- */

static json_t *organization(void)
{
	return object_of(NULL, "id object name createdAt",
		"id", id_schema("org", false), "object", const_str("organization"),
		"name", oa_type("string"), "createdAt", oa_ref("Timestamp"), NULL);
}

static json_t *api_key(void)
{
	return object_of("The API key making the request and the organization it is bound to.",
		"id object name prefix createdAt lastUsedAt organization",
		"id", id_schema("key", false), "object", const_str("api_key"),
		"name", desc(oa_type("string"), "The key's label (empty when it has none)."),
		"prefix", desc(oa_withs(oa_type("string"), "pattern", "^ll_live_"), "The first characters of "
			       "the token, for recognising it; the token itself is never shown again."),
		"createdAt", oa_ref("Timestamp"),
		"lastUsedAt", desc(oa_ref("TimestampOrNull"), "Null when the key was never used before."),
		"organization", oa_ref("Organization"), NULL);
}

/* ---- the jobs file ---- */

static const char *type_text(enum field_type t)
{
	switch (t) {
	case FTYPE_TEXT: return "Text, trimmed.";
	case FTYPE_DATE: return "Date: YYYY-MM-DD, M/D/YYYY, M/D/YY, or an XLSX date cell.";
	case FTYPE_WEIGHT: return "The unit is in the cell (12.5 t) or in weightUnit; a bare number is pounds. lb/lbs/#; "
		"ton/tons/tn = 2,000 lb; t/tonne/mt = 2,204.62 lb; kg = 2.20462 lb. A conversion warns "
		"UNIT_NORMALIZED; an unknown unit is TYPE_MISMATCH.";
	case FTYPE_UNIT: return "A weight unit word (lb, ton, t, kg, ...) for weight cells that carry none.";
	case FTYPE_MONEY: return "Decimal amount in US dollars; $1,250.00 and 1250 both read.";
	case FTYPE_STATE: return "Stored as the two-letter USPS code.";
	case FTYPE_ZIP: return "5 or 9 digits; leading zeros a spreadsheet dropped are restored.";
	}
	return "";
}

static json_t *jobs_column(enum field f)
{
	const struct field_info *fi = field_info(f);
	char d[512];
	snprintf(d, sizeof d, "%s. %s", fi->label, type_text(fi->type));
	json_t *s = desc(oa_with(oa_type("string"), "maxLength", json_integer((json_int_t)fi->max_chars)), d);
	oa_withs(s, "x-field-type", field_type_name(fi->type));
	if (fi->group != GROUP_NONE)
		oa_withs(s, "x-address-group", group_prefix(fi->group));
	return s;
}

static json_t *jobs_row(void)
{
	json_t *props = json_object(), *req = json_array();
	for (int f = 0; f < FIELD__COUNT; f++) {
		json_object_set_new(props, field_name((enum field)f), jobs_column((enum field)f));
		if (field_required((enum field)f))
			json_array_append_new(req, json_string(field_name((enum field)f)));
	}
	json_t *o = desc(oa_type("object"), "One data row of a jobs file (POST /api/v1/imports/jobs), keyed by "
		"column. The first non-blank row is the header; a header cell maps to the field whose name it equals "
		"(ignoring case and surrounding whitespace); other columns and blank headers are ignored. Each "
		"row becomes one Load; a new jobCode creates its Project. Natural key: (jobCode, loadNo). Lengths "
		"are in characters. Errors: MISSING_REQUIRED (a required field empty or unmapped), TYPE_MISMATCH "
		"(a value that does not parse, or text over its length), UNIQUE_VIOLATION.");
	oa_with(o, "required", req);
	oa_with(o, "properties", props);
	oa_with(o, "additionalProperties", json_true());
	return oa_with(o, "x-natural-key", json_pack("[s,s]", field_name(FIELD_JOB_CODE), field_name(FIELD_LOAD_NO)));
}

static json_t *jobs_field(void)
{
	json_t *a = json_array();
	for (int f = 0; f < FIELD__COUNT; f++)
		json_array_append_new(a, json_string(field_name((enum field)f)));
	return desc(oa_with(oa_type("string"), "enum", a), "A field of the jobs schema (a property of JobsRow).");
}

/* ---- webhooks (PRODUCT §12) ---- */

static json_t *event_types(void)
{
	return desc(str_enum("import_run.staged import_run.completed"), "import_run.staged: a run waits for "
		    "mapping review (its nextAction is present). import_run.completed: a run reached a terminal state.");
}

static json_t *webhook_endpoint(bool with_secret)
{
	json_t *o = object_of(with_secret ? "The new endpoint, with its signing secret: the only time the secret "
		"is shown; store it now." : "A webhook endpoint (`object: webhook_endpoint`). Its secret is never "
		"shown after its creation.",
		"id object url events status createdAt disabledAt failingSince previousSecretExpiresAt",
		"id", id_schema("whe", false),
		"object", const_str("webhook_endpoint"),
		"url", desc(text(WEBHOOK_URL_MAX, false), "Where events are POSTed: https:// (http:// only when the "
			    "operator set LOADLINE_WEBHOOK_ALLOW_HTTP=1); it must resolve to a public address."),
		"events", array_of(event_types()),
		"status", desc(str_enum("enabled disabled"), "disabled: every delivery failed for 3 days (the "
			       "organization's admins were mailed); nothing more is sent to it."),
		"createdAt", oa_ref("Timestamp"),
		"disabledAt", oa_ref("TimestampOrNull"),
		"failingSince", desc(oa_ref("TimestampOrNull"), "The first failed delivery since the last success; "
				     "null while deliveries succeed."),
		"previousSecretExpiresAt", desc(oa_ref("TimestampOrNull"), "After a rotation, until when the "
			"secret it replaced still signs too (a second `v1,` entry in webhook-signature); null "
			"otherwise."),
		NULL);
	if (with_secret)
		json_array_append_new(json_object_get(o, "required"), json_string("secret"));
	if (with_secret)
		json_object_set_new(json_object_get(o, "properties"), "secret", desc(oa_withs(oa_withs(oa_type("string"),
			"pattern", "^whsec_[A-Za-z0-9+/]{32,}={0,2}$"), "example", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
			"The signing secret: whsec_ + base64 of 24 random bytes. Verify each delivery's "
			"webhook-signature with it (Standard Webhooks)."));
	return o;
}

static json_t *webhook_attempt(void)
{
	return object_of("One delivery attempt (`object: webhook_attempt`).",
		"id object endpointId eventId type attempt at status durationMs result error responseBody",
		"id", desc(id_schema("wha", false), "The attempt's id: resend it with POST "
			   "/api/v1/webhook-attempts/{id}/resend."),
		"object", const_str("webhook_attempt"),
		"endpointId", id_schema("whe", false),
		"eventId", desc(id_schema("evt", false), "The event sent (the webhook-id header); its body is the "
				"WebhookEvent of that id, the same on every attempt."),
		"type", desc(str_enum("import_run.staged import_run.completed webhook.test"), "The event's type."),
		"attempt", desc(oa_with(oa_type("integer"), "minimum", json_integer(1)), "1 for the first attempt "
				"of this event to this endpoint, then 2, 3…"),
		"at", oa_ref("Timestamp"),
		"status", desc(oa_nullable("integer"), "The receiver's HTTP status; null when it never answered."),
		"durationMs", count("From the request to the answer or the failure, in milliseconds."),
		"result", desc(str_enum("delivered failed"), "delivered: a 2xx within 10 s."),
		"error", desc(oa_nullable("string"), "Why the attempt failed (e.g. \"HTTP 500\", a time-out); null "
			      "when it was delivered."),
		"responseBody", desc(oa_withs(oa_with(oa_nullable("string"), "maxLength",
			json_integer(WEBHOOK_RESPONSE_MAX)), "example", "{\"received\": true}"), "The first 1 KB of "
			"the receiver's answer, control characters as spaces; null when it sent none."),
		NULL);
}

static json_t *webhook_event(void)
{
	return object_of("The body of every delivery (Standard Webhooks' payload shape). The same event, with the "
		"same id (the webhook-id header), is sent again until the receiver answers 2xx within 10 s.",
		"id type createdAt data",
		"id", desc(id_schema("evt", false), "The event id; also the webhook-id header, the same on every "
			   "retry: deduplicate on it."),
		"type", event_types(),
		"createdAt", desc(oa_ref("Timestamp"), "When the change happened."),
		"data", object_of(NULL, "object", "object", desc(oa_ref("ImportRun"), "The run exactly as GET "
				  "/api/v1/imports/runs/{id} showed it when the event was first sent."), NULL),
		NULL);
}

/* ---- the whole section ---- */

static void put(json_t *s, const char *name, json_t *schema)
{
	json_object_set_new(s, name, schema);
}

/* The webhook endpoints' schemas (PRODUCT §12, §17). */
static void webhook_schemas(json_t *s)
{
	put(s, "WebhookEndpoint", webhook_endpoint(false));
	put(s, "WebhookEndpointCreated", webhook_endpoint(true));
	put(s, "WebhookEndpointList", list_of("WebhookEndpoint", "The organization's webhook endpoints, oldest "
					      "first (one page: nextPageUrl is null)."));
	put(s, "WebhookAttempt", webhook_attempt());
	put(s, "WebhookAttemptList", list_of("WebhookAttempt", "A page of the endpoint's delivery attempts, newest "
					     "first."));
	put(s, "WebhookEndpointPatch", closed(object_of("What to change; members left out stay as they are.", "",
		"url", desc(text(WEBHOOK_URL_MAX, false), "A new https:// URL, validated as when the endpoint is "
			    "added (400 INVALID_WEBHOOK_URL)."),
		"events", desc(oa_with(array_of(event_types()), "minItems", json_integer(1)), "The event types to "
			       "send from now on (400 INVALID_WEBHOOK_EVENTS when empty or unknown)."),
		"enabled", desc(oa_type("boolean"), "true re-enables a disabled endpoint (a fresh 3-day retry "
				"window); false disables it and drops its queued deliveries."),
		NULL)));
	put(s, "WebhookEndpointInput", closed(object_of("A new webhook endpoint.", "url events",
		"url", desc(text(WEBHOOK_URL_MAX, false), "https:// URL of your receiver; anything else is 400 "
			    "INVALID_WEBHOOK_URL."),
		"events", desc(oa_with(array_of(event_types()), "minItems", json_integer(1)), "The event types to "
			       "send; an empty or unknown list is 400 INVALID_WEBHOOK_EVENTS."),
		NULL)));
}

json_t *openapi_schemas(void)
{
	json_t *s = json_object();
	put(s, "Problem", problem());
	put(s, "ImportInProgressProblem", import_in_progress_problem());
	put(s, "ParseErrorCode", code_enum(is_parse, "error.code of a FAILED run: the file could not be read, or "
					   "the run timed out or its staging expired."));
	put(s, "RowErrorCode", code_enum(is_row_error, "Per-row error code (errors[].code): the row was not written."));
	put(s, "RowWarningCode", code_enum(is_row_warning, "Per-row warning code (warnings[].code): the row committed."));
	put(s, "Timestamp", desc(json_pack("{s:s,s:s,s:s,s:s}", "type", "string", "format", "date-time", "pattern",
		"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$", "example",
		"2026-11-21T15:04:05.123Z"), "ISO 8601 UTC with milliseconds and Z."));
	put(s, "TimestampOrNull", desc(json_pack("{s:[s,s],s:s}", "type", "string", "null", "format", "date-time"),
				       "A Timestamp, or null when the moment has not happened."));
	put(s, "RunState", run_state());
	put(s, "NextAction", next_action());
	put(s, "RunError", run_error());
	put(s, "RunCounts", run_counts());
	put(s, "RunProgress", run_progress());
	put(s, "CreatedBy", created_by());
	put(s, "LoadChange", load_change());
	put(s, "LoadChangeList", list_of("LoadChange", "A Load's changes, newest first."));
	put(s, "RunFile", run_file());
	put(s, "ImportRun", import_run());
	put(s, "ImportRunList", list_of("ImportRun", "A page of import runs, newest first."));
	put(s, "RowSource", row_source());
	put(s, "RowError", row_diag("RowErrorCode", "An entry of errors[] of a failed row."));
	put(s, "RowWarning", row_diag("RowWarningCode", "An entry of warnings[] of a committed row."));
	put(s, "SucceededRow", succeeded_row());
	put(s, "WarningsRow", warnings_row());
	put(s, "FailedRow", failed_row());
	put(s, "SkippedRow", skipped_row());
	put(s, "RowResult", row_result());
	put(s, "RowResultList", list_of("RowResult", "A page of one bucket's per-row results, in rowIndex order."));
	put(s, "RunProblem", run_problem());
	put(s, "RunProblemList", list_of("RunProblem", "A page of a run's problems grouped by (code, field, value): "
		"errors before warnings, most rows first, ties by first appearance (the earlier first row, then the "
		"order in that row)."));
	put(s, "Load", load());
	put(s, "Project", project());
	put(s, "Location", location());
	put(s, "LocationList", list_of("Location", "A page of locations matching the search."));
	put(s, "Customer", reference("customer", "cus"));
	put(s, "CustomerList", list_of("Customer", "A page of customers matching the search, oldest first."));
	put(s, "Branch", reference("branch", "brn"));
	put(s, "BranchList", list_of("Branch", "A page of branches matching the search, oldest first."));
	put(s, "NameInput", object_of("The new record's name.", "name",
		"name", desc(text(200, false), "1 to 200 characters, not only spaces."), NULL));
	webhook_schemas(s);
	put(s, "CorrectionsInput", closed(object_of("Corrected failed rows of a run.", "rows",
		"rows", desc(oa_with(oa_with(array_of(closed(object_of(NULL, "rowIndex cells",
			"rowIndex", desc(oa_with(oa_type("integer"), "minimum", json_integer(1)), "A failed row's "
					 "rowIndex in the run's results (the row number in the original file)."),
			"cells", desc(oa_with(oa_with(oa_type("object"), "additionalProperties",
				text(CORRECTIONS_CELL_MAX, false)), "minProperties", json_integer(1)), "New cell "
				"texts by header text, exactly as in the file's header row; cells left out keep the "
				"file's text."), NULL))), "minItems", json_integer(1)), "maxItems",
			json_integer(CORRECTIONS_MAX_ROWS)), "The corrected rows, each once; the new run imports "
			"exactly these."), NULL)));
	put(s, "WebhookEvent", webhook_event());
	put(s, "Organization", organization());
	put(s, "ApiKey", api_key());
	put(s, "Health", object_of(NULL, "status", "status", str_enum("ok ready"), "warnings", desc(json_pack(
		"{s:s,s:{s:s}}", "type", "array", "items", "type", "string"), "/readyz only, when something works "
		"less than fully while the service is ready, e.g. no mail server configured (LOADLINE_SMTP_URL)."),
		NULL));
	put(s, "JobsField", jobs_field());
	put(s, "JobsRow", jobs_row());
	return s;
}
