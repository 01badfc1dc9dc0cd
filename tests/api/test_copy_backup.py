"""Moving and keeping data (PRODUCT §17, issue 30 item 3): `loadline admin
copy-db --to postgres://…` copies a SQLite installation into an empty
PostgreSQL database and verifies it (row counts and checksums per table);
`loadline admin backup FILE` takes a consistent copy of a serving SQLite
database.  Both are proved the way an operator would: a real server on the
copy answers exactly what the original answered.

These tests are about one backend each way (SQLite source, PostgreSQL
target), so they build their servers themselves instead of through the
backend-parametrized fixtures."""
import base64
import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from harness.jobs import csv_bytes, row, rows, upload, wait_run
from harness.server import Server, child_env, loadline_bin, sanitizer_reports


@contextlib.contextmanager
def served(db_url, label, bootstrap=True):
    # Links in bodies name these, not the port each server happened to get.
    srv = Server(db_url, label, env={"LOADLINE_DOCS_URL": "https://docs.loadline.test",
                                     "LOADLINE_BASE_URL": "https://loadline.test",
                                     "LOADLINE_MAX_FILE_BYTES": str(16 << 20)})
    try:
        srv.start()
        if bootstrap:
            srv.bootstrap("Copy Freight")
        yield srv
    finally:
        problems = srv.teardown_problems()
        assert not problems, problems


def admin(db_url, *args):
    p = subprocess.run([loadline_bin(), "--db", db_url, "admin"] + list(args), capture_output=True,
                       env=child_env({}), timeout=300)
    err = p.stderr.decode()
    assert not sanitizer_reports(err), err
    return p.returncode, p.stdout.decode(), err


@pytest.fixture
def sqlite_url():
    d = tempfile.mkdtemp(prefix="ll-copy-")
    yield "sqlite:" + os.path.join(d, "loadline.db")
    shutil.rmtree(d, ignore_errors=True)


def snapshot(srv, token):
    """What a client sees: the runs, every result page of each, and the
    loads they created, the webhook endpoints, whoami's organization."""
    h = {"token": token}
    runs = srv.get("/api/v1/imports/runs?limit=100", **h).json()["data"]
    out = {"runs": runs, "results": {}, "loads": {}}
    for r in runs:
        for b in ("succeeded", "failed", "warnings", "skipped"):
            page = srv.get("/api/v1/imports/runs/%s/results/%s?limit=1000" % (r["id"], b), **h).json()["data"]
            out["results"][(r["id"], b)] = page
            for e in page:
                for rid in e.get("createdRecordIds", []):
                    kind = {"load": "loads", "loc": "locations", "proj": "projects"}.get(rid.split("_")[0])
                    if kind:
                        out["loads"][rid] = srv.get("/api/v1/%s/%s" % (kind, rid), **h).json()
        out["fixup", r["id"]] = srv.get("/api/v1/imports/runs/%s/failed-rows" % r["id"], **h).content
    out["webhooks"] = srv.get("/api/v1/webhook-endpoints", **h).json()["data"]
    out["whoami"] = srv.get("/api/v1/whoami", **h).json()["organization"]
    return out


def fill(srv):
    """Runs with successes, failures and warnings, a webhook endpoint."""
    r = upload(srv, csv_bytes(rows(30, job="J-COPY") + [row(40, job="J-COPY", loadDate="31/31/2026"),
                                                       row(41, job="J-COPY", weight="12 t")]))
    assert r.status_code == 202, r.text
    wait_run(srv, r.json()["id"])
    r = upload(srv, csv_bytes(rows(5, job="J-COPY2")), filename="second.csv")
    wait_run(srv, r.json()["id"])
    # An upload over 8 MiB is stored in 1 MiB parts (run_file_parts):
    # notes of random text that does not deflate much.
    big = [row(i, job="J-BIG", notes=base64.b64encode(os.urandom(22500)).decode()) for i in range(300)]
    r = upload(srv, csv_bytes(big), filename="big.csv")
    assert r.status_code == 202, r.text
    wait_run(srv, r.json()["id"])
    assert srv.post("/api/v1/webhook-endpoints", json={"url": "https://hooks.example.com/x",
                                                         "events": ["import_run.completed"]}).status_code == 201


def test_copy_db_moves_a_sqlite_installation_to_postgres(sqlite_url, pg_cluster):
    with served(sqlite_url, "copy-db-source") as src:
        fill(src)
        token = src.token
        before = snapshot(src, token)
    target = pg_cluster.url(pg_cluster.create_database())
    rc, out, err = admin(sqlite_url, "copy-db", "--to", target)
    assert rc == 0, err
    tables = {ln.split()[0]: int(ln.split()[1]) for ln in out.splitlines()}
    assert tables["loads"] >= 36 and tables["runs"] == 3 and tables["webhook_endpoints"] == 1, tables
    assert tables["run_file_parts"] >= 2, tables
    assert all(ln.endswith("verified") for ln in out.splitlines()), out
    assert "schema_migrations" not in tables
    with served(target, "copy-db-target", bootstrap=False) as dst:
        after = snapshot(dst, token)
        for k in before:
            assert after[k] == before[k], k
        # The copy is a working installation: it imports.
        r = upload(dst, csv_bytes(rows(2, job="J-AFTER")), token=token)
        assert r.status_code == 202 and wait_run(dst, r.json()["id"], token=token)["state"] == "SUCCEEDED"
    # A target that is not empty is refused; nothing is overwritten.
    rc, out, err = admin(sqlite_url, "copy-db", "--to", target)
    assert rc == 1 and "not empty" in err, err
    # Only SQLite into PostgreSQL.
    rc, _, err = admin(target, "copy-db", "--to", target)
    assert rc == 1 and "SQLite installation" in err, err
    assert admin(sqlite_url, "copy-db")[0] == 2


def test_backup_while_serving_and_restore(sqlite_url, tmp_path):
    """A backup taken while imports are being written is consistent (it
    passes integrity_check and serves); restored as the docs say (stop,
    replace the file, start), the server answers what it answered when the
    backup was taken, runs included."""
    backup = str(tmp_path / "loadline-backup.db")
    with served(sqlite_url, "backup-source") as srv:
        fill(srv)
        token = srv.token
        stop = threading.Event()

        def keep_importing():
            i = 0
            while not stop.is_set():
                i += 1
                upload(srv, csv_bytes(rows(20, job="J-BUSY%d" % i)), filename="busy%d.csv" % i)
                time.sleep(0.01)

        t = threading.Thread(target=keep_importing)
        t.start()
        try:
            time.sleep(0.3)
            rc, out, err = admin(sqlite_url, "backup", backup)
        finally:
            stop.set()
            t.join()
        assert rc == 0 and out.strip() == backup and "integrity_check ok" in err, err
        rc, _, err = admin(sqlite_url, "backup", backup)
        assert rc == 1 and "exists" in err, err
    restored = str(tmp_path / "restored" / "loadline.db")
    os.makedirs(os.path.dirname(restored))
    shutil.copy(backup, restored)
    with served("sqlite:" + restored, "backup-restored", bootstrap=False) as back:
        runs = back.get("/api/v1/imports/runs?limit=100", token=token).json()["data"]
        assert len(runs) >= 2
        for r in runs:
            got = back.get("/api/v1/imports/runs/" + r["id"], token=token).json()
            assert got["id"] == r["id"]
        r = upload(back, csv_bytes(rows(1, job="J-RESTORED")), token=token)
        assert r.status_code == 202
    rc, _, err = admin("postgres://nobody@127.0.0.1:1/none", "backup", str(tmp_path / "x.db"))
    assert rc == 1, err
