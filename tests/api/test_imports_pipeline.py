"""The jobs pipeline end to end (SPEC "Bulk import behavior", "Per-row
result", "Buckets", "States and transitions" outcome; PRODUCT §4-§5).
Files use headers equal to the schema's field names, which map directly."""
import pytest

from harness.checks import assert_id, parse_ts
from harness.jobs import (BUCKETS, accepted_run, by_row, cell_ref, codes_of, csv_bytes,
                          csv_text, find_issue, import_file, row, rows, upload, wait_run)

ENTRY_KEYS = {"code", "field", "column", "cell", "value", "message", "docUrl"}


def assert_cut_value(got, raw):
    """PRODUCT §5: `value` is the raw text as read, at most 200 characters
    (a cut may be marked with a trailing ellipsis, within the 200)."""
    assert isinstance(got, str) and len(got) <= 200, "value has %d characters" % len(got)
    if len(raw) <= 200:
        assert got == raw, (got, raw)
    else:
        assert raw.startswith(got[:-1] if got.endswith("…") else got), got


def load(srv, load_id, **kw):
    r = srv.get("/api/v1/loads/" + load_id, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def project(srv, prj_id, **kw):
    r = srv.get("/api/v1/projects/" + prj_id, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def counts(run):
    return run["counts"]


def test_clean_file_succeeds_and_reads_back(server):
    """PRODUCT §5: each row becomes a Load attached to a Project created on
    the fly; outcome F=0,W=0,S>0 -> SUCCEEDED; createdRecordIds = the Load
    first, then Projects/Locations created; GET loads/projects read back the
    stored values; an identical address is reused."""
    data = rows(4, job="J-CLEAN")
    run, res = import_file(server, csv_bytes(data))
    assert run["state"] == "SUCCEEDED", run
    assert run["dryRun"] is False and run["kind"] == "jobs" and run["object"] == "import_run"
    assert counts(run) == {"succeeded": 4, "warnings": 0, "failed": 0, "skipped": 0}
    assert run.get("rowCount") == 4
    assert run.get("fileName") == "loads.csv"
    assert run["file"]["format"] == "csv" and run["file"]["delimiter"] == ","
    assert parse_ts(run["startedAt"]) <= parse_ts(run["finishedAt"])
    assert "nextAction" not in run and not run.get("error")
    ok = res["succeeded"]
    assert [e["rowIndex"] for e in ok] == [2, 3, 4, 5]
    assert res["failed"] == res["warnings"] == res["skipped"] == []
    for e, r in zip(ok, data):
        assert e["source"] == {"loadNo": r["loadNo"], "jobCode": "J-CLEAN",
                               "projectName": "Project J-CLEAN"}, e["source"]
        assert_id(e["createdRecordIds"][0], "load")
    first = ok[0]["createdRecordIds"]
    prj = [i for i in first if i.startswith("prj_")]
    assert len(prj) == 1, "the first row creates the project: %s" % first
    loads = [load(server, e["createdRecordIds"][0]) for e in ok]
    for l, r, e in zip(loads, data, ok):
        assert l["id"] == e["createdRecordIds"][0] and l["object"] == "load"
        parse_ts(l["createdAt"])
        assert l["loadNo"] == r["loadNo"] and l["jobCode"] == "J-CLEAN"
        assert l["loadDate"] == r["loadDate"]
        assert l["material"] == "Gravel" and l["notes"] == r["notes"]
        assert abs(float(l["weight"]) - float(r["weight"])) < 0.006
        assert abs(float(l["rate"]) - 125.5) < 0.001
        assert l["projectId"] == prj[0]
        assert_id(l["pickupLocationId"], "loc")
        assert l["dropoffLocationId"] is None
    # rows 1 and 4 share "101 Quarry Rd, Austin TX 78701": one location
    assert loads[0]["pickupLocationId"] == loads[3]["pickupLocationId"]
    assert len({l["pickupLocationId"] for l in loads}) == 3
    p = project(server, prj[0])
    assert p["id"] == prj[0] and p["object"] == "project"
    assert p["jobCode"] == "J-CLEAN" and p["name"] == "Project J-CLEAN"
    for k in ("customerId", "branchId", "projectManagerId", "pickupLocationId",
              "dropoffLocationId"):
        assert k in p and p[k] is None, (k, p)


def test_load_and_run_ids_sort_in_creation_order(server):
    """Loads and runs, the rows every import adds, take ids that sort in the
    order they were created (docs/design.md, "Storage"): the id index then grows
    at its end instead of a random page a row, which kept import time flat as
    an organization's history grew (docs/benchmarks.md, "Growth").  The
    wire form is unchanged (prefix, 22 base62 characters)."""
    first, res1 = import_file(server, csv_bytes(rows(20, job="J-ORD-1")))
    second, res2 = import_file(server, csv_bytes(rows(20, job="J-ORD-2")))
    assert first["id"] < second["id"], (first["id"], second["id"])
    ids1 = [e["createdRecordIds"][0] for e in res1["succeeded"]]
    ids2 = [e["createdRecordIds"][0] for e in res2["succeeded"]]
    for i in ids1 + ids2:
        assert_id(i, "load")
    assert max(ids1) < min(ids2), (max(ids1), min(ids2))


def test_identical_repush_is_skipped(server):
    """SPEC Bulk import 4 / PRODUCT §5: re-pushing an identical file never
    duplicates writes: every row is skipped (duplicate_of_prior_import),
    the run is SKIPPED."""
    data = csv_bytes(rows(3, job="J-SAME"))
    run1, res1 = import_file(server, data)
    assert run1["state"] == "SUCCEEDED"
    run2, res2 = import_file(server, data)
    assert run2["id"] != run1["id"]
    assert run2["state"] == "SKIPPED", run2
    assert counts(run2) == {"succeeded": 0, "warnings": 0, "failed": 0, "skipped": 3}
    assert [e["rowIndex"] for e in res2["skipped"]] == [2, 3, 4]
    assert all(e["reason"] == "duplicate_of_prior_import" for e in res2["skipped"])
    assert res2["succeeded"] == res2["failed"] == res2["warnings"] == []
    assert res2["skipped"][0]["source"]["loadNo"] == "L-001"


def test_one_changed_row_updates_that_row_only(server):
    """PRODUCT §5 re-import: same key with different content -> the Load is
    updated and the row is succeeded; unchanged rows are skipped; outcome
    S>0,W=0,F=0 -> SUCCEEDED even with skipped rows."""
    data = rows(3, job="J-CHG")
    run1, res1 = import_file(server, csv_bytes(data))
    ids = [e["createdRecordIds"][0] for e in res1["succeeded"]]
    data[1]["material"] = "Sand"
    data[1]["weight"] = "2500"
    run2, res2 = import_file(server, csv_bytes(data))
    assert run2["state"] == "SUCCEEDED", run2
    assert counts(run2) == {"succeeded": 1, "warnings": 0, "failed": 0, "skipped": 2}
    assert [e["rowIndex"] for e in res2["succeeded"]] == [3]
    assert res2["succeeded"][0]["createdRecordIds"][0] == ids[1], "the same Load is updated"
    assert [e["rowIndex"] for e in res2["skipped"]] == [2, 4]
    assert all(e["reason"] == "duplicate_of_prior_import" for e in res2["skipped"])
    l = load(server, ids[1])
    assert l["material"] == "Sand" and abs(float(l["weight"]) - 2500) < 0.006
    assert load(server, ids[0])["material"] == "Gravel"
    # pushing the changed file again: now everything is a no-op
    run3, _ = import_file(server, csv_bytes(data))
    assert run3["state"] == "SKIPPED"


def test_all_rows_failing_is_partial_and_writes_nothing(server):
    """PRODUCT §5 outcome: an all-failed file is PARTIAL with nothing written
    (a later valid push of the same keys creates the project and loads)."""
    bad = rows(3, job="J-FAIL", loadDate="")
    run, res = import_file(server, csv_bytes(bad))
    assert run["state"] == "PARTIAL", run
    assert counts(run) == {"succeeded": 0, "warnings": 0, "failed": 3, "skipped": 0}
    assert [e["rowIndex"] for e in res["failed"]] == [2, 3, 4]
    for e in res["failed"]:
        assert codes_of(e, "errors") == ["MISSING_REQUIRED"]
        assert "createdRecordIds" not in e or e["createdRecordIds"] in ([], None)
    good = rows(3, job="J-FAIL")
    run2, res2 = import_file(server, csv_bytes(good))
    assert run2["state"] == "SUCCEEDED", "nothing of the failed run may have been written"
    assert counts(run2)["succeeded"] == 3
    assert any(i.startswith("prj_") for i in res2["succeeded"][0]["createdRecordIds"]), \
        "the project must be created now, so the failed run wrote none"


def _mixed_file():
    a = row(1, job="J-MIX")
    return [
        a,                                                    # 2 succeeded
        row(2, job="J-MIX", weight="2 t"),                    # 3 succeeded + warnings
        row(3, job="J-MIX", loadDate=""),                     # 4 failed MISSING_REQUIRED
        row(4, job="J-MIX", loadDate="13/45/2026"),           # 5 failed TYPE_MISMATCH
        dict(a),                                              # 6 skipped duplicate_in_file
        dict(a, material="Asphalt"),                          # 7 failed UNIQUE_VIOLATION
        row(7, job="J-MIX2", customer="Nobody Known Inc"),    # 8 succeeded + LOOKUP_MISS
        row(8, job="J-MIX", pickupStreet=""),                 # 9 succeeded + LOOKUP_MISS
    ]


def test_mixed_file_buckets(server):
    """SPEC Buckets / PRODUCT §5: succeeded, warnings (also in succeeded),
    failed, skipped (duplicate_in_file); UNIQUE_VIOLATION on the later row;
    counts; outcome PARTIAL."""
    run, res = import_file(server, csv_bytes(_mixed_file()))
    assert run["state"] == "PARTIAL", run
    assert counts(run) == {"succeeded": 4, "warnings": 3, "failed": 3, "skipped": 1}, counts(run)
    assert [e["rowIndex"] for e in res["succeeded"]] == [2, 3, 8, 9]
    assert [e["rowIndex"] for e in res["warnings"]] == [3, 8, 9]
    assert [e["rowIndex"] for e in res["failed"]] == [4, 5, 7]
    assert [e["rowIndex"] for e in res["skipped"]] == [6]
    w = by_row(res["warnings"])
    assert codes_of(w[3], "warnings") == ["UNIT_NORMALIZED"]
    assert codes_of(w[8], "warnings") == ["LOOKUP_MISS"]
    assert codes_of(w[9], "warnings") == ["LOOKUP_MISS"]
    f = by_row(res["failed"])
    assert codes_of(f[4], "errors") == ["MISSING_REQUIRED"]
    assert codes_of(f[5], "errors") == ["TYPE_MISMATCH"]
    assert codes_of(f[7], "errors") == ["UNIQUE_VIOLATION"]
    assert res["skipped"][0]["reason"] == "duplicate_in_file"
    for e in res["succeeded"]:
        assert "warnings" not in e or isinstance(e["warnings"], list)


def test_dry_run_results_equal_live_run(server):
    """SPEC Bulk import 5 / PRODUCT §5: a dry run runs the whole pipeline
    without writing; dryRun true; every part of every result equals what
    the live run produces, except createdRecordIds = [] in the dry run."""
    data = csv_bytes(_mixed_file())
    dry, dres = import_file(server, data, dry_run=True)
    assert dry["dryRun"] is True
    assert "nextAction" not in dry
    dry2, dres2 = import_file(server, data, dry_run=True)
    assert dres2 == dres, "a dry run writes nothing, so a second one answers the same"
    live, lres = import_file(server, data)
    assert live["dryRun"] is False
    assert dry["state"] == live["state"] == "PARTIAL"
    assert dry["counts"] == live["counts"]
    for b in BUCKETS:
        for e in dres[b]:
            if b == "succeeded":
                assert e["createdRecordIds"] == [], e
        stripped = [dict(e, createdRecordIds=[]) if "createdRecordIds" in e else e
                    for e in lres[b]]
        assert dres[b] == stripped, "bucket %s differs:\ndry  %s\nlive %s" % (b, dres[b], lres[b])
    assert all(e["createdRecordIds"] for e in lres["succeeded"])
    assert any(i.startswith("prj_") for i in lres["succeeded"][0]["createdRecordIds"]), \
        "the dry run must not have created the project"


def test_row_error_entries(server):
    """PRODUCT §5: each errors[] entry has code, field (schema field), column
    (header text), cell (A1), value (raw, at most 200 characters), message,
    docUrl; MISSING_REQUIRED and TYPE_MISMATCH (unparsable values, texts over
    their length)."""
    long_job = "J" * 65
    long_notes = "n" * 2001
    data = [
        row(1, job="J-ERR", loadDate=""),
        row(2, job="J-ERR", loadDate="not a date"),
        row(3, job="J-ERR", weight="12 furlongs"),
        row(4, job=long_job),
        row(5, job="J-ERR", rate="abc"),
        row(6, job="J-ERR", notes=long_notes),
        row(7, job="J-ERR", loadNo=""),
    ]
    text = csv_text(data)
    headers = text.splitlines()[0].split(",")
    run, res = import_file(server, text.encode())
    assert run["state"] == "PARTIAL"
    f = by_row(res["failed"])
    assert sorted(f) == [2, 3, 4, 5, 6, 7, 8], sorted(f)
    expect = {
        2: ("MISSING_REQUIRED", "loadDate", ""),
        3: ("TYPE_MISMATCH", "loadDate", "not a date"),
        4: ("TYPE_MISMATCH", "weight", "12 furlongs"),
        5: ("TYPE_MISMATCH", "jobCode", long_job),
        6: ("TYPE_MISMATCH", "rate", "abc"),
        7: ("TYPE_MISMATCH", "notes", long_notes),
        8: ("MISSING_REQUIRED", "loadNo", ""),
    }
    for ri, (code, field, value) in expect.items():
        e = find_issue(f[ri], "errors", code)
        assert ENTRY_KEYS <= set(e), "entry keys %s" % sorted(e)
        assert e["field"] == field, e
        assert e["column"] == field, e
        assert e["cell"] == cell_ref(headers, field, ri), e
        assert_cut_value(e["value"], value)
        assert isinstance(e["message"], str) and e["message"].strip()
        assert e["docUrl"] == "%s/api/errors/%s" % (server.docs_url, code), e
    for code in ("MISSING_REQUIRED", "TYPE_MISMATCH"):
        page = server.get("%s/api/errors/%s" % (server.docs_url, code), token=None)
        assert page.status_code == 200 and code in page.text, "PRODUCT §2: every code has a page"


def test_missing_required_column(server):
    """PRODUCT §5: MISSING_REQUIRED when a required field is unmapped (no
    loadDate column at all): every row fails."""
    headers = ["jobCode", "loadNo", "material"]
    run, res = import_file(server, csv_bytes(rows(2, job="J-NOCOL"), headers=headers))
    assert run["state"] == "PARTIAL", run
    assert len(res["failed"]) == 2
    for e in res["failed"]:
        assert find_issue(e, "errors", "MISSING_REQUIRED")["field"] == "loadDate"


def test_unique_violation_and_duplicate_in_file(server):
    """PRODUCT §5: the same natural key twice with different content: the
    later row fails UNIQUE_VIOLATION; with the same content: the later row
    is skipped as duplicate_in_file; S>0,W=0,F=0 with skips -> SUCCEEDED."""
    a = row(1, job="J-DUP")
    run, res = import_file(server, csv_bytes([a, dict(a), row(2, job="J-DUP")]))
    assert run["state"] == "SUCCEEDED", run
    assert counts(run) == {"succeeded": 2, "warnings": 0, "failed": 0, "skipped": 1}
    assert res["skipped"][0]["rowIndex"] == 3
    assert res["skipped"][0]["reason"] == "duplicate_in_file"
    run, res = import_file(server, csv_bytes([row(1, job="J-UV"), row(1, job="J-UV", notes="other")]))
    assert run["state"] == "PARTIAL"
    assert [e["rowIndex"] for e in res["succeeded"]] == [2]
    e = find_issue(res["failed"][0], "errors", "UNIQUE_VIOLATION")
    assert res["failed"][0]["rowIndex"] == 3
    assert e["docUrl"].endswith("/api/errors/UNIQUE_VIOLATION")


WEIGHTS = [
    # (weight cell, weightUnit cell, pounds, normalized?)
    ("1500", "", 1500.0, False),
    ("1500 lbs", "", 1500.0, False),
    ("1500 lb", "", 1500.0, False),
    ("5 #", "", 5.0, False),
    ("12.5 t", "", 27557.75, True),
    ("2 tons", "", 4000.0, True),
    ("2 tn", "", 4000.0, True),
    ("3 mt", "", 6613.86, True),
    ("1 tonne", "", 2204.62, True),
    ("100 kg", "", 220.46, True),
    ("3", "ton", 6000.0, True),
    ("7", "kg", 15.43, True),
    ("10", "lbs", 10.0, False),
]


def test_weight_units(server):
    """PRODUCT §5 weight: stored in pounds to 0.01 lb; bare number = pounds;
    lb/lbs/# as is; ton/tons/tn = 2000 lb; t/tonne/mt = 2204.62 lb; kg =
    2.20462 lb; unit from the cell or weightUnit; any conversion ->
    UNIT_NORMALIZED warning (row commits, in succeeded and warnings);
    unknown unit -> TYPE_MISMATCH."""
    data = [row(i, job="J-WT", weight=w, weightUnit=u) for i, (w, u, _, _) in enumerate(WEIGHTS, 1)]
    data.append(row(99, job="J-WT", weight="12 furlongs"))
    run, res = import_file(server, csv_bytes(data))
    assert run["state"] == "PARTIAL"
    ok = by_row(res["succeeded"])
    warn = by_row(res["warnings"])
    for i, (w, u, lbs, norm) in enumerate(WEIGHTS):
        ri = i + 2
        assert ri in ok, (w, u, "row failed", by_row(res["failed"]).get(ri))
        l = load(server, ok[ri]["createdRecordIds"][0])
        assert abs(float(l["weight"]) - lbs) <= 0.011, (w, u, l["weight"], lbs)
        if norm:
            assert ri in warn and codes_of(warn[ri], "warnings") == ["UNIT_NORMALIZED"], (w, u)
            e = find_issue(warn[ri], "warnings", "UNIT_NORMALIZED")
            assert ENTRY_KEYS <= set(e), "PRODUCT §5 entry keys: %s" % sorted(e)
            assert e["field"] in ("weight", "weightUnit")
            assert e["docUrl"] == "%s/api/errors/UNIT_NORMALIZED" % server.docs_url
        else:
            assert ri not in warn, (w, u, warn.get(ri))
    failed = by_row(res["failed"])
    assert list(failed) == [len(WEIGHTS) + 2]
    assert find_issue(failed[len(WEIGHTS) + 2], "errors", "TYPE_MISMATCH")["field"] == "weight"
    assert counts(run)["warnings"] == sum(1 for w in WEIGHTS if w[3])


def test_lookups_and_lookup_miss(server):
    """PRODUCT §5: customer/branch matched by name (case- and whitespace-
    insensitive), projectManager by user name or email; no match ->
    LOOKUP_MISS and the row commits without it; an address with city, state
    and ZIP but no street -> LOOKUP_MISS, the group left empty."""
    org = server.org.id
    cus = server.cli.admin("add-customer", "--org", org, "--name", "Granite Works LLC").line
    brn = server.cli.admin("add-branch", "--org", org, "--name", "North Yard").line
    data = [
        row(1, job="J-LK1", customer="  granite WORKS llc ", branch="NORTH YARD",
            projectManager="Ada Admin"),
        row(2, job="J-LK2", customer="Nobody Known Inc"),
        row(3, job="J-LK3", branch="South Yard"),
        row(4, job="J-LK4", projectManager="nobody@example.com"),
        row(5, job="J-LK5", projectManager=server.org.admin_email),
        row(6, job="J-LK6", pickupStreet=""),
    ]
    run, res = import_file(server, csv_bytes(data))
    assert run["state"] == "PARTIAL", run
    ok = by_row(res["succeeded"])
    warn = by_row(res["warnings"])
    assert sorted(ok) == [2, 3, 4, 5, 6, 7] and res["failed"] == []
    assert sorted(warn) == [3, 4, 5, 7], sorted(warn)
    for ri, field in ((3, "customer"), (4, "branch"), (5, "projectManager")):
        e = find_issue(warn[ri], "warnings", "LOOKUP_MISS")
        assert e["field"] == field, e
    find_issue(warn[7], "warnings", "LOOKUP_MISS")

    def prj_of(ri):
        return project(server, load(server, ok[ri]["createdRecordIds"][0])["projectId"])
    p = prj_of(2)
    assert p["customerId"] == cus and p["branchId"] == brn
    assert p["projectManagerId"] == server.org.admin_id
    assert prj_of(3)["customerId"] is None
    assert prj_of(4)["branchId"] is None
    assert prj_of(5)["projectManagerId"] is None
    assert prj_of(6)["projectManagerId"] == server.org.admin_id
    assert load(server, ok[7]["createdRecordIds"][0])["pickupLocationId"] is None


def test_value_normalization(server):
    """PRODUCT §5: dates YYYY-MM-DD, M/D/YYYY, M/D/YY; rate `$1,250.00` and
    `1250`; a new project without projectName is named after its jobCode;
    the first row of a job in a file sets the Project's fields."""
    headers = ["jobCode", "loadNo", "loadDate", "rate", "projectName"]
    data = [
        {"jobCode": "J-NORM", "loadNo": "1", "loadDate": "11/5/2026", "rate": "$1,250.00"},
        {"jobCode": "J-NORM", "loadNo": "2", "loadDate": "11/5/26", "rate": "1250",
         "projectName": "Later Name"},
        {"jobCode": "J-NORM", "loadNo": "3", "loadDate": "2026-01-09", "rate": "0.5"},
    ]
    run, res = import_file(server, csv_bytes(data, headers=headers))
    assert run["state"] == "SUCCEEDED", (run, res)
    # SPEC per-row result: source echoes projectName only when present
    assert res["succeeded"][0]["source"] == {"loadNo": "1", "jobCode": "J-NORM"}
    assert res["succeeded"][1]["source"]["projectName"] == "Later Name"
    ls = [load(server, e["createdRecordIds"][0]) for e in res["succeeded"]]
    assert [l["loadDate"] for l in ls] == ["2026-11-05", "2026-11-05", "2026-01-09"]
    assert [round(float(l["rate"]), 2) for l in ls] == [1250.0, 1250.0, 0.5]
    p = project(server, ls[0]["projectId"])
    assert p["name"] == "J-NORM", "first row has no projectName: named after its jobCode"


def test_zip_and_state_normalization(server):
    """PRODUCT §5 address groups: ZIP 5 or 9 digits with leading zeros
    restored; state as USPS code or full name (read back through
    GET /api/v1/locations?q=, PRODUCT §2)."""
    data = [row(1, job="J-ZIP", pickupStreet="1 Beacon St", pickupCity="Boston",
                pickupState="Massachusetts", pickupZip="2108"),
            row(2, job="J-ZIP", pickupStreet="9 Main St", pickupCity="Austin",
                pickupState="tx", pickupZip="78701-1234")]
    run, res = import_file(server, csv_bytes(data))
    assert run["state"] == "SUCCEEDED", (run, res)
    r = server.get("/api/v1/locations", params={"q": "Beacon"})
    if r.status_code == 404 and r.json().get("code") == "NOT_FOUND":
        pytest.skip("GET /api/v1/locations is not served yet")
    assert r.status_code == 200, r.text
    locs = r.json()["data"]
    assert len(locs) == 1 and locs[0]["zip"] == "02108", locs
    assert locs[0]["state"] == "MA" and locs[0]["street"] == "1 Beacon St"
    loc2 = server.get("/api/v1/locations", params={"q": "9 Main St"}).json()["data"]
    assert loc2 and loc2[0]["state"] == "TX" and loc2[0]["zip"] in ("78701-1234", "787011234")


HOSTILE = {
    "sql": "'); DROP TABLE loads; --",
    "sql2": "Robert'); DELETE FROM projects WHERE ('1'='1",
    "html": "<script>alert('x')</script><img src=x onerror=alert(1)>",
    "formula": "=HYPERLINK(\"http://evil.example/\",\"click\")",
    "formula_plus": "+1+2",
    "formula_at": "@SUM(A1:A9)",
    "printf": "%s%n%x%d%%",
    "quotes": "He said \"hi\", then 'bye'",
    "backslash": "C:\\temp\\new\\x00",
    "unicode": "Ünïcødé 🚚 中文 עברית",
    "newline": "line one\nline two",
    "crlf": "line one\r\nline two",
    "tab": "a\tb",
    "json": "{\"$ne\": null}",
}


def test_hostile_cells_stored_exactly(server):
    """Issue 4 "Bad input": cells with SQL, HTML, formulas, format strings,
    control characters are stored exactly (read back byte for byte), never
    executed; keys with quotes are echoed exactly in source."""
    names = sorted(HOSTILE)
    data = [row(i, job="J-HOST", notes=HOSTILE[n]) for i, n in enumerate(names, 1)]
    data.append(row(90, job="J-HOST'--", loadNo="1' OR '1'='1", material="<b>bold</b>"))
    run, res = import_file(server, csv_bytes(data))
    assert run["state"] == "SUCCEEDED", (run, res["failed"])
    ok = res["succeeded"]
    for e, n in zip(ok, names):
        l = load(server, e["createdRecordIds"][0])
        assert l["notes"] == HOSTILE[n], (n, l["notes"])
    last = ok[-1]
    assert last["source"]["loadNo"] == "1' OR '1'='1" and last["source"]["jobCode"] == "J-HOST'--"
    l = load(server, last["createdRecordIds"][0])
    assert l["loadNo"] == "1' OR '1'='1" and l["material"] == "<b>bold</b>"
    # the database is intact
    assert server.get("/api/v1/whoami").status_code == 200
    again, _ = import_file(server, csv_bytes(data))
    assert again["state"] == "SKIPPED"


def test_control_characters_and_huge_cells(server):
    """Issue 4 "Bad input": control characters are stored exactly or the row
    is rejected (never mangled silently); a 10 kB cell exceeds every text
    cap and fails TYPE_MISMATCH with the value cut to 200 characters."""
    ctrl = "a\x01b\x07c\x1bd\x7fe\x0bf\x0cg"
    big = "x" * 10240
    data = [row(1, job="J-CTL", notes=ctrl), row(2, job="J-CTL", notes=big),
            row(3, job="J-CTL", material=big), row(4, job="J-CTL", loadNo=big)]
    run, res = import_file(server, csv_bytes(data))
    ok, failed = by_row(res["succeeded"]), by_row(res["failed"])
    if 2 in ok:
        assert load(server, ok[2]["createdRecordIds"][0])["notes"] == ctrl
    else:
        assert codes_of(failed[2], "errors") == ["TYPE_MISMATCH"], failed.get(2)
    for ri, field in ((3, "notes"), (4, "material"), (5, "loadNo")):
        e = find_issue(failed[ri], "errors", "TYPE_MISMATCH")
        assert e["field"] == field, e
        assert_cut_value(e["value"], big)


def test_nul_byte_is_malformed_csv(server):
    """PRODUCT §4: a NUL byte in a CSV -> run FAILED with MALFORMED_CSV."""
    text = csv_text([row(1, job="J-NUL")]).encode().replace(b"note 1", b"no\x00te")
    run, _ = import_file(server, text)
    assert run["state"] == "FAILED" and run["error"]["code"] == "MALFORMED_CSV", run


def test_invalid_utf8_is_read_as_windows_1252(server):
    """PRODUCT §4: text that is not valid UTF-8 is read as Windows-1252."""
    text = csv_text([row(1, job="J-1252", notes="@@1@@"), row(2, job="J-1252", notes="@@2@@")])
    data = text.encode("ascii").replace(b"@@1@@", b"Caf\xe9 \x80 5") \
                               .replace(b"@@2@@", b"\x93quoted\x94 \x96 na\xefve")
    run, res = import_file(server, data)
    assert run["state"] == "SUCCEEDED", (run, res)
    assert "1252" in run["file"]["encoding"], run["file"]
    notes = [load(server, e["createdRecordIds"][0])["notes"] for e in res["succeeded"]]
    assert notes == ["Café € 5", "“quoted” – naïve"], notes


def test_utf8_bom_and_delimiters(server):
    """PRODUCT §4: UTF-8 with or without BOM; delimiter `,` `;` or tab,
    detected from the header line; RFC 4180 quoting with embedded newlines."""
    data = [row(1, job="J-DELIM", notes="semi;colon, comma"), row(2, job="J-DELIM")]
    run, res = import_file(server, b"\xef\xbb\xbf" + csv_bytes(data))
    assert run["state"] == "SUCCEEDED", (run, res)
    assert res["succeeded"][0]["source"]["jobCode"] == "J-DELIM"
    for delim, job in ((";", "J-SEMI"), ("\t", "J-TAB")):
        d = [row(1, job=job, notes="a, b; c"), row(2, job=job)]
        run, res = import_file(server, csv_bytes(d, delimiter=delim))
        assert run["state"] == "SUCCEEDED", (delim, run, res)
        assert run["file"]["delimiter"] == delim
        assert load(server, res["succeeded"][0]["createdRecordIds"][0])["notes"] == "a, b; c"


def test_row_index_is_the_spreadsheet_row(server):
    """PRODUCT §4: rowIndex is the 1-based row as a spreadsheet shows it:
    blank rows are ignored but keep their numbers; a quoted cell with an
    embedded newline is one row."""
    lines = csv_text([row(1, job="J-RI"), row(2, job="J-RI"), row(3, job="J-RI")]).split("\r\n")
    body = "\r\n".join([lines[0], lines[1], "", lines[2], ",,,,,,,,,,,", lines[3]]) + "\r\n"
    run, res = import_file(server, body.encode())
    assert run["state"] == "SUCCEEDED", (run, res)
    assert [e["rowIndex"] for e in res["succeeded"]] == [2, 4, 6]
    d = [row(1, job="J-RI2", notes="two\nlines"), row(2, job="J-RI2")]
    run, res = import_file(server, csv_bytes(d))
    assert [e["rowIndex"] for e in res["succeeded"]] == [2, 3]


@pytest.mark.parametrize("case", ["header_only", "zero_bytes", "blank_lines_only"])
def test_empty_file(server, case):
    """PRODUCT §4 / SPEC mode 2: no data rows (or a zero-byte file) -> run
    FAILED with EMPTY_FILE."""
    body = {"header_only": b"jobCode,loadNo,loadDate\r\n",
            "zero_bytes": b"",
            "blank_lines_only": b"jobCode,loadNo,loadDate\r\n\r\n\r\n,,\r\n"}[case]
    run, _ = import_file(server, body)
    assert run["state"] == "FAILED" and run["error"]["code"] == "EMPTY_FILE", run


def test_too_many_headers(server):
    """PRODUCT §4: more than 100 columns -> FAILED TOO_MANY_HEADERS; 100 is
    fine.  (The extra columns are not schema names, so the 100-column file is
    a dry run: an unmapped shape would otherwise be staged for review.)"""
    base = ["jobCode", "loadNo", "loadDate"]
    for n, want in ((100, "SUCCEEDED"), (101, "FAILED")):
        headers = base + ["extra%d" % i for i in range(n - len(base))]
        d = [dict(row(1, job="J-H%d" % n), **{h: "v" for h in headers[3:]})]
        run, _ = import_file(server, csv_bytes(d, headers=headers), dry_run=(n == 100))
        assert run["state"] == want, (n, run)
        if want == "FAILED":
            assert run["error"]["code"] == "TOO_MANY_HEADERS"


def test_unterminated_quote_is_malformed_csv(server):
    """PRODUCT §4: an unterminated quote -> FAILED MALFORMED_CSV."""
    body = b'jobCode,loadNo,loadDate,notes\r\nJ,1,2026-01-01,"never closed\r\nJ,2,2026-01-02,x\r\n'
    run, _ = import_file(server, body)
    assert run["state"] == "FAILED" and run["error"]["code"] == "MALFORMED_CSV", run


def test_max_rows_setting(start_server):
    """PRODUCT §1/§4: more than LOADLINE_MAX_ROWS data rows -> FAILED
    TOO_MANY_ROWS; exactly the limit is fine."""
    srv = start_server(env={"LOADLINE_MAX_ROWS": "5"})
    run, res = import_file(srv, csv_bytes(rows(5, job="J-MAX")))
    assert run["state"] == "SUCCEEDED" and len(res["succeeded"]) == 5
    run, _ = import_file(srv, csv_bytes(rows(6, job="J-MAX6")))
    assert run["state"] == "FAILED" and run["error"]["code"] == "TOO_MANY_ROWS", run


def test_750_rows_pass_751_fail(server):
    """SPEC Limits: 750 rows per file; excess is TOO_MANY_ROWS (a 750-row
    file passes, a 751-row file fails) and nothing of it is written."""
    run, res = import_file(server, csv_bytes(rows(750, job="J-750")), timeout=60)
    assert run["state"] == "SUCCEEDED", run
    assert counts(run)["succeeded"] == 750 and len(res["succeeded"]) == 750
    assert len({e["createdRecordIds"][0] for e in res["succeeded"]}) == 750
    run, _ = import_file(server, csv_bytes(rows(751, job="J-751")), timeout=60)
    assert run["state"] == "FAILED" and run["error"]["code"] == "TOO_MANY_ROWS", run
    run, res = import_file(server, csv_bytes(rows(3, job="J-751")))
    assert any(i.startswith("prj_") for i in res["succeeded"][0]["createdRecordIds"])


def test_read_endpoints_are_org_scoped(server):
    """PRODUCT §2-§3: loads and projects of another organization are 404,
    like unknown ids."""
    from harness.checks import assert_problem
    run, res = import_file(server, csv_bytes(rows(1, job="J-SCOPE")))
    load_id = res["succeeded"][0]["createdRecordIds"][0]
    prj_id = load(server, load_id)["projectId"]
    other = server.new_org("Other")
    assert_problem(server.get("/api/v1/loads/" + load_id, token=other.token), 404, "NOT_FOUND", server)
    assert_problem(server.get("/api/v1/projects/" + prj_id, token=other.token), 404, "NOT_FOUND", server)
    assert_problem(server.get("/api/v1/loads/load_nope123456"), 404, "NOT_FOUND", server)
    assert_problem(server.get("/api/v1/projects/prj_nope123456"), 404, "NOT_FOUND", server)
