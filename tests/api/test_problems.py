"""Problem responses, error reference pages, OpenAPI, request ids and HTTP
limits (SPEC "Errors"; PRODUCT §2-§3; lead's contract for 404/405/414/431)."""
import json
import re

import pytest
import requests

from harness.checks import (CODE_RE, REQ_ID_RE, assert_problem, assert_request_id,
                            codes_from_def, strings_in)


def _openapi(srv):
    r = srv.get("/api/v1/openapi.json", token=None)
    assert r.status_code == 200, r.text[:500]
    assert r.headers["Content-Type"].split(";")[0].strip() == "application/json"
    return r.json()


def _all_codes(srv):
    """Codes of the one code table: src/base/codes.def when the tree has it,
    checked against the OpenAPI document; else the codes the OpenAPI lists."""
    doc = _openapi(srv)
    found = strings_in(doc)
    table = codes_from_def()
    if table:
        return [c for c, _, _ in table], found
    return sorted(s for s in found if CODE_RE.match(s)), found


SPEC_CODES = [
    # SPEC "Errors" modes 1-3 and PRODUCT §3: always in the table.
    "MISSING_FILE", "INVALID_KIND", "IDEMPOTENCY_KEY_RESERVED", "IMPORT_IN_PROGRESS",
    "RATE_LIMIT_EXCEEDED", "MALFORMED_MULTIPART", "EMPTY_BODY", "UNSUPPORTED_MIME",
    "TOO_LARGE", "UNAUTHORIZED", "EMPTY_FILE", "TOO_MANY_ROWS", "TOO_MANY_HEADERS",
    "MACRO_REJECTED", "MALFORMED_CSV", "MALFORMED_XLSX", "RUN_TIMED_OUT",
    "STAGING_EXPIRED", "TYPE_MISMATCH", "UNIQUE_VIOLATION", "MISSING_REQUIRED",
    "UNIT_NORMALIZED", "LOOKUP_MISS", "LOCATION_NAME_ADDRESS_MISMATCH",
    "LOCATION_NAME_LOOKUP_MISS", "LOCATION_NAME_AMBIGUOUS", "NOT_FOUND",
    "INVALID_BUCKET", "INVALID_CURSOR", "INVALID_LIMIT", "RUN_NOT_TERMINAL",
    "INVALID_HEADER", "SERVICE_UNAVAILABLE",
]


def test_openapi_lists_every_code_and_whoami(module_server):
    """PRODUCT §2: GET /api/v1/openapi.json (public) is the OpenAPI 3.1
    description of every endpoint and code; the code table feeds it."""
    doc = _openapi(module_server)
    assert str(doc.get("openapi", "")).startswith("3.1"), doc.get("openapi")
    codes, found = _all_codes(module_server)
    missing = sorted(set(codes) - found)
    assert not missing, "codes missing from openapi.json: %s" % missing
    missing_spec = sorted(set(SPEC_CODES) - found)
    assert not missing_spec, "SPEC/PRODUCT codes missing from openapi.json: %s" % missing_spec
    paths = {re.sub(r"^/api", "", p) for p in doc.get("paths", {})}
    assert "/v1/whoami" in paths, sorted(doc.get("paths", {}))


def test_every_code_has_a_docs_page(module_server):
    """PRODUCT §2: the service serves a human-readable page for every code at
    {docs_url}/api/errors/<CODE> (including the three location-name codes)."""
    codes, _ = _all_codes(module_server)
    codes = sorted(set(codes) | set(SPEC_CODES))
    assert len(codes) >= len(SPEC_CODES)
    bad = []
    s = requests.Session()
    for code in codes:
        r = s.get("%s/api/errors/%s" % (module_server.docs_url, code), timeout=10)
        ct = r.headers.get("Content-Type", "").split(";")[0].strip()
        if r.status_code != 200 or ct != "text/html" or code not in r.text:
            bad.append("%s: %d %s" % (code, r.status_code, ct))
        elif not REQ_ID_RE.match(r.headers.get("X-Request-Id", "")):
            bad.append("%s: no X-Request-Id" % code)
    assert not bad, bad


def test_unknown_code_docs_page_is_404(module_server):
    """Lead: one docs page per code; an unknown code -> 404."""
    for code in ("NOT_A_REAL_CODE", "COMPLETED"):
        r = requests.get("%s/api/errors/%s" % (module_server.docs_url, code), timeout=10)
        assert r.status_code == 404, (code, r.status_code)
        assert_request_id(r)


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/whoami/extra", "/api/v2/whoami",
                                  "/api/v1/", "/api/v1/WHOAMI", "/api/v1/imports/runs/x/y/z/w"])
def test_unknown_path_is_404_problem(module_server, path):
    """Lead + PRODUCT §3: unknown path -> 404 NOT_FOUND problem."""
    r = module_server.get(path)
    assert_problem(r, 404, "NOT_FOUND", module_server)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_wrong_method_is_405_with_allow(module_server, method):
    """Lead: wrong method on a known path -> 405 METHOD_NOT_ALLOWED with Allow."""
    for path in ("/api/v1/whoami", "/v1/whoami"):
        r = module_server.request(method, path)
        assert_problem(r, 405, "METHOD_NOT_ALLOWED", module_server)
        allow = [m.strip() for m in r.headers.get("Allow", "").split(",")]
        assert "GET" in allow, "Allow %r" % r.headers.get("Allow")
        assert method not in allow


def test_uri_too_long_is_414(module_server):
    """Lead: a URL longer than 8 KiB -> 414 URI_TOO_LONG problem; a long but
    allowed one is served normally."""
    srv = module_server
    ok = srv.get("/api/v1/whoami", params={"pad": "a" * 7000})
    assert ok.status_code == 200, ok.status_code
    r = requests.get(srv.base_url + "/api/v1/whoami?pad=" + "a" * 9000,
                     headers={"Authorization": "Bearer " + srv.token}, timeout=10)
    assert_problem(r, 414, "URI_TOO_LONG", srv, instance="/api/v1/whoami")
    r = requests.get(srv.base_url + "/api/v1/" + "b" * 9000,
                     headers={"Authorization": "Bearer " + srv.token}, timeout=10)
    assert r.status_code == 414
    assert r.json()["code"] == "URI_TOO_LONG"
    assert_request_id(r)
    # the server is fine afterwards
    assert srv.get("/api/v1/whoami").status_code == 200


def test_headers_too_large_is_431(module_server):
    """Lead: request headers over 32 KiB in total -> 431 HEADERS_TOO_LARGE
    problem (one big header, or many smaller ones); 20 KiB is fine."""
    srv = module_server
    auth = {"Authorization": "Bearer " + srv.token}
    ok = requests.get(srv.base_url + "/api/v1/whoami",
                      headers=dict(auth, **{"X-Pad": "p" * 20000}), timeout=10)
    assert ok.status_code == 200, ok.status_code
    r = requests.get(srv.base_url + "/api/v1/whoami",
                     headers=dict(auth, **{"X-Pad": "p" * 40000}), timeout=10)
    assert_problem(r, 431, "HEADERS_TOO_LARGE", srv)
    many = dict(auth)
    for i in range(80):
        many["X-Pad-%02d" % i] = "q" * 500
    r = requests.get(srv.base_url + "/api/v1/whoami", headers=many, timeout=10)
    assert_problem(r, 431, "HEADERS_TOO_LARGE", srv)
    assert srv.get("/api/v1/whoami").status_code == 200


def test_many_header_fields_within_limits_reach_our_code(module_server):
    """Lead: at most 100 request header fields (Apache's and Tomcat's
    default), 32 KiB of headers in all.  libmicrohttpd's connection memory
    (64 KiB, src/http/http.h) must hold every request our own checks answer:
    100 fields in 32,000 bytes with an 8 KiB URL is served; 101 fields, or
    100 fields in 32 KiB and more, get our own 431 problem; and so do 180
    fields, or 100 fields in 40 KB -- never libmicrohttpd's bare HTML 431
    (at 48 KiB they would get it).  Field counts include Host and
    Authorization."""
    import http.client
    srv = module_server
    host, port = srv.base_url.split("//")[1].rsplit(":", 1)

    def send(nfields, total):
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.putrequest("GET", "/api/v1/whoami?q=" + "a" * 8173, skip_accept_encoding=True)
        c.putheader("Authorization", "Bearer " + srv.token)
        # as the limit counts them: each name and value plus 4 bytes
        left = total - (len("Host") + len("%s:%s" % (host, port)) + 4) \
            - (len("Authorization") + len("Bearer " + srv.token) + 4)
        npad = nfields - 2
        for i in range(npad):
            per = left // (npad - i)
            name = "X-%04d" % i
            c.putheader(name, "v" * (per - len(name) - 4))
            left -= per
        c.endheaders()
        r = c.getresponse()
        out = r.status, r.getheader("Content-Type") or "", r.read()
        c.close()
        return out

    status, _, body = send(100, 32000)
    assert status == 200, (status, body[:200])
    for nfields, total in ((101, 32000), (100, 32 * 1024 + 100), (180, 32000), (100, 40000)):
        status, ctype, body = send(nfields, total)
        assert status == 431 and ctype.startswith("application/problem+json"), \
            (nfields, total, status, ctype, body[:200])
        assert json.loads(body)["code"] == "HEADERS_TOO_LARGE"
    # the URL check comes first, with as many headers
    r = requests.get(srv.base_url + "/api/v1/whoami?q=" + "a" * 8200,
                     headers=dict({"Authorization": "Bearer " + srv.token},
                                  **{"X-%03d" % i: "w" * 300 for i in range(94)}), timeout=10)
    assert_problem(r, 414, "URI_TOO_LONG", srv)
    assert srv.get("/api/v1/whoami").status_code == 200


def test_request_ids_on_every_response_and_unique(module_server, foreign_token):
    """PRODUCT §2: every response carries X-Request-Id: req_<id>; problem
    bodies repeat it (checked in assert_problem); ids never repeat."""
    srv = module_server
    seen = []
    calls = [
        ("GET", "/api/v1/whoami", srv.token),
        ("GET", "/v1/whoami", srv.token),
        ("GET", "/api/v1/whoami", None),
        ("GET", "/api/v1/whoami", foreign_token),
        ("GET", "/api/v1/nope", srv.token),
        ("DELETE", "/api/v1/whoami", srv.token),
        ("GET", "/healthz", None),
        ("GET", "/api/v1/openapi.json", None),
        ("GET", "/docs/api/errors/NOT_FOUND", None),
        ("GET", "/docs/api/errors/NO_SUCH_CODE", None),
    ] * 3
    for method, path, tok in calls:
        r = srv.request(method, path, token=tok)
        seen.append(assert_request_id(r))
    assert len(set(seen)) == len(seen), "repeated request ids: %s" % seen


def test_type_and_doc_url_follow_base_url(start_server):
    """PRODUCT §1-§2: LOADLINE_DOCS_URL defaults to <LOADLINE_BASE_URL>/docs;
    type == docUrl == {docs_url}/api/errors/<CODE>."""
    srv = start_server(env={"LOADLINE_BASE_URL": "https://api.loadline.test"})
    r = srv.get("/api/v1/whoami", token=None)
    b = assert_problem(r, 401, "UNAUTHORIZED", srv)
    assert b["docUrl"] == "https://api.loadline.test/docs/api/errors/UNAUTHORIZED"


def test_type_and_doc_url_follow_docs_url(start_server):
    """PRODUCT §1: LOADLINE_DOCS_URL sets {docs_url} of every problem body."""
    srv = start_server(env={"LOADLINE_DOCS_URL": "https://docs.loadline.test/ref"})
    r = srv.get("/api/v1/nope")
    b = assert_problem(r, 404, "NOT_FOUND", srv)
    assert b["type"] == "https://docs.loadline.test/ref/api/errors/NOT_FOUND"
