#!/usr/bin/env python3
"""Issue 23 part 1: what a long poll costs and how soon it answers.

1. Latency, one process: `serve` with a worker; for each of N runs a GET
   with If-None-Match and `Prefer: wait=30` is held until the run ends; the
   time from the run's finishedAt (the server's clock, the same host) to
   the answer arriving.  Goal: median <= 10 ms.
2. Latency across processes (PostgreSQL: `serve` without workers, one
   `loadline worker` process; the wake-up is LISTEN/NOTIFY).  Goal: median
   <= 50 ms.  On SQLite the same measurement is printed for information.
3. 1,000 held requests: the serve process's resident memory and thread
   count before and while they are held.  Goals: <= 50 MB more, no extra
   threads.

    python3 bench/bench_longpoll.py [--backend sqlite|postgres] [--runs N] [build/loadline]
"""
import argparse
import datetime
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import requests  # noqa: E402

from bench_growth import PgDb, SqliteDb, bootstrap_token, serve  # noqa: E402
from harness.net import free_port  # noqa: E402

GOAL_ONE_MS, GOAL_CROSS_MS, GOAL_MEM_MB = 10.0, 50.0, 50.0


def csv_file(i, rows=20):
    lines = ["jobCode,loadNo,loadDate,weight"]
    lines += ["LPB-%d,L-%d-%d,2026-11-02,12 t" % (i, i, n) for n in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def epoch_ms(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return int(out["VmRSS"].split()[0]) / 1024.0, int(out["Threads"])


def held_latency(s, base, i):
    """Uploads, then long-polls until terminal; ms from finishedAt to the
    answer of the poll that saw it."""
    run = s.post(base + "/api/v1/imports/jobs", files={"file": ("f%d.csv" % i, csv_file(i), "text/csv")}).json()
    url = base + "/api/v1/imports/runs/" + run["id"]
    r = s.get(url)
    while True:
        body = r.json()
        if body["state"] not in ("QUEUED", "RUNNING"):
            return None   # ended before we could hold: not a measurement
        r = s.get(url, headers={"If-None-Match": r.headers["ETag"], "Prefer": "wait=30"})
        got = time.time() * 1000
        if r.status_code == 200 and r.json()["state"] not in ("QUEUED", "RUNNING"):
            return got - epoch_ms(r.json()["finishedAt"])


def latencies(s, base, n):
    out = []
    for i in range(n * 3):
        ms = held_latency(s, base, i + int(time.time()))
        if ms is not None:
            out.append(ms)
        if len(out) >= n:
            break
    return out


def hold_many(base, token, run_id, etag, n):
    """n raw connections each with a held long poll; returns the sockets."""
    req = ("GET /api/v1/imports/runs/%s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
           "If-None-Match: %s\r\nPrefer: wait=60\r\n\r\n" % (run_id, token, etag)).encode()
    host, port = base[len("http://"):].split(":")
    socks = []
    for _ in range(n):
        c = socket.create_connection((host, int(port)))
        c.sendall(req)
        socks.append(c)
    return socks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    db = SqliteDb() if a.backend == "sqlite" else PgDb()
    procs = []
    try:
        env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s", LOADLINE_ENV_FILE="",
                   LOADLINE_MAX_CONNECTIONS_PER_IP="0", LOADLINE_DEBUG_ROW_DELAY_MS="2")
        token = bootstrap_token(binary, env)
        s = requests.Session()
        s.headers["Authorization"] = "Bearer " + token
        p, base = serve(binary, env, 1, "bench_longpoll-serve.log")
        procs.append(p)
        one = latencies(s, base, a.runs)
        p.terminate()
        p.wait(20)
        procs.clear()
        p, base = serve(binary, env, 0, "bench_longpoll-serve.log")
        procs.append(p)
        w = subprocess.Popen([binary, "worker", "--workers", "1"], env=env, stderr=subprocess.DEVNULL)
        procs.append(w)
        cross = latencies(s, base, a.runs)
        w.terminate()
        w.wait(20)
        procs.remove(w)
        # 1,000 held: a run that stays QUEUED (no workers now).
        run = s.post(base + "/api/v1/imports/jobs", files={"file": ("hold.csv", csv_file(999999), "text/csv")}).json()
        etag = s.get(base + "/api/v1/imports/runs/" + run["id"]).headers["ETag"]
        time.sleep(0.3)
        rss0, th0 = proc_status(p.pid)
        socks = hold_many(base, token, run["id"], etag, 1000)
        time.sleep(1.5)
        held = [ln for ln in requests.get(base + "/metrics").text.splitlines()
                if ln.startswith("loadline_long_polls_held ")]
        rss1, th1 = proc_status(p.pid)
        for c in socks:
            c.close()
        print("long poll (%s, %d runs each; load %.2f %.2f %.2f):" % (a.backend, a.runs, *os.getloadavg()))
        m1, mx = statistics.median(one), statistics.median(cross)
        print("  one process: finishedAt -> answer median %.1f ms, p90 %.1f ms (goal <= %.0f ms): %s"
              % (m1, sorted(one)[int(len(one) * 0.9) - 1], GOAL_ONE_MS, "HOLDS" if m1 <= GOAL_ONE_MS else "MISSED"))
        verdict = ("HOLDS" if mx <= GOAL_CROSS_MS else "MISSED") if a.backend == "postgres" else "informative"
        print("  across processes (serve + a worker process): median %.1f ms, p90 %.1f ms (goal <= %.0f ms on "
              "PostgreSQL): %s" % (mx, sorted(cross)[int(len(cross) * 0.9) - 1], GOAL_CROSS_MS, verdict))
        print("  1,000 held: %s; resident %.1f -> %.1f MB (+%.1f, goal <= %.0f): %s; threads %d -> %d: %s"
              % (held[0] if held else "held ?", rss0, rss1, rss1 - rss0, GOAL_MEM_MB,
                 "HOLDS" if rss1 - rss0 <= GOAL_MEM_MB else "MISSED", th0, th1,
                 "HOLDS" if th1 <= th0 else "MISSED"))
        return 0
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        db.close()


if __name__ == "__main__":
    sys.exit(main())
