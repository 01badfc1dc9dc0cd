"""Cancel a run (issue 29 item 5, PRODUCT §16 "Cancel"; issue 30, §17
`loadline cancel ID`).

POST /api/v1/imports/runs/{id}/cancel turns a QUEUED or RUNNING run
CANCELLED (finishedAt set) and answers the run; a run that had already
finished is 409 RUN_ALREADY_TERMINAL saying to revert it instead; another
organization's run is 404.  Any token of the organization may cancel (an API
token is org-wide, as for revert).  A cancelled run keeps what it committed
before it stopped and can be reverted (§15): the pipeline that stops after
its current batch belongs to another branch, so the tests below make such a
run by marking a finished run CANCELLED in the database, as that pipeline
leaves one."""
import json

from harness.checks import assert_problem
from harness.db import db_exec
from harness.jobs import accepted_run, csv_bytes, results, rows, upload, wait_run
from .test_cli_tools import ll

RUNS = "/api/v1/imports/runs/"


def test_cancel_a_queued_run_then_it_is_terminal(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="CAN-1"))))
    assert run["state"] == "QUEUED"
    r = srv.post(RUNS + run["id"] + "/cancel")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["id"] == run["id"] and body["state"] == "CANCELLED" and body["finishedAt"], body
    assert srv.get(RUNS + run["id"]).json() == body
    again = srv.post(RUNS + run["id"] + "/cancel")
    detail = assert_problem(again, 409, "RUN_ALREADY_TERMINAL", srv)["detail"]
    assert "already CANCELLED" in detail and "/revert" in detail, detail
    # Its file can be pushed again at once: nothing is in progress.
    assert upload(srv, csv_bytes(rows(2, job="CAN-1"))).status_code == 202


def test_cancel_a_finished_run_is_409_and_changes_nothing(server):
    run = wait_run(server, accepted_run(upload(server, csv_bytes(rows(2, job="CAN-2"))))["id"])
    r = server.post(RUNS + run["id"] + "/cancel")
    detail = assert_problem(r, 409, "RUN_ALREADY_TERMINAL", server)["detail"]
    assert "already SUCCEEDED" in detail, detail
    assert server.get(RUNS + run["id"]).json() == run


def test_cancel_another_orgs_run_is_404(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(1, job="CAN-3"))))
    other = srv.new_org("Other Freight")
    r = srv.post(RUNS + run["id"] + "/cancel", token=other.token)
    assert_problem(r, 404, "NOT_FOUND", srv)
    assert srv.get(RUNS + run["id"]).json()["state"] == "QUEUED"
    assert_problem(srv.post(RUNS + "run_doesnotexist12345/cancel"), 404, "NOT_FOUND", srv)


def test_loadline_cancel(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(1, job="CAN-4"))))
    rc, out, err = ll(srv, "cancel", run["id"], token=srv.token)
    assert rc == 0, err
    lines = out.decode().splitlines()
    assert lines[0] == run["id"] + " CANCELLED", out
    assert srv.get(RUNS + run["id"]).json()["state"] == "CANCELLED"
    rc, out, err = ll(srv, "cancel", run["id"], token=srv.token)
    assert rc == 1 and "RUN_ALREADY_TERMINAL" in err and "revert" in err, (out, err)
    rc, out, _ = ll(srv, "cancel", "--help")
    assert rc == 0 and b"loadline cancel ID" in out
    run2 = accepted_run(upload(srv, csv_bytes(rows(1, job="CAN-5"))))
    rc, out, err = ll(srv, "cancel", run2["id"], "--json", token=srv.token)
    assert rc == 0 and json.loads(out)["state"] == "CANCELLED", (out, err)


def cancelled_with_rows(srv, job, n=3):
    """A run that committed n rows and ended CANCELLED, as the batching
    pipeline leaves a run cancelled mid-file."""
    run = wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(n, job=job))))["id"])
    assert run["state"] == "SUCCEEDED" and run["counts"]["succeeded"] == n, run
    db_exec(srv.db_url, "UPDATE runs SET state = 'CANCELLED' WHERE id = '%s'" % run["id"])
    got = srv.get(RUNS + run["id"]).json()
    assert got["state"] == "CANCELLED" and got["counts"]["succeeded"] == n, got
    return got


def test_a_cancelled_run_that_committed_rows_can_be_reverted(server):
    run = cancelled_with_rows(server, "CAN-REV")
    ids = [e["createdRecordIds"][0] for e in results(server, run["id"], "succeeded")]
    assert len(ids) == 3 and server.get("/api/v1/loads/" + ids[0]).status_code == 200
    r = server.post(RUNS + run["id"] + "/revert")
    assert r.status_code == 202, r.text
    undo = wait_run(server, r.json()["id"])
    assert undo["revertOf"] == run["id"] and undo["counts"]["succeeded"] == 3, undo
    for i in ids:
        assert server.get("/api/v1/loads/" + i).status_code == 404
