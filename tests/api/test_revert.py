"""Undo an import (issue 28, PRODUCT §15): POST
/api/v1/imports/runs/{id}/revert makes a run with revertOf that removes the
Loads the run created and gives what it updated its prior values back,
unless a later run changed it since (skipped, changed_since, naming that
run); Projects and locations nothing else uses go too.  Service-Dry-Run
shows what it would do.  Reverting a revert re-applies.  410 once the
results are gone; other organizations get 404."""
import threading
import time

from harness.checks import assert_problem
from harness.jobs import accepted_run, csv_bytes, results, rows, upload, wait_run


def push(srv, records, **kw):
    return wait_run(srv, accepted_run(upload(srv, csv_bytes(records), **kw))["id"])


def revert(srv, run_id, **kw):
    return srv.post("/api/v1/imports/runs/%s/revert" % run_id, **kw)


def reverted(srv, run_id, **kw):
    r = revert(srv, run_id, **kw)
    return wait_run(srv, accepted_run(r)["id"])


def load_ids(srv, run_id):
    return {e["source"]["loadNo"]: e["createdRecordIds"][0] for e in results(srv, run_id, "succeeded")}


def test_revert_removes_created_loads_and_restores_updates(server):
    base = push(server, rows(3, job="REV-1"))
    ids = load_ids(server, base["id"])
    changed = rows(5, job="REV-1")            # L-004, L-005 new; L-001 updated
    changed[0]["material"] = "Sand"
    run = push(server, changed)
    assert run["counts"]["succeeded"] == 3
    rv = reverted(server, run["id"])
    assert rv["revertOf"] == run["id"] and rv["state"] == "SUCCEEDED", rv
    assert rv["revert"] == {"removed": 2, "restored": 1, "changedSince": 0, "unusedRemoved": 0}, rv["revert"]
    assert rv["createdBy"]["type"] == "token"
    load = server.get("/api/v1/loads/%s" % ids["L-001"]).json()
    assert load["material"] == "Gravel"
    new_ids = [e["createdRecordIds"][0] for e in results(server, rv["id"], "succeeded")]
    assert len(new_ids) == 3
    for e in results(server, run["id"], "succeeded"):
        if e["source"]["loadNo"] in ("L-004", "L-005"):
            gone = server.get("/api/v1/loads/%s" % e["createdRecordIds"][0])
            assert gone.status_code == 404
    hist = server.get("/api/v1/loads/%s/history" % ids["L-001"]).json()["data"]
    assert [h["action"] for h in hist] == ["reverted", "updated", "created"]
    assert hist[0]["changes"] == {"material": {"from": "Sand", "to": "Gravel"}}
    # The same rows pushed again: the two Loads are created again, one updated.
    again = push(server, changed)
    assert again["counts"]["succeeded"] == 3


def test_revert_of_a_new_file_removes_projects_and_locations(server):
    run = push(server, rows(4, job="REV-2", pickupStreet="9 Lonely Rd"))
    ids = load_ids(server, run["id"])
    project = server.get("/api/v1/loads/%s" % ids["L-001"]).json()
    rv = reverted(server, run["id"])
    assert rv["revert"]["removed"] == 4 and rv["revert"]["unusedRemoved"] == 2, rv["revert"]
    assert server.get("/api/v1/projects/%s" % project["projectId"]).status_code == 404
    assert server.get("/api/v1/locations/%s" % project["pickupLocationId"]).status_code == 404
    # Reverting the revert re-applies: the same Loads, project and location are back.
    back = reverted(server, rv["id"])
    assert back["revertOf"] == rv["id"] and back["revert"]["restored"] >= 4, back
    again = server.get("/api/v1/loads/%s" % ids["L-001"])
    assert again.status_code == 200 and again.json()["projectId"] == project["projectId"]
    assert server.get("/api/v1/locations/%s" % project["pickupLocationId"]).status_code == 200


def test_changed_since_rows_stay_and_name_the_later_run(server):
    run = push(server, rows(3, job="REV-3"))
    ids = load_ids(server, run["id"])
    later = push(server, rows(1, job="REV-3", material="Clay"))
    assert later["counts"]["succeeded"] == 1
    dry = reverted(server, run["id"], headers={"Service-Dry-Run": "true"})
    assert dry["dryRun"] is True
    assert dry["revert"] == {"removed": 2, "restored": 0, "changedSince": 1, "unusedRemoved": 2}, dry["revert"]
    assert server.get("/api/v1/loads/%s" % ids["L-002"]).status_code == 200   # dry: nothing written
    rv = reverted(server, run["id"])
    assert rv["state"] == "PARTIAL" or rv["counts"]["skipped"] == 1, rv
    skipped = results(server, rv["id"], "skipped")
    assert skipped == [{"rowIndex": skipped[0]["rowIndex"], "source": {"loadNo": "L-001", "jobCode": "REV-3"},
                        "reason": "changed_since", "laterRunId": later["id"]}], skipped
    assert server.get("/api/v1/loads/%s" % ids["L-001"]).json()["material"] == "Clay"
    assert server.get("/api/v1/loads/%s" % ids["L-002"]).status_code == 404


def test_revert_of_another_org_is_404_and_checks(server):
    run = push(server, rows(1, job="REV-4"))
    other = server.new_org()
    assert_problem(revert(server, run["id"], token=other.token), 404, "NOT_FOUND", server)
    assert_problem(revert(server, run["id"], headers={"Service-Dry-Run": "maybe"}), 400, "INVALID_HEADER",
                   server)


def test_revert_after_results_expired_is_410(start_server):
    srv = start_server(env={"LOADLINE_KEEP_RESULTS": "1s", "LOADLINE_SWEEP_INTERVAL": "1h"})
    run = push(srv, rows(1, job="REV-5"))
    time.sleep(1.2)
    assert_problem(revert(srv, run["id"]), 410, "RESULTS_EXPIRED", srv)


def test_revert_and_import_of_the_same_loads_serialize(start_server):
    srv = start_server(workers=2)
    run = push(srv, rows(300, job="REV-6"))
    update = rows(300, job="REV-6", material="Sand")
    out = {}

    def do_push():
        out["push"] = wait_run(srv, accepted_run(upload(srv, csv_bytes(update)))["id"])

    t = threading.Thread(target=do_push)
    t.start()
    rv = reverted(srv, run["id"])
    t.join()
    pushed = out["push"]
    # Either order is fine, but never a mix: the revert either ran first
    # (removed all 300; the push then created them again) or second (all
    # 300 changed since, left as the push wrote them).
    c = rv["revert"]
    assert (c["removed"], c["changedSince"]) in ((300, 0), (0, 300)), c
    assert pushed["counts"]["succeeded"] == 300
    ids = load_ids(srv, pushed["id"])
    assert all(srv.get("/api/v1/loads/%s" % i).json()["material"] == "Sand" for i in list(ids.values())[:5])


def test_revert_restores_a_project_and_history_follows_a_reapply(server):
    base = push(server, rows(2, job="REV-7", projectName="Old Name"))
    ids = load_ids(server, base["id"])
    project_id = server.get("/api/v1/loads/%s" % ids["L-001"]).json()["projectId"]
    upd = push(server, rows(2, job="REV-7", projectName="New Name", material="Sand"))
    assert server.get("/api/v1/projects/%s" % project_id).json()["name"] == "New Name"
    rv = reverted(server, upd["id"])
    assert rv["revert"]["restored"] == 3, rv["revert"]    # two Loads and the Project
    assert server.get("/api/v1/projects/%s" % project_id).json()["name"] == "Old Name"
    again = reverted(server, rv["id"])                    # re-applies the update
    assert again["revert"]["restored"] == 3, again["revert"]
    assert server.get("/api/v1/projects/%s" % project_id).json()["name"] == "New Name"
    hist = server.get("/api/v1/loads/%s/history" % ids["L-001"]).json()["data"]
    assert [h["action"] for h in hist] == ["reverted", "reverted", "updated", "created"]
    assert hist[0]["changes"] == {"material": {"from": "Gravel", "to": "Sand"}}
    assert hist[1]["changes"] == {"material": {"from": "Sand", "to": "Gravel"}}
    assert [h["runId"] for h in hist] == [again["id"], rv["id"], upd["id"], base["id"]]


def test_history_of_a_removed_and_reapplied_load(server):
    run = push(server, rows(1, job="REV-8"))
    load = load_ids(server, run["id"])["L-001"]
    rv = reverted(server, run["id"])
    assert server.get("/api/v1/loads/%s/history" % load).status_code == 404   # gone
    back = reverted(server, rv["id"])
    hist = server.get("/api/v1/loads/%s/history" % load).json()["data"]
    assert [h["action"] for h in hist] == ["reverted", "reverted", "created"], hist
    assert hist[0]["runId"] == back["id"] and hist[0]["changes"]["material"] == {"from": None, "to": "Gravel"}
    assert hist[1]["runId"] == rv["id"] and hist[1]["changes"]["material"] == {"from": "Gravel", "to": None}
    assert hist[2]["changes"]["material"] == {"from": None, "to": "Gravel"}
