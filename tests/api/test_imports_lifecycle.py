"""Run lifecycle faults (issue 4 item 2 and "Bad input and faults"; SPEC
"States and transitions"): operator abort, stuck-run reaper, kill -9 and
restart, separate worker processes, graceful shutdown during an upload."""
import signal
import socket
import subprocess
import threading
import time

import pytest

from harness.jobs import accepted_run, csv_bytes, import_file, results, rows, upload, wait_run
from harness.server import child_env, loadline_bin, sanitizer_reports, _die_with_parent

RUNS = "/api/v1/imports/runs/"


def test_cancel_run(start_server):
    """SPEC transitions: operator abort of a non-terminal run -> CANCELLED
    (PRODUCT §1 `admin cancel-run`); a terminal run cannot be cancelled."""
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="J-CAN"))))
    assert srv.cli.admin("cancel-run", run["id"]).out.strip() == ""
    got = srv.get(RUNS + run["id"]).json()
    assert got["state"] == "CANCELLED"
    # results of a terminal run are readable (and empty: nothing processed)
    for b in ("succeeded", "failed", "warnings", "skipped"):
        r = srv.get(RUNS + run["id"] + "/results/" + b)
        assert r.status_code == 200 and r.json()["data"] == [], r.text
    r = srv.cli.admin("cancel-run", run["id"], expect=None)
    assert r.rc == 1 and r.err.strip(), r
    r = srv.cli.admin("cancel-run", "run_doesnotexist12345", expect=None)
    assert r.rc == 1 and r.err.strip(), r


def test_stuck_run_reaper(start_server):
    """SPEC transitions: a QUEUED/RUNNING run (no nextAction) older than the
    run time-out -> FAILED with error.code RUN_TIMED_OUT (LOADLINE_RUN_TIMEOUT
    and LOADLINE_SWEEP_INTERVAL shrunk to seconds, PRODUCT §1)."""
    srv = start_server(workers=0, env={"LOADLINE_RUN_TIMEOUT": "1s",
                                       "LOADLINE_SWEEP_INTERVAL": "1s"})
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="J-STUCK"))))
    done = wait_run(srv, run["id"], timeout=20)
    assert done["state"] == "FAILED", done
    assert done["error"]["code"] == "RUN_TIMED_OUT", done


def _wait_running(srv, run_id, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = srv.get(RUNS + run_id).json()["state"]
        if st != "QUEUED":
            return st
    return "QUEUED"


def test_kill_9_while_running_then_restart(start_server, make_db):
    """Issue 4 faults: kill -9 of the process while a run is RUNNING, then a
    restart: the run is claimed again after its lease and completes once;
    no row is written twice."""
    url = make_db()
    # LOADLINE_DEBUG_ROW_DELAY_MS (the lead's test knob) keeps the run RUNNING a while
    env = {"LOADLINE_LEASE": "2s", "LOADLINE_SWEEP_INTERVAL": "1s", "LOADLINE_DEBUG_ROW_DELAY_MS": "2"}
    for attempt in range(3):
        srv = start_server(db_url=url, env=env, workers=1, bootstrap=(attempt == 0))
        if attempt == 0:
            token = srv.token
        else:
            srv.token = token
        data = csv_bytes(rows(750, job="J-KILL%d" % attempt))
        run = accepted_run(upload(srv, data))
        st = _wait_running(srv, run["id"])
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait(10)
        srv.expect_clean_exit = False
        if st == "RUNNING":
            break
    else:
        pytest.skip("never caught the run in RUNNING (it finished too fast)")
    again = start_server(db_url=url, env=env, workers=1, bootstrap=False)
    again.token = token
    done = wait_run(again, run["id"], timeout=60)
    assert done["state"] == "SUCCEEDED", done
    assert done["counts"] == {"succeeded": 750, "warnings": 0, "failed": 0, "skipped": 0}
    ok = results(again, run["id"], "succeeded", limit=1000)
    assert [e["rowIndex"] for e in ok] == list(range(2, 752))
    assert len({e["createdRecordIds"][0] for e in ok}) == 750
    rerun, res = import_file(again, data, timeout=60)
    assert rerun["state"] == "SKIPPED" and len(res["skipped"]) == 750


def test_worker_processes_share_the_queue(start_server):
    """PRODUCT §1 `loadline worker`: workers alone, sharing the database with
    a serve process that has none; several runs are each processed exactly
    once (counts exact, never SKIPPED by a second pass); SIGTERM exits 0."""
    srv = start_server(workers=0)
    procs = []
    errs = []
    for i in range(2):
        f = open(srv.stderr_path + ".worker%d" % i, "wb+")
        errs.append(f)
        procs.append(subprocess.Popen([loadline_bin(), "--db", srv.db_url, "worker", "--workers", "2"],
                                      stdout=subprocess.DEVNULL, stderr=f, env=child_env(),
                                      preexec_fn=_die_with_parent))
    try:
        ids = [accepted_run(upload(srv, csv_bytes(rows(20, job="J-W%d" % i))))["id"]
               for i in range(6)]
        for rid in ids:
            done = wait_run(srv, rid, timeout=60)
            assert done["state"] == "SUCCEEDED", done
            assert done["counts"]["succeeded"] == 20 and done["counts"]["skipped"] == 0, done
    finally:
        rcs = []
        for p in procs:
            p.send_signal(signal.SIGTERM)
            try:
                rcs.append(p.wait(10))
            except subprocess.TimeoutExpired:
                p.kill()
                rcs.append(None)
        for f in errs:
            f.seek(0)
            text = f.read().decode("utf-8", "replace")
            f.close()
            assert not sanitizer_reports(text), text
    assert rcs == [0, 0], rcs


def test_sigterm_lets_an_inflight_upload_finish(start_server):
    """Issue 2 item 2: graceful shutdown: a request in flight when SIGTERM
    arrives (an upload half sent) still completes (202), and the process
    then exits 0; the run it created is there after a restart."""
    srv = start_server(workers=0)
    data = csv_bytes(rows(300, job="J-INFLIGHT"))
    boundary = "inflightBoundary"
    body = (("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n"
             "Content-Type: text/csv\r\n\r\n" % boundary).encode() + data
            + ("\r\n--%s--\r\n" % boundary).encode())
    head = ("POST /api/v1/imports/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
            "Content-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (srv.token, boundary, len(body))).encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    half = len(body) // 2
    s.sendall(head + body[:half])
    time.sleep(0.2)  # let the server start reading the body (no observable signal)
    srv.signal(signal.SIGTERM)
    # the listening socket closes once shutdown has begun: poll for it
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", srv.port), timeout=0.2).close()
            time.sleep(0.02)
        except OSError:
            break
    s.sendall(body[half:])
    resp = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            resp += c
    except OSError:
        pass
    s.close()
    assert resp.startswith(b"HTTP/1.1 202"), resp[:300]
    rc = srv.proc.wait(10)
    assert rc == 0, srv.stderr()[-2000:]
    run_id = resp.split(b"/api/v1/imports/runs/")[1].split(b"\r\n")[0].decode()
    again = start_server(db_url=srv.db_url, workers=0, bootstrap=False)
    again.token = srv.token
    assert again.get(RUNS + run_id).json()["state"] == "QUEUED"
