"""Connection exhaustion (issue 12, found from outside, high): idle
connections from one client must not lock everyone out, and the service
recovers the moment they close.  Per-IP limit (LOADLINE_MAX_CONNECTIONS_PER_IP)
and a short idle time-out (LOADLINE_IDLE_TIMEOUT)."""
import socket
import time

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
