#!/usr/bin/env python3
"""Issue 11 goal 5: concurrent imports on PostgreSQL without deadlocks.

Starts its own throwaway PostgreSQL (initdb/pg_ctl, as the tests do), one
`loadline serve` (no workers) and two `loadline worker` processes (2 worker
threads each), then pushes FILES files of ROWS rows from 8 client threads.
The files share job codes, named locations and an unknown customer, each
walking them in its own order, so imports contend for the same keys.

Prints files/s (first POST to last terminal run), PostgreSQL's deadlock
count for the database, and checks: every run terminal and SUCCEEDED once
(attempts = 1), loads = files x rows (none twice, none lost).  Exit 1 when a
goal is missed: 0 deadlocks, >= 60 files/s.

    python3 bench/scale_pg.py [build/loadline]
"""
import concurrent.futures
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from harness.net import free_port  # noqa: E402
from harness.pg import PgCluster  # noqa: E402

FILES, ROWS, JOBS, SITES = 100, 50, 12, 10
GOAL_FILES_PER_S = 60.0


def jobs_file(i):
    header = ("jobCode,loadNo,loadDate,customer,weight,rate,pickupName,pickupStreet,pickupCity,pickupState,"
              "pickupZip,dropoffName,dropoffStreet,dropoffCity,dropoffState,dropoffZip\n")
    order = list(range(JOBS))
    order = order[i % JOBS:] + order[:i % JOBS]
    if i % 2:
        order.reverse()
    lines = []
    for n in range(ROWS):
        j = order[n % JOBS]
        p, d = (j + n) % SITES, (j + n + 3) % SITES
        lines.append("SJ-%02d,F%03d-%02d,%d/%d/2026,Unknown Hauling %d,%s,\"$1,%03d.51\",Site %d,%d Dock Rd,Austin,TX,"
                     "78701,Site %d,%d Dock Rd,Austin,TX,78701\n"
                     % (j, i, n, 1 + n % 12, 1 + n % 28, j % 3, ["12.5 t", "24000 lbs", "9000 kg", "18 tons"][n % 4],
                        n, p, p, d, d))
    return (header + "".join(lines)).encode()


def proc_cpu_s(pid):
    """CPU seconds (user + system) of one process, 0 when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_s(data_dir):
    """CPU of the cluster: the postmaster and every child of it."""
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        master = int(f.readline())
    total = proc_cpu_s(master)
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == master:
                total += proc_cpu_s(int(name))
    return total


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "loadline"))
    pg = PgCluster()
    pg.start()
    procs = []
    try:
        db = pg.url(pg._create_now())
        env = dict(os.environ, LOADLINE_DB=db, LOADLINE_RATE_LIMIT="1000000/1s")
        out = subprocess.run([binary, "admin", "bootstrap"], env=env, capture_output=True, text=True, check=True)
        token = [ln.split()[-1] for ln in out.stdout.splitlines() if ln.startswith("API token:")][0]
        port = free_port()
        procs.append(subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--workers", "0"],
                                      env=env, stderr=subprocess.DEVNULL))
        for _ in range(2):
            procs.append(subprocess.Popen([binary, "worker", "--workers", "2"], env=env, stderr=subprocess.DEVNULL))
        base = "http://127.0.0.1:%d" % port
        for _ in range(200):
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.05)
        s = requests.Session()
        s.headers["Authorization"] = "Bearer " + token
        files = [jobs_file(i) for i in range(FILES)]
        deadlocks0 = int(pg.psql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                                 db=db.rsplit("/", 1)[1]))

        def push(i):
            r = s.post(base + "/api/v1/imports/jobs", files={"file": ("f%03d.csv" % i, files[i], "text/csv")})
            assert r.status_code == 202, r.text
            return r.json()["id"]

        cpu0 = [proc_cpu_s(p.pid) for p in procs] + [postgres_cpu_s(pg.data), time.process_time()]
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(8) as ex:
            ids = list(ex.map(push, range(FILES)))
        # One list request every 50 ms sees every run: polling each run on
        # its own would spend the 2 cores on the client, not the service.
        pending = set(ids)
        states = {}
        while pending:
            page = s.get(base + "/api/v1/imports/runs", params={"limit": 1000}).json()["data"]
            for run in page:
                if run["id"] in pending and run["state"] in ("SUCCEEDED", "PARTIAL", "SKIPPED", "FAILED",
                                                             "CANCELLED"):
                    states[run["id"]] = run
                    pending.discard(run["id"])
            if time.monotonic() - t0 > 600:
                raise SystemExit("scale_pg: runs not terminal after 600 s: %d left" % len(pending))
            if pending:
                time.sleep(0.05)
        elapsed = time.monotonic() - t0
        cpu1 = [proc_cpu_s(p.pid) for p in procs] + [postgres_cpu_s(pg.data), time.process_time()]
        spent = [b - a for a, b in zip(cpu0, cpu1)]
        dbname = db.rsplit("/", 1)[1]
        deadlocks = int(pg.psql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                                db=dbname)) - deadlocks0
        loads = int(pg.psql("SELECT COUNT(*) FROM loads", db=dbname))
        attempts = int(pg.psql("SELECT MAX(attempts) FROM runs", db=dbname))
        bad = [r for r in states.values() if r["state"] != "PARTIAL" or r["counts"]["failed"]]
        rate = FILES / elapsed
        load = os.getloadavg()
        print("scale (PostgreSQL, 1 serve + 2 workers x 2 threads, %d files x %d rows, 8 clients):" % (FILES, ROWS))
        print("  %.1f s, %.1f files/s (goal >= %.0f): %s" % (elapsed, rate, GOAL_FILES_PER_S,
                                                         "HOLDS" if rate >= GOAL_FILES_PER_S else "MISSED"))
        print("  deadlocks %d (goal 0): %s" % (deadlocks, "HOLDS" if deadlocks == 0 else "MISSED"))
        print("  loads %d of %d, max attempts %d, runs not as expected %d" % (loads, FILES * ROWS, attempts, len(bad)))
        print("  CPU per file: serve %.1f ms, workers %.1f ms, PostgreSQL %.1f ms, this client %.1f ms; "
              "total %.1f ms = %.0f files/s on 2 idle cores" % (spent[0] * 1000 / FILES, sum(spent[1:-2]) * 1000 / FILES,
                                                               spent[-2] * 1000 / FILES, spent[-1] * 1000 / FILES,
                                                               sum(spent) * 1000 / FILES, 2 * FILES / sum(spent)))
        print("  load average %.2f %.2f %.2f" % load)
        ok = deadlocks == 0 and loads == FILES * ROWS and attempts == 1 and not bad
        if not ok:
            print("scale_pg: correctness check FAILED", file=sys.stderr)
            return 2
        return 0 if rate >= GOAL_FILES_PER_S else 1
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        pg.destroy()


if __name__ == "__main__":
    sys.exit(main())
