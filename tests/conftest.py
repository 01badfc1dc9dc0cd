"""pytest fixtures of the black-box API suite (see tests/README.md).

Every server test runs once per storage backend: the session-scoped,
parametrized `backend` fixture gives test ids `[sqlite]` and `[postgres]`.
PostgreSQL tests use one throwaway cluster per session (started lazily with
initdb/pg_ctl, stopped at the end even on failure) and a fresh database per
server; SQLite tests use a fresh file in a temp dir.
"""
import os
import shutil
import signal
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from harness import pg  # noqa: E402
from harness.server import Cli, Server, loadline_bin  # noqa: E402

BACKENDS = ["sqlite", "postgres"]


def _sigterm(signum, frame):
    # An interrupted run (CI time-out, kill) still tears fixtures down, so
    # the PostgreSQL clusters are stopped.
    raise KeyboardInterrupt("SIGTERM")


def pytest_configure(config):
    signal.signal(signal.SIGTERM, _sigterm)
    pg.prewarm()
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    config.addinivalue_line("markers", "server: starts a loadline server (HTTP threads, workers, "
                            "senders); `make tsan` runs every such test (-m server)")


# The fixtures that start a `loadline serve` (with its HTTP pool, workers,
# mailer and webhook sender).  A test that uses any of them, directly or
# through another fixture, is marked `server`: the ThreadSanitizer run
# (`make tsan`) selects them by the marker, so its list is derived, not kept
# by hand (issue 27).
SERVER_FIXTURES = {"start_server", "server", "module_server"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())) or "start_workers" in getattr(
                getattr(item, "module", None), "__dict__", {}):
            item.add_marker(pytest.mark.server)


@pytest.fixture(scope="session")
def loadline_binary():
    b = loadline_bin()
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.fail("loadline binary not found at %s (set LOADLINE_BIN or run `make`)" % b,
                    pytrace=False)
    return b


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture(scope="session")
def pg_cluster():
    c = pg.PgCluster()
    try:
        c.start()
        yield c
    finally:
        c.destroy()


class DbFactory:
    """Fresh, empty databases of one backend."""

    def __init__(self, backend, request):
        self.backend = backend
        self.request = request
        self.dirs = []
        self.pg_dbs = []

    def new(self):
        if self.backend == "sqlite":
            d = tempfile.mkdtemp(prefix="ll-sqlite-")
            self.dirs.append(d)
            return "sqlite:" + os.path.join(d, "loadline.db")
        cluster = self.request.getfixturevalue("pg_cluster")
        name = cluster.create_database()
        self.pg_dbs.append((cluster, name))
        return cluster.url(name)

    def cleanup(self):
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        for cluster, name in self.pg_dbs:
            cluster.release_database(name)


@pytest.fixture
def make_db(backend, request, loadline_binary):
    f = DbFactory(backend, request)
    yield f.new
    f.cleanup()


@pytest.fixture
def db_url(make_db):
    return make_db()


def _label(request, extra=""):
    return request.node.nodeid.replace("tests/api/", "") + extra


@pytest.fixture
def cli(db_url, request):
    """Cli on a fresh, migrated database."""
    c = Cli(db_url, label=_label(request))
    c.run("migrate")
    return c


class ServerFactory:
    def __init__(self, request, make_db):
        self.request = request
        self.make_db = make_db
        self.servers = []

    def __call__(self, db_url=None, env=None, workers=1, bootstrap=True,
                 org_name="Acme Freight", extra_args=(), wait=True, port=None):
        n = len(self.servers)
        label = _label(self.request, "" if n == 0 else "-%d" % n)
        srv = Server(db_url or self.make_db(), label, env=env, workers=workers,
                     extra_args=extra_args)
        self.servers.append(srv)
        srv.start(port=port, wait=wait)
        if bootstrap and wait:
            srv.bootstrap(org_name)
        return srv

    def finish(self):
        problems = []
        for s in self.servers:
            problems += s.teardown_problems(getattr(s, "expect_clean_exit", True))
        return problems


@pytest.fixture
def start_server(request, make_db):
    """Factory: start_server(env=..., workers=..., bootstrap=True) -> Server.
    At teardown every server gets SIGTERM and must exit 0 within 10 s with a
    stderr free of sanitizer reports."""
    f = ServerFactory(request, make_db)
    yield f
    problems = f.finish()
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def server(start_server):
    """A running server on a fresh database with one org, admin and token."""
    return start_server()


@pytest.fixture(scope="module")
def module_server(backend, request, loadline_binary):
    """One bootstrapped server per module and backend, for tests that only
    read (the 401 variants, docs pages).  Checked like any other at teardown."""
    f = DbFactory(backend, request)
    label = "%s[%s]-module" % (request.module.__name__, backend)
    srv = Server(f.new(), label)
    try:
        srv.start()
        srv.bootstrap("Module Org")
        yield srv
    finally:
        problems = srv.teardown_problems()
        f.cleanup()
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def private_pg():
    """A PostgreSQL cluster of the test's own, which it may stop and start."""
    c = pg.PgCluster()
    try:
        c.start()
        yield c
    finally:
        c.destroy()


@pytest.fixture(scope="session")
def foreign_token(loadline_binary):
    """A well-formed token with a valid checksum, minted on another database:
    unknown to every server of the suite."""
    d = tempfile.mkdtemp(prefix="ll-foreign-")
    try:
        c = Cli("sqlite:" + os.path.join(d, "loadline.db"), label="foreign-token")
        c.run("migrate")
        org = c.admin("create-org", "--name", "Elsewhere").line
        yield c.admin("mint-token", "--org", org, "--name", "foreign").line
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def module_cli(backend, request, loadline_binary):
    """Cli on one migrated database per module and backend, with one org."""
    f = DbFactory(backend, request)
    try:
        c = Cli(f.new(), label="%s[%s]-module" % (request.module.__name__, backend))
        c.run("migrate")
        c.org_id = c.admin("create-org", "--name", "Module Org").line
        yield c
    finally:
        f.cleanup()
