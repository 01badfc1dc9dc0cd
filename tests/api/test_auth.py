"""Bearer authentication failures (SPEC "Authentication" 1-3, PRODUCT §2-§3:
unknown, malformed or revoked tokens -> 401 UNAUTHORIZED problem with
WWW-Authenticate: Bearer)."""
import pytest
import requests

from harness.checks import assert_problem

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _flip(ch):
    return "7" if ch != "7" else "8"


def _flip_at(tok, i):
    return tok[:i] + _flip(tok[i]) + tok[i + 1:]


# name -> function(valid_token, foreign_token) -> Authorization header value (None: no header)
CASES = {
    "missing_header": lambda t, f: None,
    "basic_scheme": lambda t, f: "Basic dXNlcjpwYXNzd29yZA==",
    "token_scheme_with_valid_token": lambda t, f: "Token " + t,
    "no_scheme_valid_token": lambda t, f: t,
    "bearer_without_token": lambda t, f: "Bearer",
    "bearer_garbage": lambda t, f: "Bearer not-a-token",
    "truncated": lambda t, f: "Bearer " + t[:-1],
    "too_long": lambda t, f: "Bearer " + t + "A",
    "non_base62_char": lambda t, f: "Bearer " + t[:20] + "-" + t[21:],
    "wrong_prefix_test": lambda t, f: "Bearer ll_test_" + t[len("ll_live_"):],
    "wrong_prefix_upper": lambda t, f: "Bearer LL_LIVE_" + t[len("ll_live_"):],
    "wrong_prefix_other": lambda t, f: "Bearer sk_live_" + t[len("ll_live_"):],
    "prefix_only": lambda t, f: "Bearer ll_live_",
    "bad_checksum": lambda t, f: "Bearer " + _flip_at(t, len(t) - 1),
    "random_part_changed": lambda t, f: "Bearer " + _flip_at(t, 10),
    "unknown_well_formed": lambda t, f: "Bearer " + f,
    "token_plus_trailing_word": lambda t, f: "Bearer " + t + " extra",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_credentials_are_401_problem(module_server, foreign_token, case):
    """SPEC "Authentication" 3 + PRODUCT §2: missing/malformed/wrong-prefix/
    bad-checksum/unknown tokens -> 401 UNAUTHORIZED, full problem envelope,
    WWW-Authenticate: Bearer."""
    srv = module_server
    value = CASES[case](srv.token, foreign_token)
    headers = {} if value is None else {"Authorization": value}
    for path in ("/api/v1/whoami", "/v1/whoami"):
        r = srv.get(path, token=None, headers=headers)
        assert_problem(r, 401, "UNAUTHORIZED", srv)
        www = r.headers.get("WWW-Authenticate", "")
        assert www.split(" ")[0].split(",")[0] == "Bearer", "WWW-Authenticate %r" % www
        assert srv.token not in r.text


def test_token_in_query_string_is_not_accepted(module_server):
    """SPEC "Authentication" 1: the Bearer header is the only authentication."""
    srv = module_server
    for q in ("access_token", "token", "api_key"):
        r = srv.get("/api/v1/whoami", token=None, params={q: srv.token})
        assert_problem(r, 401, "UNAUTHORIZED", srv)


def test_valid_token_still_works_after_failures(module_server):
    """Failures of other requests never disturb a live token (sanity anchor
    for the 401 cases above: the token they are derived from is live)."""
    r = module_server.get("/api/v1/whoami")
    assert r.status_code == 200, r.text


def test_401_doc_url_answers_200_html(module_server):
    """Issue 2 "Done when": a wrong token's docUrl answers 200 (the service
    serves the error reference page itself, no auth needed)."""
    srv = module_server
    r = srv.get("/api/v1/whoami", token="ll_live_nope")
    body = assert_problem(r, 401, "UNAUTHORIZED", srv)
    d = requests.get(body["docUrl"], timeout=10)
    assert d.status_code == 200, d.text[:300]
    assert d.headers["Content-Type"].split(";")[0].strip() == "text/html"
    assert "UNAUTHORIZED" in d.text
    assert "<html" in d.text.lower()


def test_revoked_token_is_401(server):
    """PRODUCT §2: revoked tokens -> 401 UNAUTHORIZED; other tokens of the
    organization keep working (lead: `admin revoke-token KEY_ID`)."""
    doomed = server.mint(server.org.id, name="doomed")
    r = server.get("/api/v1/whoami", token=doomed)
    assert r.status_code == 200, r.text
    key_id = r.json()["id"]
    lines = server.cli.admin("list-tokens", "--org", server.org.id).out.splitlines()
    row = [l.split() for l in lines if l.split() and l.split()[0] == key_id]
    assert row and row[0][2:] == ["doomed", "live"], lines
    out = server.cli.admin("revoke-token", key_id)
    assert out.out.strip() == ""
    for path in ("/api/v1/whoami", "/v1/whoami"):
        r = server.get(path, token=doomed)
        assert_problem(r, 401, "UNAUTHORIZED", server)
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer")
    lines = server.cli.admin("list-tokens", "--org", server.org.id).out.splitlines()
    row = [l.split() for l in lines if l.split() and l.split()[0] == key_id]
    assert row and row[0][2:] == ["doomed", "revoked"], lines
    assert server.get("/api/v1/whoami").status_code == 200


def test_revoke_unknown_key_fails(server):
    """Lead's CLI contract: errors exit 1 with a message on stderr."""
    r = server.cli.admin("revoke-token", "key_doesnotexist000", expect=1)
    assert r.err.strip()


def test_revoked_token_fails_on_the_next_request_in_every_process(start_server):
    """Issue 11 goal 6: servers keep authenticated tokens in memory, yet a
    token revoked by another process (here the `admin revoke-token` CLI) is
    refused on the very next request by every serving process, on the poll
    path (a finished run's 304) as everywhere; other tokens keep working."""
    from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run
    srv = start_server(workers=1)
    other = start_server(db_url=srv.db_url, bootstrap=False, workers=0)
    doomed = srv.mint(srv.org.id, name="doomed poller")
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="REVOKE"))))
    wait_run(srv, run["id"])
    path = "/api/v1/imports/runs/" + run["id"]
    etag = srv.get(path, token=doomed).headers["ETag"]
    key_id = srv.get("/api/v1/whoami", token=doomed).json()["id"]
    for s in (srv, other):
        for _ in range(5):  # kept in memory by now
            r = s.get(path, token=doomed, headers={"If-None-Match": etag})
            assert r.status_code == 304, (s.label, r.status_code)
    srv.cli.admin("revoke-token", key_id)
    for s in (srv, other):
        r = s.get(path, token=doomed, headers={"If-None-Match": etag})
        assert_problem(r, 401, "UNAUTHORIZED", s)
        assert_problem(s.get("/api/v1/whoami", token=doomed), 401, "UNAUTHORIZED", s)
        r = s.get(path, token=srv.token, headers={"If-None-Match": etag})
        assert r.status_code == 304, (s.label, r.status_code)
