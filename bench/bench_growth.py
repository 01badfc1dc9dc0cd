#!/usr/bin/env python3
"""Issue 21: what an organization's history costs as it grows.

Pushes N files of 750 NEW loads each into one organization (as a busy
integration does over weeks) and, every STEP pushes, records:

- import time: the run's finishedAt - createdAt, median of the last STEP runs;
- poll time: GET /api/v1/imports/runs/{id} with If-None-Match (304), median;
- page time: GET .../results/warnings?limit=100 and GET /api/v1/imports/runs
  (the runs list, a page of 50: as many runs as the first step has), median;
- database bytes per imported row: SQLite's file + WAL after a checkpoint, or
  PostgreSQL's pg_database_size, minus the size of the empty database, over
  the loads imported so far; and the largest tables.

Goals (issue 21): <= 1 KB of database per imported row (uploads included while
kept), import time at the end <= 1.3x the time after the first STEP pushes,
polls and pages flat (end/first ratios, judged against the import's 1.3x).

The file is as messy as real ones: a named pickup and dropoff on every row
(60 sites), weights in tons, lb, lbs and kg, $ rates, M/D/YYYY dates, 10
customer names of which the organization has none (LOOKUP_MISS on every
row), 40 job codes per file.

    python3 bench/bench_growth.py [--backend sqlite|postgres] [--pushes N]
                                  [--step S] [build/loadline]
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from harness.net import free_port  # noqa: E402

ROWS, JOBS, SITES, CUSTOMERS = 750, 40, 60, 10
GOAL_BYTES_PER_ROW = 1024
GOAL_IMPORT_GROWTH = 1.3
GOAL_FLAT = 1.3   # "flat" for polls and pages: the import's own bound (sub-ms figures, a shared machine)
UNITS = ["12.5 t", "24000 lbs", "9000 kg", "18 tons", "21500 lb"]
MATERIALS = ["Crushed Limestone #57", "Rip Rap", "Fill Dirt", "Asphalt Millings", "Sand"]


def jobs_file(i):
    """Push i's file: 750 new loads (load numbers carry i)."""
    # The jobs template's own headers: a shape that needs no review.
    header = ("jobCode,loadNo,loadDate,projectName,customer,material,ticketNo,weight,rate,notes,"
              "pickupName,pickupStreet,pickupCity,pickupState,pickupZip,"
              "dropoffName,dropoffStreet,dropoffCity,dropoffState,dropoffZip\n")
    lines = []
    for n in range(ROWS):
        j = (n * 7 + i) % JOBS
        p, d = (n * 7) % SITES, (n * 11 + 3) % SITES
        lines.append('GJ-%03d,P%04d-%03d,%d/%d/2026,Growth Job %03d,Cascade Civil Group %d,%s,T%06d,%s,'
                     '"$1,%03d.%02d",%s,Quarry %02d,%d Quarry Rd,Austin,TX,787%02d,Yard %02d,%d Yard Ave,'
                     'Round Rock,TX,786%02d\n'
                     % (j, i, n, 1 + n % 12, 1 + n % 28, j, j % CUSTOMERS, MATERIALS[n % 5], i * 1000 + n,
                        UNITS[n % 5], n % 1000, n % 100, "gate code 4411" if n % 3 == 0 else "",
                        p, 100 + p, p % 40, d, 200 + d, d % 40))
    return (header + "".join(lines)).encode()


def median_ms(xs):
    return statistics.median(xs) * 1000 if xs else float("nan")


def iso_s(t):
    """Seconds of an ISO 8601 timestamp with milliseconds (same day math only)."""
    hms = t.split("T")[1].rstrip("Z")
    h, m, s = hms.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


class SqliteDb:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ll-growth-")
        self.path = os.path.join(self.dir, "loadline.db")
        self.url = "sqlite:" + self.path

    def size(self):
        con = sqlite3.connect(self.path, timeout=2)
        try:
            con.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            con.close()
        return sum(os.path.getsize(os.path.join(self.dir, f)) for f in os.listdir(self.dir))

    def tables(self):
        con = sqlite3.connect(self.path, timeout=2)
        try:
            rows = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 6").fetchall()
        except sqlite3.Error:
            rows = []
        finally:
            con.close()
        wal = self.path + "-wal"
        return rows + ([("(wal)", os.path.getsize(wal))] if os.path.exists(wal) else [])

    def close(self):
        if os.environ.get("BENCH_GROWTH_KEEP"):
            print("  kept " + self.path)
            return
        shutil.rmtree(self.dir, ignore_errors=True)


class PgDb:
    def __init__(self):
        from harness.pg import PgCluster
        self.pg = PgCluster()
        self.pg.start()
        self.name = self.pg._create_now()
        self.url = self.pg.url(self.name)

    def size(self):
        self.pg.psql("VACUUM", db=self.name)
        return int(self.pg.psql("SELECT pg_database_size(current_database())", db=self.name))

    def tables(self):
        out = self.pg.psql("SELECT relname || '=' || pg_total_relation_size(oid) FROM pg_class WHERE relkind = 'r' "
                           "AND relnamespace = 'public'::regnamespace ORDER BY pg_total_relation_size(oid) DESC "
                           "LIMIT 6", db=self.name)
        return [(x.split("=")[0], int(x.split("=")[1])) for x in out.split() if "=" in x]

    def close(self):
        self.pg.destroy()


def bootstrap_token(binary, env):
    """`admin bootstrap` on env's database: its API token."""
    out = subprocess.run([binary, "admin", "bootstrap"], env=env, capture_output=True, text=True, check=True)
    return [ln.split()[-1] for ln in out.stdout.splitlines() if ln.startswith("API token:")][0]


def serve(binary, env, workers, log_name):
    """`loadline serve` on a free port, its output appended to
    $TMPDIR/<log_name>; (process, base URL) once /healthz answers.  The
    benches of bench/ share it."""
    port = free_port()
    log = open(os.path.join(tempfile.gettempdir(), log_name), "a")
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--workers", str(workers)],
                            env=env, stdout=log, stderr=log)
    base = "http://127.0.0.1:%d" % port
    for _ in range(400):
        try:
            if requests.get(base + "/healthz", timeout=1).status_code == 200:
                break
        except requests.RequestException:
            time.sleep(0.05)
    return proc, base


def start(binary, db, env_extra):
    env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s", **env_extra)
    token = bootstrap_token(binary, env)
    proc, base = serve(binary, env, 1, "bench_growth-serve.log")
    s = requests.Session()
    s.headers["Authorization"] = "Bearer " + token
    return proc, base, s


def push_one(s, base, body, i):
    r = s.post(base + "/api/v1/imports/jobs", files={"file": ("growth-%04d.csv" % i, body, "text/csv")})
    assert r.status_code == 202, r.text
    run = r.json()
    url = base + "/api/v1/imports/runs/" + run["id"]
    while run["state"] in ("QUEUED", "RUNNING"):
        assert not run.get("nextAction"), run
        time.sleep(0.005)
        run = s.get(url).json()
    assert run["state"] in ("PARTIAL", "SUCCEEDED"), run
    assert run["counts"]["failed"] == 0 and run["counts"]["succeeded"] == ROWS, run["counts"]
    return run


def timed_get(s, url, headers=None, expect=200, reps=5):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = s.get(url, headers=headers or {})
        ts.append(time.perf_counter() - t0)
        assert r.status_code == expect, (url, r.status_code, r.text[:200])
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--pushes", type=int, default=None)
    ap.add_argument("--step", type=int, default=50)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    pushes = a.pushes or (300 if a.backend == "sqlite" else 100)
    db = SqliteDb() if a.backend == "sqlite" else PgDb()
    proc = None
    try:
        proc, base, s = start(os.path.abspath(a.binary), db, {})
        empty = db.size()
        print("growth (%s, %d pushes of %d new loads into one organization, step %d; load %.2f %.2f %.2f):"
              % (a.backend, pushes, ROWS, a.step, *os.getloadavg()))
        print("  %6s %10s %8s %8s %8s %10s  %s" % ("pushes", "import ms", "poll ms", "page ms", "list ms",
                                                 "bytes/row", "largest tables (KiB)"))
        imports, first = [], None
        last = None
        for i in range(pushes):
            run = push_one(s, base, jobs_file(i), i)
            imports.append(iso_s(run["finishedAt"]) - iso_s(run["createdAt"]))
            last = run
            if (i + 1) % a.step and i + 1 != pushes:
                continue
            url = base + "/api/v1/imports/runs/" + last["id"]
            etag = s.get(url).headers["ETag"]
            poll = timed_get(s, url, {"If-None-Match": etag}, expect=304, reps=21)
            page = timed_get(s, url + "/results/warnings?limit=100", reps=7)
            lst = timed_get(s, base + "/api/v1/imports/runs?limit=50", reps=7)
            per_row = (db.size() - empty) / ((i + 1) * ROWS)
            row = (median_ms(imports[-a.step:]), poll * 1000, page * 1000, lst * 1000, per_row)
            first = first or row
            tables = " ".join("%s=%d" % (n, sz // 1024) for n, sz in db.tables())
            print("  %6d %10.1f %8.2f %8.2f %8.2f %10.0f  %s" % ((i + 1,) + row + (tables,)), flush=True)
        end = row
        growth = end[0] / first[0]
        print("  bytes per imported row %.0f (goal <= %d): %s" % (end[4], GOAL_BYTES_PER_ROW,
                                                               "HOLDS" if end[4] <= GOAL_BYTES_PER_ROW else "MISSED"))
        print("  import time end/first %.2fx (goal <= %.1fx): %s" % (growth, GOAL_IMPORT_GROWTH,
                                                                   "HOLDS" if growth <= GOAL_IMPORT_GROWTH else "MISSED"))
        flat = [end[k] / first[k] for k in (1, 2, 3)]
        print("  polls and pages flat, end/first <= %.1fx: poll %.2fx, results page %.2fx, runs list %.2fx: %s"
              % (GOAL_FLAT, flat[0], flat[1], flat[2], "HOLDS" if max(flat) <= GOAL_FLAT else "MISSED"))
        return 0 if end[4] <= GOAL_BYTES_PER_ROW and growth <= GOAL_IMPORT_GROWTH else 1
    finally:
        if proc:
            proc.terminate()
            proc.wait(20)
        db.close()


if __name__ == "__main__":
    sys.exit(main())
