"""Wire conventions: health check, ids, timestamps, access log (PRODUCT §2,
issue 2 items 2 and 6, lead's healthz and access-log contract)."""
import time

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
    assert r.json() == {"status": "ready"}
    assert_request_id(r)


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
        ("GET", "/healthz", None, 200, None),
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
