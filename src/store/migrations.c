/* Versioned schema migrations.  Append only: a migration that has shipped is
 * never edited.  "@BLOB@" becomes BLOB (SQLite) or BYTEA (PostgreSQL); a
 * statement that starts with "@PG@" runs on PostgreSQL only. */
#include "migrations.h"

const struct migration migrations[] = {
	{1, "identity",
	 "CREATE TABLE orgs ("
	 "  id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE TABLE users ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id),"
	 "  email TEXT NOT NULL, email_key TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL,"
	 "  role TEXT NOT NULL CHECK (role IN ('admin','member')), created_at BIGINT NOT NULL);"
	 "CREATE INDEX users_org ON users(org_id);"
	 "CREATE TABLE api_keys ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  prefix TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,"
	 "  last_used_at BIGINT, revoked_at BIGINT);"
	 "CREATE INDEX api_keys_org ON api_keys(org_id);"
	 "CREATE TABLE login_links ("
	 "  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),"
	 "  created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT);"
	 "CREATE TABLE customers ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE INDEX customers_name ON customers(org_id, name_key);"
	 "CREATE TABLE branches ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL,"
	 "  name_key TEXT NOT NULL, created_at BIGINT NOT NULL);"
	 "CREATE INDEX branches_name ON branches(org_id, name_key);"
	 "CREATE TABLE locations ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id),"
	 "  name TEXT, name_key TEXT, street TEXT, city TEXT, state TEXT, zip TEXT,"
	 "  address_key TEXT, created_by_run TEXT, created_at BIGINT NOT NULL);"
	 "CREATE INDEX locations_name ON locations(org_id, name_key);"
	 "CREATE INDEX locations_address ON locations(org_id, address_key);"
	 "CREATE TABLE approvers ("
	 "  org_id TEXT NOT NULL REFERENCES orgs(id), email TEXT NOT NULL,"
	 "  PRIMARY KEY (org_id, email));"},
	{2, "runs and records",
	 "CREATE TABLE runs ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), kind TEXT NOT NULL,"
	 "  state TEXT NOT NULL, dry_run INTEGER NOT NULL, fingerprint TEXT NOT NULL,"
	 "  file_name TEXT NOT NULL, file_size BIGINT NOT NULL, file_format TEXT NOT NULL,"
	 "  file_encoding TEXT, file_delimiter TEXT, row_count INTEGER,"
	 "  error_code TEXT, error_message TEXT,"
	 "  n_succeeded INTEGER NOT NULL DEFAULT 0, n_warnings INTEGER NOT NULL DEFAULT 0,"
	 "  n_failed INTEGER NOT NULL DEFAULT 0, n_skipped INTEGER NOT NULL DEFAULT 0,"
	 "  staged INTEGER NOT NULL DEFAULT 0, shape_key TEXT, expires_at BIGINT,"
	 "  created_at BIGINT NOT NULL, started_at BIGINT, finished_at BIGINT, updated_at BIGINT NOT NULL,"
	 "  lease_owner TEXT, lease_until BIGINT, attempts INTEGER NOT NULL DEFAULT 0);"
	 "CREATE INDEX runs_org_created ON runs(org_id, created_at, id);"
	 "CREATE INDEX runs_state ON runs(state, created_at);"
	 /* The database itself refuses a second active run of the same file. */
	 "CREATE UNIQUE INDEX runs_active_file ON runs(org_id, fingerprint)"
	 "  WHERE state IN ('QUEUED','RUNNING');"
	 "CREATE TABLE run_files (run_id TEXT PRIMARY KEY REFERENCES runs(id), content @BLOB@ NOT NULL);"
	 "CREATE TABLE run_results ("
	 "  run_id TEXT NOT NULL REFERENCES runs(id), bucket TEXT NOT NULL, row_index INTEGER NOT NULL,"
	 "  body TEXT NOT NULL, PRIMARY KEY (run_id, bucket, row_index));"
	 "CREATE TABLE projects ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), job_code TEXT NOT NULL,"
	 "  name TEXT NOT NULL, customer_id TEXT, branch_id TEXT, project_manager_id TEXT,"
	 "  pickup_location_id TEXT, dropoff_location_id TEXT,"
	 "  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (org_id, job_code));"
	 "CREATE TABLE loads ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id),"
	 "  project_id TEXT NOT NULL REFERENCES projects(id), load_no TEXT NOT NULL, load_date TEXT NOT NULL,"
	 "  material TEXT, truck_type TEXT, ticket_no TEXT, weight_centilb BIGINT, weight_unit TEXT,"
	 "  rate_cents BIGINT, notes TEXT, pickup_location_id TEXT, dropoff_location_id TEXT,"
	 "  content_hash TEXT NOT NULL, last_run_id TEXT,"
	 "  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (project_id, load_no));"
	 "ALTER TABLE locations ADD COLUMN import_created INTEGER NOT NULL DEFAULT 0;"
	 /* Import-created locations are unique per name, and unnamed ones per
	  * address, so concurrent imports cannot create the same one twice;
	  * saved locations made by people may still share a name. */
	 "CREATE UNIQUE INDEX locations_import_name ON locations(org_id, name_key)"
	 "  WHERE import_created = 1 AND name_key IS NOT NULL;"
	 "CREATE UNIQUE INDEX locations_import_address ON locations(org_id, address_key)"
	 "  WHERE import_created = 1 AND name_key IS NULL;"},
	{3, "column shapes and outbox",
	 "CREATE TABLE shapes ("
	 "  org_id TEXT NOT NULL REFERENCES orgs(id), shape_key TEXT NOT NULL, headers TEXT NOT NULL,"
	 "  mapping TEXT NOT NULL, confirmed_by TEXT, confirmed_at BIGINT NOT NULL,"
	 "  PRIMARY KEY (org_id, shape_key));"
	 "CREATE INDEX runs_staged ON runs(org_id, shape_key, staged);"
	 "CREATE TABLE outbox ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), run_id TEXT,"
	 "  recipients TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,"
	 "  state TEXT NOT NULL CHECK (state IN ('queued','sent','failed')),"
	 "  attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, last_error TEXT,"
	 "  created_at BIGINT NOT NULL, sent_at BIGINT);"
	 "CREATE INDEX outbox_due ON outbox(state, next_attempt_at);"
	 "CREATE TABLE outbox_attempts ("
	 "  outbox_id TEXT NOT NULL REFERENCES outbox(id), attempt INTEGER NOT NULL, at BIGINT NOT NULL,"
	 "  ok INTEGER NOT NULL, detail TEXT, PRIMARY KEY (outbox_id, attempt));"},
	/* Web sign-in: only hashes of session ids and OIDC states are stored. */
	{4, "web sessions",
	 "CREATE TABLE web_sessions ("
	 "  id_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),"
	 "  org_id TEXT NOT NULL REFERENCES orgs(id), csrf_secret TEXT NOT NULL, via TEXT NOT NULL,"
	 "  created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT);"
	 "CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);"
	 "CREATE TABLE oidc_logins ("
	 "  state_hash TEXT PRIMARY KEY, nonce TEXT NOT NULL, code_verifier TEXT NOT NULL,"
	 "  return_to TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT);"
	 "CREATE INDEX oidc_logins_expiry ON oidc_logins(expires_at);"},
	/* Keys shared by every process of one installation (e.g. the page-cursor
	 * MAC key), created on first use. */
	{5, "installation secrets",
	 "CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at BIGINT NOT NULL);"},
	/* One rate-limit budget per token across every serve process: the
	 * token's GCRA theoretical arrival time (ns), from which processes lease
	 * batches of request slots (src/store/allowance.c). */
	{6, "shared rate-limit allowance",
	 "CREATE TABLE rate_allowance (key_id TEXT PRIMARY KEY, tat BIGINT NOT NULL, granted INTEGER NOT NULL);"},
	/* Geocoding (PRODUCT §8): coordinates in millionths of a degree (exact
	 * integers on both backends), and what found them.  Locations saved
	 * before this migration were never geocoded: precision 'none'. */
	{7, "location coordinates",
	 "ALTER TABLE locations ADD COLUMN lat_e6 BIGINT;"
	 "ALTER TABLE locations ADD COLUMN lon_e6 BIGINT;"
	 "ALTER TABLE locations ADD COLUMN geocode_precision TEXT NOT NULL DEFAULT 'none';"
	 "ALTER TABLE locations ADD COLUMN geocode_source TEXT;"},
	/* A run's results are written only in the transaction that has just
	 * moved that run to its outcome (import/pipeline.c: the UPDATE that
	 * proves the run exists and is still this worker's, and holds its row
	 * until the commit), and runs are never deleted.  On PostgreSQL the
	 * foreign key re-proved that once per result row through a trigger:
	 * ~13 ms of a 750-row import (docs/benchmarks.md).  SQLite's check is
	 * a B-tree probe, and dropping a constraint there means rebuilding the
	 * table: it keeps it. */
	{8, "results without a per-row run check",
	 "@PG@ALTER TABLE run_results DROP CONSTRAINT IF EXISTS run_results_run_id_fkey;"},
	/* Customer and branch names that render identically (fullwidth
	 * letters, a zero-width space, a soft hyphen, a no-break space) are
	 * one name (PRODUCT §8, docs/jobs-schema.md): their keys, saved by
	 * name_key(), are made again by name_ref_key().  Location names keep
	 * theirs (SPEC "Location naming"). */
	{9, "look-alike customer and branch names", ""},
	/* Retention (PRODUCT §13): the sweeper deletes a finished run's stored
	 * upload after LOADLINE_KEEP_UPLOADS and its per-row results after
	 * LOADLINE_KEEP_RESULTS, and says when on the run; it finds the runs
	 * due by finished_at. */
	{10, "retention",
	 "ALTER TABLE runs ADD COLUMN upload_deleted_at BIGINT;"
	 "ALTER TABLE runs ADD COLUMN results_deleted_at BIGINT;"
	 "CREATE INDEX runs_finished ON runs (finished_at);"},
	/* Compact results (issue 21, PRODUCT §13): one stored row per result
	 * row, a committed row with warnings flagged instead of stored twice,
	 * bodies of codes and message arguments (import/results.c), and the
	 * column texts the results point at stored once per run.  The step
	 * rewrites the results stored before it. */
	{11, "compact results",
	 "ALTER TABLE run_results ADD COLUMN warned INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE runs ADD COLUMN result_columns TEXT;"
	 /* Uploads stored deflated have their length here (NULL: as uploaded). */
	 "ALTER TABLE run_files ADD COLUMN raw_size BIGINT;"},
	/* Webhooks (PRODUCT §12, issue 23): endpoints per organization; an
	 * event per run change, written in the transaction of that change
	 * (its payload frozen at its first attempt); one delivery per event
	 * and subscribed endpoint, claimed like the mail outbox (the claim
	 * pushes next_attempt_at past the attempt's time limit: one attempt
	 * in flight); every attempt logged. */
	{12, "webhooks",
	 "CREATE TABLE webhook_endpoints ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), url TEXT NOT NULL,"
	 "  events TEXT NOT NULL, secret TEXT NOT NULL, created_at BIGINT NOT NULL,"
	 "  deleted_at BIGINT, disabled_at BIGINT, failing_since BIGINT);"
	 "CREATE INDEX webhook_endpoints_org ON webhook_endpoints(org_id, created_at);"
	 "CREATE TABLE webhook_events ("
	 "  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), type TEXT NOT NULL,"
	 "  run_id TEXT, payload TEXT, created_at BIGINT NOT NULL);"
	 /* key = event_id/endpoint_id: one column for the claim's scalar
	  * subquery (a row-value IN (SELECT ... LIMIT 1 FOR UPDATE SKIP
	  * LOCKED) may be evaluated more than once by PostgreSQL and claim
	  * several rows). */
	 "CREATE TABLE webhook_deliveries ("
	 "  key TEXT NOT NULL UNIQUE, event_id TEXT NOT NULL REFERENCES webhook_events(id),"
	 "  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id), org_id TEXT NOT NULL,"
	 "  state TEXT NOT NULL CHECK (state IN ('queued','delivered','failed')),"
	 "  attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT NOT NULL, created_at BIGINT NOT NULL,"
	 "  last_status INTEGER, last_duration_ms BIGINT, last_error TEXT, delivered_at BIGINT,"
	 "  PRIMARY KEY (event_id, endpoint_id));"
	 "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);"
	 "CREATE TABLE webhook_attempts ("
	 "  event_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, attempt INTEGER NOT NULL, at BIGINT NOT NULL,"
	 "  status INTEGER, duration_ms BIGINT NOT NULL, error TEXT,"
	 "  PRIMARY KEY (event_id, endpoint_id, attempt));"
	 "CREATE INDEX webhook_attempts_endpoint ON webhook_attempts(endpoint_id, at);"},
	/* Reading files as a person reads them (PRODUCT §14, issue 26): the
	 * header row and worksheet an upload asked for (?headerRow, ?sheet),
	 * what the reader found (file_detail: headerRow, sheet, sheets,
	 * summaryRows as JSON), and the header row a confirmed shape was
	 * chosen at on the review screen. */
	{13, "header rows and sheets",
	 "ALTER TABLE runs ADD COLUMN opt_header_row INTEGER;"
	 "ALTER TABLE runs ADD COLUMN opt_sheet TEXT;"
	 "ALTER TABLE runs ADD COLUMN file_detail TEXT;"
	 "ALTER TABLE shapes ADD COLUMN header_row INTEGER;"},
	/* Learning from confirmations (PRODUCT §14, issue 26 item 7): each
	 * header of a confirmed shape as the admin left it, per organization,
	 * keyed by the header's name key (propose_header_key); field NULL is
	 * "Ignore".  The last confirmation of a header wins.  Numbers 13 and
	 * 15 belong to other branches of the same issue. */
	{14, "learned column headers",
	 "CREATE TABLE learned_headers ("
	 "  org_id TEXT NOT NULL REFERENCES orgs(id), header_key TEXT NOT NULL, header TEXT NOT NULL,"
	 "  field TEXT, learned_by TEXT NOT NULL, learned_at BIGINT NOT NULL,"
	 "  PRIMARY KEY (org_id, header_key));"},
	/* The Turkish dotted capital I keys as I (name_ref_key, issue 27 item
	 * 16): the customer and branch keys that hold one are made again, on
	 * both backends, by the step below. */
	{15, "dotted capital I in customer and branch names", ""},
	/* Who did what, all-or-nothing runs and undo (PRODUCT §15, issue 28):
	 * who made a run (created_by, JSON: a token or a user), the run it
	 * reverts, its commit policy and the rows an all-or-nothing failure
	 * did not write; the organization's default policy.  A Load or
	 * Project says which run created it and which last wrote it (a
	 * revert's "changed since" test; a created Load's history needs no
	 * row of its own).  record_changes keeps, per run and record it
	 * updated, removed or re-inserted, the prior values of the changed
	 * columns only (op 'update'), the whole row (op 'remove') or nothing
	 * (op 'insert'); deleted with the run's results.  Number 17 belongs
	 * to another branch of the same issue. */
	{16, "who did what and undo",
	 "ALTER TABLE runs ADD COLUMN created_by TEXT;"
	 "ALTER TABLE runs ADD COLUMN revert_of TEXT;"
	 "ALTER TABLE runs ADD COLUMN commit_policy TEXT;"
	 "ALTER TABLE runs ADD COLUMN n_not_committed INTEGER;"
	 "ALTER TABLE orgs ADD COLUMN commit_policy TEXT;"
	 "ALTER TABLE loads ADD COLUMN created_run_id TEXT;"
	 "CREATE INDEX loads_created_run ON loads(created_run_id);"
	 "ALTER TABLE projects ADD COLUMN created_run_id TEXT;"
	 "ALTER TABLE projects ADD COLUMN last_run_id TEXT;"
	 "CREATE TABLE record_changes ("
	 "  run_id TEXT NOT NULL, org_id TEXT NOT NULL, kind TEXT NOT NULL, record_id TEXT NOT NULL,"
	 "  op TEXT NOT NULL CHECK (op IN ('update','remove','insert')), before TEXT, at BIGINT NOT NULL,"
	 "  PRIMARY KEY (run_id, kind, record_id));"
	 "CREATE INDEX record_changes_record ON record_changes(record_id, at);"},
	/* Corrected rows (PRODUCT §15, issue 28 item 1): a run of rows
	 * corrected in the web app or the API names the run they failed in.
	 * Number 16 belongs to another branch of the same issue. */
	{17, "corrected rows",
	 "ALTER TABLE runs ADD COLUMN correction_of TEXT;"},
	/* Big files (PRODUCT §16, issue 29): a run commits in batches, each
	 * with its checkpoint: the data rows done, the row number of the last
	 * one (a resumed run skips up to it) and the rows per second of the
	 * attempt (its progress).  NULL: no batch committed yet. */
	{18, "import checkpoints",
	 "ALTER TABLE runs ADD COLUMN rows_done INTEGER;"
	 "ALTER TABLE runs ADD COLUMN ckpt_row INTEGER;"
	 "ALTER TABLE runs ADD COLUMN rows_per_second INTEGER;"},
	/* Problem groups stored when a run ends (PRODUCT §16, issue 29 item
	 * 6): the groups GET /api/v1/imports/runs/{id}/problems serves, in
	 * their order (pos), built once from the run's results in its final
	 * transaction (import/problems.c) instead of on every view; docUrl is
	 * made when read.  runs.problem_groups counts them (NULL: a run that
	 * ended before this, whose groups are still computed when read).  The
	 * warnings bucket reads the flagged rows through their own index, so a
	 * page of warnings among a million succeeded rows does not walk them.
	 * Number 18 belongs to another branch of the same issue. */
	{19, "stored problem groups",
	 "ALTER TABLE runs ADD COLUMN problem_groups INTEGER;"
	 "CREATE TABLE run_problems ("
	 "  run_id TEXT NOT NULL, pos INTEGER NOT NULL, code TEXT NOT NULL, error INTEGER NOT NULL,"
	 "  field TEXT, column_text TEXT, value TEXT, row_count INTEGER NOT NULL, row_indexes TEXT NOT NULL,"
	 "  message TEXT NOT NULL, fix_type TEXT, fix_name TEXT, PRIMARY KEY (run_id, pos));"
	 "CREATE INDEX run_results_warned ON run_results(run_id, row_index) WHERE warned = 1;"},
	/* Webhook endpoints fully managed (PRODUCT §17, issue 30): the secret
	 * a rotation replaced keeps signing beside the new one until
	 * previous_secret_until; each attempt has an id (wha_, the resend
	 * API's) and keeps the first 1 KB of the receiver's answer.  Attempts
	 * logged before this migration get an id made of their key.  Numbers
	 * 18 and 19 belong to other branches of the same issue. */
	{20, "webhook secret rotation and attempt ids",
	 "ALTER TABLE webhook_endpoints ADD COLUMN previous_secret TEXT;"
	 "ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_until BIGINT;"
	 "ALTER TABLE webhook_attempts ADD COLUMN id TEXT;"
	 "ALTER TABLE webhook_attempts ADD COLUMN response_body TEXT;"
	 /* 14 + 5 + 3 base62 characters: an attempt number is under 900 (3
	  * days of retries at most an hour apart). */
	 "UPDATE webhook_attempts SET id = 'wha_' || substr(event_id, 5, 14) || substr(endpoint_id, 5, 5) || "
	 "  CAST(attempt + 100 AS TEXT);"
	 "CREATE UNIQUE INDEX webhook_attempts_id ON webhook_attempts(id);"},
	/* Big uploads stored in parts (issue 29): an upload over 8 MiB read
	 * from a spool is stored as parts of 1 MiB (deflated when that pays),
	 * written and read one at a time, so that neither the process nor a
	 * database record ever holds it whole; its run_files row then has an
	 * empty content and the number of parts.  Uploads stored before stay
	 * one value. */
	{21, "uploads stored in parts",
	 "CREATE TABLE run_file_parts ("
	 "  run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, content @BLOB@ NOT NULL,"
	 "  PRIMARY KEY (run_id, seq));"
	 "ALTER TABLE run_files ADD COLUMN parts INTEGER;"},
};

const int migrations_count = (int)(sizeof migrations / sizeof migrations[0]);

const struct migration_step migration_steps[] = {
	{9, migrate_reference_keys},
	{11, migrate_compact_results},
	{15, migrate_reference_keys},
};

const int migration_steps_count = (int)(sizeof migration_steps / sizeof migration_steps[0]);

const struct migration_step *migration_step_of(int version)
{
	for (int i = 0; i < migration_steps_count; i++)
		if (migration_steps[i].version == version)
			return &migration_steps[i];
	return NULL;
}
