"""Runs staged for mapping review: two checks beyond test_staging.py
(issue 6's tests): the review link follows LOADLINE_APP_URL, and the
timeout sweeper provably ran past a staged run without touching it."""
import datetime

from harness.checks import parse_ts
from harness.jobs import accepted_run, csv_bytes, upload, wait_run
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


def test_review_link_is_under_app_url(start_server):
    """SPEC nextAction.url: a deep link under {app_url} (LOADLINE_APP_URL,
    PRODUCT §1/§6: {app_url}/imports/runs/<id>/review), expiresAt = createdAt
    + 72 h.  (The rest of staging is covered by test_staging.py.)"""
    srv = start_server(env={"LOADLINE_APP_URL": "https://app.loadline.test"})
    run = wait_staged(srv, accepted_run(upload(srv, messy_file("STAGE")))["id"])
    assert run["state"] == "QUEUED"
    na = run["nextAction"]
    assert set(na) == {"type", "url", "expiresAt"}, na
    assert na["type"] == "review_in_app"
    assert na["url"] == "https://app.loadline.test/imports/runs/%s/review" % run["id"], na
    assert parse_ts(na["expiresAt"]) - parse_ts(run["createdAt"]) == datetime.timedelta(hours=72)


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
