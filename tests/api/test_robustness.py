"""Hostile or unusual HTTP traffic never crashes the server (issue 2 "Bad
input": malformed requests get problem responses or a closed connection,
never a crash; sanitizers are checked at teardown of every server)."""
import json
import socket
import threading
import time

import pytest

from harness.checks import assert_request_id

RAW = {
    "garbage_line": b"GARBAGE\r\n\r\n",
    "binary": bytes(range(256)) * 4 + b"\r\n\r\n",
    "http_0_9": b"GET /api/v1/whoami\r\n\r\n",
    "bad_version": b"GET /api/v1/whoami HTTP/9.9\r\nHost: x\r\n\r\n",
    "negative_content_length": b"POST /api/v1/whoami HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    "huge_content_length": b"POST /api/v1/whoami HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
    "bad_chunking": (b"POST /api/v1/whoami HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"zz\r\nhello\r\n0\r\n\r\n"),
    "header_without_colon": b"GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    "nul_in_path": b"GET /api/v1/who\x00ami HTTP/1.1\r\nHost: x\r\n\r\n",
    "percent_garbage": b"GET /api/v1/%zz%00%ff/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    "auth_nul": b"GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ll_live_\x00abc\r\n\r\n",
    "auth_utf8": "GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ll_live_éé€\r\n\r\n".encode(),
    "truncated_headers": b"GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nAuthori",
}


def _raw(srv, data, timeout=5):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=timeout)
    try:
        s.sendall(data)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        s.close()


def test_malformed_http_never_crashes(server):
    """Issue 2 "Bad input": malformed requests, never a crash; the server
    still serves afterwards (and exits cleanly, sanitizer-clean)."""
    for name, data in RAW.items():
        resp = _raw(server, data)
        if resp and name != "http_0_9":
            assert resp.startswith(b"HTTP/1."), (name, resp[:200])
            status = int(resp.split(b" ", 2)[1])
            assert 400 <= status < 500 or (name == "bad_version" and status == 505), \
                (name, resp[:300])
        assert server.get("/healthz", token=None).status_code == 200, name
    r = server.get("/api/v1/whoami")
    assert r.status_code == 200


def test_concurrent_requests_from_two_orgs(server):
    """Issue 2 item 2 (thread pool): parallel requests of two organizations
    are all answered correctly, each with its own organization and request id."""
    other = server.new_org("Parallel Org")
    results = []
    lock = threading.Lock()

    def worker(tok, want):
        for _ in range(15):
            r = server.get("/api/v1/whoami", token=tok)
            with lock:
                results.append((r.status_code, r.json().get("organization", {}).get("id"),
                                want, assert_request_id(r)))

    threads = [threading.Thread(target=worker, args=(t, o))
               for t, o in [(server.token, server.org.id), (other.token, other.id)] * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 8 * 15
    assert all(st == 200 and got == want for st, got, want, _ in results), \
        [r for r in results if r[0] != 200 or r[1] != r[2]][:5]
    assert len({r[3] for r in results}) == len(results)


@pytest.mark.parametrize("framing,body", [
    (b"Content-Length: 0\r\nContent-Length: 7\r\n", b""),
    (b"Content-Length: 7\r\ncontent-length: 70\r\n", b"1234567"),
    (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"),
])
def test_conflicting_body_framing_is_refused(module_server, framing, body):
    """Issue 12 (found from outside): two framings of one body (conflicting
    Content-Length headers, or Content-Length with Transfer-Encoding) are how
    requests are smuggled past a proxy that honours the other one: 400
    INVALID_REQUEST, never a guess."""
    resp = _raw(module_server, b"POST /api/v1/whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + framing
                + b"\r\n" + body)
    head, _, answer = resp.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), resp[:300]
    assert json.loads(answer)["code"] == "INVALID_REQUEST"


def test_repeated_identical_content_length_is_one_framing(module_server):
    """RFC 9110 §8.6: the same Content-Length repeated is one value."""
    resp = _raw(module_server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"Content-Length: 0\r\nContent-Length: 0\r\n\r\n")
    assert resp.startswith(b"HTTP/1.1 200"), resp[:300]


def test_answered_uploads_do_not_tie_up_the_http_pool(start_server):
    """Issue 12 (found from outside): a request answered before its body
    was read (here unauthenticated 50 MB POSTs from clients that keep
    sending) is closed gracefully without holding an HTTP pool thread, so
    a handful of them never delays anyone else: /healthz stays fast."""
    srv = start_server(workers=0, env={"LOADLINE_HTTP_THREADS": "2"})
    stop = threading.Event()
    socks = []

    def slow_sender(s):
        try:
            while not stop.is_set():
                s.sendall(b"x" * 4096)
                stop.wait(0.05)
        except OSError:
            pass

    threads = []
    for _ in range(6):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(b"POST /api/v1/imports/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 52428800\r\n"
                  b"Content-Type: multipart/form-data; boundary=B\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 401"), "answered at once, before the body"
        socks.append(s)
        t = threading.Thread(target=slow_sender, args=(s,), daemon=True)
        t.start()
        threads.append(t)
    try:
        worst = 0.0
        for _ in range(10):
            t0 = time.monotonic()
            assert srv.get("/healthz", token=None, timeout=10).status_code == 200
            worst = max(worst, time.monotonic() - t0)
            time.sleep(0.05)   # spread the probes over the lingering period
        assert worst < 0.5, "/healthz took %.2f s while answered uploads lingered" % worst
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        for s in socks:
            s.close()


def _keepalive_exchange(srv, data, wait=3.0):
    """Sends data on a keep-alive connection (no half-close, no Connection:
    close) and reads until the server closes it or wait seconds pass.
    Returns (bytes read, closed by the server)."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=wait)
    try:
        s.sendall(data)
        got, deadline = b"", time.monotonic() + wait
        while time.monotonic() < deadline:
            s.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                b = s.recv(65536)
            except socket.timeout:
                return got, False
            except ConnectionResetError:
                return got, True
            if not b:
                return got, True
            got += b
        return got, False
    finally:
        s.close()


SMUGGLED = b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.mark.parametrize("framing,body", [
    # chunked ends at "0", the rest of the Content-Length body is a request
    (b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % (5 + len(SMUGGLED)), b"0\r\n\r\n" + SMUGGLED),
    # the other order of the same two headers
    (b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\n" % (5 + len(SMUGGLED)), b"0\r\n\r\n" + SMUGGLED),
    # whitespace before the colon (RFC 9112 §5.1: 400); a reader that drops
    # the field reads no body and runs what follows as the next request
    (b"Content-Length : %d\r\n" % len(SMUGGLED), SMUGGLED),
    (b"Transfer-Encoding : chunked\r\n", b"0\r\n\r\n" + SMUGGLED),
])
def test_ambiguous_framing_is_refused_and_the_connection_closed(module_server, framing, body):
    """Issue 20 item 5 (found from outside, low): a request with two body
    framings, or a framing header with whitespace before its colon, gets 400
    INVALID_REQUEST and the connection is closed, so the request hidden in
    its body never runs: exactly one response, then end of stream."""
    got, closed = _keepalive_exchange(module_server, b"POST /api/v1/whoami HTTP/1.1\r\nHost: x\r\n" + framing
                                      + b"\r\n" + body)
    assert got.startswith(b"HTTP/1.1 400"), got[:300]
    assert got.count(b"HTTP/1.1 ") == 1, got[:600]
    assert b'"INVALID_REQUEST"' in got, got[:600]
    assert closed, "the connection stayed open after the refused request"
    assert module_server.get("/healthz", token=None).status_code == 200
