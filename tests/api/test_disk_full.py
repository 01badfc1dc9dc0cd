"""Disk full (issue 12, found from outside): the SQLite database on a small
tmpfs that fills up.  Clients get 503 with a message that says the disk is
full (not "cannot reach its database"), the cause is logged, nothing is
corrupted (PRAGMA integrity_check), and the service recovers by itself once
space is freed."""
import base64
import json
import os
import sqlite3
import subprocess

import pytest

from harness.jobs import csv_bytes, row, rows


@pytest.fixture
def small_disk(tmp_path):
    d = tmp_path / "disk"
    d.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(d)], check=True)
    yield d
    subprocess.run(["umount", "-l", str(d)], check=False)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_full_disk_is_a_clear_503_and_recovers(start_server, small_disk):
    db = small_disk / "loadline.db"
    srv = start_server(db_url="sqlite:%s" % db, workers=0)
    statuses = []
    for i in range(40):
        # Random notes: stored uploads are deflated (issue 21), and rows that
        # only differ in their numbers would shrink ~10x and not fill the disk.
        data = csv_bytes([row(n, job="FULL%02d" % i, notes=base64.b64encode(os.urandom(60)).decode())
                          for n in range(1, 2001)])
        r = srv.post("/api/v1/imports/jobs", files={"file": ("f%d.csv" % i, data, "text/csv")})
        statuses.append(r.status_code)
        if r.status_code != 202:
            break
    assert statuses[-1] == 503, statuses
    body = r.json()
    assert body["code"] == "SERVICE_UNAVAILABLE" and "disk space" in body["detail"], body
    assert "Retry-After" in r.headers
    logged = [json.loads(line) for line in srv.stderr().splitlines() if line.startswith("{")]
    causes = [e for e in logged if e.get("msg") == "store failure" and e.get("diskFull")]
    assert causes and causes[-1]["cause"], "the cause of the 503 must be logged"
    # Reads still work while the disk is full.
    assert srv.get("/api/v1/imports/runs").status_code == 200
    con = sqlite3.connect(str(db))
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        accepted = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        files = con.execute("SELECT COUNT(*) FROM run_files").fetchone()[0]
    finally:
        con.close()
    assert accepted == files == statuses.count(202), "no half-created run"
    # Space is freed: the service recovers without a restart.
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    data = csv_bytes(rows(10, job="AFTER"))
    r = srv.post("/api/v1/imports/jobs", files={"file": ("after.csv", data, "text/csv")})
    assert r.status_code == 202, r.text
    assert os.path.exists(str(db))


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_full_spool_disk_is_a_clear_503(start_server, small_disk, tmp_path):
    """Uploads are spooled to LOADLINE_SPOOL_DIR as they arrive (issue 11):
    when that disk is full, the upload gets 503 saying so, the cause is
    logged, nothing is stored, and smaller uploads work again once space
    is freed."""
    db = tmp_path / "db.sqlite"
    srv = start_server(db_url="sqlite:%s" % db, workers=0, env={"LOADLINE_SPOOL_DIR": str(small_disk)})
    filler = small_disk / "filler"
    subprocess.run(["dd", "if=/dev/zero", "of=%s" % filler, "bs=1M", "count=3"], capture_output=True)
    data = csv_bytes(rows(2000, job="SPOOL"))
    r = srv.post("/api/v1/imports/jobs", files={"file": ("big.csv", data, "text/csv")})
    assert r.status_code == 503, r.text
    assert r.json()["code"] == "SERVICE_UNAVAILABLE" and "disk space" in r.json()["detail"]
    logged = [json.loads(line) for line in srv.stderr().splitlines() if line.startswith("{")]
    assert any(e.get("msg") == "cannot write an upload to the spool" and e.get("diskFull") for e in logged)
    assert srv.get("/api/v1/imports/runs").json()["data"] == []
    os.unlink(filler)
    r = srv.post("/api/v1/imports/jobs", files={"file": ("big.csv", data, "text/csv")})
    assert r.status_code == 202, r.text
    assert os.listdir(small_disk) == [], "spool files are anonymous: nothing is left behind"
