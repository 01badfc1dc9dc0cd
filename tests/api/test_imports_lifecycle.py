"""Run lifecycle faults (issue 4 item 2 and "Bad input and faults"; SPEC
"States and transitions"): operator abort, stuck-run reaper (kill -9 and
restart and separate worker processes are in test_recovery.py), graceful
shutdown during an upload."""
import signal
import socket
import time

from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run

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
