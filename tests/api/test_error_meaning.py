"""Errors mean what they say (issue 10): a store failure is 503
SERVICE_UNAVAILABLE (with Retry-After) only when the database cannot be
reached; any other store failure — here a table renamed away behind the
service's back, standing for a SQL bug — is 500 INTERNAL_ERROR without
Retry-After (clients must not retry a bug forever), with the cause logged
under the request id.  And a malformed id is 404 at the edge, never a
database error."""
import json
import urllib.parse

import pytest

from harness.checks import assert_problem
from harness.db import db_exec
from harness.jobs import csv_bytes, import_file, rows


def test_store_bug_is_500_not_503(server):
    r = server.get("/api/v1/imports/runs")
    assert r.status_code == 200, r.text
    db_exec(server.db_url, "ALTER TABLE runs RENAME TO runs_gone")
    try:
        r = server.get("/api/v1/imports/runs")
        assert_problem(r, 500, "INTERNAL_ERROR", server)
        assert "Retry-After" not in r.headers
        rid = r.headers["X-Request-Id"]
        logged = [json.loads(line) for line in server.stderr().splitlines() if line.startswith("{")]
        failures = [e for e in logged if e.get("msg") == "store failure" and e.get("requestId") == rid]
        assert failures, "the store failure must be logged with the request id"
        # Authentication does not touch the renamed table: still 200.
        assert server.get("/api/v1/whoami").status_code == 200
    finally:
        db_exec(server.db_url, "ALTER TABLE runs_gone RENAME TO runs")
    assert server.get("/api/v1/imports/runs").status_code == 200


@pytest.mark.parametrize("path", [
    "/api/v1/imports/runs/%s",
    "/api/v1/imports/runs/%s/results/succeeded",
    "/api/v1/loads/%s",
    "/api/v1/projects/%s",
    "/api/v1/locations/%s",
])
@pytest.mark.parametrize("bad", [
    "x", "run_", "run_" + "a" * 21, "run_" + "a" * 23, "load_" + "!" * 22, "%FF%FE", "run_%C3%A9" + "a" * 21,
    "a" * 5000, "prj_" + "a" * 21 + "%0A",
])
def test_malformed_id_is_404(module_server, path, bad):
    p = path % bad
    r = module_server.get(p)
    # instance is the decoded path; bytes that are not printable UTF-8 stay
    # percent-encoded (so %FF%FE and %0A come back as sent).
    raw = urllib.parse.unquote_to_bytes(p)
    printable = all(b >= 0x20 and b != 0x7F for b in raw)
    try:
        decoded = raw.decode("utf-8") if printable else None
    except UnicodeDecodeError:
        decoded = None
    assert_problem(r, 404, "NOT_FOUND", module_server, instance=decoded or p)


def test_well_formed_ids_of_each_kind_still_resolve(module_server):
    """The edge check accepts what the service issues."""
    run, buckets = import_file(module_server, csv_bytes(rows(1, job="IDS")))
    assert module_server.get("/api/v1/imports/runs/%s" % run["id"]).status_code == 200
    ids = buckets["succeeded"][0]["createdRecordIds"]
    load = [i for i in ids if i.startswith("load_")][0]
    prj = [i for i in ids if i.startswith("prj_")][0]
    assert module_server.get("/api/v1/loads/%s" % load).status_code == 200
    assert module_server.get("/api/v1/projects/%s" % prj).status_code == 200
