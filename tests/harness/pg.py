"""Throwaway PostgreSQL clusters for the API tests.

The suite never touches the system PostgreSQL service.  It runs `initdb` once
per session (as the `postgres` OS user, because initdb refuses root) into a
pristine template directory, and every cluster is a copy of that template:
the shared session cluster and any private cluster a test wants to stop and
start (the database-down test).  Each cluster listens on 127.0.0.1 on a free
port with its unix socket inside its own temp dir, trust auth, fsync off.
"""
import atexit
import os
import pwd
import queue
import secrets
import shutil
import subprocess
import tempfile
import threading
import time

from .net import free_port

PG_BIN = os.environ.get("LOADLINE_PG_BIN", "/usr/lib/postgresql/15/bin")
PG_USER = "postgres"

_lock = threading.Lock()
_template_dir = None
_live_clusters = []


def _pg_ids():
    pw = pwd.getpwnam(PG_USER)
    return pw.pw_uid, pw.pw_gid


def _as_postgres(argv):
    """argv run as the postgres OS user when we are root, else as ourselves."""
    if os.geteuid() == 0:
        return ["runuser", "-u", PG_USER, "--"] + argv
    return argv


def _run(argv, **kw):
    res = subprocess.run(_as_postgres(argv), capture_output=True, text=True, timeout=120, **kw)
    if res.returncode != 0:
        raise RuntimeError("command failed (%d): %s\nstdout:\n%s\nstderr:\n%s"
                           % (res.returncode, " ".join(argv), res.stdout, res.stderr))
    return res


def _mkdtemp(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    if os.geteuid() == 0:
        uid, gid = _pg_ids()
        os.chown(d, uid, gid)
    os.chmod(d, 0o700)
    return d


def _template():
    """Directory holding a freshly initdb'd data dir, made once per process."""
    global _template_dir
    with _lock:
        if _template_dir is None:
            if not os.path.exists(os.path.join(PG_BIN, "initdb")):
                raise RuntimeError("PostgreSQL binaries not found in %s "
                                   "(apt-get install postgresql-15)" % PG_BIN)
            root = _mkdtemp("ll-pgtemplate-")
            data = os.path.join(root, "data")
            _run([os.path.join(PG_BIN, "initdb"), "-D", data, "-U", PG_USER,
                  "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
            _template_dir = root
            atexit.register(shutil.rmtree, root, True)
        return os.path.join(_template_dir, "data")


def prewarm():
    """Runs initdb for the template in the background (the SQLite half of
    the suite runs first, so PostgreSQL is ready when its tests start)."""
    if os.path.exists(os.path.join(PG_BIN, "initdb")):
        threading.Thread(target=lambda: _ignore_errors(_template), daemon=True).start()


def _ignore_errors(fn):
    try:
        fn()
    except Exception:
        pass  # the fixture that needs it will report the error


class PgCluster:
    """One running postgres server on 127.0.0.1:port."""

    SPARE_DBS = 3

    def __init__(self):
        self.root = _mkdtemp("ll-pg-")
        self.data = os.path.join(self.root, "data")
        self.log = os.path.join(self.root, "postgres.log")
        self.port = None
        self.running = False
        self._spare = None
        self._filler = None
        self._drop = queue.Queue()
        tmpl = _template()
        # cp -a keeps ownership (postgres) and the 0700 mode initdb set.
        subprocess.run(["cp", "-a", tmpl, self.data], check=True)
        _live_clusters.append(self)

    def start(self):
        if self.port is None:
            self.port = free_port()
        # Fast and not crash-safe, except for a cluster a test crashes on
        # purpose (durable = True): an acknowledged commit must survive
        # `pg_ctl stop -m immediate` there.
        fast = "" if getattr(self, "durable", False) else \
            "-F -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        opts = (fast + "-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=200"
                % (self.port, self.root))
        _run([os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l", self.log,
              "-w", "-t", "60", "-o", opts, "start"])
        self.running = True

    def stop(self, mode="fast"):
        if not self.running:
            return
        self.running = False
        _run([os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-m", mode,
              "-w", "-t", "60", "stop"])

    def destroy(self):
        try:
            self.stop("immediate")
        except Exception:
            pass
        # removing the files can take a while on a slow disk: let a detached
        # rm do it after pytest has gone
        try:
            subprocess.Popen(["rm", "-rf", self.root], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            shutil.rmtree(self.root, ignore_errors=True)
        if self in _live_clusters:
            _live_clusters.remove(self)

    def psql(self, sql, db="postgres"):
        res = subprocess.run(
            [os.path.join(PG_BIN, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1",
             "-h", "127.0.0.1", "-p", str(self.port), "-U", PG_USER, "-d", db,
             "-At", "-c", sql],
            capture_output=True, text=True, timeout=60)
        if res.returncode != 0:
            raise RuntimeError("psql failed: %s\n%s" % (sql, res.stderr))
        return res.stdout

    def _create_now(self):
        name = "t_" + secrets.token_hex(6)
        self.psql("CREATE DATABASE %s" % name)
        return name

    def create_database(self):
        """A new empty database.  A background thread keeps a few spare ones
        ready, so a test rarely waits for CREATE DATABASE."""
        if self._spare is None:
            self._spare = queue.Queue(self.SPARE_DBS)
        if self._filler is None or not self._filler.is_alive():
            self._filler = threading.Thread(target=self._fill, daemon=True)
            self._filler.start()
        try:
            return self._spare.get(timeout=10)
        except queue.Empty:
            return self._create_now()

    def release_database(self, name):
        """Drops a database a test is done with, in the background (keeps the
        cluster small, so stopping it at the end is quick)."""
        self._drop.put(name)
        if self._filler is None or not self._filler.is_alive():
            self._filler = threading.Thread(target=self._fill, daemon=True)
            self._filler.start()

    def _drop_pending(self):
        while True:
            try:
                name = self._drop.get_nowait()
            except queue.Empty:
                return
            try:
                self.psql("DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
            except Exception:
                pass

    def _fill(self):
        if self._spare is None:
            return
        while self.running:
            self._drop_pending()
            if self._spare.full():
                time.sleep(0.05)
                continue
            try:
                name = self._create_now()
            except Exception:
                return  # cluster stopped or gone; create_database falls back
            while self.running:
                try:
                    self._spare.put(name, timeout=0.2)
                    break
                except queue.Full:
                    self._drop_pending()

    def url(self, dbname):
        return "postgres://%s@127.0.0.1:%d/%s" % (PG_USER, self.port, dbname)


@atexit.register
def _stop_all():
    for c in list(_live_clusters):
        c.destroy()
