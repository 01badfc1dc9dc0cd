#!/usr/bin/env python3
"""Issue 21 part 2: the retention delete path as shipped.

Imports RUNS files of 750 rows (every row with a warning, so each stored
row is as large as results get), stops the server, and starts it again with
LOADLINE_KEEP_RESULTS / LOADLINE_KEEP_UPLOADS of 1 s: its sweeper then
deletes everything in chunks of 500 result rows, one short transaction each.
Prints how long the deletes took (per run and per 1,000 result rows), the
database size before and after (SQLite: the file shrinks by incremental
vacuum), and the time of an import pushed while the sweeper deletes
against the same import on the idle server — the goal being that deleting
does not block imports (ratio printed, informative).

    python3 bench/bench_retention.py [--backend sqlite|postgres] [--runs N] [build/loadline]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from bench_growth import PgDb, SqliteDb, bootstrap_token, iso_s, jobs_file, push_one, serve  # noqa: E402
from harness.net import free_port  # noqa: E402


def serve_on(binary, db, env_extra):
    env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s", **env_extra)
    return serve(binary, env, 1, "bench_retention-serve.log")


def results_left(db):
    if isinstance(db, SqliteDb):
        import sqlite3
        con = sqlite3.connect(db.path, timeout=30)
        try:
            return con.execute("SELECT COUNT(*) FROM run_results").fetchone()[0]
        finally:
            con.close()
    return int(db.pg.psql("SELECT COUNT(*) FROM run_results", db=db.name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    db = SqliteDb() if a.backend == "sqlite" else PgDb()
    proc = None
    try:
        env = dict(os.environ, LOADLINE_DB=db.url)
        token = bootstrap_token(binary, env)
        s = requests.Session()
        s.headers["Authorization"] = "Bearer " + token
        proc, base = serve_on(binary, db, {})
        idle = []
        for i in range(a.runs):
            run = push_one(s, base, jobs_file(i), i)
            idle.append(iso_s(run["finishedAt"]) - iso_s(run["createdAt"]))
        rows = results_left(db)
        proc.terminate()
        proc.wait(20)
        size0 = db.size()
        time.sleep(1.2)
        t0 = time.monotonic()
        proc, base = serve_on(binary, db, {"LOADLINE_KEEP_RESULTS": "1s", "LOADLINE_KEEP_UPLOADS": "1s",
                                           "LOADLINE_SWEEP_INTERVAL": "1s"})
        # One import while the sweeper deletes (it starts at once).
        busy = push_one(s, base, jobs_file(a.runs + 1), a.runs + 1)
        busy_ms = (iso_s(busy["finishedAt"]) - iso_s(busy["createdAt"])) * 1000
        while results_left(db) > 750:   # the run just pushed keeps its 750 for 1 s
            time.sleep(0.01)
        took = time.monotonic() - t0
        proc.terminate()
        proc.wait(20)
        proc = None
        size1 = db.size()
        print("retention delete path (%s, %d runs of 750 rows, %d stored result rows; load %.2f %.2f %.2f):"
              % (a.backend, a.runs, rows, *os.getloadavg()))
        print("  all deleted in %.2f s from start: %.1f ms per run, %.2f ms per 1,000 result rows (chunks of 500)"
              % (took, took * 1000 / a.runs, took * 1e6 / max(rows, 1)))
        print("  database %.1f MiB -> %.1f MiB" % (size0 / 2**20, size1 / 2**20))
        print("  an import during the deletes %.1f ms; idle median %.1f ms (%.2fx, informative)"
              % (busy_ms, statistics.median(idle) * 1000, busy_ms / (statistics.median(idle) * 1000)))
        return 0
    finally:
        if proc:
            proc.terminate()
            proc.wait(20)
        db.close()


if __name__ == "__main__":
    sys.exit(main())
