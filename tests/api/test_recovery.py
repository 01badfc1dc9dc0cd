"""Recovery of import runs (issue 4 "Bad input and faults"; SPEC "States
and transitions"): a worker killed with SIGKILL mid-run, the database going
away mid-run, and several worker processes sharing one PostgreSQL.  In each
case every run completes exactly once and no row is written twice.

LOADLINE_DEBUG_ROW_DELAY_MS slows each written row so that a run is
reliably RUNNING when the fault is injected; LOADLINE_LEASE=2s makes a dead
worker's claim expire quickly."""
import signal
import time

import pytest

from harness.db import db_int as db_scalar
from harness.server import assert_workers_clean, start_workers, stop_workers

FAULT_ENV = {"LOADLINE_LEASE": "2s", "LOADLINE_DEBUG_ROW_DELAY_MS": "15",
             "LOADLINE_SWEEP_INTERVAL": "1s"}
HEADER = "jobCode,loadNo,loadDate,weight,pickupStreet,pickupCity,pickupState,pickupZip\n"


def jobs_csv(n, job="J", salt=""):
    rows = ["%s,L%04d,2026-11-%02d,%d lb,%d Main St%s,Springfield,IL,62701\n"
            % (job, i, 1 + i % 28, 1000 + i, i % 7, salt) for i in range(n)]
    return (HEADER + "".join(rows)).encode()


def upload(srv, content, name="loads.csv", token=None):
    kw = {} if token is None else {"token": token}
    r = srv.post("/api/v1/imports/jobs", files={"file": (name, content, "text/csv")}, **kw)
    assert r.status_code == 202, r.text
    return r.json()["id"]


def wait_state(srv, run_id, states, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        r = srv.get("/api/v1/imports/runs/" + run_id)
        if r.status_code == 200 and r.json()["state"] in states:
            return r.json()
        assert time.monotonic() < deadline, "run %s not in %s after %.0f s: %s" % (
            run_id, states, timeout, r.text)
        time.sleep(0.05)


TERMINAL = ("SUCCEEDED", "PARTIAL", "SKIPPED", "FAILED", "CANCELLED")


def all_results(srv, run_id, bucket):
    rows, url = [], "/api/v1/imports/runs/%s/results/%s?limit=1000" % (run_id, bucket)
    while url:
        page = srv.get(url).json()
        rows += page["data"]
        url = page["nextPageUrl"]
    return rows


def test_kill_9_mid_run_then_restart_completes_once(start_server):
    """Issue 4: kill -9 of the process while a run is RUNNING, then a
    restart: the run completes once and no row is written twice."""
    n = 200
    first = start_server(env=FAULT_ENV, workers=1)
    run_id = upload(first, jobs_csv(n))
    wait_state(first, run_id, ("RUNNING",))
    # Fault injection, not a wait for a result: kill while rows are being
    # written inside the open transaction (rows are slowed by FAULT_ENV);
    # the assertions hold whenever the kill lands.
    time.sleep(0.8)
    first.kill()
    first.expect_clean_exit = False
    assert db_scalar(first.db_url, "SELECT COUNT(*) FROM loads") == 0, "uncommitted rows survived kill -9"

    second = start_server(db_url=first.db_url, env=FAULT_ENV, workers=1, bootstrap=False)
    second.org, second.token = first.org, first.org.token
    run = wait_state(second, run_id, TERMINAL)
    assert run["state"] == "SUCCEEDED", run
    assert run["counts"] == {"succeeded": n, "warnings": 0, "failed": 0, "skipped": 0}
    assert db_scalar(first.db_url, "SELECT COUNT(*) FROM loads") == n
    assert db_scalar(first.db_url, "SELECT COUNT(DISTINCT load_no) FROM loads") == n
    assert db_scalar(first.db_url, "SELECT attempts FROM runs WHERE id = '%s'" % run_id) == 2
    rows = all_results(second, run_id, "succeeded")
    assert [r["rowIndex"] for r in rows] == list(range(2, n + 2))
    assert len({r["createdRecordIds"][0] for r in rows}) == n
    # The same file pushed again changes nothing.
    again = upload(second, jobs_csv(n))
    rerun = wait_state(second, again, TERMINAL)
    assert rerun["state"] == "SKIPPED" and rerun["counts"]["skipped"] == n, rerun
    assert db_scalar(first.db_url, "SELECT COUNT(*) FROM loads") == n


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_database_outage_mid_run_is_retried_not_lost(start_server, private_pg):
    """Issue 4: the database going away mid-run: the run is retried, not
    lost, and its rows are written exactly once."""
    url = private_pg.url(private_pg.create_database())
    srv = start_server(db_url=url, env=FAULT_ENV, workers=1)
    n = 150
    run_id = upload(srv, jobs_csv(n))
    wait_state(srv, run_id, ("RUNNING",))
    time.sleep(0.5)   # fault injection: the outage lands mid-run (rows are slowed)
    private_pg.stop("fast")
    time.sleep(1.5)   # the outage lasts a while: time is what is tested
    private_pg.start()
    run = wait_state(srv, run_id, TERMINAL, timeout=90)
    assert run["state"] == "SUCCEEDED", run
    assert db_scalar(url, "SELECT COUNT(*) FROM loads") == n
    assert db_scalar(url, "SELECT COUNT(*) FROM run_results WHERE run_id = '%s'" % run_id) == n


def test_worker_processes_share_the_queue_each_run_once(start_server):
    """Issue 4 item 2, PRODUCT §1 `loadline worker`: worker processes share
    the database with a serve process that has no workers; claims are
    atomic (FOR UPDATE SKIP LOCKED on PostgreSQL, the writer lock on SQLite)
    so each run is processed by exactly one worker, once (counts exact,
    never SKIPPED by a second pass); SIGTERM exits 0 with no sanitizer
    report."""
    srv = start_server(workers=0)
    procs = start_workers(srv.db_url, 2, 2, {"LOADLINE_SWEEP_INTERVAL": "1s"})
    try:
        runs = [upload(srv, jobs_csv(40, job="JOB%d" % i)) for i in range(8)]
        for run_id in runs:
            run = wait_state(srv, run_id, TERMINAL)
            assert run["state"] == "SUCCEEDED", run
            assert run["counts"]["succeeded"] == 40 and run["counts"]["skipped"] == 0, run
        assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM loads") == 8 * 40
        assert db_scalar(srv.db_url, "SELECT MAX(attempts) FROM runs") == 1
    finally:
        results = stop_workers(procs)
    assert_workers_clean(results)


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_worker_process_is_woken_by_notification_not_its_poll(start_server):
    """Issue 11: a run queued by `serve` wakes an idle `worker` process at
    once (LISTEN/NOTIFY), for processing and for the triage of a staged
    run, instead of waiting for its poll — here set to 10 minutes, so only
    a notification can explain a prompt start."""
    srv = start_server(workers=0)
    procs = start_workers(srv.db_url, 1, 1, {"LOADLINE_WORKER_POLL": "10m"})
    try:
        time.sleep(1.0)   # the worker has made its first (empty) look and naps
        for i in range(3):
            run_id = upload(srv, jobs_csv(5, job="WAKE%d" % i))
            run = wait_state(srv, run_id, TERMINAL, timeout=30)
            assert run["state"] == "SUCCEEDED", run
        staged = srv.post("/api/v1/imports/jobs", files={"file": ("s.csv", b"Job #,Load Number,Ship Date\nJ,1,2026-11-01\n",
                                                                   "text/csv")}).json()
        assert staged["rowCount"] is None and "nextAction" not in staged   # not read yet (issue 27)
        deadline = time.monotonic() + 30
        while srv.get("/api/v1/imports/runs/" + staged["id"]).json()["rowCount"] is None:
            assert time.monotonic() < deadline, "the staged run was not triaged"
            time.sleep(0.05)
    finally:
        results = stop_workers(procs)
    assert_workers_clean(results)


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_frozen_worker_holds_nobody_up(start_server):
    """Issue 12 (found from outside): a worker frozen mid-run (kill -STOP,
    not dead) keeps its transaction open.  Worker sessions bound their waits
    (lock_timeout, idle_in_transaction_session_timeout, statement_timeout,
    relative to the lease), so the worker that re-claims the run is not
    blocked for the whole freeze: the run completes, each row once."""
    n = 300
    srv = start_server(workers=0, env=FAULT_ENV)
    frozen = start_workers(srv.db_url, 1, 1, FAULT_ENV)
    others = []
    try:
        run_id = upload(srv, jobs_csv(n, job="FROZEN"))
        wait_state(srv, run_id, ("RUNNING",))
        time.sleep(0.5)   # fault injection: freeze while rows are being written
        frozen[0].send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        others = start_workers(srv.db_url, 1, 1, FAULT_ENV)
        run = wait_state(srv, run_id, TERMINAL, timeout=60)
        took = time.monotonic() - t0
        assert run["state"] == "SUCCEEDED", run
        assert run["counts"]["succeeded"] == n, run
        assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM loads") == n
        # lease (2 s) + the frozen transaction ended (2 x lease) + the rows
        assert took < 30, "the re-claiming worker waited %.1f s on the frozen one" % took
    finally:
        for p in frozen:
            p.send_signal(signal.SIGCONT)
        results = stop_workers(frozen + others)
    assert_workers_clean(results)


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_concurrent_imports_sharing_keys_never_deadlock(start_server):
    """Issue 11 goal 5 / issue 12: imports that share job codes and
    location names, running at once on several workers, take their locks
    in one order (advisory locks on the sorted natural keys), so PostgreSQL
    reports no deadlock; every run ends once and no load is written twice."""
    header = "jobCode,loadNo,loadDate,pickupName,pickupStreet,pickupCity,pickupState,pickupZip\n"
    jobs = ["DJ%d" % i for i in range(6)]
    names = ["Yard %d" % i for i in range(6)]

    def file(i):
        # Each file walks the shared keys in its own rotation, one way or the other.
        order = list(range(6))
        order = order[i % 6:] + order[:i % 6]
        if i % 2:
            order.reverse()
        lines = ["%s,F%02dL%02d,2026-11-01,%s,%d Dock Rd,Austin,TX,78701\n"
                 % (jobs[j], i, n, names[(j + i) % 6], (j + i) % 6) for n, j in enumerate(order * 5)]
        return (header + "".join(lines)).encode()

    env = {"LOADLINE_SWEEP_INTERVAL": "1s"}
    srv = start_server(workers=0, env=env)
    before = db_scalar(srv.db_url, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
    procs = start_workers(srv.db_url, 2, 3, env)
    try:
        runs = [upload(srv, file(i)) for i in range(24)]
        for run_id in runs:
            run = wait_state(srv, run_id, TERMINAL, timeout=120)
            assert run["state"] == "SUCCEEDED", run
            assert run["counts"]["succeeded"] == 30, run
    finally:
        results = stop_workers(procs)
    assert_workers_clean(results)
    after = db_scalar(srv.db_url, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
    assert after - before == 0, "%d deadlocks" % (after - before)
    assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM loads") == 24 * 30
    assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM projects") == 6
    assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM locations WHERE name IS NOT NULL") == 6
    assert db_scalar(srv.db_url, "SELECT MAX(attempts) FROM runs") == 1


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_run_cancelled_mid_write_leaves_no_loads_and_no_results(start_server):
    """A run cancelled (`admin cancel-run`) while its worker is writing its
    rows: the worker's final move finds the run CANCELLED and rolls back the
    whole transaction, so no Load and no result row is left.  The results
    are written only after that move, which is what proves the run is still
    the worker's: on PostgreSQL run_results has no foreign key doing it
    once per row (migration 8).  PostgreSQL only: on SQLite the worker's
    write transaction holds the database, so the cancel waits for it."""
    n = 200
    srv = start_server(workers=1, env=FAULT_ENV)
    run_id = upload(srv, jobs_csv(n, job="MIDCANCEL"))
    wait_state(srv, run_id, ("RUNNING",))
    time.sleep(0.5)   # fault injection: rows are being written (15 ms each)
    assert srv.cli.admin("cancel-run", run_id).out.strip() == ""
    deadline = time.monotonic() + 30
    while "run abandoned" not in srv.stderr():
        assert time.monotonic() < deadline, "the worker never gave the cancelled run up"
        time.sleep(0.05)
    assert srv.get("/api/v1/imports/runs/" + run_id).json()["state"] == "CANCELLED"
    assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM loads") == 0
    assert db_scalar(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE run_id = '%s'" % run_id) == 0
    for b in ("succeeded", "warnings", "failed", "skipped"):
        assert all_results(srv, run_id, b) == []
