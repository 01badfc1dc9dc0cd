"""Process lifecycle: graceful shutdown, concurrent migrations, database
outage and recovery, `admin bootstrap` (issue 2 items 2, 3, 6, 7; PRODUCT §1)."""
import os
import re
import shutil
import signal
import subprocess
import threading
import time

import pytest
import requests

from harness.checks import TOKEN_RE, assert_problem, assert_request_id
from harness.net import free_port
from harness.server import child_env, loadline_bin, sanitizer_reports


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_graceful_shutdown_exits_0(server, sig):
    """Issue 2 item 2: graceful shutdown on SIGTERM/SIGINT, exit status 0,
    within 10 s; the port is closed afterwards."""
    assert server.get("/api/v1/whoami").status_code == 200
    server.signal(sig)
    rc = server.proc.wait(10)
    assert rc == 0, "exit %s after %s; stderr:\n%s" % (rc, sig, server.stderr()[-3000:])
    with pytest.raises(requests.ConnectionError):
        requests.get(server.base_url + "/healthz", timeout=2)


def test_concurrent_migrate_on_fresh_database(make_db):
    """Issue 2 item 3 / PRODUCT §1: migrations are safe when several
    processes start at once: 4 `loadline migrate` on a new database all
    succeed, a later one is a no-op, and the server then runs on it."""
    url = make_db()
    procs = [subprocess.Popen([loadline_bin(), "--db", url, "migrate"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=child_env(), text=True) for _ in range(4)]
    results = [(p.wait(60), *p.communicate()) for p in procs]
    for rc, out, err in results:
        assert not sanitizer_reports(err), err
        assert rc == 0, "concurrent migrate exited %d:\n%s" % (rc, err)
    again = subprocess.run([loadline_bin(), "--db", url, "migrate"], capture_output=True,
                           text=True, env=child_env(), timeout=60)
    assert again.returncode == 0, again.stderr


def test_concurrent_serve_start_on_fresh_database(start_server, make_db):
    """Issue 2 item 3: serve applies migrations at start, safely when several
    start at once on the same new database."""
    url = make_db()
    servers = [start_server(db_url=url, bootstrap=False, wait=False) for _ in range(3)]
    for s in servers:
        err = s._wait_healthy()
        assert err is None, err
    servers[0].bootstrap("Shared")
    for s in servers:
        r = s.get("/api/v1/whoami", token=servers[0].token)
        assert r.status_code == 200, r.text


def _expect_503(srv, path, token):
    r = srv.get(path, token=token)
    assert_problem(r, 503, "SERVICE_UNAVAILABLE", srv)
    ra = r.headers.get("Retry-After", "")
    assert ra.isdigit() and int(ra) >= 1, "Retry-After %r" % ra
    return r


def test_database_down_503_then_recovers(backend, start_server, request):
    """Issue 2 "Bad input" / PRODUCT §3: database unreachable -> 503
    SERVICE_UNAVAILABLE with Retry-After (whoami and /readyz), and the
    service recovers by itself once the database is back.  PRODUCT §10:
    /healthz (process alive) stays 200 throughout."""
    if backend != "postgres":
        pytest.skip("SQLite is an open file of the process: as root neither permissions "
                    "nor removing its directory make it unreachable to the running server")
    cluster = request.getfixturevalue("private_pg")
    srv = start_server(db_url=cluster.url(cluster.create_database()))
    assert srv.get("/api/v1/whoami").status_code == 200
    cluster.stop("fast")
    try:
        # the first request after the outage may be the one that finds the
        # pool's connections dead; it must still be a clean 503
        for _ in range(3):
            _expect_503(srv, "/api/v1/whoami", srv.token)
        _expect_503(srv, "/readyz", None)
        _expect_503(srv, "/v1/whoami", srv.token)
        assert srv.get("/healthz", token=None).status_code == 200
    finally:
        cluster.start()
    deadline = time.monotonic() + 20
    while True:
        r = srv.get("/api/v1/whoami")
        if r.status_code == 200:
            break
        assert r.status_code == 503, (r.status_code, r.text)
        assert time.monotonic() < deadline, "still 503 20 s after the database came back"
        time.sleep(0.1)
    assert srv.get("/healthz", token=None).status_code == 200
    assert srv.get("/api/v1/whoami").json()["organization"]["id"] == srv.org.id


def test_bootstrap_prints_token_link_and_working_curl(start_server, make_db, tmp_path):
    """PRODUCT §1 `make run`: on a new database, bootstrap creates an org, an
    admin and a token, and prints the token, a sign-in link and a ready curl
    line; the curl line's URL with the token answers 200 with the org."""
    url = make_db()
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    env = {"LOADLINE_LISTEN": "127.0.0.1:%d" % port}
    res = subprocess.run([loadline_bin(), "--db", url, "admin", "bootstrap"],
                         capture_output=True, text=True, env=child_env(env), timeout=60)
    assert not sanitizer_reports(res.stderr), res.stderr
    assert res.returncode == 0, res.stderr
    out = res.stdout
    # the token alone on a line of its own (not inside a URL or the curl line)
    plain = [l for l in out.splitlines() if "http" not in l and "curl" not in l]
    tokens = {t for l in plain for t in re.findall(r"ll_live_[0-9A-Za-z]{38}", l)}
    assert len(tokens) == 1, out
    token = tokens.pop()
    assert TOKEN_RE.match(token)
    curl_lines = [l for l in out.splitlines() if re.search(r"\bcurl\b", l)]
    assert len(curl_lines) == 1, out
    curl_line = curl_lines[0][curl_lines[0].index("curl"):]
    urls = re.findall(r"https?://[^\s'\"]+", curl_line)
    assert len(urls) == 1 and urls[0].startswith(base) and urls[0].endswith("/whoami"), curl_line
    assert token in curl_line and "Authorization: Bearer" in curl_line, curl_line
    links = [u for l in out.splitlines() if "curl" not in l
             for u in re.findall(r"https?://[^\s'\"]+", l)]
    assert links and links[0].startswith(base), "no sign-in link in:\n%s" % out

    start_server(db_url=url, env=env, bootstrap=False, port=port)
    r = requests.get(urls[0], headers={"Authorization": "Bearer " + token}, timeout=10)
    assert r.status_code == 200, r.text
    assert_request_id(r)
    org = r.json()["organization"]
    assert org["id"].startswith("org_")
    if shutil.which("curl"):
        c = subprocess.run(["bash", "-c", curl_line], capture_output=True, text=True,
                           timeout=30, cwd=str(tmp_path))
        assert c.returncode == 0, c.stderr
        assert org["id"] in c.stdout, c.stdout


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_no_503_once_postgres_is_back_after_a_restart(start_server, private_pg):
    """Issue 12 (found from outside): after a PostgreSQL restart the pool's
    connections are all dead, but only found so when used; a read on one is
    retried once on a fresh connection, so no request gets 503 once the
    database is back."""
    srv = start_server(db_url=private_pg.url(private_pg.create_database()), workers=0,
                       env={"LOADLINE_HTTP_THREADS": "4"})
    # Open several pooled connections with concurrent requests.
    threads = [threading.Thread(target=lambda: srv.get("/api/v1/imports/runs")) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    private_pg.stop("fast")
    private_pg.start()
    statuses = [srv.get(path).status_code
                for _ in range(24) for path in ("/api/v1/imports/runs", "/api/v1/whoami")]
    assert statuses == [200] * 48, statuses
    assert srv.get("/healthz", token=None).status_code == 200


def test_readyz_503_when_the_schema_is_behind(server):
    """PRODUCT §10: /readyz is 503 when the database lacks a migration of
    this binary (an older schema), and 200 again once it is migrated."""
    from harness.db import db_exec, db_value
    assert server.get("/readyz", token=None).status_code == 200
    top = int(db_value(server.db_url, "SELECT MAX(version) FROM schema_migrations"))
    name = db_value(server.db_url, "SELECT name FROM schema_migrations WHERE version = %d" % top)
    db_exec(server.db_url, "UPDATE schema_migrations SET version = -1 WHERE version = %d" % top)
    r = server.get("/readyz", token=None)
    assert r.status_code == 503 and r.json()["code"] == "SERVICE_UNAVAILABLE", r.text
    assert "loadline migrate" in r.json()["detail"], name
    assert server.get("/healthz", token=None).status_code == 200
    db_exec(server.db_url, "UPDATE schema_migrations SET version = %d WHERE version = -1" % top)
    assert server.get("/readyz", token=None).status_code == 200


def test_a_second_serve_on_a_port_in_use_is_refused(start_server, make_db, backend):
    """Issue 21 item 5 / PRODUCT §13: a second `serve` on a listen address
    already in use exits non-zero with a message that says what to do,
    before it opens its database (it used to share the port with
    SO_REUSEPORT: traffic split between two databases).  The first one
    keeps serving."""
    first = start_server()
    url = make_db()
    second = start_server(db_url=url, port=first.port, wait=False, bootstrap=False)
    second.expect_clean_exit = False
    rc = second.proc.wait(20)
    err = second.stderr()
    assert rc == 1, "exit %s; stderr:\n%s" % (rc, err)
    assert "127.0.0.1:%d" % first.port in err and "already in use" in err, err
    assert "LOADLINE_REUSEPORT=1" in err and "--listen" in err, err
    assert not sanitizer_reports(err), err
    if backend == "sqlite":
        assert not os.path.exists(url[len("sqlite:"):]), "the refused serve created its database"
    assert first.get("/api/v1/whoami").status_code == 200


def test_reuseport_lets_two_serves_share_a_port(start_server):
    """LOADLINE_REUSEPORT=1 (on both): the port is shared on purpose
    (SO_REUSEPORT), and both processes start and answer."""
    env = {"LOADLINE_REUSEPORT": "1"}
    first = start_server(env=env)
    second = start_server(env=env, port=first.port)
    assert first.running() and second.running()
    for _ in range(10):
        assert requests.get(first.base_url + "/healthz", timeout=5).status_code == 200
    assert first.running() and second.running()
