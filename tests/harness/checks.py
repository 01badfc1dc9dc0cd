"""Assertions shared by the API tests: the problem envelope, ids, timestamps."""
import datetime
import http
import os
import re

from .server import REPO

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
REQ_ID_RE = re.compile(r"^req_[A-Za-z0-9]{6,}$")
TOKEN_RE = re.compile(r"^ll_live_[0-9A-Za-z]{38}$")
ENVELOPE_KEYS = {"type", "title", "status", "detail", "instance", "code", "requestId", "docUrl"}
PROBLEM_CT = "application/problem+json"

# Reason phrases vary a little between RFC 7231 and RFC 9110 wordings.
_REASON_ALIASES = {
    413: {"Content Too Large", "Payload Too Large", "Request Entity Too Large"},
    414: {"URI Too Long", "Request-URI Too Long", "Request-URI Too Large"},
    416: {"Range Not Satisfiable", "Requested Range Not Satisfiable"},
    422: {"Unprocessable Content", "Unprocessable Entity"},
    431: {"Request Header Fields Too Large"},
}


def id_re(prefix):
    return re.compile(r"^%s_[A-Za-z0-9]{6,}$" % re.escape(prefix))


def assert_id(value, prefix):
    assert isinstance(value, str) and id_re(prefix).match(value), \
        "expected a %s_ id, got %r" % (prefix, value)


def parse_ts(value):
    assert isinstance(value, str) and TS_RE.match(value), \
        "timestamp %r is not YYYY-MM-DDTHH:MM:SS.mmmZ" % (value,)
    return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc)


def reason_phrases(status):
    s = set(_REASON_ALIASES.get(status, ()))
    try:
        s.add(http.HTTPStatus(status).phrase)
    except ValueError:
        pass
    return s


def assert_request_id(resp):
    rid = resp.headers.get("X-Request-Id")
    assert rid and REQ_ID_RE.match(rid), "X-Request-Id %r on %s %s" % (
        rid, resp.request.method, resp.url)
    return rid


def assert_problem(resp, status, code, srv, instance=None, extra_keys=()):
    """SPEC "Errors" envelope, PRODUCT §2: exact keys, type == docUrl ==
    {docs_url}/api/errors/CODE, title = reason phrase, instance = path,
    requestId = X-Request-Id.  Returns the parsed body."""
    ctx = "%s %s -> %d %r" % (resp.request.method, resp.request.path_url,
                              resp.status_code, resp.text[:500])
    assert resp.status_code == status, ctx
    ct = resp.headers.get("Content-Type", "")
    assert ct.split(";")[0].strip().lower() == PROBLEM_CT, "Content-Type %r; %s" % (ct, ctx)
    body = resp.json()
    assert isinstance(body, dict), ctx
    assert set(body) == ENVELOPE_KEYS | set(extra_keys), \
        "envelope keys %s; extra %s missing %s; %s" % (
            sorted(body), sorted(set(body) - ENVELOPE_KEYS - set(extra_keys)),
            sorted((ENVELOPE_KEYS | set(extra_keys)) - set(body)), ctx)
    assert body["code"] == code, ctx
    assert body["status"] == status and type(body["status"]) is int, ctx
    want_doc = "%s/api/errors/%s" % (srv.docs_url, code)
    assert body["docUrl"] == want_doc, "docUrl %r != %r" % (body["docUrl"], want_doc)
    assert body["type"] == want_doc, "type %r != %r" % (body["type"], want_doc)
    assert body["title"] in reason_phrases(status) | {resp.reason}, \
        "title %r is not the reason phrase of %d" % (body["title"], status)
    assert isinstance(body["detail"], str) and body["detail"].strip(), ctx
    path = instance if instance is not None else resp.request.path_url.split("?")[0]
    assert body["instance"] == path, "instance %r != %r" % (body["instance"], path)
    rid = assert_request_id(resp)
    assert body["requestId"] == rid, "requestId %r != header %r" % (body["requestId"], rid)
    return body


def codes_def_path():
    return os.path.join(REPO, "src", "base", "codes.def")


def codes_from_def():
    """(name, status, kind) of every row of src/base/codes.def, or None."""
    p = codes_def_path()
    if not os.path.exists(p):
        return None
    text = open(p, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return [(m.group(1), int(m.group(2)), m.group(3))
            for m in re.finditer(r"^\s*X\(\s*([A-Z][A-Z0-9_]*)\s*,\s*(\d+)\s*,\s*([A-Z_]+)",
                                 text, flags=re.M)]


def strings_in(doc):
    """Every string (values and keys) anywhere in a JSON document."""
    out = set()
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                out.add(k)
                stack.append(v)
        elif isinstance(x, list):
            stack.extend(x)
    return out


CODE_RE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^[A-Z]{3,}$")
