#!/usr/bin/env python3
"""Issue 29: big files (PRODUCT §16), on SQLite and PostgreSQL.

With LOADLINE_MAX_ROWS=1000000 and LOADLINE_MAX_FILE_BYTES=512 MB, imports a
generated 1,000,000-row CSV and a 200,000-row XLSX of the benchmark's messy
row shape (a named pickup and dropoff on every row, weights in t, tons, lb,
lbs and kg, $ rates, M/D/YYYY dates, customers the organization does not
have) and prints, each with its verdict:

- rows/s: the run's own time, startedAt to finishedAt (goal >= 100,000 on
  SQLite, >= 80,000 on PostgreSQL), and for the CSV its floor: the same
  rows' required writes (projects, loads, a result row of the run's mean
  size, the checkpoint) inserted raw in the pipeline's 2,000-row batches on
  a fresh database of the same backend (build/bench/bench_bigfloor);
- the server's peak memory above idle during the import: VmHWM (reset
  before each import through /proc/PID/clear_refs) minus the idle VmRSS
  (goal <= 64 MiB);
- the slowest of another organization's 750-row imports, pushed again and
  again (new loads each time) while the big one runs: upload to terminal as
  its client sees it (goal <= 1 s);
- at --pages-rows rows (default 1,000,000): the first and a later page of
  results (succeeded, warnings), the problems, and the run page (also deep
  into the succeeded rows), median of 11 after a warm-up (goal <= 50 ms).
  The run is the big CSV run, its results grown in the database to that
  many rows by copying them (row numbers shifted) when the import had fewer:
  the pages can be timed at a million rows without a million-row import.
  For comparison, the problems computed per view (as before migration 19).

    python3 bench/bench_bigfile.py [--backend sqlite|postgres|both] [--rows N]
                                   [--xlsx-rows N] [--office-rows N] [--pages-rows N]
                                   [build/loadline]

Besides the generated XLSX (inline strings), --office-rows rows (default
--rows) of the CSV saved as .xlsx by LibreOffice, as a person saves a
workbook: every text cell in the shared-string table, dates and amounts
typed by Calc.

--rows 50000 runs it small (the XLSX then has N/5 rows).
"""
import argparse
import itertools
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import requests  # noqa: E402

from bench_growth import PgDb, SqliteDb, bootstrap_token, iso_s, jobs_file, serve  # noqa: E402
from harness.jobs import col_letter, xlsx_package_parts  # noqa: E402

GOAL_ROWS_S = {"sqlite": 100000, "postgres": 80000}
GOAL_MEM_MIB = 64
XLSX_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
GOAL_SMALL_S = 1.0
GOAL_PAGE_MS = 50
SITES, CUSTOMERS = 60, 10
UNITS = ["12.5 t", "24000 lbs", "9000 kg", "18 tons", "21500 lb"]
MATERIALS = ["Crushed Limestone #57", "Rip Rap", "Fill Dirt", "Asphalt Millings", "Sand"]
HEADER = ["jobCode", "loadNo", "loadDate", "projectName", "customer", "material", "ticketNo", "weight", "rate",
          "notes", "pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip", "dropoffName",
          "dropoffStreet", "dropoffCity", "dropoffState", "dropoffZip"]


def cells(n, jobs, tag):
    """Row n of a big file: about 20 rows per job, as in the 750-row bench."""
    j = (n * 7) % jobs
    p, d = (n * 7) % SITES, (n * 11 + 3) % SITES
    return ["BJ-%s-%05d" % (tag, j), "B%s-%07d" % (tag, n), "%d/%d/2026" % (1 + n % 12, 1 + n % 28),
            "Big Job %05d" % j, "Cascade Civil Group %d" % (j % CUSTOMERS), MATERIALS[n % 5], "T%08d" % n,
            UNITS[n % 5], "$1,%03d.%02d" % (n % 1000, n % 100), "gate code 4411" if n % 3 == 0 else "",
            "Quarry %02d" % p, "%d Quarry Rd" % (100 + p), "Austin", "TX", "787%02d" % (p % 40),
            "Yard %02d" % d, "%d Yard Ave" % (200 + d), "Round Rock", "TX", "786%02d" % (d % 40)]


def csv_line(c):
    return ",".join('"%s"' % v if "," in v else v for v in c) + "\n"


def write_csv(path, rows, tag):
    jobs = max(40, rows // 20)
    with open(path, "w", newline="") as f:
        f.write(",".join(HEADER) + "\n")
        for n in range(rows):
            f.write(csv_line(cells(n, jobs, tag)))


def write_xlsx(path, rows, tag):
    """One sheet of inline strings, written as a stream (a 200,000-row sheet
    never sits in memory)."""
    jobs = max(40, rows // 20)

    def row_xml(ri, c):
        return '<row r="%d">%s</row>' % (ri, "".join(
            '<c r="%s%d" t="inlineStr"><is><t>%s</t></is></c>' % (col_letter(ci), ri, escape(v)) for ci, v in enumerate(c)))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in xlsx_package_parts().items():
            z.writestr(name, text)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as w:
            w.write(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet '
                    b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
            w.write(row_xml(1, HEADER).encode())
            for n in range(rows):
                w.write(row_xml(n + 2, cells(n, jobs, tag)).encode())
            w.write(b"</sheetData></worksheet>")


def write_office_xlsx(path, rows, tag):
    """The CSV of `rows` rows saved as .xlsx by LibreOffice (headless), as a
    person would save it: every text cell in the shared-string table (2.1
    million strings for a million rows), dates, $ amounts and ZIP codes
    typed by Calc's own detection.  False when soffice is missing."""
    exe = shutil.which("soffice")
    if not exe:
        return False
    d = tempfile.mkdtemp(prefix="ll-bigfile-office-")
    try:
        src = os.path.join(d, "big-office.csv")
        write_csv(src, rows, tag)
        subprocess.run([exe, "-env:UserInstallation=file://" + os.path.join(d, "profile"), "--headless",
                        "--norestore", "--convert-to", "xlsx", "--outdir", d, src], capture_output=True,
                       timeout=3600, check=True, env=dict(os.environ, HOME=d))
        shutil.move(os.path.join(d, "big-office.xlsx"), path)
        return True
    finally:
        shutil.rmtree(d, ignore_errors=True)


def proc_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def reset_peak(pid):
    """Linux: writing 5 to clear_refs resets VmHWM to the current RSS."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def wait_terminal(s, base, run_id, pause):
    url = base + "/api/v1/imports/runs/" + run_id
    while True:
        run = s.get(url, timeout=60).json()
        if run["state"] not in ("QUEUED", "RUNNING"):
            return run
        assert not run.get("nextAction"), run
        time.sleep(pause)


SMALL_FILES = itertools.count(1)   # new loads in every small file, across imports


class SmallPusher(threading.Thread):
    """Another organization pushing 750-row files (new loads each time) for
    as long as the big import runs; the client's time from upload to a
    terminal run, each."""

    def __init__(self, base, token):
        super().__init__(daemon=True)
        self.base, self.s = base, requests.Session()
        self.s.headers["Authorization"] = "Bearer " + token
        self.stop, self.times = threading.Event(), []

    def run(self):
        while not self.stop.is_set():
            i = next(SMALL_FILES)
            t0 = time.perf_counter()
            r = self.s.post(self.base + "/api/v1/imports/jobs",
                            files={"file": ("small-%d.csv" % i, jobs_file(100000 + i), "text/csv")})
            assert r.status_code == 202, r.text
            run = wait_terminal(self.s, self.base, r.json()["id"], 0.01)
            self.times.append(time.perf_counter() - t0)
            assert run["state"] in ("SUCCEEDED", "PARTIAL"), run


def curl_upload(base, token, path, ctype):
    """The big file streamed by curl (requests would hold it in memory)."""
    out = subprocess.run(["curl", "-sS", "-H", "Authorization: Bearer " + token, "-F",
                          "file=@%s;type=%s" % (path, ctype), base + "/api/v1/imports/jobs"],
                         capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    assert "id" in run, out.stdout[:500]
    return run


def big_import(ctx, path, rows, ctype):
    """Imports one big file while another organization pushes; its figures."""
    pid = ctx["proc"].pid
    peak_ok = reset_peak(pid)
    base_rss = proc_kib(pid, "VmRSS")
    pusher = SmallPusher(ctx["base"], ctx["other_token"])
    pusher.start()
    t0 = time.perf_counter()
    run = curl_upload(ctx["base"], ctx["token"], path, ctype)
    run = wait_terminal(ctx["s"], ctx["base"], run["id"], 0.25)
    wall = time.perf_counter() - t0
    pusher.stop.set()
    pusher.join(120)
    own = iso_s(run["finishedAt"]) - iso_s(run["startedAt"]) if run.get("startedAt") else float("nan")
    above = (proc_kib(pid, "VmHWM") - min(ctx["idle_kib"], base_rss)) / 1024.0
    return {"run": run, "rows_s": rows / own if own > 0 else 0.0, "own_s": own, "wall_s": wall,
            "peak_mib": above if peak_ok else float("nan"), "small": pusher.times}


def verdict(ok):
    return "HOLDS" if ok else "MISSED"


def report_import(backend, kind, rows, f):
    run, small = f["run"], f["small"]
    print("  %s %d rows: %s %s, run %.1f s (%.0f rows/s; goal >= %d): %s" % (
        kind, rows, run["state"], run["counts"], f["own_s"], f["rows_s"], GOAL_ROWS_S[backend],
        verdict(f["rows_s"] >= GOAL_ROWS_S[backend] and run["state"] in ("SUCCEEDED", "PARTIAL"))))
    print("    peak memory above idle %.0f MiB (goal <= %d): %s" % (f["peak_mib"], GOAL_MEM_MIB,
                                                                   verdict(f["peak_mib"] <= GOAL_MEM_MIB)))
    worst = max(small) if small else float("nan")
    print("    other org's 750-row imports meanwhile: %d, median %.2f s, slowest %.2f s (goal <= %.1f s): %s" % (
        len(small), statistics.median(small) if small else float("nan"), worst, GOAL_SMALL_S,
        verdict(bool(small) and worst <= GOAL_SMALL_S)))


def report_floor(ctx, backend, rows, run_id):
    """The CSV import's floor (bench_bigfloor) on a fresh database."""
    floor_bin = os.path.join(os.path.dirname(ctx["binary"]), "bench", "bench_bigfloor")
    if not os.path.exists(floor_bin):
        print("    (no %s: floor not measured)" % floor_bin)
        return
    mean = Sql(ctx["db"]).run("SELECT AVG(LENGTH(body)) FROM run_results WHERE run_id = '%s'" % run_id)
    fresh = SqliteDb() if backend == "sqlite" else None
    url = fresh.url if fresh else ctx["db"].pg.url(ctx["db"].pg._create_now())
    try:
        out = subprocess.run([floor_bin, url, str(rows), "2000", str(int(float(mean or 200)))],
                             capture_output=True, text=True, timeout=3600)
    finally:
        if fresh:
            for f in os.listdir(fresh.dir):
                os.unlink(os.path.join(fresh.dir, f))
            os.rmdir(fresh.dir)
    if out.returncode:
        print("    floor failed: %s" % out.stderr[-300:])
        return None
    f = json.loads(out.stdout.splitlines()[0])
    print("    floor: the same rows' required writes, raw, in 2,000-row batches: %.0f rows/s "
          "(the import takes %.2fx the floor's time)" % (f["rowsPerSecond"], f["rowsPerSecond"] / ctx["rows_s"]))
    if "copyRowsPerSecond" in f:
        print("    floor the way a bulk loader writes (COPY into a temporary table, set-based upserts, 2,000 "
              "rows a batch): %.0f rows/s" % f["copyRowsPerSecond"])
    return f["rowsPerSecond"]


# ---- pages at a million rows ----

class Sql:
    """Statements on the service's database behind its back."""

    def __init__(self, db):
        self.db = db

    def run(self, sql):
        if isinstance(self.db, SqliteDb):
            con = sqlite3.connect(self.db.path, timeout=60)
            try:
                cur = con.execute(sql)
                out = cur.fetchall()
                con.commit()
            finally:
                con.close()
            return "\n".join("|".join(str(x) for x in r) for r in out)
        return self.db.pg.psql(sql, db=self.db.name)


def grow_results(sql, run_id, target):
    """Copies the run's results (row numbers shifted past the last) until it
    has target rows; its counts and stored problem groups follow."""
    have = int(sql.run("SELECT COUNT(*) FROM run_results WHERE run_id = '%s'" % run_id))
    if have >= target or have == 0:
        return have
    first = have
    while have < target:
        top = int(sql.run("SELECT MAX(row_index) FROM run_results WHERE run_id = '%s'" % run_id))
        off = top - 1
        sql.run("INSERT INTO run_results (run_id, bucket, row_index, warned, body) SELECT run_id, bucket, "
                "row_index + %d, warned, body FROM run_results WHERE run_id = '%s' AND row_index + %d <= %d"
                % (off, run_id, off, target + 1))
        have = int(sql.run("SELECT COUNT(*) FROM run_results WHERE run_id = '%s'" % run_id))
    sql.run("UPDATE runs SET row_count = %d, "
            "n_succeeded = (SELECT COUNT(*) FROM run_results WHERE run_id = '%s' AND bucket = 'succeeded'), "
            "n_warnings = (SELECT COUNT(*) FROM run_results WHERE run_id = '%s' AND warned = 1), "
            "n_failed = (SELECT COUNT(*) FROM run_results WHERE run_id = '%s' AND bucket = 'failed'), "
            "n_skipped = (SELECT COUNT(*) FROM run_results WHERE run_id = '%s' AND bucket = 'skipped') "
            "WHERE id = '%s'" % ((have,) + (run_id,) * 5))
    sql.run("UPDATE run_problems SET row_count = row_count * %d WHERE run_id = '%s'" % (have // first, run_id))
    sql.run("ANALYZE")
    return have


def web_session(ctx):
    """The admin signed in with a one-time link, as a browser would."""
    out = subprocess.run([ctx["binary"], "admin", "login-link", "--email", "admin@example.com"], env=ctx["env"],
                         capture_output=True, text=True, check=True).stdout
    link = re.search(r"(/login/link\?token=\S+)", out).group(1)
    w = requests.Session()
    page = w.get(ctx["base"] + link).text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    r = w.post(ctx["base"] + "/login/link", data=fields, allow_redirects=False)
    assert r.status_code == 303, r.text[:300]
    return w


def timed(s, url, reps=11):
    r = s.get(url, timeout=600)
    assert r.status_code == 200, (url, r.status_code, r.text[:200])
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = s.get(url, timeout=600)
        ts.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, (url, r.status_code)
    return statistics.median(ts), max(ts), r


def pages(ctx, run_id, target):
    sql = Sql(ctx["db"])
    n = grow_results(sql, run_id, target)
    api = ctx["base"] + "/api/v1/imports/runs/" + run_id
    w = web_session(ctx)
    print("  pages of a run with %d result rows (median / slowest of 11; goal <= %d ms):" % (n, GOAL_PAGE_MS))
    worst = 0.0
    checks = []
    for bucket in ("succeeded", "warnings"):
        first = api + "/results/%s?limit=100" % bucket
        checks.append(("results %s, first page" % bucket, ctx["s"], first))
        later = ctx["s"].get(first, timeout=600).json()["nextPageUrl"]
        if later:
            checks.append(("results %s, next page" % bucket, ctx["s"], ctx["base"] + later))
    checks += [("problems", ctx["s"], api + "/problems"),
               ("run page", w, ctx["base"] + "/imports/runs/" + run_id),
               ("run page, succeeded after row %d" % (n * 9 // 10), w,
                ctx["base"] + "/imports/runs/%s?bucket=succeeded&after=%d" % (run_id, n * 9 // 10))]
    for name, s, url in checks:
        med, mx, _ = timed(s, url)
        worst = max(worst, med)
        print("    %-44s %7.1f / %7.1f ms: %s" % (name, med, mx, verdict(med <= GOAL_PAGE_MS)))
    groups = sql.run("SELECT problem_groups FROM runs WHERE id = '%s'" % run_id)
    sql.run("UPDATE runs SET problem_groups = NULL WHERE id = '%s'" % run_id)
    t0 = time.perf_counter()
    ctx["s"].get(api + "/problems", timeout=900)
    print("    (problems computed per view, as before migration 19: %.0f ms)" % ((time.perf_counter() - t0) * 1000))
    sql.run("UPDATE runs SET problem_groups = %s WHERE id = '%s'" % (groups, run_id))
    return worst <= GOAL_PAGE_MS


def start(binary, db, rows):
    env = dict(os.environ, LOADLINE_DB=db.url, LOADLINE_RATE_LIMIT="1000000/1s", LOADLINE_MAX_ROWS=str(rows),
               LOADLINE_MAX_FILE_BYTES=str(512 << 20), LOADLINE_RUN_TIMEOUT="2h")
    token = bootstrap_token(binary, env)
    org = subprocess.run([binary, "admin", "create-org", "--name", "Other Freight"], env=env, capture_output=True,
                         text=True, check=True).stdout.split()[-1]
    other = subprocess.run([binary, "admin", "mint-token", "--org", org, "--name", "bench"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()[-1]
    proc, base = serve(binary, env, 2, "bench_bigfile-serve.log")
    s = requests.Session()
    s.headers["Authorization"] = "Bearer " + token
    time.sleep(0.5)
    return {"binary": binary, "env": env, "db": db, "proc": proc, "base": base, "s": s, "token": token,
            "other_token": other, "idle_kib": proc_kib(proc.pid, "VmRSS")}


def one_backend(a, backend, files):
    db = SqliteDb() if backend == "sqlite" else PgDb()
    ctx = None
    ok = True
    try:
        ctx = start(os.path.abspath(a.binary), db, max(a.rows, a.xlsx_rows, 1000))
        print("bigfile (%s; idle RSS %.0f MiB; load %.2f %.2f %.2f):" % (backend, ctx["idle_kib"] / 1024.0,
                                                                        *os.getloadavg()), flush=True)
        csv_run = None
        for kind, path, rows, ctype in files:
            f = big_import(ctx, path, rows, ctype)
            report_import(backend, kind, rows, f)
            ok &= f["rows_s"] >= GOAL_ROWS_S[backend] and f["peak_mib"] <= GOAL_MEM_MIB
            if kind == "csv" and f["run"]["state"] in ("SUCCEEDED", "PARTIAL"):
                csv_run = f["run"]
                ctx["rows_s"] = f["rows_s"]
                report_floor(ctx, backend, rows, csv_run["id"])
        if csv_run is None:
            print("  the CSV run has no results: pages not timed")
            return False
        ok &= pages(ctx, csv_run["id"], a.pages_rows)
        return ok
    finally:
        if ctx:
            ctx["proc"].terminate()
            ctx["proc"].wait(60)
        db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--rows", type=int, default=1000000, help="rows of the CSV (default 1,000,000)")
    ap.add_argument("--xlsx-rows", type=int, default=None, help="rows of the XLSX (default rows / 5)")
    ap.add_argument("--office-rows", type=int, default=None,
                    help="rows of the workbook LibreOffice saves from the CSV (default rows; 0: none)")
    ap.add_argument("--pages-rows", type=int, default=1000000, help="result rows the pages are timed at")
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "loadline"))
    a = ap.parse_args()
    a.xlsx_rows = a.rows // 5 if a.xlsx_rows is None else a.xlsx_rows
    a.office_rows = a.rows if a.office_rows is None else a.office_rows
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))   # servers and files are cleaned up
    tmp = tempfile.mkdtemp(prefix="ll-bigfile-")
    try:
        csv_path, xlsx_path = os.path.join(tmp, "big.csv"), os.path.join(tmp, "big.xlsx")
        t0 = time.perf_counter()
        write_csv(csv_path, a.rows, "C")
        files = [("csv", csv_path, a.rows, "text/csv")]
        if a.xlsx_rows:
            write_xlsx(xlsx_path, a.xlsx_rows, "X")
            files.append(("xlsx", xlsx_path, a.xlsx_rows, XLSX_CT))
        office_path = os.path.join(tmp, "big-office.xlsx")
        if a.office_rows and write_office_xlsx(office_path, a.office_rows, "O"):
            files.append(("xlsx saved by LibreOffice", office_path, a.office_rows, XLSX_CT))
        elif a.office_rows:
            print("no soffice (LibreOffice): the workbook a spreadsheet program saves is not measured")
        print("generated %s in %.0f s" % (", ".join("%s %d rows %.0f MB" % (k, n, os.path.getsize(p) / 1e6)
                                                   for k, p, n, _ in files), time.perf_counter() - t0), flush=True)
        ok = True
        for backend in (("sqlite", "postgres") if a.backend == "both" else (a.backend,)):
            ok &= one_backend(a, backend, files)
        return 0 if ok else 1
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    sys.exit(main())
