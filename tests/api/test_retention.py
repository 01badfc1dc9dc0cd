"""Retention (issue 21 part 2; PRODUCT §13): LOADLINE_KEEP_UPLOADS and
LOADLINE_KEEP_RESULTS.  A sweeper deletes a finished run's stored upload and
its per-row results once they are older than kept, in small batches; the run
and its counts stay.  From the run's uploadExpiresAt / resultsExpiresAt on,
the fix-up file answers 410 UPLOAD_EXPIRED and results 410 RESULTS_EXPIRED,
and the run page says so.  SQLite gives the space back (incremental vacuum).
Every test runs with seconds instead of days, on both backends."""
import time

import pytest

from harness.checks import assert_problem, parse_ts
from harness.db import db_int, db_value
from harness.jobs import accepted_run, awaiting_review, csv_bytes, import_file, rows, upload, wait_run
from web.webtools import signin, text_of, wait_for

SHORT = {"LOADLINE_KEEP_UPLOADS": "2s", "LOADLINE_KEEP_RESULTS": "4s", "LOADLINE_SWEEP_INTERVAL": "1s"}


def mixed_file(n=20, salt=""):
    recs = rows(n, job="RET-1" + salt)
    recs[1]["loadDate"] = "31/31/2026"          # a failed row: the fix-up file has it
    recs[2]["weight"] = "12 t"                  # a warning
    return csv_bytes(recs)


def stored_results(srv, run_id):
    return db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE run_id = '%s'" % run_id)


def stored_upload(srv, run_id):
    return db_int(srv.db_url, "SELECT COUNT(*) FROM run_files WHERE run_id = '%s'" % run_id)


def test_upload_then_results_expire_and_the_run_stays(start_server):
    srv = start_server(env=SHORT)
    run, res = import_file(srv, mixed_file())
    rid = run["id"]
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 1, run
    finished = parse_ts(run["finishedAt"])
    assert (parse_ts(run["uploadExpiresAt"]) - finished).total_seconds() == pytest.approx(2, abs=0.01)
    assert (parse_ts(run["resultsExpiresAt"]) - finished).total_seconds() == pytest.approx(4, abs=0.01)
    assert srv.get("/api/v1/imports/runs/%s/failed-rows" % rid).status_code == 200
    assert stored_results(srv, rid) > 0 and stored_upload(srv, rid) == 1
    groups = "SELECT COUNT(*) FROM run_problems WHERE run_id = '%s'" % rid
    assert db_int(srv.db_url, groups) > 0

    # The upload goes first: the fix-up file needs it.
    wait_for(lambda: stored_upload(srv, rid) == 0, timeout=15, what="upload deleted by the sweeper")
    r = srv.get("/api/v1/imports/runs/%s/failed-rows" % rid)
    assert_problem(r, 410, "UPLOAD_EXPIRED", srv)
    assert srv.get("/api/v1/imports/runs/%s/results/failed" % rid).status_code == 200

    wait_for(lambda: stored_results(srv, rid) == 0, timeout=15, what="results deleted by the sweeper")
    for bucket in ("succeeded", "failed", "warnings", "skipped"):
        r = srv.get("/api/v1/imports/runs/%s/results/%s" % (rid, bucket))
        assert_problem(r, 410, "RESULTS_EXPIRED", srv)
        assert rid in r.json()["detail"]
    assert_problem(srv.get("/api/v1/imports/runs/%s/failed-rows" % rid), 410, "RESULTS_EXPIRED", srv)
    after = srv.get("/api/v1/imports/runs/%s" % rid).json()
    assert after["counts"] == run["counts"] and after["state"] == run["state"]
    assert after["resultsExpiresAt"] == run["resultsExpiresAt"], "a terminal run's body never changes"
    deleted = db_value(srv.db_url, "SELECT results_deleted_at FROM runs WHERE id = '%s'" % rid)
    assert deleted is not None
    assert db_int(srv.db_url, groups) == 0, "its problem groups go with its results"
    # The records the run wrote are not the run's to delete.
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM loads") == 19


def test_reads_answer_410_from_expiry_even_before_the_sweep(start_server):
    """A sweep may come up to LOADLINE_SWEEP_INTERVAL late; readers answer by
    the run's expiry time, so what a client sees does not depend on it."""
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "1s", "LOADLINE_KEEP_RESULTS": "1s",
                            "LOADLINE_SWEEP_INTERVAL": "1h"})
    run, _ = import_file(srv, mixed_file())
    time.sleep(1.2)
    assert stored_results(srv, run["id"]) > 0, "the hourly sweep has not run yet"
    assert_problem(srv.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"]), 410, "RESULTS_EXPIRED", srv)


def test_unfinished_runs_keep_their_upload(start_server):
    """A run staged for review keeps its file however short the setting: it
    is not finished, and confirming it later imports it."""
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "1s", "LOADLINE_KEEP_RESULTS": "1s",
                            "LOADLINE_SWEEP_INTERVAL": "1s"})
    data = csv_bytes(rows(3, job="RET-STAGED"), headers=None).replace(b"jobCode", b"Job Number", 1)
    run = awaiting_review(srv, accepted_run(upload(srv, data))["id"])
    assert run.get("nextAction"), run
    assert run["uploadExpiresAt"] is None and run["resultsExpiresAt"] is None
    time.sleep(3)
    assert stored_upload(srv, run["id"]) == 1
    done = wait_run(srv, run["id"])
    assert done["state"] == "SUCCEEDED" and done["counts"]["succeeded"] == 3, done


def test_kept_forever_when_zero(start_server):
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "0", "LOADLINE_KEEP_RESULTS": "0",
                            "LOADLINE_SWEEP_INTERVAL": "1s"})
    run, _ = import_file(srv, mixed_file())
    assert run["uploadExpiresAt"] is None and run["resultsExpiresAt"] is None
    time.sleep(2.5)
    assert stored_upload(srv, run["id"]) == 1 and stored_results(srv, run["id"]) > 0
    assert srv.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"]).status_code == 200


def test_bad_setting_is_refused_at_start(cli):
    r = cli.run("serve", "--listen", "127.0.0.1:1", expect=None, env={"LOADLINE_KEEP_RESULTS": "ninety days"})
    assert r.rc != 0 and "LOADLINE_KEEP_RESULTS" in r.err and "30d" in r.err


def test_run_page_says_results_were_deleted(start_server):
    srv = start_server(env=SHORT)
    run, _ = import_file(srv, mixed_file())
    rid = run["id"]
    w = signin(srv)
    page = text_of(w.get(srv.base_url + "/imports/runs/%s" % rid).text)
    assert "Download failed rows to fix" in page and "were deleted" not in page
    wait_for(lambda: stored_results(srv, rid) == 0, timeout=15, what="results deleted")
    page = text_of(w.get(srv.base_url + "/imports/runs/%s" % rid).text)
    assert "The per-row results of this run were deleted" in page and "4 seconds" in page, page
    assert "19 succeeded" in page and "1 failed" in page, page
    assert "Download failed rows to fix" not in page
    assert w.get(srv.base_url + "/imports/runs/%s/results.csv" % rid).status_code == 410
    assert w.get(srv.base_url + "/imports/runs/%s/failed-rows" % rid).status_code == 410


def test_sqlite_gives_the_space_back(start_server, backend):
    if backend != "sqlite":
        pytest.skip("PostgreSQL's autovacuum reuses the space; docs/operations.md says how to partition instead")
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "3s", "LOADLINE_KEEP_RESULTS": "3s",
                            "LOADLINE_SWEEP_INTERVAL": "1h"})
    path = srv.db_url[len("sqlite:"):]
    assert db_int(srv.db_url, "PRAGMA auto_vacuum") == 2, "a new database is made with auto_vacuum=INCREMENTAL"
    ids = []
    for k in range(4):
        recs = rows(700, job="RET-BIG-%d" % k)
        for i, r in enumerate(recs):
            r["weight"] = "12 t"                # a warning on every row
            r["customer"] = "Nobody %d" % (i % 7)   # and a look-up miss
        run, _ = import_file(srv, csv_bytes(recs))
        ids.append(run["id"])
    before = db_int(srv.db_url, "PRAGMA page_count")
    page = db_int(srv.db_url, "PRAGMA page_size")
    held = db_int(srv.db_url, "SELECT SUM(pgsize) FROM dbstat WHERE name IN ('run_results', 'run_files', "
                  "'sqlite_autoindex_run_results_1', 'sqlite_autoindex_run_files_1')") // page
    assert held > 100, held
    srv.stop()
    time.sleep(3.2)
    srv.start()
    # The start-up sweep deletes and vacuums; the file shrinks by what the
    # results and uploads held.
    wait_for(lambda: all(stored_results(srv, i) == 0 and stored_upload(srv, i) == 0 for i in ids),
             timeout=15, what="everything expired deleted")
    wait_for(lambda: db_int(srv.db_url, "PRAGMA page_count") <= before - held * 0.8, timeout=15,
             what="the file to shrink (%s, %d pages before, %d held by results and uploads)" % (path, before, held))
    assert db_int(srv.db_url, "PRAGMA freelist_count") < 100


def test_loadline_runs_marks_deleted_results(start_server):
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "1s", "LOADLINE_KEEP_RESULTS": "1s",
                            "LOADLINE_SWEEP_INTERVAL": "1h"})
    run, _ = import_file(srv, mixed_file())
    env = {"LOADLINE_URL": srv.base_url, "LOADLINE_TOKEN": srv.org.token}
    out = srv.cli.run("runs", env=env, db=None).out
    line = [ln for ln in out.splitlines() if ln.startswith(run["id"])][0]
    assert "results deleted" not in line
    time.sleep(1.2)
    out = srv.cli.run("runs", env=env, db=None).out
    line = [ln for ln in out.splitlines() if ln.startswith(run["id"])][0]
    assert line.split("\t")[7] == "results deleted", line


def test_deleted_text_leaves_the_database_and_its_log(start_server, backend):
    """Issue 27 item 16: after the retention sweep deleted a run's results,
    a value only they held is in neither the SQLite database file nor its
    write-ahead log (secure_delete zeroes the deleted rows; the sweep
    checkpoints and truncates the log).  Before, it stayed in the log's
    frames until some later checkpoint, and in free pages after it."""
    if backend != "sqlite":
        pytest.skip("SQLite's files; PostgreSQL's storage is the operator's")
    srv = start_server(env=SHORT)
    marker = "RETMARK-7Q4Z"
    recs = rows(5, job="RET-M")
    recs[1]["loadDate"] = marker                # a failed row: its value is only in the results
    run, _ = import_file(srv, csv_bytes(recs))
    assert run["counts"]["failed"] == 1, run
    path = srv.db_url.split(":", 1)[1]
    wait_for(lambda: stored_results(srv, run["id"]) == 0, timeout=15, what="results deleted by the sweeper")

    def holds_marker():
        found = []
        for p in (path, path + "-wal"):
            try:
                with open(p, "rb") as f:
                    if marker.encode() in f.read():
                        found.append(p)
            except FileNotFoundError:
                pass
        return found
    wait_for(lambda: not holds_marker(), timeout=10, what="the deleted value gone from the files")


def test_webhook_attempts_are_kept_like_results(start_server, backend):
    """Issue 27 item 12: webhook attempts, deliveries and events are deleted
    by the retention sweep once older than LOADLINE_KEEP_RESULTS."""
    import http.server
    import threading

    class Ok(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        env = dict(SHORT, LOADLINE_WEBHOOK_ALLOW_HTTP="1", LOADLINE_WEBHOOK_ALLOW_PRIVATE="1")
        srv = start_server(env=env)
        r = srv.post("/api/v1/webhook-endpoints", json={"url": "http://127.0.0.1:%d/h" % httpd.server_address[1],
                                                        "events": ["import_run.completed"]})
        assert r.status_code == 201, r.text
        import_file(srv, mixed_file(3, salt="W"))
        count = lambda t: db_int(srv.db_url, "SELECT COUNT(*) FROM %s" % t)  # noqa: E731
        wait_for(lambda: count("webhook_attempts") == 1, timeout=15, what="the delivery attempted")
        wait_for(lambda: count("webhook_attempts") == 0 and count("webhook_deliveries") == 0
                 and count("webhook_events") == 0, timeout=20, what="webhook rows deleted by the sweeper")
    finally:
        httpd.shutdown()
        httpd.server_close()
