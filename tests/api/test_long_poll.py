"""Long poll (issue 23 part 1; PRODUCT §12): GET /api/v1/imports/runs/{id}
with If-None-Match and `Prefer: wait=N` (RFC 7240, N <= 60) is held until
the run's representation changes (200 with the new ETag) or N seconds pass
(304), with `Preference-Applied: wait=N`; a held request occupies no HTTP
thread; at most LOADLINE_MAX_WAITERS are held, beyond which the preference
is ignored; it works across processes on both backends."""
import concurrent.futures
import os
import signal
import time

import pytest
import requests

from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run
from harness.server import start_workers, stop_workers


def run_url(srv, run_id):
    return srv.base_url + "/api/v1/imports/runs/" + run_id


def poll(srv, run_id, etag, wait, timeout=90):
    """One long poll; returns (response, seconds it took)."""
    t0 = time.monotonic()
    r = requests.get(run_url(srv, run_id), timeout=timeout,
                     headers={"Authorization": "Bearer " + srv.org.token, "If-None-Match": etag,
                              "Prefer": "wait=%s" % wait})
    return r, time.monotonic() - t0


def queued_run(srv, job):
    run = accepted_run(upload(srv, csv_bytes(rows(3, job=job))))
    etag = srv.get("/api/v1/imports/runs/%s" % run["id"]).headers["ETag"]
    return run, etag


def test_times_out_with_304_and_says_the_wait_was_applied(start_server):
    srv = start_server(workers=0)
    run, etag = queued_run(srv, "LP-1")
    r, took = poll(srv, run["id"], etag, 1)
    assert r.status_code == 304 and 0.9 <= took < 3, (r.status_code, took)
    assert r.headers["Preference-Applied"] == "wait=1" and r.headers["ETag"] == etag


def test_answers_when_the_run_changes_in_another_process(start_server):
    """serve holds; `admin cancel-run` (another process) changes the run."""
    srv = start_server(workers=0)
    run, etag = queued_run(srv, "LP-2")
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fut = ex.submit(poll, srv, run["id"], etag, 30)
        time.sleep(0.5)
        t0 = time.monotonic()
        srv.cli.admin("cancel-run", run["id"])
        r, took = fut.result()
    assert r.status_code == 200 and r.json()["state"] == "CANCELLED", r.text[:300]
    assert r.headers["ETag"] != etag and r.headers["Preference-Applied"] == "wait=30"
    assert time.monotonic() - t0 < 2 and took < 10, took


def test_answers_when_a_worker_in_this_process_finishes(start_server):
    srv = start_server(workers=1, env={"LOADLINE_DEBUG_ROW_DELAY_MS": "300"})
    run = accepted_run(upload(srv, csv_bytes(rows(4, job="LP-3"))))
    etag, state = None, None
    seen = []
    deadline = time.monotonic() + 30
    while state not in ("SUCCEEDED", "PARTIAL") and time.monotonic() < deadline:
        if etag is None:
            g = srv.get("/api/v1/imports/runs/%s" % run["id"])
        else:
            g, _ = poll(srv, run["id"], etag, 20)
        assert g.status_code == 200, (g.status_code, seen)
        etag, state = g.headers["ETag"], g.json()["state"]
        seen.append(state)
    assert state == "SUCCEEDED", seen
    # Never a 304 in between: every answer was a change.
    done = srv.get("/api/v1/imports/runs/%s" % run["id"]).json()
    assert done["finishedAt"]


def test_answers_when_a_worker_process_finishes(start_server, make_db):
    """serve without workers holds; a `loadline worker` process runs the
    import: the hold ends within a second of the run's end."""
    db = make_db()
    srv = start_server(db_url=db, workers=0)
    run, etag = queued_run(srv, "LP-4")
    procs = start_workers(db, 1, 1)
    try:
        r, took = poll(srv, run["id"], etag, 30)
        assert r.status_code == 200, r.status_code
        states = [r.json()["state"]]
        while states[-1] not in ("SUCCEEDED", "PARTIAL"):
            r, took = poll(srv, run["id"], r.headers["ETag"], 30)
            assert r.status_code == 200
            states.append(r.json()["state"])
        assert took < 5, (took, states)
    finally:
        stop_workers(procs)


def test_held_requests_take_no_http_thread(start_server):
    srv = start_server(workers=0, env={"LOADLINE_HTTP_THREADS": "2"})
    run, etag = queued_run(srv, "LP-5")
    with concurrent.futures.ThreadPoolExecutor(12) as ex:
        futs = [ex.submit(poll, srv, run["id"], etag, 4) for _ in range(12)]
        time.sleep(0.8)
        t0 = time.monotonic()
        for _ in range(10):
            assert srv.get("/healthz").status_code == 200
            assert srv.get("/api/v1/whoami").status_code == 200
        assert time.monotonic() - t0 < 2, "2 HTTP threads, 12 held polls: others still served"
        metrics = srv.get("/metrics", token=None).text
        assert "loadline_long_polls_held 12" in metrics, [ln for ln in metrics.splitlines() if "long_poll" in ln]
        got = [f.result() for f in futs]
    assert all(r.status_code == 304 for r, _ in got)
    metrics = srv.get("/metrics", token=None).text
    assert 'loadline_long_polls_total{outcome="timeout"} 12' in metrics


def test_beyond_max_waiters_the_preference_is_ignored(start_server):
    srv = start_server(workers=0, env={"LOADLINE_MAX_WAITERS": "2", "LOADLINE_MAX_WAITERS_PER_ORG": "2"})
    run, etag = queued_run(srv, "LP-6")
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        futs = [ex.submit(poll, srv, run["id"], etag, 3) for _ in range(2)]
        time.sleep(0.8)
        r, took = poll(srv, run["id"], etag, 3)
        assert r.status_code == 304 and took < 0.5 and "Preference-Applied" not in r.headers, took
        assert all(f.result()[0].headers.get("Preference-Applied") == "wait=3" for f in futs)
    assert 'loadline_long_polls_total{outcome="refused"} 1' in srv.get("/metrics", token=None).text


def test_wait_is_clamped_to_60_and_a_fresh_etag_answers_at_once(start_server):
    srv = start_server(workers=0)
    run, etag = queued_run(srv, "LP-7")
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fut = ex.submit(poll, srv, run["id"], etag, 600)
        time.sleep(0.3)
        srv.cli.admin("cancel-run", run["id"])
        r, _ = fut.result()
    assert r.status_code == 200 and r.headers["Preference-Applied"] == "wait=60"
    # An ETag that is not the current one: the answer is at once.
    r, took = poll(srv, run["id"], '"stale"', 30)
    assert r.status_code == 200 and took < 1


def test_stopping_answers_held_requests(start_server):
    srv = start_server(workers=0)
    run, etag = queued_run(srv, "LP-8")
    with concurrent.futures.ThreadPoolExecutor(3) as ex:
        futs = [ex.submit(poll, srv, run["id"], etag, 50) for _ in range(3)]
        time.sleep(0.5)
        t0 = time.monotonic()
        srv.signal(signal.SIGTERM)
        got = [f.result() for f in futs]
    assert all(r.status_code == 304 for r, _ in got)
    assert time.monotonic() - t0 < 5
    assert srv.stop() == 0
    srv.start()   # the fixture's teardown stops it again


def test_without_the_preference_nothing_changes(server):
    run = wait_run(server, accepted_run(upload(server, csv_bytes(rows(1, job="LP-9"))))["id"])
    r = server.get("/api/v1/imports/runs/%s" % run["id"])
    r2 = server.get("/api/v1/imports/runs/%s" % run["id"], headers={"If-None-Match": r.headers["ETag"]})
    assert r2.status_code == 304 and "Preference-Applied" not in r2.headers


def test_a_change_while_the_poll_reads_its_run_is_not_missed(start_server):
    """Issue 27 item 2: the poll registers before it reads.  The run is read,
    then (LOADLINE_DEBUG_POLL_READ_DELAY_MS) another process cancels it before
    the poll decides: it must answer the change, not wait out its 20 s."""
    srv = start_server(workers=0, env={"LOADLINE_DEBUG_POLL_READ_DELAY_MS": "1500"})
    run, etag = queued_run(srv, "LP-10")
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        fut = ex.submit(poll, srv, run["id"], etag, 20)
        time.sleep(0.3)
        srv.cli.admin("cancel-run", run["id"])
        r, took = fut.result()
    assert r.status_code == 200 and r.json()["state"] == "CANCELLED", (r.status_code, took)
    assert took < 8, took


def test_one_organization_cannot_take_every_slot(start_server):
    """Issue 27 item 15: LOADLINE_MAX_WAITERS_PER_ORG.  Org A holds its share;
    its next poll is answered at once, while org B's poll is still held."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_WAITERS": "4", "LOADLINE_MAX_WAITERS_PER_ORG": "2"})
    run_a, etag_a = queued_run(srv, "LP-11")
    b = srv.new_org()
    srv.token = b.token
    run_b, etag_b = queued_run(srv, "LP-12")
    srv.token = srv.org.token
    with concurrent.futures.ThreadPoolExecutor(3) as ex:
        held = [ex.submit(poll, srv, run_a["id"], etag_a, 3) for _ in range(2)]
        time.sleep(0.8)
        r, took = poll(srv, run_a["id"], etag_a, 3)
        assert r.status_code == 304 and took < 0.5 and "Preference-Applied" not in r.headers, took
        t0 = time.monotonic()
        rb = requests.get(run_url(srv, run_b["id"]), timeout=30,
                          headers={"Authorization": "Bearer " + b.token, "If-None-Match": etag_b,
                                   "Prefer": "wait=2"})
        assert rb.status_code == 304 and rb.headers.get("Preference-Applied") == "wait=2"
        assert time.monotonic() - t0 >= 1.8
        assert all(f.result()[0].headers.get("Preference-Applied") == "wait=3" for f in held)


def _wakeups(pid):
    """Voluntary context switches of each thread of pid ({tid: n}): how
    often its threads went to sleep and were woken."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        out[tid] = int(line.split()[1])
        except FileNotFoundError:
            pass
    return out


@pytest.mark.skipif("tsan" in os.environ.get("LOADLINE_BIN", ""),
                    reason="ThreadSanitizer's runtime has a thread of its own that wakes every 100 ms")
def test_an_idle_server_does_not_poll(start_server):
    """Issue 27 item 3: an idle serve with a worker makes at most 5 wake-ups a
    second (it made ~200 on SQLite: a 5 ms sleeping loop)."""
    srv = start_server(workers=1)
    time.sleep(1.5)   # start-up settles
    before, t0 = _wakeups(srv.proc.pid), time.monotonic()
    time.sleep(4)
    after, took = _wakeups(srv.proc.pid), time.monotonic() - t0
    per_thread = {t: (n - before.get(t, 0)) / took for t, n in after.items() if n != before.get(t, 0)}
    rate = sum(per_thread.values())
    assert rate <= 5, "%.1f wake-ups a second while idle: %s" % (rate, per_thread)
