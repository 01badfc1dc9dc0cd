"""Run the `loadline` binary under test: CLI commands and `serve` processes.

Every child gets the sanitizer options of the suite, every stderr is kept
under tests/.out/ and scanned for AddressSanitizer / LeakSanitizer / UBSan
reports; a report fails the test that produced it.
"""
import json
import os
import re
import signal
import subprocess
import time

import requests

from .net import free_port

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(REPO, "tests", ".out")

SANITIZER_MARKERS = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
                     "ThreadSanitizer", "MemorySanitizer")

NO_TOKEN = None
_DEFAULT = object()


def _die_with_parent():
    """preexec_fn: the child gets SIGKILL if pytest dies, so no server
    outlives an interrupted run (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except Exception:
        pass


def loadline_bin():
    return os.environ.get("LOADLINE_BIN") or os.path.join(REPO, "build", "loadline")


def child_env(extra=None):
    """Environment of a loadline child: ours minus any LOADLINE_* setting
    (so a developer's shell cannot change what a test means), plus the
    sanitizer options and the test's own settings.  LOADLINE_ENV_FILE is
    empty (no settings file) unless the test names one, so an installed
    /etc/loadline/loadline.env never changes a test either."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOADLINE_")}
    env["LOADLINE_ENV_FILE"] = ""
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env["LSAN_OPTIONS"] = env.get("LSAN_OPTIONS", "")
    env.pop("PYTHONPATH", None)
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    return env


def sanitizer_reports(text):
    """Lines of `text` that belong to a sanitizer report (JSON access-log
    lines are never counted, even if a logged path contains the words)."""
    hits = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("{"):
            try:
                json.loads(s)
                continue
            except ValueError:
                pass
        if any(m in line for m in SANITIZER_MARKERS):
            hits.append(line)
    return hits


def _safe_label(label):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label)[-120:]


def out_path(label, suffix):
    os.makedirs(OUT_DIR, exist_ok=True)
    return os.path.join(OUT_DIR, "%s.%s" % (_safe_label(label), suffix))


class CliResult:
    def __init__(self, argv, rc, out, err):
        self.argv, self.rc, self.out, self.err = argv, rc, out, err

    @property
    def line(self):
        """stdout stripped; asserts it is exactly one line."""
        s = self.out.strip()
        assert "\n" not in s, "expected one line on stdout of %s, got:\n%s" % (self.argv, self.out)
        return s

    def __repr__(self):
        return "<CliResult %s rc=%s\nstdout:\n%s\nstderr:\n%s>" % (
            " ".join(self.argv), self.rc, self.out, self.err)


class Cli:
    """`loadline --db URL ...` runner bound to one database."""

    def __init__(self, db_url, env=None, label="cli"):
        self.db_url = db_url
        self.env = dict(env or {})
        self.label = label
        self._n = 0
        self.log_path = out_path(label, "cli.log")
        open(self.log_path, "w").close()

    def run(self, *args, expect=0, env=None, db=_DEFAULT, timeout=60, stdin=None):
        """Runs the binary; `expect` is the exit code asserted (None: any)."""
        argv = [loadline_bin()]
        dburl = self.db_url if db is _DEFAULT else db
        if dburl is not None:
            argv += ["--db", dburl]
        argv += [str(a) for a in args]
        e = dict(self.env)
        e.update(env or {})
        res = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                             env=child_env(e), input=stdin, errors="replace",
                             preexec_fn=_die_with_parent)
        r = CliResult(argv, res.returncode, res.stdout, res.stderr)
        self._n += 1
        with open(self.log_path, "a") as f:
            f.write("$ %s\n[rc=%d]\n--- stdout\n%s--- stderr\n%s\n" % (
                " ".join(argv), r.rc, r.out, r.err))
        reports = sanitizer_reports(r.err)
        assert not reports, "sanitizer report from %s:\n%s" % (" ".join(argv), r.err)
        if expect is not None:
            assert r.rc == expect, "exit %d, expected %d: %r" % (r.rc, expect, r)
        return r

    def admin(self, *args, **kw):
        return self.run("admin", *args, **kw)


class Org:
    def __init__(self, id, name, admin_id, admin_email, token):
        self.id, self.name = id, name
        self.admin_id, self.admin_email = admin_id, admin_email
        self.token = token


class _Session(requests.Session):
    def __init__(self, base_url):
        super().__init__()
        self.base_url = base_url

    def request(self, method, url, **kw):
        kw.setdefault("timeout", 20)
        if url.startswith("/"):
            url = self.base_url + url
        return super().request(method, url, **kw)


class Server:
    """One `loadline serve` process on a free port of 127.0.0.1."""

    def __init__(self, db_url, label, env=None, workers=1, extra_args=()):
        self.db_url = db_url
        self.label = label
        self.env = dict(env or {})
        self.workers = workers
        self.extra_args = list(extra_args)
        self.proc = None
        self.port = None
        self.rc = None
        self.cli = Cli(db_url, env=self.env, label=label)
        self.stderr_path = out_path(label, "server.stderr")
        self.stdout_path = out_path(label, "server.stdout")
        for p in (self.stderr_path, self.stdout_path):
            open(p, "wb").close()  # a fresh file per server; restarts append
        self.org = None
        self.token = None
        self._orgs = 0

    # ---- process ----
    @property
    def base_url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def public_base(self):
        return self.env.get("LOADLINE_BASE_URL", self.base_url).rstrip("/")

    @property
    def docs_url(self):
        return self.env.get("LOADLINE_DOCS_URL", self.public_base + "/docs").rstrip("/")

    def start(self, port=None, wait=True):
        for attempt in range(3):
            self.port = port or free_port()
            argv = [loadline_bin(), "--db", self.db_url, "serve",
                    "--listen", "127.0.0.1:%d" % self.port,
                    "--workers", str(self.workers)] + self.extra_args
            self._errf = open(self.stderr_path, "ab")
            self._errf.write(("$ %s\n" % " ".join(argv)).encode())
            self._errf.flush()
            self._outf = open(self.stdout_path, "ab")
            self.proc = subprocess.Popen(argv, stdout=self._outf, stderr=self._errf,
                                         stdin=subprocess.DEVNULL, env=child_env(self.env),
                                         preexec_fn=_die_with_parent)
            self.rc = None
            self.http = _Session(self.base_url)
            if not wait:
                return self
            err = self._wait_healthy()
            if err is None:
                return self
            if "in use" in self.stderr().lower() and port is None and attempt < 2:
                continue  # lost the free-port race; try another port
            raise AssertionError(err)
        return self

    def _wait_healthy(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                self.rc = rc
                return ("loadline serve exited with %d before answering /healthz; stderr:\n%s"
                        % (rc, self.stderr()[-6000:]))
            try:
                r = requests.get(self.base_url + "/healthz", timeout=2)
                if r.status_code == 200:
                    return None
                last = "%d %s" % (r.status_code, r.text[:300])
            except requests.RequestException as e:
                last = repr(e)
            time.sleep(0.02)
        self.kill()
        return ("/healthz did not answer 200 within %.0f s (last: %s); stderr:\n%s"
                % (timeout, last, self.stderr()[-6000:]))

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=10.0):
        """SIGTERM; returns the exit code (None if it had to be killed)."""
        if self.proc is None:
            return self.rc
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.rc = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                self.rc = None
                self._close_files()
                return None
        else:
            self.rc = self.proc.returncode
        self._close_files()
        return self.rc

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_files()

    def _close_files(self):
        for f in (getattr(self, "_errf", None), getattr(self, "_outf", None)):
            if f and not f.closed:
                f.close()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def teardown_problems(self, expect_clean_exit=True):
        """Stops the server; returns a list of messages (empty when clean)."""
        problems = []
        was_running = self.running()
        rc = self.stop()
        if expect_clean_exit:
            if was_running and rc is None:
                problems.append("loadline serve did not exit within 10 s of SIGTERM")
            elif was_running and rc != 0:
                problems.append("loadline serve exited %s after SIGTERM (expected 0)" % rc)
            elif not was_running and rc not in (0, None):
                problems.append("loadline serve had died with exit code %s" % rc)
        reps = sanitizer_reports(self.stderr())
        if reps:
            problems.append("sanitizer report in server stderr (%s):\n%s"
                            % (self.stderr_path, self._report_text()))
        if problems:
            problems.append("stderr tail:\n" + self.stderr()[-4000:])
        return problems

    def _report_text(self):
        text = self.stderr()
        lines = text.splitlines()
        for i, l in enumerate(lines):
            if any(m in l for m in SANITIZER_MARKERS):
                return "\n".join(lines[max(0, i - 2):i + 80])
        return ""

    # ---- identity bootstrap through the CLI ----
    def new_org(self, name=None, token_name="tests"):
        self._orgs += 1
        name = name or "Org %d of %s" % (self._orgs, self.label[-40:])
        org_id = self.cli.admin("create-org", "--name", name).line
        email = "admin%d@example.com" % self._orgs
        uid = self.cli.admin("add-user", "--org", org_id, "--email", email,
                             "--name", "Ada Admin", "--role", "admin").line
        token = self.cli.admin("mint-token", "--org", org_id, "--name", token_name).line
        return Org(org_id, name, uid, email, token)

    def bootstrap(self, name="Acme Freight"):
        self.org = self.new_org(name)
        self.token = self.org.token
        return self.org

    def mint(self, org_id, name="extra"):
        return self.cli.admin("mint-token", "--org", org_id, "--name", name).line

    # ---- HTTP ----
    def request(self, method, path, token=_DEFAULT, headers=None, **kw):
        h = dict(headers or {})
        tok = self.token if token is _DEFAULT else token
        if tok is not None and "Authorization" not in h:
            h["Authorization"] = "Bearer " + tok
        return self.http.request(method, path, headers=h, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def access_log(self):
        """Parsed JSON objects from stderr that look like access-log lines."""
        out = []
        for line in self.stderr().splitlines():
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and "requestId" in obj and "status" in obj:
                out.append(obj)
        return out


def start_workers(db_url, count, workers_each, env=None):
    """`loadline worker` processes on db_url (stderr kept for the checks of
    stop_workers)."""
    return [subprocess.Popen([loadline_bin(), "--db", db_url, "worker", "--workers", str(workers_each)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env(env),
                             text=True, preexec_fn=_die_with_parent)
            for _ in range(count)]


def stop_workers(procs):
    """SIGTERM each worker process; returns [(exit code or None, stderr)]."""
    out = []
    for p in procs:
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
        out.append((rc, p.stderr.read()))
    return out


def assert_workers_clean(results):
    """Every worker exited 0 without a sanitizer report."""
    for rc, err in results:
        assert not sanitizer_reports(err), err
        assert rc == 0, err[-3000:]
