"""Wire conventions: health check, ids, timestamps, access log (PRODUCT §2,
issue 2 items 2 and 6, lead's healthz and access-log contract)."""
import re
import time

import pytest

from harness.checks import TS_RE, assert_id, assert_request_id

LOG_KEYS = {"requestId", "orgId", "method", "path", "status", "durationMs"}


def test_healthz(server):
    """Lead: GET /healthz (no auth) -> 200 {"status":"ok"} with X-Request-Id."""
    r = server.get("/healthz", token=None)
    assert r.status_code == 200
    assert r.headers["Content-Type"].split(";")[0].strip() == "application/json"
    assert r.json() == {"status": "ok"}
    assert_request_id(r)


def test_readyz(server):
    """PRODUCT §10: GET /readyz (no token): 200 when the database is
    reachable and migrated."""
    r = server.get("/readyz", token=None)
    assert r.status_code == 200, r.text
    # The test servers have no mail server (issue 30): ready, and it says so.
    assert r.json() == {"status": "ready", "warnings": [
        "mail: LOADLINE_SMTP_URL is not set, so no email is sent; approval emails stay in the outbox and "
        "their review links are logged"]}, r.json()
    assert_request_id(r)


def test_readyz_without_warnings_when_mail_is_configured(start_server):
    srv = start_server(env={"LOADLINE_SMTP_URL": "smtp://127.0.0.1:1"}, bootstrap=False)
    assert srv.get("/readyz", token=None).json() == {"status": "ready"}


def test_timestamps_are_utc_millis(server):
    """PRODUCT §2: timestamps are ISO 8601 UTC with milliseconds and Z."""
    server.get("/api/v1/whoami")
    b = server.get("/api/v1/whoami").json()
    for v in (b["createdAt"], b["lastUsedAt"], b["organization"]["createdAt"]):
        assert isinstance(v, str) and TS_RE.match(v), v


def test_ids_are_prefixed(server):
    """PRODUCT §2: ids are prefixed random strings (org_, key_, usr_)."""
    b = server.get("/api/v1/whoami").json()
    assert_id(b["id"], "key")
    assert_id(b["organization"]["id"], "org")
    assert_id(server.org.admin_id, "usr")
    other = server.new_org("Another")
    assert other.id != server.org.id and other.admin_id != server.org.admin_id


def _wait_for_log(srv, request_ids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while True:
        entries = srv.access_log()
        got = {e.get("requestId") for e in entries}
        if set(request_ids) <= got or time.monotonic() > deadline:
            return entries
        time.sleep(0.05)


def test_access_log_one_json_line_per_request(server, foreign_token):
    """Issue 2 item 2 / lead: one JSON object per request on stderr with
    requestId, orgId (null unauthenticated), method, path, status, durationMs."""
    calls = [
        ("GET", "/api/v1/whoami", server.token, 200, server.org.id),
        ("GET", "/v1/whoami", server.token, 200, server.org.id),
        ("GET", "/api/v1/whoami", None, 401, None),
        ("GET", "/api/v1/whoami", foreign_token, 401, None),
        ("GET", "/api/v1/does-not-exist", server.token, 404, server.org.id),
        ("DELETE", "/api/v1/whoami", server.token, 405, server.org.id),
    ]
    seen = []
    for method, path, tok, status, org in calls:
        r = server.request(method, path, token=tok)
        assert r.status_code == status, (method, path, r.status_code)
        seen.append((assert_request_id(r), method, path, status, org))
    entries = _wait_for_log(server, [s[0] for s in seen])
    by_id = {}
    for e in entries:
        by_id.setdefault(e["requestId"], []).append(e)
    for rid, method, path, status, org in seen:
        lines = by_id.get(rid, [])
        assert len(lines) == 1, "request %s %s %s logged %d times" % (rid, method, path, len(lines))
        e = lines[0]
        assert LOG_KEYS <= set(e), "access log keys %s" % sorted(e)
        assert e["method"] == method and e["path"] == path, e
        assert e["status"] == status and type(e["status"]) is int, e
        assert e["orgId"] == org, e
        d = e["durationMs"]
        assert isinstance(d, (int, float)) and not isinstance(d, bool) and 0 <= d < 60000, e
    for e in entries:
        assert LOG_KEYS <= set(e), "malformed access log line %s" % e
    # PRODUCT §2 "only a hash is stored": tokens never reach the logs either
    err = server.stderr()
    assert server.token not in err and foreign_token not in err, "a token was logged"
    assert server.token[8:40] not in err


def _logged(srv, rid):
    lines = [e for e in _wait_for_log(srv, [rid]) if e.get("requestId") == rid]
    assert len(lines) == 1, (rid, lines)
    return lines[0]


def test_access_log_client_user_agent_and_key_prefix(server):
    """Issue 21 item 5 / PRODUCT §13: the access line carries the client
    address, the user agent (escaped as JSON, its first 256 bytes, cut at a
    character boundary) and the prefix of the API key that authenticated
    the request (ll_live_XXXX) — never the token."""
    ua = "loadline-test/1.0 \x1b[2J \"quoted\" caf\u00e9 \u202e"
    r = server.get("/api/v1/whoami", headers={"User-Agent": ua.encode("utf-8")})
    assert r.status_code == 200
    e = _logged(server, assert_request_id(r))
    assert e["level"] == "info" and e["client"] == "127.0.0.1", e
    assert e["userAgent"] == ua, e
    assert e["keyPrefix"] == server.token[:12] and e["keyPrefix"].startswith("ll_live_"), e
    line = next(l for l in server.stderr().splitlines() if e["requestId"] in l)
    assert "\x1b" not in line and line.isascii(), "the user agent reached the log unescaped: %r" % line
    # no token, a wrong token: no key prefix
    for tok in (None, "ll_live_" + "x" * 38):
        r = server.request("GET", "/api/v1/whoami", token=tok)
        assert r.status_code == 401
        e = _logged(server, assert_request_id(r))
        assert e["keyPrefix"] is None and e["client"] == "127.0.0.1", e
    # no User-Agent header at all: null
    import socket
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while not data.endswith(b"}") and (c := s.recv(65536)):
            data += c
    rid = re.search(rb"X-Request-Id: (req_\w+)", data, re.I).group(1).decode()
    assert _logged(server, rid)["userAgent"] is None
    # capped: 256 bytes, never half a character
    for sent, kept in (("a" * 1000, "a" * 256), ("a" * 255 + "\u00e9", "a" * 255)):
        r = server.get("/api/v1/whoami", headers={"User-Agent": sent.encode("utf-8")})
        assert _logged(server, assert_request_id(r))["userAgent"] == kept
    assert server.token not in server.stderr()


@pytest.mark.parametrize("level", [None, "debug"])
def test_health_probes_are_logged_at_debug(start_server, level):
    """Issue 21 item 5 / PRODUCT §13: /healthz, /readyz and /metrics scrapes
    (a load balancer's and a scraper's, every few seconds) are not logged at
    info; with LOADLINE_LOG_LEVEL=debug they are, at level debug.  Other
    requests stay at info either way."""
    srv = start_server(env={"LOADLINE_LOG_LEVEL": level} if level else {})
    probes = [assert_request_id(srv.get(p, token=None)) for p in ("/healthz", "/readyz", "/metrics")]
    whoami = assert_request_id(srv.get("/api/v1/whoami"))
    entries = _wait_for_log(srv, [whoami] + (probes if level else []))
    by_id = {e["requestId"]: e for e in entries}
    assert by_id[whoami]["level"] == "info"
    for rid in probes:
        if level:
            assert by_id[rid]["level"] == "debug", by_id[rid]
        else:
            assert rid not in by_id, by_id[rid]


def test_log_level_must_be_known(cli):
    r = cli.run("migrate", env={"LOADLINE_LOG_LEVEL": "verbose"}, expect=2)
    assert "LOADLINE_LOG_LEVEL" in r.err
