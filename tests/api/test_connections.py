"""Connection exhaustion (issue 12, found from outside, high): idle
connections from one client must not lock everyone out, and the service
recovers the moment they close.  Per-IP limit (LOADLINE_MAX_CONNECTIONS_PER_IP)
and a short idle time-out (LOADLINE_IDLE_TIMEOUT)."""
import base64
import os
import secrets
import socket
import threading
import time

from api.test_metrics import scrape
from harness.db import db_int
from harness.jobs import xlsx_bytes
from web.webtools import forms, signin

LIMIT = 40


def http_get(port, path, source="127.0.0.1", timeout=5):
    """One GET over a fresh connection from the given source address."""
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    try:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                return data
            data += c
    finally:
        s.close()


def idle_flood(port, n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        s.bind(("127.0.0.1", 0))
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def closed_by_server(s):
    try:
        s.settimeout(0.05)
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def test_idle_flood_from_one_address_locks_nobody_else_out(start_server):
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS_PER_IP": str(LIMIT),
                                       "LOADLINE_IDLE_TIMEOUT": "2s"})
    socks = idle_flood(srv.port, 600)
    try:
        time.sleep(0.3)   # let the server accept (and turn away) the flood
        # Beyond its budget the flooding address is turned away at once ...
        refused = sum(closed_by_server(s) for s in socks)
        assert refused >= len(socks) - LIMIT, (refused, len(socks))
        # ... while another client is served, quickly.
        t0 = time.monotonic()
        resp = http_get(srv.port, "/healthz", source="127.0.0.2")
        assert resp.startswith(b"HTTP/1.1 200"), resp[:200]
        assert time.monotonic() - t0 < 1.0
        # Silent connections are closed after the idle time-out.
        deadline = time.monotonic() + 10
        while not all(closed_by_server(s) for s in socks):
            assert time.monotonic() < deadline, "idle connections outlived LOADLINE_IDLE_TIMEOUT"
            time.sleep(0.2)
    finally:
        for s in socks:
            s.close()
    # Recovery is immediate: the flooding address itself is served again.
    resp = http_get(srv.port, "/healthz")
    assert resp.startswith(b"HTTP/1.1 200"), resp[:200]


def test_recovery_the_moment_the_sockets_close(start_server):
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS_PER_IP": str(LIMIT),
                                       "LOADLINE_IDLE_TIMEOUT": "60s"})
    socks = idle_flood(srv.port, LIMIT)
    time.sleep(0.3)
    try:
        # The address's budget is spent: its next connection is turned away.
        try:
            resp = http_get(srv.port, "/healthz", timeout=2)
        except OSError:
            resp = b""
        assert not resp.startswith(b"HTTP/1.1 200"), resp[:100]
    finally:
        for s in socks:
            s.close()
    deadline = time.monotonic() + 2
    while True:
        try:
            if http_get(srv.port, "/healthz", timeout=2).startswith(b"HTTP/1.1 200"):
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "still locked out after every socket closed"
        time.sleep(0.05)


def test_health_stays_fast_under_heavy_xlsx_uploads(start_server):
    """Issue 12 (found from outside): 16 concurrent 765 KB XLSX uploads from
    one token made /healthz take 16 s.  Uploads are spooled as they arrive
    and no more are staged and stored at once than there are cores, so the
    other HTTP threads stay free: /healthz answers within a second
    throughout (ASan build)."""
    srv = start_server(workers=0, env={"LOADLINE_RATE_LIMIT": "100000/60s",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "0"})

    def workbook(i):
        t = [["jobCode", "loadNo", "loadDate"] + ["c%d" % c for c in range(15)]]
        for r in range(750):
            t.append(["J%d" % i, str(r), "2026-11-02"] +
                     [base64.b64encode(secrets.token_bytes(45)).decode() for _ in range(15)])
        return xlsx_bytes(t)

    files = [workbook(i) for i in range(16)]
    assert len(files[0]) > 500000
    # (start, seconds) of each probe; probes every 5 ms, so that even
    # uploads that all finish within a tenth of a second overlap several.
    latencies, stop, first_probe = [], threading.Event(), threading.Event()

    def health():
        while not stop.is_set():
            t0 = time.monotonic()
            r = srv.get("/healthz", token=None)
            latencies.append((t0, time.monotonic() - t0))
            first_probe.set()
            assert r.status_code == 200
            time.sleep(0.005)

    codes = []

    def push(data):
        codes.append(srv.post("/api/v1/imports/jobs", files={"file": ("big.xlsx", data)}).status_code)

    h = threading.Thread(target=health)
    h.start()
    assert first_probe.wait(10)
    pushers = [threading.Thread(target=push, args=(f,)) for f in files]
    began = time.monotonic()
    for t in pushers:
        t.start()
    for t in pushers:
        t.join()
    ended = time.monotonic()
    stop.set()
    h.join()
    assert codes == [202] * 16, codes
    during = [d for t0, d in latencies if began <= t0 <= ended]
    assert len(during) >= 3, "only %d probes while the uploads ran (%.3f s)" % (len(during), ended - began)
    latencies = [d for _, d in latencies]
    # The defect took 16 s.  The bound leaves room for the ASan build with
    # make check's other pytest workers on the same two cores (CI once saw
    # 1.001 s with 1.0 as the bound); ThreadSanitizer runs the same code
    # 5-15 times slower (make tsan: what it checks there is races, not speed).
    bound = 5.0 if "TSAN_OPTIONS" in os.environ else 2.5
    assert max(latencies) < bound, "healthz took %.2f s under load" % max(latencies)


class WriteLock:
    """The database's write lock, held from outside the service: SQLite's
    by a connection in BEGIN IMMEDIATE, PostgreSQL's on the runs table (a
    new run's INSERT waits for it; reads do not) by a psql session."""

    def __init__(self, url):
        self.url = url
        if url.startswith("sqlite:"):
            import sqlite3
            self.con = sqlite3.connect(url[len("sqlite:"):], timeout=30, isolation_level=None)
            self.con.execute("BEGIN IMMEDIATE")
        else:
            import subprocess
            self.psql = subprocess.Popen(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.psql.stdin.write("BEGIN; LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE; SELECT 'locked';\n")
            self.psql.stdin.flush()
            assert self.psql.stdout.readline().strip() == "locked"

    def release(self):
        if self.url.startswith("sqlite:"):
            self.con.execute("COMMIT")
            self.con.close()
        else:
            self.psql.stdin.write("COMMIT;\n")
            self.psql.stdin.close()
            assert self.psql.wait(30) == 0


def test_uploads_waiting_for_a_slot_hold_no_thread(start_server):
    """Issue 29 (noticed in issue 27's CI failure): at most one upload per
    core is stored at once, and one that found every slot taken waited on
    its HTTP thread (sem_wait), stalling every other request that thread
    had — /healthz too.  Now it is held without a thread until a slot is
    given back.  With the database's write lock held from outside, the
    uploads that have slots wait for it (on their threads: storing takes
    the lock) and the others are held (loadline_uploads_held_total); when
    the lock goes, every upload gets its 202 (the web form's upload its
    redirect to the run page) and its run.  (Whether a
    /healthz meanwhile is quick depends on the thread libmicrohttpd gives
    its connection — by descriptor — so test_health_stays_fast_under_heavy_
    xlsx_uploads measures that.)"""
    import requests
    slots = max(1, min(16, os.cpu_count() or 1))
    extra = 3
    # libmicrohttpd gives a connection to a thread by its descriptor: with
    # as many threads as this, the uploads' few connections (descriptors
    # close together) each get a thread of their own, and none waits
    # behind an upload that holds a slot and waits for the lock.
    srv = start_server(workers=0, env={"LOADLINE_HTTP_THREADS": "64",
                                       "LOADLINE_RATE_LIMIT": "100000/60s",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "0"})
    codes, go = [], threading.Event()

    def push(i):
        # The body's first part now, the rest once the lock is held.
        b = "----slot%d" % i
        head = ('--%s\r\nContent-Disposition: form-data; name="file"; filename="f%d.csv"\r\n'
                "Content-Type: text/csv\r\n\r\njobCode,loadNo,loadDate\r\n" % (b, i)).encode()
        tail = ("J%d,1,2026-11-02\r\n\r\n--%s--\r\n" % (i, b)).encode()

        def body():
            yield head
            sent.release()   # runs once requests wants the next chunk: the head is out
            go.wait(30)
            yield tail
        r = requests.post(srv.base_url + "/api/v1/imports/jobs", timeout=60, data=body(),
                          headers={"Authorization": "Bearer " + srv.token,
                                   "Content-Type": "multipart/form-data; boundary=" + b})
        codes.append(r.status_code)

    def push_form(w, csrf):
        # The web app's "Import a file": the same envelope and slots.
        from urllib3 import encode_multipart_formdata
        data, ctype = encode_multipart_formdata({"csrf": csrf, "file": (
            "form.csv", b"jobCode,loadNo,loadDate\nWEB,1,2026-11-02\n", "text/csv")})

        def body():
            yield data[:-40]
            sent.release()
            go_form.wait(30)
            yield data[-40:]
        r = w.post("/imports", data=body(), headers={"Content-Type": ctype}, allow_redirects=False)
        codes.append(r.status_code)

    go_form, sent = threading.Event(), threading.Semaphore(0)
    w = signin(srv)
    csrf = forms(w.get("/imports").text).find("/imports")["fields"]["csrf"]
    # The token's last use is written at most once a second: a call now,
    # and the uploads' authentication writes nothing under the lock.
    assert srv.get("/api/v1/whoami").status_code == 200
    pushers = [threading.Thread(target=push, args=(i,)) for i in range(slots + extra - 1)]
    pushers.append(threading.Thread(target=push_form, args=(w, csrf)))
    for t in pushers:
        t.start()
    # Every request's headers in before the lock: authentication may write
    # the token's last use (once a second), which would wait for the lock
    # on the request's thread, and that upload would reach its slot only
    # when the lock goes (a slow machine, threads started late: a flaky
    # count of held uploads).
    for _ in pushers:
        assert sent.acquire(timeout=30)
    time.sleep(0.3)
    lock = WriteLock(srv.db_url)
    try:
        go.set()
        time.sleep(1)
        go_form.set()   # the form's upload last: every slot is taken by then
        time.sleep(3)   # past a hold's one-second look, under the store's 15 s wait for the lock
        assert codes == []
    finally:
        lock.release()
    for t in pushers:
        t.join(60)
    assert sorted(codes) == [202] * (slots + extra - 1) + [303], codes
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM runs") == slots + extra
    # Every upload past the slots was held (once each, however often it
    # looked again), the form's too, and none is held now.
    samples = scrape(srv)   # a sample missing is a KeyError, as it should fail
    held = samples[("loadline_uploads_held_total", frozenset())]
    assert held == extra, ("held %s of %d" % (held, extra), srv.stderr()[-8000:])
    assert samples[("loadline_long_polls_held", frozenset())] == 0


class Trickler:
    """A slow-header flood: from each source address, as many connections
    as it may hold, each sending one byte of an endless header every
    `every` seconds, and opened again as soon as the server closes it.
    Records how long each connection lasted while it kept sending."""

    def __init__(self, port, sources, per_source, every=0.2):
        self.port, self.sources, self.per_source, self.every = port, sources, per_source, every
        self.lifetimes = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open(self, source):
        s = socket.socket()
        s.setblocking(False)
        s.bind((source, 0))
        try:
            s.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        return [s, time.monotonic(), b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "]

    def run(self):
        conns = [self.open(src) for src in self.sources for _ in range(self.per_source)]
        srcs = [src for src in self.sources for _ in range(self.per_source)]
        while not self.stop.is_set():
            for i, c in enumerate(conns):
                s, t0, pending = c
                try:
                    closed = s.recv(1) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if not closed:
                    try:
                        s.send(pending[:1])
                        c[2] = pending[1:] or b"a"
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed = True
                if closed:
                    self.lifetimes.append(time.monotonic() - t0)
                    s.close()
                    conns[i] = self.open(srcs[i])
            time.sleep(self.every)
        for s, _, _ in conns:
            s.close()


def test_slow_header_flood_locks_nobody_out(start_server):
    """Issue 20 item 2 (found from outside, medium): connections from many
    addresses, each trickling a header byte at a time (so the idle time-out
    never fires), used to fill the global cap and lock everyone out for as
    long as they lasted.  Now the request line and headers must arrive
    within LOADLINE_HEADER_TIMEOUT of the connection, and connections that
    have not completed a request may hold only part of the cap: a new
    connection beyond that takes the place of the oldest of them.  Scaled
    down: a cap of 40, a flood of 4 x 16 connections."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS": "40",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "16",
                                       "LOADLINE_HEADER_TIMEOUT": "2s",
                                       "LOADLINE_IDLE_TIMEOUT": "15s"})
    # A keep-alive client that completed a request before the flood.
    kept = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert kept.recv(65536).startswith(b"HTTP/1.1 200")
    flood = Trickler(srv.port, ["127.0.0.%d" % i for i in range(2, 6)], 16)
    flood.thread.start()
    try:
        time.sleep(1.0)   # the flood holds every slot it may
        failures, served = [], 0
        end = time.monotonic() + 5
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                resp = http_get(srv.port, "/healthz", source="127.0.0.9", timeout=3)
            except OSError as e:
                resp = repr(e).encode()
            if resp.startswith(b"HTTP/1.1 200") and time.monotonic() - t0 < 2:
                served += 1
            else:
                failures.append(resp[:80])
            time.sleep(0.2)
        assert not failures, (served, failures[:5])
        # The client that had completed a request keeps its connection.
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
    finally:
        flood.stop.set()
        flood.thread.join(10)
        kept.close()
    # No trickling connection outlived the header deadline (2 s) by much,
    # although each kept sending.
    assert flood.lifetimes, "the server never closed a trickling connection"
    assert max(flood.lifetimes) < 3.5, sorted(flood.lifetimes)[-5:]


def test_keep_alive_flood_locks_nobody_out(start_server):
    """Issue 27 item 10: connections that each send one GET /healthz now and
    then and keep the connection open between (WAITING) used to fill the
    cap and refuse everyone else for as long as they lasted.  At the cap a
    newcomer now takes the place of the connection idle the longest.
    Scaled down: a cap of 40 filled by 4 x 10 kept-alive connections."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS": "40",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "16",
                                       "LOADLINE_IDLE_TIMEOUT": "30s"})
    kept = []
    for src in ["127.0.0.%d" % i for i in range(2, 6)]:
        for _ in range(10):
            s = socket.socket()
            s.settimeout(5)
            s.bind((src, 0))
            s.connect(("127.0.0.1", srv.port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            kept.append(s)
    try:
        failures = []
        for _ in range(10):
            try:
                resp = http_get(srv.port, "/healthz", source="127.0.0.9", timeout=3)
            except OSError as e:
                resp = repr(e).encode()
            if not resp.startswith(b"HTTP/1.1 200"):
                failures.append(resp[:80])
        assert not failures, failures[:5]
    finally:
        for s in kept:
            s.close()


def test_slow_body_flood_locks_nobody_out(start_server):
    """Issue 27 item 10: connections that finished their headers and then
    trickle a body (a byte every half second, to a public form that reads
    it) used to hold their slots for as long as they kept trickling.  A body
    must average LOADLINE_MIN_BODY_RATE (1 KB/s) after the header time-out's
    grace: the trickles are cut and a legitimate client is served.
    Scaled down: a cap of 40 filled by 4 x 10 trickling bodies."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS": "40",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "16",
                                       "LOADLINE_HEADER_TIMEOUT": "2s",
                                       "LOADLINE_IDLE_TIMEOUT": "15s"})
    stop = threading.Event()
    cut = []

    def trickle(src):
        s = socket.socket()
        s.settimeout(1)
        s.bind((src, 0))
        s.connect(("127.0.0.1", srv.port))
        s.sendall(b"POST /login/link HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                  b"Content-Length: 100000\r\n\r\n")
        t0 = time.monotonic()
        try:
            while not stop.is_set():
                s.sendall(b"a")
                try:
                    if s.recv(1) == b"":
                        break
                except socket.timeout:
                    pass
        except OSError:
            pass
        cut.append(time.monotonic() - t0)
        s.close()
    threads = [threading.Thread(target=trickle, args=("127.0.0.%d" % (2 + i // 10),), daemon=True) for i in range(40)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        served_at = None
        end = time.monotonic() + 8
        while time.monotonic() < end and served_at is None:
            try:
                if http_get(srv.port, "/healthz", source="127.0.0.9", timeout=2).startswith(b"HTTP/1.1 200"):
                    served_at = time.monotonic()
            except OSError:
                time.sleep(0.2)
        assert served_at is not None, "never served during the slow-body flood"
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert len(cut) == 40 and max(cut) < 8, sorted(cut)[-5:]


def test_body_flood_at_the_minimum_rate_yields_to_others(start_server):
    """Issue 27 item 10: bodies trickled just above LOADLINE_MIN_BODY_RATE
    to a public form fill every slot with running requests.  A newcomer
    then takes the place of the slowest anonymous request of the address
    with the most connections (authenticated requests are never pushed
    out: their reserved capacity), so an integrator's authenticated call
    is served and the flood's smaller address keeps its connections.
    Scaled down: a cap of 40 filled by 30 bodies from 127.0.0.2 and 10 from
    127.0.0.3, each sending 100 bytes a second against a minimum of 20."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_CONNECTIONS": "40",
                                       "LOADLINE_MAX_CONNECTIONS_PER_IP": "0",
                                       "LOADLINE_MIN_BODY_RATE": "20",
                                       "LOADLINE_HEADER_TIMEOUT": "1s",
                                       "LOADLINE_IDLE_TIMEOUT": "15s"})
    stop = threading.Event()
    cut = {"127.0.0.2": 0, "127.0.0.3": 0}
    lock = threading.Lock()
    started = threading.Barrier(41)

    def trickle(src):
        s = socket.socket()
        s.settimeout(0.01)
        s.bind((src, 0))
        s.connect(("127.0.0.1", srv.port))
        s.sendall(b"POST /login/link HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                  b"Content-Length: 100000\r\n\r\n")
        started.wait(10)
        try:
            while not stop.is_set():
                s.sendall(b"a")
                try:
                    if s.recv(1) == b"":
                        raise OSError("closed")
                except socket.timeout:
                    pass
        except OSError:
            with lock:
                cut[src] += 1
        s.close()
    threads = [threading.Thread(target=trickle, args=("127.0.0.2" if i < 30 else "127.0.0.3",), daemon=True)
               for i in range(40)]
    for t in threads:
        t.start()
    started.wait(10)
    try:
        time.sleep(2.0)   # every body has run longer than the header time-out
        assert cut == {"127.0.0.2": 0, "127.0.0.3": 0}, "the bodies meet the minimum rate"
        for _ in range(5):
            t0 = time.monotonic()
            s = socket.socket()
            s.settimeout(3)
            s.bind(("127.0.0.9", 0))
            s.connect(("127.0.0.1", srv.port))
            s.sendall(b"GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                      b"Connection: close\r\n\r\n" % srv.token.encode())
            data = b""
            while True:
                c = s.recv(65536)
                if not c:
                    break
                data += c
            s.close()
            assert data.startswith(b"HTTP/1.1 200"), data[:200]
            assert time.monotonic() - t0 < 2
        time.sleep(0.3)
        with lock:
            assert cut["127.0.0.3"] == 0, cut
            assert cut["127.0.0.2"] >= 1, cut   # one made room; the slot then stayed free
    finally:
        stop.set()
        for t in threads:
            t.join(5)
