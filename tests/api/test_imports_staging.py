"""Runs staged for mapping review, as far as the public API shows them
(SPEC "Bulk import behavior" 3 and 5, "Endpoints" POST rule 2, "States and
transitions"; PRODUCT §6).  The confirm step is the web app's (issue 7);
the emails are issue 6's own tests."""
import datetime

from harness.checks import assert_problem, parse_ts
from harness.jobs import accepted_run, csv_bytes, import_file, upload, wait_run
import time

RUNS = "/api/v1/imports/runs/"
MESSY = ["Job #", "Load Number", "Ship Date", "Material Hauled", "Ship From Street",
         "Ship From City", "Ship From State", "Ship From Zip"]


def messy_file(tag, n=3):
    recs = [{"Job #": "J-%s" % tag, "Load Number": str(i), "Ship Date": "11/%d/2026" % i,
             "Material Hauled": "Gravel", "Ship From Street": "%d Main St" % i,
             "Ship From City": "Austin", "Ship From State": "TX", "Ship From Zip": "78701"}
            for i in range(1, n + 1)]
    return csv_bytes(recs, headers=MESSY)


def wait_staged(srv, run_id, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        run = srv.get(RUNS + run_id).json()
        if run.get("nextAction"):
            return run
        assert run["state"] in ("QUEUED", "RUNNING"), \
            "SPEC rule 3: a new column shape must be staged, run went %s" % run
        assert time.monotonic() < deadline, "no nextAction after %d s: %s" % (timeout, run)
        time.sleep(0.05)


def test_unmapped_shape_is_staged_for_review(start_server):
    """SPEC Bulk import 3 + PRODUCT §6: a live run with an unmapped shape stays
    QUEUED with nextAction {type review_in_app, url {app_url}/imports/runs/
    <id>/review, expiresAt createdAt + 72 h}; re-pushing the same file while it
    waits -> 409 IMPORT_IN_PROGRESS (SPEC rule 2); results -> RUN_NOT_TERMINAL."""
    srv = start_server(env={"LOADLINE_APP_URL": "https://app.loadline.test"})
    data = messy_file("STAGE")
    r = upload(srv, data)
    loc = r.headers.get("Location")
    run = wait_staged(srv, accepted_run(r)["id"])
    assert run["state"] == "QUEUED"
    na = run["nextAction"]
    assert set(na) == {"type", "url", "expiresAt"}, na
    assert na["type"] == "review_in_app"
    assert na["url"] == "https://app.loadline.test/imports/runs/%s/review" % run["id"], na
    assert parse_ts(na["expiresAt"]) - parse_ts(run["createdAt"]) == datetime.timedelta(hours=72)
    body = assert_problem(upload(srv, data), 409, "IMPORT_IN_PROGRESS", srv,
                          extra_keys={"existingRunUrl"})
    assert body["existingRunUrl"] in (loc, srv.public_base + loc)
    assert_problem(srv.get(RUNS + run["id"] + "/results/succeeded"), 409, "RUN_NOT_TERMINAL", srv)


def test_dry_run_of_unmapped_shape_uses_the_proposal(server):
    """SPEC Bulk import 5 / PRODUCT §6: a dry run with an unmapped shape is
    processed with the proposed mapping, reaches a terminal state and has
    no nextAction; it stages nothing."""
    run, res = import_file(server, messy_file("DRY"), dry_run=True)
    assert run["dryRun"] is True and "nextAction" not in run
    assert run["state"] == "SUCCEEDED", (run, res)
    assert [e["source"]["jobCode"] for e in res["succeeded"]] == ["J-DRY"] * 3
    assert [e["source"]["loadNo"] for e in res["succeeded"]] == ["1", "2", "3"]


def test_staging_expires(start_server):
    """SPEC transitions: nobody confirms before expiresAt -> FAILED with
    error.code STAGING_EXPIRED (LOADLINE_STAGING_TTL shrunk to 2 s)."""
    srv = start_server(env={"LOADLINE_STAGING_TTL": "2s", "LOADLINE_SWEEP_INTERVAL": "1s"})
    run = wait_staged(srv, accepted_run(upload(srv, messy_file("EXP")))["id"])
    assert parse_ts(run["nextAction"]["expiresAt"]) - parse_ts(run["createdAt"]) \
        == datetime.timedelta(seconds=2)
    done = wait_run(srv, run["id"], timeout=20, stop_on_next_action=False)
    assert done["state"] == "FAILED" and done["error"]["code"] == "STAGING_EXPIRED", done
    assert "nextAction" not in done or not done["nextAction"]


def test_timeout_sweeper_leaves_staged_runs_alone(start_server, make_db):
    """SPEC transitions: the stuck-run reaper applies to runs without
    nextAction only; a staged run waits for review (or expiry)."""
    url = make_db()
    env = {"LOADLINE_RUN_TIMEOUT": "1s", "LOADLINE_SWEEP_INTERVAL": "1s"}
    a = start_server(db_url=url, env=env, workers=1)
    staged = wait_staged(a, accepted_run(upload(a, messy_file("KEEP")))["id"])
    assert a.stop() == 0
    b = start_server(db_url=url, env=env, workers=0, bootstrap=False)
    b.token = a.token
    plain = accepted_run(upload(b, csv_bytes([{"jobCode": "J-PLAIN", "loadNo": "1",
                                               "loadDate": "2026-11-01"}])))
    reaped = wait_run(b, plain["id"], timeout=20)
    assert reaped["state"] == "FAILED" and reaped["error"]["code"] == "RUN_TIMED_OUT", reaped
    still = b.get(RUNS + staged["id"]).json()
    assert still["state"] == "QUEUED" and still["nextAction"], still
