#!/usr/bin/env python3
"""Issue 28: undoing an import costs at most twice the import.

Pushes RUNS files of 750 messy rows (bench_growth's: named sites, 40 jobs,
a customer miss on every row) into one organization and, per file:

- creates: the import of 750 new Loads, then its revert (removes the 750
  Loads; the Projects and locations nothing else uses go too);
- updates: the same file pushed again with every row's ticket number
  changed (750 updates, before-images kept), then its revert (restores the
  750 prior values).

Times are the runs' own: finishedAt - startedAt (a worker's claim to its
commit), medians over the files.  Goal: revert <= 2x the import it undoes,
on SQLite and PostgreSQL (its own throwaway cluster).

    python3 bench/bench_revert.py [--backend sqlite|postgres] [--runs N] [build/loadline]
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from bench_growth import PgDb, SqliteDb, bootstrap_token, iso_s, jobs_file, serve  # noqa: E402

ROWS = 750


def wait(s, base, run):
    url = base + "/api/v1/imports/runs/" + run["id"]
    while run["state"] in ("QUEUED", "RUNNING"):
        assert not run.get("nextAction"), run
        time.sleep(0.005)
        run = s.get(url).json()
    return run


def push(s, base, body, name):
    r = s.post(base + "/api/v1/imports/jobs", files={"file": (name, body, "text/csv")})
    assert r.status_code == 202, r.text
    return wait(s, base, r.json())


def revert(s, base, run_id):
    r = s.post(base + "/api/v1/imports/runs/%s/revert" % run_id)
    assert r.status_code == 202, r.text
    return wait(s, base, r.json())


def own_ms(run):
    return (iso_s(run["finishedAt"]) - iso_s(run["startedAt"])) * 1000


def changed(body):
    """Every data row's ticket number changed: 750 updates."""
    lines = body.decode().splitlines(keepends=True)
    out = [lines[0]]
    for ln in lines[1:]:
        out.append(ln.replace(",T", ",U", 1))
    return "".join(out).encode()


def one(s, base, i, times):
    imp = push(s, base, jobs_file(i), "revert-%04d.csv" % i)
    assert imp["counts"]["succeeded"] == ROWS, imp["counts"]
    rc = revert(s, base, imp["id"])
    assert rc["revert"]["removed"] == ROWS and rc["revert"]["changedSince"] == 0, rc["revert"]
    # Updates on another file: a revert undoes only what nothing changed
    # since, so each revert here undoes the last run of its Loads.
    body = jobs_file(1000 + i)
    push(s, base, body, "revert-base-%04d.csv" % i)
    upd = push(s, base, changed(body), "revert-upd-%04d.csv" % i)
    assert upd["counts"]["succeeded"] == ROWS, upd["counts"]
    ru = revert(s, base, upd["id"])
    assert ru["revert"]["restored"] == ROWS and ru["revert"]["changedSince"] == 0, ru["revert"]
    times["import (creates)"].append(own_ms(imp))
    times["revert (removes)"].append(own_ms(rc))
    times["import (updates)"].append(own_ms(upd))
    times["revert (restores)"].append(own_ms(ru))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    db = SqliteDb() if a.backend == "sqlite" else PgDb()
    proc = None
    try:
        env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s")
        token = bootstrap_token(binary, env)
        s = requests.Session()
        s.headers["Authorization"] = "Bearer " + token
        proc, base = serve(binary, env, 1, "bench_revert-serve.log")
        times = {k: [] for k in ("import (creates)", "revert (removes)", "import (updates)", "revert (restores)")}
        for i in range(a.runs):
            one(s, base, i, times)
        med = {k: statistics.median(v) for k, v in times.items()}
        print("revert of a 750-row run (%s, %d files; run's own time, median ms; load %.2f %.2f %.2f):"
              % (a.backend, a.runs, *os.getloadavg()))
        for imp, rev in (("import (creates)", "revert (removes)"), ("import (updates)", "revert (restores)")):
            ratio = med[rev] / med[imp]
            print("  %-18s %7.1f ms   %-18s %7.1f ms   %.2fx  %s" % (imp, med[imp], rev, med[rev], ratio,
                                                                   "HOLDS" if ratio <= 2 else "MISSES (goal <= 2x)"))
        return 0
    finally:
        if proc:
            proc.terminate()
            proc.wait(20)
        db.close()


if __name__ == "__main__":
    sys.exit(main())
