"""`loadline push FILE` and `loadline runs` (PRODUCT §9) against the real
server: every exit status (0 SUCCEEDED/SKIPPED, 2 PARTIAL, 3 FAILED,
4 staged, 1 authentication/network/usage), what it prints with and without
a terminal, --results, --json, --dry-run, --no-wait, retries on 429."""
import csv
import io
import json
import os
import pty
import re
import select
import subprocess
import time

from harness.checks import parse_ts
from harness.jobs import csv_bytes, csv_text, row, rows
from harness.net import free_port
from harness.server import child_env, loadline_bin, sanitizer_reports
from .test_imports_staging import messy_file


def _env(srv, token=None, **extra):
    env = {"LOADLINE_URL": srv.base_url if srv else None,
           "LOADLINE_TOKEN": srv.token if token is None and srv else token,
           "LOADLINE_POLL_MS": "50"}
    env.update(extra)
    return child_env(env)


def push(srv, tmp_path, data, *args, token=None, name="loads.csv", env=None):
    """Runs `loadline push` without a terminal; returns (rc, stdout, stderr)."""
    f = tmp_path / name
    f.write_bytes(data)
    p = subprocess.run([loadline_bin(), "push", str(f)] + list(args), capture_output=True,
                       env=env or _env(srv, token), timeout=120)
    out, err = p.stdout.decode(), p.stderr.decode()
    assert not sanitizer_reports(err), err
    return p.returncode, out, err


def on_tty(argv, env, stream="stderr", data=None):
    """Runs argv with `stream` (stdout or stderr) on a pseudo-terminal;
    returns (rc, terminal text, other stream's text)."""
    master, slave = pty.openpty()
    kw = {"stdout": slave, "stderr": subprocess.PIPE} if stream == "stdout" else \
        {"stderr": slave, "stdout": subprocess.PIPE}
    p = subprocess.Popen(argv, env=env, **kw)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 1.0)
        if r:
            try:
                b = os.read(master, 4096)
            except OSError:   # EIO: the child closed the terminal
                break
            if not b:
                break
            chunks.append(b)
        elif p.poll() is not None:
            break
    os.close(master)
    rc = p.wait(timeout=30)
    other = (p.stderr if stream == "stdout" else p.stdout).read().decode()
    term = b"".join(chunks).decode()
    assert not sanitizer_reports(term + other), term + other
    return rc, term, other


def push_tty(srv, tmp_path, data, *args):
    """Runs `loadline push` with stderr (where progress goes) on a
    pseudo-terminal; returns (rc, stdout, terminal text)."""
    f = tmp_path / "loads.csv"
    f.write_bytes(data)
    rc, term, out = on_tty([loadline_bin(), "push", str(f)] + list(args), _env(srv))
    return rc, out, term


def test_succeeded_then_skipped_plain_lines(server, tmp_path):
    """Exit 0 on SUCCEEDED and on the identical re-push (SKIPPED); without a
    terminal nothing is animated: plain lines, no carriage returns."""
    data = csv_bytes(rows(3, job="J-PUSH"))
    rc, out, err = push(server, tmp_path, data)
    assert rc == 0, (out, err)
    assert "\r" not in out + err and "uploading" not in out + err, out
    lines = out.strip().splitlines()
    assert "SUCCEEDED: 3 succeeded, 0 warnings, 0 failed, 0 skipped" in lines[0], out
    assert lines[-1].startswith("run page: %s/imports/runs/run_" % server.base_url), out
    rc, out, err = push(server, tmp_path, data)
    assert rc == 0, (out, err)
    assert " SKIPPED: " in out.strip().splitlines()[0], out


def test_partial_exit_2_with_results_dir(server, tmp_path):
    """Exit 2 on PARTIAL; --results DIR writes every non-empty bucket as
    DIR/<bucket>.csv, formula-safe."""
    recs = rows(2, job="J-PART") + [row(3, job="J-PART", loadDate="")]
    recs[0]["notes"] = "=HYPERLINK(1)"
    out_dir = tmp_path / "res"
    rc, out, err = push(server, tmp_path, csv_bytes(recs), "--results", str(out_dir))
    assert rc == 2, (out, err)
    assert " PARTIAL: 2 succeeded, 0 warnings, 1 failed" in out, out
    assert sorted(os.listdir(out_dir)) == ["failed.csv", "succeeded.csv"]
    failed = list(csv.reader(io.StringIO((out_dir / "failed.csv").read_text())))
    assert failed[0][:4] == ["rowIndex", "jobCode", "loadNo", "code"]
    assert failed[1][0] == "4" and failed[1][3] == "MISSING_REQUIRED", failed
    ok = list(csv.reader(io.StringIO((out_dir / "succeeded.csv").read_text())))
    assert [r[0] for r in ok[1:]] == ["2", "3"], ok


def test_failed_exit_3_json(server, tmp_path):
    """Exit 3 on FAILED; --json prints the final run resource."""
    data = csv_text([row(1, job="J-NULP")]).encode().replace(b"note 1", b"no\x00te")
    rc, out, err = push(server, tmp_path, data, "--json")
    assert rc == 3, (out, err)
    run = json.loads(out)
    assert run["state"] == "FAILED" and run["error"]["code"] == "MALFORMED_CSV", run


def test_staged_exit_4_prints_review_url(start_server, tmp_path):
    """Exit 4 when the run is staged for review; the review URL is printed."""
    srv = start_server(env={"LOADLINE_APP_URL": "https://app.loadline.test"})
    rc, out, err = push(srv, tmp_path, messy_file("PUSH"))
    assert rc == 4, (out, err)
    assert "staged for review: https://app.loadline.test/imports/runs/run_" in out, out


def test_bad_token_exit_1_names_the_code(server, tmp_path, foreign_token):
    """Exit 1 on 401, with the problem's code on stderr; no token at all is a
    usage error before any request."""
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1)), token=foreign_token)
    assert rc == 1, (out, err)
    assert "401 UNAUTHORIZED" in err, err
    env = _env(server)
    env.pop("LOADLINE_TOKEN")
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1)), env=env)
    assert rc == 1 and "LOADLINE_TOKEN" in err, (out, err)


def test_server_down_exit_1(tmp_path):
    port = free_port()
    env = child_env({"LOADLINE_URL": "http://127.0.0.1:%d" % port, "LOADLINE_TOKEN": "ll_live_x"})
    rc, out, err = push(None, tmp_path, csv_bytes(rows(1)), env=env)
    assert rc == 1, (out, err)
    assert "cannot reach http://127.0.0.1:%d" % port in err, err


def test_terminal_shows_upload_progress(server, tmp_path):
    """On a terminal: upload progress, then the run's state and counts.
    Progress goes to stderr (PRODUCT §11): stdout keeps only the result."""
    rc, out, term = push_tty(server, tmp_path, csv_bytes(rows(4, job="J-TTY")))
    assert rc == 0, (out, term)
    assert "uploading 100%" in term and "uploading" not in out, (out, term)
    assert "SUCCEEDED: 4 succeeded" in out, out


def test_no_wait_and_dry_run(server, tmp_path):
    """--no-wait prints the run after the 202 and exits 0; --dry-run sends
    Service-Dry-Run: true."""
    rc, out, err = push(server, tmp_path, csv_bytes(rows(2, job="J-NW")), "--no-wait", "--dry-run", "--json")
    assert rc == 0, (out, err)
    run = json.loads(out)
    assert run["dryRun"] is True and run["id"].startswith("run_"), run


def test_waits_and_retries_on_429(start_server, tmp_path):
    """A token over its rate limit gets 429 with Retry-After: push waits and
    retries instead of failing, and still exits 0."""
    srv = start_server(env={"LOADLINE_RATE_LIMIT": "2/1s"})
    while srv.get("/api/v1/whoami").status_code != 429:   # spend the budget
        pass
    rc, out, err = push(srv, tmp_path, csv_bytes(rows(2, job="J-429")))
    assert rc == 0, (out, err)
    assert "answered 429, retrying" in err, err
    assert "SUCCEEDED" in out


def test_runs_lists_recent_runs(server, tmp_path):
    for i in range(3):
        assert push(server, tmp_path, csv_bytes(rows(1, job="J-RUNS%d" % i)))[0] == 0
    p = subprocess.run([loadline_bin(), "runs", "--limit", "2"], capture_output=True, env=_env(server),
                       timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().strip().splitlines()
    assert len(lines) == 2 and all(ln.split("\t")[1] == "SUCCEEDED" for ln in lines), lines
    p = subprocess.run([loadline_bin(), "runs", "--limit", "0"], capture_output=True, env=_env(server))
    assert p.returncode == 1


def test_409_follows_the_existing_run(start_server, tmp_path):
    """The same file pushed while its first run is still queued answers 409
    IMPORT_IN_PROGRESS: push follows existingRunUrl instead of failing."""
    from harness.jobs import accepted_run, upload
    srv = start_server(workers=0)   # nothing claims the run: it stays QUEUED
    data = csv_bytes(rows(2, job="J-409"))
    first = accepted_run(upload(srv, data))
    rc, out, err = push(srv, tmp_path, data, "--no-wait")
    assert rc == 0, (out, err)
    assert "already being imported: following /api/v1/imports/runs/%s" % first["id"] in err, err
    assert "%s QUEUED" % first["id"] in out, out


class FakeApi:
    """A real HTTP server on its own port standing in for a hostile (or
    foreign) API: answers with `routes[(method, path)] -> (status, json)`
    and records every request's method, path and Authorization header."""

    def __init__(self, routes=None):
        import http.server
        import threading
        self.routes, self.seen, self.prefer = routes or {}, [], []
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                if n:
                    self.rfile.read(n)
                path = self.path.split("?")[0]
                api.seen.append((self.command, self.path, self.headers.get("Authorization")))
                api.prefer.append(self.headers.get("Prefer"))
                answer = api.routes.get((self.command, path), (404, {"code": "NOT_FOUND"}))
                if isinstance(answer, list):   # one answer per request, the last one repeats
                    answer = answer.pop(0) if len(answer) > 1 else answer[0]
                status, body, *extra = answer
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in (extra[0] if extra else {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def fake_run(run_id="run_fake1", state="SUCCEEDED", **over):
    r = {"id": run_id, "object": "import_run", "kind": "jobs", "state": state, "dryRun": False,
         "counts": {"succeeded": 1, "warnings": 0, "failed": 0, "skipped": 0}, "fileName": "loads.csv",
         "rowCount": 1, "createdAt": "2026-11-26T00:00:00.000Z"}
    r.update(over)
    return r


def _push_fake(api, tmp_path, *args):
    env = child_env({"LOADLINE_URL": api.url, "LOADLINE_TOKEN": "ll_live_secret", "LOADLINE_POLL_MS": "50"})
    return push(None, tmp_path, csv_bytes(rows(1)), *args, env=env)


def test_409_to_another_origin_is_refused(tmp_path):
    """Issue 20 item 3: a 409 whose existingRunUrl names another host (or
    port, or scheme: https -> http would be a downgrade) is not followed:
    the token never reaches the foreign server, push exits 1 and says why.
    A path that would move the host once appended to the base URL
    ("@host/...") is refused too; a same-origin absolute URL is followed."""
    foreign = FakeApi({("GET", "/api/v1/imports/runs/run_fake1"): (200, fake_run())})
    hostile = FakeApi()
    try:
        port = foreign.url.rsplit(":", 1)[1]
        for target in (foreign.url + "/api/v1/imports/runs/run_fake1",
                       "https" + hostile.url[4:] + "/api/v1/imports/runs/run_fake1",
                       "@127.0.0.1:%s/api/v1/imports/runs/run_fake1" % port):
            hostile.routes[("POST", "/api/v1/imports/jobs")] = (
                409, {"code": "IMPORT_IN_PROGRESS", "existingRunUrl": target})
            rc, out, err = _push_fake(hostile, tmp_path)
            assert rc == 1, (target, out, err)
            assert "refusing to follow" in err and "not on %s" % hostile.url in err, (target, err)
        assert foreign.seen == [], foreign.seen
        assert [s[0] for s in hostile.seen] == ["POST"] * 3, hostile.seen
        # the same origin, written as an absolute URL: followed
        hostile.routes[("POST", "/api/v1/imports/jobs")] = (
            409, {"code": "IMPORT_IN_PROGRESS", "existingRunUrl": hostile.url + "/api/v1/imports/runs/run_fake1"})
        hostile.routes[("GET", "/api/v1/imports/runs/run_fake1")] = (200, fake_run())
        rc, out, err = _push_fake(hostile, tmp_path)
        assert rc == 0, (out, err)
        assert ("GET", "/api/v1/imports/runs/run_fake1", "Bearer ll_live_secret") in hostile.seen
    finally:
        foreign.close()
        hostile.close()


def test_redirects_are_not_followed(tmp_path):
    """Issue 20 item 3: a Location (a 307 to another host) is not followed
    with the token either: push reports the answer and exits 1."""
    foreign = FakeApi()
    api = FakeApi({("POST", "/api/v1/imports/jobs"): (307, {}, {"Location": foreign.url + "/api/v1/imports/jobs"}),
                   ("GET", "/api/v1/imports/runs/run_fake1"): (302, {}, {"Location": foreign.url + "/x"})})
    try:
        rc, out, err = _push_fake(api, tmp_path)
        assert rc == 1 and "307" in err, (out, err)
        api.routes[("POST", "/api/v1/imports/jobs")] = (202, fake_run(state="QUEUED"))
        rc, out, err = _push_fake(api, tmp_path)
        assert rc == 1 and "302" in err, (out, err)
        assert foreign.seen == [], foreign.seen
    finally:
        foreign.close()
        api.close()


def test_results_next_page_on_another_origin_is_refused(tmp_path):
    """Issue 20 item 3: a results page whose nextPageUrl names another
    origin is not followed either (the token would go with it)."""
    foreign = FakeApi()
    api = FakeApi({("POST", "/api/v1/imports/jobs"): (202, fake_run(state="QUEUED")),
                   ("GET", "/api/v1/imports/runs/run_fake1"): (200, fake_run())})
    api.routes[("GET", "/api/v1/imports/runs/run_fake1/results/succeeded")] = (
        200, {"object": "list", "data": [], "nextPageUrl": foreign.url + "/steal"})
    try:
        rc, out, err = _push_fake(api, tmp_path, "--results", str(tmp_path / "res"))
        assert rc == 1 and "refusing to follow" in err, (out, err)
        assert foreign.seen == []
    finally:
        foreign.close()
        api.close()


# What a terminal acts on: C0 (ESC, BEL, CR, BS...), DEL, C1 as UTF-8
# (U+0080..U+009F, e.g. U+009B = CSI) and bidi overrides.
HOSTILE_NAME = "\x1b]0;owned\x07\x1b[2J\x1b[1A\r\x08ok \u009b2J\u202etxt.csv"


def _terminal_safe(text):
    bad = [ch for ch in text if (ord(ch) < 0x20 and ch not in "\n\t") or 0x7F <= ord(ch) <= 0x9F
           or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"]
    return not bad


def test_hostile_file_name_is_escaped(server, tmp_path):
    """Issue 20 item 4: a member uploads a file whose name holds escape
    sequences (set the title, clear the screen, move up, CSI as a C1
    character, a right-to-left override); `loadline runs` (plain, --json)
    shows it escaped, never raw.  Since issue 27 item 16 the server stores
    the name with each control and direction override made a space (the
    web app shows it too); the CLI still escapes whatever a server sends."""
    f = tmp_path / HOSTILE_NAME
    f.write_bytes(csv_bytes(rows(1, job="J-ESC")))
    p = subprocess.run([loadline_bin(), "push", str(f)], capture_output=True, env=_env(server), timeout=120)
    assert p.returncode == 0, p
    stored = [r["fileName"] for r in server.get("/api/v1/imports/runs").json()["data"]]
    assert stored == [" ]0;owned  [2J [1A  ok  2J txt.csv"] or all(
        not any(c in n for c in "\x1b\x07\r\x08\u009b\u202e") for n in stored), stored
    for args in ([], ["--json"]):
        p = subprocess.run([loadline_bin(), "runs"] + args, capture_output=True, env=_env(server), timeout=60)
        out = p.stdout.decode()
        assert p.returncode == 0 and not sanitizer_reports(p.stderr.decode()), p
        assert _terminal_safe(out), repr(out)
        assert "]0;owned" in out and "txt.csv" in out, out


def test_hostile_server_text_is_escaped(tmp_path):
    """Issue 20 item 4: codes, messages, URLs and states a server sends are
    printed escaped by push, on stdout and stderr, plain and --json."""
    evil = "\x1b[2J\x1b]0;t\x07all rows imported OK\u009b1;1H\u202e"
    api = FakeApi({("POST", "/api/v1/imports/jobs"): (202, fake_run(state="QUEUED")),
                   ("GET", "/api/v1/imports/runs/run_fake1"): (
                       200, fake_run(state="FAILED", error={"code": "BAD" + evil, "message": evil}))})
    try:
        for args in ([], ["--json"]):
            rc, out, err = _push_fake(api, tmp_path, *args)
            assert rc == 3, (out, err)
            assert _terminal_safe(out) and _terminal_safe(err), (out, err)
        api.routes[("POST", "/api/v1/imports/jobs")] = (401, {"code": "UNAUTHORIZED" + evil, "detail": evil})
        rc, out, err = _push_fake(api, tmp_path)
        assert rc == 1 and "\\x1b[2J" in err and _terminal_safe(err), err
    finally:
        api.close()


def test_warnings_only_partial_exits_0_strict_exits_2(server, tmp_path):
    """Issue 22 item 7 / PRODUCT §11: a PARTIAL run in which no row failed
    (lookup warnings only) exits 0 and says "with N warnings"; --strict
    makes warnings exit 2; a failed row exits 2 either way."""
    recs = rows(2, job="J-WARN") + [row(3, job="J-WARN", customer="Nobody Known Inc")]
    rc, out, err = push(server, tmp_path, csv_bytes(recs))
    assert rc == 0, (out, err)
    assert " PARTIAL: 3 succeeded, 1 warnings, 0 failed, 0 skipped" in out, out
    assert "imported with 1 warning\n" in out, out
    recs = rows(1, job="J-WARN2") + [row(2, job="J-WARN2", customer="Nobody Known Inc")]
    rc, out, err = push(server, tmp_path, csv_bytes(recs), "--strict", "--results", str(tmp_path / "r"))
    assert rc == 2, (out, err)
    assert "(--strict: exit 2)" in out and (tmp_path / "r" / "warnings.csv").exists(), out
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1, job="J-WARN3") + [row(2, job="J-WARN3", loadDate="")]))
    assert rc == 2 and "1 failed" in out, (out, err)


def test_dry_run_says_so_on_every_line(server, tmp_path):
    """PRODUCT §11: a dry run says "dry run" on every line it prints, on
    stdout and stderr, staged or not; the run page URL is printed."""
    recs = rows(2, job="J-DRY") + [row(3, job="J-DRY", customer="Nobody Known Inc")]
    rc, out, err = push(server, tmp_path, csv_bytes(recs), "--dry-run")
    assert rc == 0, (out, err)
    lines = [ln for ln in (out + err).splitlines() if ln.strip()]
    assert len(lines) >= 3 and all("dry run" in ln for ln in lines), lines
    assert any("run page: %s/imports/runs/run_" % server.base_url in ln for ln in lines), lines
    rc, out, term = push_tty(server, tmp_path, csv_bytes(rows(1, job="J-DRY2")), "--dry-run")
    assert rc == 0 and "dry run: uploading 100%" in term, term
    lines = [ln for ln in (out + term).replace("\r", "\n").splitlines() if ln.strip()]
    assert all("dry run" in ln for ln in lines), lines
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1)), "--dry-run", token="ll_live_nope")
    assert rc == 1 and "loadline push (dry run): 401 " in err, err


def test_help_exits_0_on_stdout():
    """PRODUCT §11: `push --help` and `runs --help` print usage on stdout
    and exit 0 (they were refused as unknown options)."""
    for cmd in ("push", "runs"):
        for flag in ("--help", "-h"):
            p = subprocess.run([loadline_bin(), cmd, flag], capture_output=True, env=child_env({}), timeout=30)
            assert p.returncode == 0, p
            assert p.stdout.decode().startswith("loadline %s " % cmd) and p.stderr == b"", p
    out = subprocess.run([loadline_bin(), "push", "--help"], capture_output=True, env=child_env({})).stdout.decode()
    assert "--strict" in out and "--dry-run" in out, out


def test_run_page_url_under_the_app_url(start_server, tmp_path):
    """The run's web page is printed: {app_url}/imports/runs/<id>, taken
    from the staged run's review link when the server gives one, else from
    LOADLINE_APP_URL or the base URL."""
    srv = start_server(env={"LOADLINE_APP_URL": "https://app.loadline.test"})
    rc, out, err = push(srv, tmp_path, messy_file("PAGE"))
    assert rc == 4, (out, err)
    run_id = out.split()[0]
    assert "run page: https://app.loadline.test/imports/runs/%s\n" % run_id in out, out
    env = _env(srv, LOADLINE_APP_URL="https://app.loadline.test/")
    rc, out, err = push(srv, tmp_path, csv_bytes(rows(1, job="J-PAGE")), env=env)
    assert rc == 0 and "run page: https://app.loadline.test/imports/runs/%s\n" % out.split()[0] in out, out


def test_runs_header_on_a_terminal_tabs_when_piped(server, tmp_path):
    """PRODUCT §11: `loadline runs` has a header line on a terminal, is
    tab-separated without one when piped, gives every count its own
    column and marks dry runs and runs awaiting review."""
    assert push(server, tmp_path, csv_bytes(rows(2, job="J-LIST")))[0] == 0
    assert push(server, tmp_path, csv_bytes(rows(1, job="J-LIST2")), "--dry-run")[0] == 0
    assert push(server, tmp_path, messy_file("LIST"))[0] == 4
    p = subprocess.run([loadline_bin(), "runs"], capture_output=True, env=_env(server), timeout=60)
    assert p.returncode == 0, p
    lines = p.stdout.decode().splitlines()
    cells = [ln.split("\t") for ln in lines]
    assert all(len(c) == 9 for c in cells), lines
    by_note = {c[7]: c for c in cells}
    assert set(by_note) >= {"", "dry run", "awaiting review"}, lines
    assert by_note[""][1] == "SUCCEEDED" and by_note[""][3:7] == ["2", "0", "0", "0"], lines
    rc, term, err = on_tty([loadline_bin(), "runs"], _env(server), stream="stdout")
    assert rc == 0, err
    tl = [ln for ln in term.replace("\r", "").splitlines() if ln.strip()]
    assert tl[0].split() == ["RUN", "STATE", "CREATED", "SUCCEEDED", "WARNINGS", "FAILED", "SKIPPED", "NOTE",
                             "FILE"], tl
    assert "\t" not in term and len(tl) == len(lines) + 1, tl
    assert any("dry run" in ln for ln in tl) and any("awaiting review" in ln for ln in tl), tl


class SilentServer:
    """A TCP server that accepts connections, reads what comes and never
    answers (a hung proxy or a frozen server)."""

    def __init__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.conns, self.stop = [], False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        import threading
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._drain, args=(c,), daemon=True).start()

    @staticmethod
    def _drain(c):
        try:
            while c.recv(65536):
                pass
        except OSError:
            pass

    def close(self):
        self.stop = True
        self.sock.close()
        for c in self.conns:
            c.close()


def _timed_push(url, tmp_path, *args, **env):
    e = child_env(dict({"LOADLINE_URL": url, "LOADLINE_TOKEN": "ll_live_x"}, **env))
    t0 = time.monotonic()
    rc, out, err = push(None, tmp_path, csv_bytes(rows(1)), *args, env=e)
    return rc, out, err, time.monotonic() - t0


def test_silent_server_times_out(tmp_path):
    """Issue 20 item 6: a server that accepts and never answers no longer
    holds push forever: --timeout ends it (exit 1, said on stderr), and
    without an overall limit a request that moves no byte for the stall
    limit (60 s; LOADLINE_STALL_S in tests) ends it too. runs alike."""
    srv = SilentServer()
    try:
        rc, out, err, took = _timed_push(srv.url, tmp_path, "--timeout", "2s")
        assert rc == 1 and took < 15, (rc, out, err, took)
        assert "gave up after 2s (--timeout)" in err, err
        rc, out, err, took = _timed_push(srv.url, tmp_path, "--timeout", "0", LOADLINE_STALL_S="1")
        assert rc == 1 and took < 15, (rc, out, err, took)
        assert "no answer from %s" % srv.url in err, err
        p = subprocess.run([loadline_bin(), "runs", "--timeout", "1s"], capture_output=True, timeout=30,
                           env=child_env({"LOADLINE_URL": srv.url, "LOADLINE_TOKEN": "ll_live_x"}))
        assert p.returncode == 1 and b"gave up after 1s (--timeout)" in p.stderr, p
        rc, out, err, took = _timed_push(srv.url, tmp_path, "--timeout", "soon")
        assert rc == 1 and "--timeout takes a duration" in err, err
    finally:
        srv.close()


def test_run_that_never_ends_times_out(start_server, tmp_path):
    """Issue 20 item 6: a run nobody works on (serve --workers 0) stays
    QUEUED; push waits until --timeout, then exits 1 naming the run and its
    state."""
    srv = start_server(workers=0)
    t0 = time.monotonic()
    rc, out, err = push(srv, tmp_path, csv_bytes(rows(1, job="J-TMO")), "--timeout", "3s")
    took = time.monotonic() - t0
    assert rc == 1 and 2.5 < took < 20, (rc, out, err, took)
    assert re.search(r"gave up after 3s \(--timeout\): run run_\w+ is still QUEUED", err), err


def test_logs_tell_dry_runs_apart(server, tmp_path):
    """Issue 22: the server's import log lines of a run ("run claimed",
    "run finished") carry "dryRun", true for a dry run."""
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1, job="J-LOGD")), "--dry-run", "--json")
    dry_id = json.loads(out)["id"]
    rc2, out2, err2 = push(server, tmp_path, csv_bytes(rows(1, job="J-LOGR")), "--json")
    real_id = json.loads(out2)["id"]
    assert rc == rc2 == 0, (err, err2)
    lines = []
    for ln in server.stderr().splitlines():
        try:
            obj = json.loads(ln)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("runId") in (dry_id, real_id):
            lines.append(obj)
    seen = {(o["runId"], o.get("msg") or o.get("message")): o.get("dryRun") for o in lines}
    assert len(seen) >= 4 and all(v is not None for v in seen.values()), lines
    assert all(v is (rid == dry_id) for (rid, _), v in seen.items()), seen


def test_base_url_without_scheme_still_works(server, tmp_path):
    """The origin check guesses the scheme as libcurl does: LOADLINE_URL
    written as host:port (http) keeps working."""
    env = _env(server, LOADLINE_URL=server.base_url.split("://", 1)[1])
    rc, out, err = push(server, tmp_path, csv_bytes(rows(1, job="J-NOSCHEME")), env=env)
    assert rc == 0 and " SUCCEEDED: " in out, (out, err)


def test_push_long_polls_and_returns_when_the_run_ends(server, tmp_path):
    """Issue 23 part 2: with the server's long poll, push returns within a
    moment of its run's end (it used to sleep the 202's Retry-After: 5 s).
    No LOADLINE_POLL_MS: the real waiting."""
    env = child_env({"LOADLINE_URL": server.base_url, "LOADLINE_TOKEN": server.token})
    data = csv_bytes(rows(750, job="LP-PUSH"))
    t0 = time.monotonic()
    rc, out, err = push(server, tmp_path, data, "--json", env=env)
    wall = time.monotonic() - t0
    assert rc == 0, err
    run = json.loads(out)
    took = (parse_ts(run["finishedAt"]) - parse_ts(run["createdAt"])).total_seconds()
    assert wall < took + 1.5 and wall < 4.5, (wall, took)


def test_push_without_long_poll_on_the_server_still_works(tmp_path):
    """An older server ignores Prefer (no Preference-Applied): push falls
    back to polling with its delays and still ends with the run."""
    api = FakeApi({("POST", "/api/v1/imports/jobs"): (202, fake_run(state="QUEUED"),
                                                      {"Location": "/api/v1/imports/runs/run_fake1",
                                                       "Retry-After": "1"}),
                   ("GET", "/api/v1/imports/runs/run_fake1"): [
                       (200, fake_run(state="QUEUED"), {"ETag": '"q"'}),
                       (200, fake_run(state="RUNNING"), {"ETag": '"r"'}),
                       (200, fake_run(state="SUCCEEDED"), {"ETag": '"s"'})]})
    try:
        env = child_env({"LOADLINE_URL": api.url, "LOADLINE_TOKEN": "ll_live_secret"})
        t0 = time.monotonic()
        rc, out, err = push(None, tmp_path, csv_bytes(rows(1)), env=env)
        assert rc == 0, err
        assert "SUCCEEDED" in out
        gets = [p for (m, _, _), p in zip(api.seen, api.prefer) if m == "GET"]
        assert gets[0] is None and gets[1] == "wait=25", gets
        # Without Preference-Applied it waited between polls (1 s, then the
        # Retry-After-less backoff is not reached: three GETs).
        assert time.monotonic() - t0 >= 1.0
    finally:
        api.close()


def test_header_row_and_sheet_options(server, tmp_path):
    """PRODUCT §14: --header-row N and --sheet NAME are the upload's
    ?headerRow and ?sheet; a bad value is the server's 400, exit 1."""
    data = b"Loads,export\r\nOwner,Dispatch\r\njobCode,loadNo,loadDate\r\nJ-PH,1,2026-11-01\r\n"
    rc, out, err = push(server, tmp_path, data, "--header-row", "3", "--json")
    assert rc == 0, err
    run = json.loads(out)
    assert run["file"]["headerRow"] == 3 and run["state"] == "SUCCEEDED", run
    rc, out, err = push(server, tmp_path, data, "--header-row", "0", name="again.csv")
    assert rc == 1 and "INVALID_IMPORT_OPTION" in err, (rc, out, err)
    rc, out, err = push(server, tmp_path, data.replace(b"J-PH", b"J-PS"), "--sheet", "Loads & More", "--json",
                        name="s.csv")
    assert rc == 0, err   # ignored for CSV; the name went through the URL intact
