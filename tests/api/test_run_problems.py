"""A run's problems, grouped (issue 22 part 2; PRODUCT §11 "Problems,
grouped").

GET /api/v1/imports/runs/{id}/problems lists a terminal run's errors and
warnings grouped by (code, field, value) -- the value compared exactly as
stored --, most rows first, ties by first appearance (the earlier first row,
then the order within that row); each group has rowCount, the first 20
rowIndexes ascending, the message of its first row, docUrl, and `fix` only
for a LOOKUP_MISS of customer or branch ({"type": "create_customer" |
"create_branch", "name": the value trimmed}).  Paginated like results
(limit, MAC-signed cursor), with an ETag; 404 for another organization's run,
409 RUN_NOT_TERMINAL before the run is terminal, 410 RESULTS_EXPIRED after
retention, as the results endpoint answers."""
import time

from harness.checks import assert_problem
from harness.jobs import accepted_run, csv_bytes, import_file, row, rows, upload, wait_run

RUNS = "/api/v1/imports/runs/"


def mixed_file():
    """30 rows (rowIndex 2..31): 25 name an unknown customer, 5 another one
    written with spaces around it; two name an unknown branch; two weigh
    "12 t" (UNIT_NORMALIZED); two fail on their weight ("abc", "xyz")."""
    recs = []
    for i in range(1, 31):
        r = row(i, job="PRB", customer="Cascade Civil Group" if i <= 25 else " Acme  ")
        if i in (3, 7):
            r["branch"] = "North"
        if i in (12, 13):
            r["weight"] = "12 t"
        if i == 10:
            r["weight"] = "abc"
        if i == 11:
            r["weight"] = "xyz"
        recs.append(r)
    return csv_bytes(recs)


def problems(srv, run_id, limit=None, token=None):
    """Every group, following nextPageUrl; also how many pages it took."""
    kw = {} if token is None else {"token": token}
    path, params, out, pages = RUNS + run_id + "/problems", ({"limit": limit} if limit else None), [], 0
    while path:
        r = srv.get(path, params=params, **kw)
        assert r.status_code == 200, (path, r.status_code, r.text)
        page = r.json()
        assert set(page) == {"object", "data", "nextPageUrl"} and page["object"] == "list", page
        assert limit is None or len(page["data"]) <= limit
        out.extend(page["data"])
        path, params, pages = page["nextPageUrl"], None, pages + 1
        assert pages < 100
    return out, pages


def expected_groups(res):
    """The grouping computed here from the per-row results."""
    groups, order = {}, []
    entries = [(e, "errors", "error") for e in res["failed"]] + [(e, "warnings", "warning") for e in res["warnings"]]
    for e, key, sev in sorted(entries, key=lambda x: x[0]["rowIndex"]):
        for d in e[key]:
            # A unit conversion is one group per field (issue 30), value null.
            value = None if d["code"] == "UNIT_NORMALIZED" else d["value"]
            k = (d["code"], d["field"], value)
            if k not in groups:
                groups[k] = {"code": d["code"], "severity": sev, "field": d["field"], "column": d["column"],
                             "value": value, "rows": [], "message": d["message"], "docUrl": d["docUrl"]}
                order.append(k)
            if e["rowIndex"] not in groups[k]["rows"]:
                groups[k]["rows"].append(e["rowIndex"])
    # Errors first (issue 30), then most rows; stable: first appearance.
    return sorted((groups[k] for k in order), key=lambda g: (g["severity"] != "error", -len(g["rows"])))


def test_groups_counts_order_and_fix(server):
    run, res = import_file(server, mixed_file())
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 2, run
    got, _ = problems(server, run["id"])
    want = expected_groups(res)
    assert [(g["code"], g["field"], g["value"]) for g in got] == [(g["code"], g["field"], g["value"]) for g in want]
    for g, w in zip(got, want):
        assert g["object"] == "run_problem"
        assert g["severity"] == w["severity"] and g["column"] == w["column"], g
        assert g["rowCount"] == len(w["rows"]) and g["rowIndexes"] == w["rows"][:20], g
        assert g["message"] == w["message"] and g["docUrl"] == w["docUrl"], g
        fixable = g["code"] == "LOOKUP_MISS" and g["field"] in ("customer", "branch")
        assert ("fix" in g) == fixable, g
    by = {(g["code"], g["field"], g["value"]): g for g in got}
    cascade = by[("LOOKUP_MISS", "customer", "Cascade Civil Group")]
    # Rows 1..25 (rowIndex 2..26) less the two failed ones (rowIndex 11, 12).
    assert cascade["rowCount"] == 23 and len(cascade["rowIndexes"]) == 20
    assert cascade["rowIndexes"] == [i for i in range(2, 27) if i not in (11, 12)][:20]
    assert cascade["fix"] == {"type": "create_customer", "name": "Cascade Civil Group"}
    assert cascade["severity"] == "warning" and cascade["column"] == "customer"
    # Errors come first: the two failed weights, then the 23-row warning.
    assert [g["severity"] for g in got[:2]] == ["error", "error"] and got[2] == cascade
    acme = by[("LOOKUP_MISS", "customer", " Acme  ")]
    assert acme["rowCount"] == 5 and acme["fix"] == {"type": "create_customer", "name": "Acme"}
    north = by[("LOOKUP_MISS", "branch", "North")]
    assert north["rowIndexes"] == [4, 8] and north["fix"] == {"type": "create_branch", "name": "North"}
    tons = by[("UNIT_NORMALIZED", "weight", None)]
    assert tons["rowIndexes"] == [13, 14] and "fix" not in tons
    # Ties by the first row: North (row 4) before the conversions (row 13); "abc" before "xyz".
    keys = [(g["code"], g["value"]) for g in got]
    assert keys.index(("LOOKUP_MISS", "North")) < keys.index(("UNIT_NORMALIZED", None))
    abc = by[("TYPE_MISMATCH", "weight", "abc")]
    assert abc["severity"] == "error" and abc["rowIndexes"] == [11] and "fix" not in abc
    assert keys.index(("TYPE_MISMATCH", "abc")) < keys.index(("TYPE_MISMATCH", "xyz"))
    errors = [g["rowCount"] for g in got if g["severity"] == "error"]
    warnings = [g["rowCount"] for g in got if g["severity"] == "warning"]
    assert errors == sorted(errors, reverse=True) and warnings == sorted(warnings, reverse=True)
    assert [g["severity"] for g in got] == ["error"] * len(errors) + ["warning"] * len(warnings)


def test_pagination_etag_and_bad_parameters(server):
    run, _ = import_file(server, mixed_file())
    everything, pages = problems(server, run["id"])
    assert pages == 1 and len(everything) == 6
    paged, pages = problems(server, run["id"], limit=2)
    assert paged == everything and pages == 3
    first = server.get(RUNS + run["id"] + "/problems", params={"limit": 2}).json()
    assert "limit=2" in first["nextPageUrl"] and "cursor=" in first["nextPageUrl"]
    # ETag: a finished run's problems never change.
    r = server.get(RUNS + run["id"] + "/problems")
    etag = r.headers["ETag"]
    assert etag.startswith('"') and r.headers["Cache-Control"] == "no-cache"
    nm = server.get(RUNS + run["id"] + "/problems", headers={"If-None-Match": etag})
    assert nm.status_code == 304 and nm.content == b"" and nm.headers["ETag"] == etag
    assert_problem(server.get(RUNS + run["id"] + "/problems", params={"limit": 0}), 400, "INVALID_LIMIT", server)
    assert_problem(server.get(RUNS + run["id"] + "/problems", params={"cursor": "2.abc"}), 400, "INVALID_CURSOR",
                   server)
    # A cursor of the results list is not one of this list.
    page = server.get(RUNS + run["id"] + "/results/warnings", params={"limit": 1}).json()
    cursor = page["nextPageUrl"].split("cursor=")[1].split("&")[0]
    assert_problem(server.get(RUNS + run["id"] + "/problems", params={"cursor": cursor}), 400, "INVALID_CURSOR",
                   server)


def test_clean_run_has_no_problems(server):
    run, _ = import_file(server, csv_bytes(rows(3, job="PRB-CLEAN")))
    assert run["state"] == "SUCCEEDED"
    assert problems(server, run["id"]) == ([], 1)


def test_not_terminal_other_org_and_expired(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, mixed_file()))
    assert_problem(srv.get(RUNS + run["id"] + "/problems"), 409, "RUN_NOT_TERMINAL", srv)
    other = srv.new_org("Other").token
    assert_problem(srv.get(RUNS + run["id"] + "/problems", token=other), 404, "NOT_FOUND", srv)
    assert_problem(srv.get(RUNS + "run_nope/problems"), 404, "NOT_FOUND", srv)
    assert srv.get(RUNS + run["id"] + "/problems", token=None).status_code == 401

    kept = start_server(env={"LOADLINE_KEEP_RESULTS": "1s", "LOADLINE_SWEEP_INTERVAL": "1h"})
    done = wait_run(kept, accepted_run(upload(kept, mixed_file()))["id"])
    assert done["state"] == "PARTIAL"
    time.sleep(1.2)
    assert_problem(kept.get(RUNS + done["id"] + "/problems"), 410, "RESULTS_EXPIRED", kept)
    # Same answer as the results endpoint.
    assert_problem(kept.get(RUNS + done["id"] + "/results/warnings"), 410, "RESULTS_EXPIRED", kept)


def test_unit_conversions_are_one_group(server):
    """Issue 30 item 5: conversions need nothing done; "12 t", "14 t" and
    "900 kg" are one group of the weight field (value null), after the
    errors, instead of one group per converted value."""
    recs = [row(i, job="PRB-U", weight=w) for i, w in enumerate(["12 t", "14 t", "900 kg", "1000"], start=1)]
    recs.append(row(9, job="PRB-U", loadDate="31/31/2026"))
    run, _ = import_file(server, csv_bytes(recs))
    got, _ = problems(server, run["id"])
    assert [(g["code"], g["field"], g["value"], g["rowCount"]) for g in got] == [
        ("TYPE_MISMATCH", "loadDate", "31/31/2026", 1), ("UNIT_NORMALIZED", "weight", None, 3)], got
