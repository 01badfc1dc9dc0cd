"""Who did what (issue 28, PRODUCT §15): GET /api/v1/loads/{id}/history
lists a Load's changes newest first — the run that created it and each run
that updated it, with who made the run and the fields it changed (from, to)
— as long as each run's results are kept; another organization's Load is
404."""
import time

from harness.checks import assert_problem
from harness.jobs import accepted_run, csv_bytes, results, rows, upload, wait_run


def push(srv, records, **kw):
    return wait_run(srv, accepted_run(upload(srv, csv_bytes(records), **kw))["id"], **kw)


def load_id_of(srv, run_id, row_index=2):
    for e in results(srv, run_id, "succeeded"):
        if e["rowIndex"] == row_index:
            return e["createdRecordIds"][0]
    raise AssertionError("no row %d" % row_index)


def test_history_lists_creation_and_field_changes(server):
    me = server.get("/api/v1/whoami").json()
    first = push(server, rows(3, job="HIS-1"))
    load = load_id_of(server, first["id"])
    second_rows = rows(3, job="HIS-1")
    second_rows[0]["material"] = "Sand"
    second_rows[0]["weight"] = "2500"
    second_rows[0]["rate"] = "99.00"
    second = push(server, second_rows)
    assert second["counts"]["succeeded"] == 1 and second["counts"]["skipped"] == 2
    h = server.get("/api/v1/loads/%s/history" % load)
    assert h.status_code == 200, h.text
    body = h.json()
    assert body["object"] == "list" and body["nextPageUrl"] is None
    items = body["data"]
    assert [i["action"] for i in items] == ["updated", "created"]
    assert [i["runId"] for i in items] == [second["id"], first["id"]]
    up, made = items
    assert up["object"] == "load_change"
    assert up["createdBy"] == {"type": "token", "id": me["id"], "name": me["name"]}
    assert up["changes"] == {"material": {"from": "Gravel", "to": "Sand"},
                             "weight": {"from": 1001, "to": 2500},
                             "rate": {"from": "125.50", "to": "99.00"}}, up["changes"]
    assert made["changes"]["material"] == {"from": None, "to": "Gravel"}
    assert made["changes"]["loadDate"] == {"from": None, "to": "2026-11-02"}
    assert made["changes"]["weight"] == {"from": None, "to": 1001}
    assert "content_hash" not in made["changes"] and "weightUnit" not in made["changes"]
    assert made["at"] <= up["at"]


def test_history_of_another_org_is_404(server):
    run = push(server, rows(1, job="HIS-2"))
    load = load_id_of(server, run["id"])
    other = server.new_org()
    assert_problem(server.get("/api/v1/loads/%s/history" % load, token=other.token), 404, "NOT_FOUND", server)
    assert_problem(server.get("/api/v1/loads/load_nosuchthing/history"), 404, "NOT_FOUND", server)


def test_history_goes_with_the_results(start_server):
    srv = start_server(env={"LOADLINE_KEEP_RESULTS": "2s", "LOADLINE_SWEEP_INTERVAL": "1s"})
    first = push(srv, rows(1, job="HIS-3"))
    load = load_id_of(srv, first["id"])
    changed = rows(1, job="HIS-3", material="Clay")
    push(srv, changed)
    assert len(srv.get("/api/v1/loads/%s/history" % load).json()["data"]) == 2
    deadline = time.monotonic() + 20
    while srv.get("/api/v1/loads/%s/history" % load).json()["data"] and time.monotonic() < deadline:
        time.sleep(0.3)
    assert srv.get("/api/v1/loads/%s/history" % load).json()["data"] == []
