"""Per-row results keep their wire bytes (issue 21 item 1; PRODUCT §5, §13
"Compact results"): a set of runs covering every per-row code and message
variant (failed rows, skipped duplicate_in_file / duplicate_of_prior_import,
warnings of every kind, a dry run, an XLSX file) is imported, and every page
of every bucket (paginated, 3 entries a page) must equal, byte for byte, what
the binary before compact results served.  Those pages were recorded with
that binary into tests/data/results_wire.json (LOADLINE_RECORD_WIRE=1 writes
it); ids are random, so the ids inside createdRecordIds and the cursors of
nextPageUrl are masked before comparing: everything else is exact."""
import json
import os
import re

import sqlite3
import subprocess
import zlib

import pytest

from harness.db import db_exec, db_int

from harness.jobs import CSV_CT, XLSX_CT, accepted_run, csv_bytes, upload, wait_run, xlsx_bytes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "data", "results_wire.json")
DOCS = "https://docs.example.test/loadline"
BUCKETS = ["succeeded", "warnings", "failed", "skipped"]
ID_RE = re.compile(r'\b(key|load|loc|mail|org|prj|run|usr)_[0-9A-Za-z]{22}\b')
CURSOR_RE = re.compile(r'(cursor=)[^&"]+')

HEADERS = ["jobCode", "loadNo", "loadDate", "projectName", "customer", "branch", "projectManager",
           "material", "truckType", "ticketNo", "weight", "weightUnit", "rate", "notes",
           "projectPickupStreet", "projectPickupCity", "projectPickupState", "projectPickupZip",
           "projectDropoffStreet", "projectDropoffCity", "projectDropoffState", "projectDropoffZip",
           "pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip",
           "dropoffName", "dropoffStreet", "dropoffCity", "dropoffState", "dropoffZip"]


def base(n, job="J-W1", **over):
    r = {"jobCode": job, "loadNo": "L-%03d" % n, "loadDate": "2026-11-%02d" % (1 + n % 28),
         "projectName": "Wire \"Quoted\" Project", "material": "Gravel", "weight": "1000",
         "rate": "125.50", "notes": "note %d" % n, "pickupStreet": "%d Quarry Rd" % (100 + n),
         "pickupCity": "Austin", "pickupState": "TX", "pickupZip": "78701"}
    r.update(over)
    return r


def every_code_rows():
    """Rows that between them make every per-row code and message variant."""
    return [
        # Warnings: conversions, look-up misses of every kind, address groups.
        base(1, customer="Café \"Big\" \\ Yard\tNorth", branch="North Branch", projectManager="Pat Doe",
             weight="12.5 t",
             projectPickupStreet="1 Main St", projectPickupCity="Austin", projectPickupState="TX",
             projectPickupZip="",
             projectDropoffStreet="2 Main St", projectDropoffCity="Austin", projectDropoffState="TX",
             projectDropoffZip="00000",
             pickupName="Quarry One", dropoffCity="Austin", dropoffState="TX", dropoffZip="78701"),
        base(2, weight="24000 lbs", customer="Café \"Big\" \\ Yard\tNorth",
             dropoffStreet="9 Elm St", dropoffCity="Buffalo", dropoffState="NY", dropoffZip="78701"),
        base(3, weight="9000 kg", pickupName="Quarry One", pickupStreet="77 Other Rd"),
        base(4, weight="18 tons", pickupName="Nowhere Yard", pickupStreet="", pickupCity="",
             pickupState="", pickupZip=""),
        base(5, weight="1,200 kg", pickupName="Twin Depot", pickupStreet=""),
        base(6, weight="12", weightUnit="mt", branch="x" * 90),
        # Errors, one variant a row (and several in one).
        base(7, loadDate=""),
        base(8, loadDate="13/45/2026"),
        base(9, loadDate="2/30/2026"),
        base(10, loadDate="1/1/1850"),
        base(11, weight="-5"),
        base(12, weight="2000000000"),
        base(13, rate="1250.555"),
        base(14, rate="$2,000,000,000"),
        base(15, rate="-3"),
        base(16, weight="12 furlongs"),
        base(17, weight="12 kg", weightUnit="lb"),
        base(18, weightUnit="stone"),
        base(19, pickupState="ZZ", pickupZip="1234567"),
        base(20, notes="n" * 2100, material="m" * 250),
        base(21, rate="abc", weight="heavy", loadDate="", jobCode=""),
        base(22, ticketNo="T\u00a0\u200b 22", truckType="Sémi — \"flat\"", rate="1,250.50"),
        # Duplicates inside the file: same content skipped, different failed.
        base(1, customer="Café \"Big\" \\ Yard\tNorth", branch="North Branch", projectManager="Pat Doe",
             weight="12.5 t",
             projectPickupStreet="1 Main St", projectPickupCity="Austin", projectPickupState="TX",
             projectPickupZip="",
             projectDropoffStreet="2 Main St", projectDropoffCity="Austin", projectDropoffState="TX",
             projectDropoffZip="00000",
             pickupName="Quarry One", dropoffCity="Austin", dropoffState="TX", dropoffZip="78701"),
        base(2, weight="25000"),
        base(23),
    ]


def xlsx_table():
    rows = [["jobCode", "loadNo", "loadDate", "weight", "rate", "customer", "pickupStreet", "pickupZip"]]
    rows += [["J-X", "X-1", "2026-11-03", "10 t", "99", "Nobody Inc", "5 Pine St", "78701"],
             ["J-X", "X-2", "not a date", "10", "99", "", "5 Pine St", "78701"],
             ["J-X", "X-3", "2026-11-03", "10 kg", "1.234", "Nobody Inc", "", "10001"],
             ["J-X", "X-1", "2026-11-03", "10 t", "99", "Nobody Inc", "5 Pine St", "78701"]]
    return rows


def pages(srv, run_id, bucket):
    """Every page's body text, with ids and cursors masked."""
    out = []
    path, params = "/api/v1/imports/runs/%s/results/%s" % (run_id, bucket), {"limit": 3}
    while path:
        r = srv.get(path, params=params)
        assert r.status_code == 200, r.text[:300]
        out.append(CURSOR_RE.sub(r"\1*", ID_RE.sub(r"\1_*", r.text)))
        path, params = r.json()["nextPageUrl"], None
    return out


def run_of(srv, data, name="loads.csv", ct=CSV_CT, dry_run=None, ids=None):
    run = accepted_run(upload(srv, data, filename=name, content_type=ct, dry_run=dry_run))
    run = wait_run(srv, run["id"])
    if ids is not None:
        ids.append(run["id"])
    return {b: pages(srv, run["id"], b) for b in BUCKETS}, run["counts"]


def scenario(srv, ids=None):
    for street in ("1 Twin Rd", "2 Twin Rd"):
        srv.cli.admin("add-location", "--org", srv.org.id, "--name", "Twin Depot", "--street", street,
                      "--city", "Austin", "--state", "TX", "--zip", "78701")
    every = csv_bytes(every_code_rows(), headers=HEADERS)
    got = {}
    got["dry"] = run_of(srv, every, dry_run=True, ids=ids)
    got["live"] = run_of(srv, every, ids=ids)
    got["again"] = run_of(srv, every, ids=ids)
    got["xlsx"] = run_of(srv, xlsx_bytes(xlsx_table()), name="loads.xlsx", ct=XLSX_CT, ids=ids)
    return got


def test_results_wire_bytes_unchanged(start_server, backend):
    """Every page of every bucket of the runs equals the recorded bytes."""
    srv = start_server(env={"LOADLINE_DOCS_URL": DOCS})
    got = scenario(srv)
    text = "".join(t for step in got.values() for b in BUCKETS for t in step[0][b])
    codes = set(re.findall(r'"code":"([A-Z_]+)"', text))
    assert codes >= {"MISSING_REQUIRED", "TYPE_MISMATCH", "UNIQUE_VIOLATION", "UNIT_NORMALIZED", "LOOKUP_MISS",
                     "LOCATION_NAME_ADDRESS_MISMATCH", "LOCATION_NAME_LOOKUP_MISS", "LOCATION_NAME_AMBIGUOUS",
                     "ADDRESS_NOT_GEOCODED", "ADDRESS_ZIP_STATE_MISMATCH"}, codes
    if not os.environ.get("LOADLINE_RECORD_WIRE"):
        # Stored compactly: one row per result row, no rendered text.
        assert db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE bucket = 'warnings'") == 0
        assert db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE body LIKE '%docUrl%' "
                      "OR body LIKE '%message%' OR body LIKE '%converted to%'") == 0
        assert db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE warned = 1") == sum(
            step[1]["warnings"] for step in got.values())
    if os.environ.get("LOADLINE_RECORD_WIRE"):
        have = {}
        if os.path.exists(FIXTURE):
            with open(FIXTURE, encoding="utf-8") as f:
                have = json.load(f)
        have[backend] = got
        with open(FIXTURE, "w", encoding="utf-8") as f:
            json.dump(have, f, indent=1, ensure_ascii=False, sort_keys=True)
            f.write("\n")
        pytest.skip("recorded %s" % FIXTURE)
    with open(FIXTURE, encoding="utf-8") as f:
        want = json.load(f)[backend]
    for step in want:
        assert got[step][1] == want[step][1], step
        for b in BUCKETS:
            assert len(got[step][0][b]) == len(want[step][0][b]), (step, b)
            for i, (g, w) in enumerate(zip(got[step][0][b], want[step][0][b])):
                assert g == w, "%s %s page %d differs" % (step, b, i)


def _q(text):
    return "'" + text.replace("'", "''") + "'"


def legacy_rows(srv, run_id):
    """The run's entries as the code before compact results stored them:
    the entry the API serves, a committed row with warnings twice."""
    out = []
    for b in BUCKETS:
        r = srv.get("/api/v1/imports/runs/%s/results/%s" % (run_id, b), params={"limit": 1000})
        for e in r.json()["data"]:
            out.append((b, e["rowIndex"], json.dumps(e, ensure_ascii=False, separators=(",", ":"))))
    return out


def stored_uploads(url):
    """(run_id, content bytes, raw_size) of every stored upload."""
    q = "SELECT run_id, %s, raw_size FROM run_files ORDER BY run_id"
    if url.startswith("sqlite:"):
        con = sqlite3.connect(url[len("sqlite:"):], timeout=30)
        rows = con.execute(q % "content").fetchall()
        con.close()
        return [(r, bytes(c), n) for r, c, n in rows]
    out = subprocess.run(["psql", "-X", "-At", "-F", "|", "-d", url, "-c", q % "encode(content, 'hex')"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    rows = [line.split("|") for line in out.splitlines() if line]
    return [(r, bytes.fromhex(c), int(n) if n else None) for r, c, n in rows]


def to_version_10(url, legacy):
    """Rewrites the database as if migration 11 had not run: legacy results, and
    uploads stored as they were uploaded."""
    sql = ["DELETE FROM run_results", "UPDATE runs SET result_columns = NULL",
           # migration 19's index of the flagged rows goes with the column
           "DROP INDEX run_results_warned", "ALTER TABLE run_results DROP COLUMN warned", "ALTER TABLE runs DROP COLUMN result_columns",
           "DELETE FROM schema_migrations WHERE version = 11"]
    for run_id, content, raw_size in stored_uploads(url):
        raw = zlib.decompress(content, -15) if raw_size is not None else content
        assert raw_size is None or len(raw) == raw_size
        sql.append("UPDATE run_files SET content = %s WHERE run_id = %s"
                   % ("X'%s'" % raw.hex() if url.startswith("sqlite:") else "'\\x%s'::bytea" % raw.hex(),
                      _q(run_id)))
    sql.append("ALTER TABLE run_files DROP COLUMN raw_size")
    for run_id, rows in legacy.items():
        for b, i, body in rows:
            sql.append("INSERT INTO run_results (run_id, bucket, row_index, body) VALUES (%s, %s, %d, %s)"
                       % (_q(run_id), _q(b), i, _q(body)))
    if url.startswith("sqlite:"):
        con = sqlite3.connect(url[len("sqlite:"):], timeout=30)
        con.executescript("BEGIN;" + ";".join(sql) + ";COMMIT;")
        con.close()
    else:
        db_exec(url, "BEGIN;" + ";".join(sql) + ";COMMIT;")


def test_migration_keeps_wire_bytes_of_legacy_results(start_server, backend):
    """Results stored as full JSON entries (before compact results) are
    rewritten by `loadline migrate` (migration 11) and then read back with
    the same bytes: messages kept as they were written, docUrl rendered
    from the code, the warnings entry folded into its succeeded row."""
    srv = start_server(env={"LOADLINE_DOCS_URL": DOCS})
    ids = []
    before = scenario(srv, ids)
    legacy = {i: legacy_rows(srv, i) for i in ids}
    fixup = srv.get("/api/v1/imports/runs/%s/failed-rows" % ids[1])
    assert fixup.status_code == 200, fixup.text[:300]
    # A CSV upload is stored deflated.
    sizes = {r: (len(c), n) for r, c, n in stored_uploads(srv.db_url)}
    assert sizes[ids[1]][1] and sizes[ids[1]][0] < sizes[ids[1]][1] / 2, sizes
    assert srv.stop() == 0
    to_version_10(srv.db_url, legacy)
    srv.cli.run("migrate")
    srv.start()
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE bucket = 'warnings'") == 0
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM run_results WHERE body LIKE '%docUrl%'") == 0
    for step, run_id in zip(["dry", "live", "again", "xlsx"], ids):
        for b in BUCKETS:
            assert pages(srv, run_id, b) == before[step][0][b], (step, b)
    # The uploads stored before (as uploaded) are still read: the fix-up file.
    again = srv.get("/api/v1/imports/runs/%s/failed-rows" % ids[1])
    assert again.status_code == 200 and again.content == fixup.content

