#!/usr/bin/env python3
"""Issue 29 (PRODUCT §16): a big file, streamed in batches.

Generates ROWS rows of bench_growth's shape (20 columns: named sites, 40
jobs, customers that miss, money and unit conversions), pushes it with
LOADLINE_MAX_ROWS raised, and while it runs pushes another organization's
750-row file again and again.  Prints:

- the big run's own rows/s (startedAt to finishedAt) against the goal
  (>= 100,000 SQLite, >= 80,000 PostgreSQL);
- the server's peak memory above what it was before the upload (VmHWM),
  against 64 MiB;
- the other organization's 750-row imports: the slowest and the median,
  POST to terminal, against 1 s.

    python3 bench/bench_big.py [--backend sqlite|postgres] [--rows N] [build/loadline]
"""
import argparse
import os
import statistics
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from bench_growth import PgDb, SqliteDb, bootstrap_token, iso_s, jobs_file, serve  # noqa: E402

GOAL_RPS = {"sqlite": 100000, "postgres": 80000}


def big_file(rows):
    """rows rows: bench_growth's 750-row files, each with its own load numbers."""
    parts, header = [], None
    for i in range(0, (rows + 749) // 750):
        body = jobs_file(i).decode()
        head, rest = body.split("\n", 1)
        header = head
        lines = rest.splitlines(keepends=True)
        parts.append("".join(lines[:min(750, rows - i * 750)]))
    return (header + "\n" + "".join(parts)).encode()


def peak_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmHWM:"):
                return int(ln.split()[1])
    return 0


def wait(s, base, run_id, poll=0.02):
    while True:
        run = s.get(base + "/api/v1/imports/runs/" + run_id).json()
        if run["state"] not in ("QUEUED", "RUNNING"):
            return run
        time.sleep(poll)


def others(binary, env, base, stop, times):
    """Another organization's 750-row pushes while the big run works."""
    import subprocess
    org = subprocess.run([binary, "admin", "create-org", "--name", "Other"], env=env, capture_output=True,
                         text=True, check=True).stdout.split()[0]
    token = subprocess.run([binary, "admin", "mint-token", "--org", org, "--name", "b"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()[0]
    s = requests.Session()
    s.headers["Authorization"] = "Bearer " + token
    i = 0
    while not stop.is_set():
        t0 = time.monotonic()
        r = s.post(base + "/api/v1/imports/jobs", files={"file": ("o%d.csv" % i, jobs_file(5000 + i), "text/csv")})
        assert r.status_code == 202, r.text
        run = wait(s, base, r.json()["id"], 0.005)
        assert run["state"] in ("SUCCEEDED", "PARTIAL"), run
        times.append(time.monotonic() - t0)
        i += 1
        time.sleep(0.2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="sqlite", choices=["sqlite", "postgres"])
    ap.add_argument("--rows", type=int, default=300000)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    db = SqliteDb() if a.backend == "sqlite" else PgDb()
    body = big_file(a.rows)
    env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s", LOADLINE_MAX_ROWS=str(a.rows),
               LOADLINE_MAX_FILE_BYTES=str(512 << 20))
    token = bootstrap_token(a.binary, env)
    proc, base = serve(a.binary, env, 2, "bench_big-serve.log")
    try:
        s = requests.Session()
        s.headers["Authorization"] = "Bearer " + token
        warm = s.post(base + "/api/v1/imports/jobs", files={"file": ("w.csv", jobs_file(9999), "text/csv")})
        wait(s, base, warm.json()["id"])
        before = peak_kb(proc.pid)
        stop, times = threading.Event(), []
        t = threading.Thread(target=others, args=(a.binary, env, base, stop, times))
        r = s.post(base + "/api/v1/imports/jobs", files={"file": ("big.csv", body, "text/csv")})
        assert r.status_code == 202, r.text
        t.start()
        run = wait(s, base, r.json()["id"], 0.1)
        stop.set()
        t.join()
        grew = (peak_kb(proc.pid) - before) / 1024
        secs = iso_s(run["finishedAt"]) - iso_s(run["startedAt"])
        rps = a.rows / secs
        print("%s: %d rows (%.0f MB) %s in %.2f s: %.0f rows/s (goal >= %d: %s)" % (
            a.backend, a.rows, len(body) / 1e6, run["state"], secs, rps, GOAL_RPS[a.backend],
            "met" if rps >= GOAL_RPS[a.backend] else "NOT met"))
        print("  peak memory above idle: %.0f MiB (goal <= 64: %s)" % (grew, "met" if grew <= 64 else "NOT met"))
        if times:
            print("  another org's 750-row imports meanwhile: %d, median %.2f s, slowest %.2f s (goal <= 1 s: %s)"
                  % (len(times), statistics.median(times), max(times), "met" if max(times) <= 1 else "NOT met"))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        db.close()


if __name__ == "__main__":
    main()
