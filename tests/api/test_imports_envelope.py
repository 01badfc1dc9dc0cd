"""POST /api/v1/imports/{kind}: envelope errors (SPEC "Errors" mode 1,
SPEC "Endpoints" rules 1-4, PRODUCT §3) and the 202 contract."""
import pathlib
import re
import socket
import threading
import time

import pytest

from harness.checks import assert_problem, assert_id, parse_ts
from harness.jobs import CSV_CT, accepted_run, csv_bytes, rows, upload, wait_run, xlsx_bytes

UPLOAD = "/api/v1/imports/jobs"
REPO_DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "sheet"
RUN_PATH_RE = re.compile(r"^/api/v1/imports/runs/(run_[A-Za-z0-9]+)$")


def _file(n=2, job="J-ENV"):
    return csv_bytes(rows(n, job=job))


def _raw_post(srv, body, content_type, extra_headers=None, token=True):
    h = {"Content-Type": content_type} if content_type else {}
    h.update(extra_headers or {})
    return srv.post(UPLOAD, data=body, headers=h, **({} if token else {"token": None}))


def _multipart(parts, boundary="XyZzY123boundary"):
    """parts: list of (name, filename or None, content_type or None, bytes)."""
    out = b""
    for name, filename, ctype, data in parts:
        out += b"--" + boundary.encode() + b"\r\n"
        disp = 'form-data; name="%s"' % name
        if filename is not None:
            disp += '; filename="%s"' % filename
        out += b"Content-Disposition: " + disp.encode() + b"\r\n"
        if ctype:
            out += b"Content-Type: " + ctype.encode() + b"\r\n"
        out += b"\r\n" + data + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return out, "multipart/form-data; boundary=" + boundary


def test_accepted_202_location_retry_after_and_body(start_server):
    """SPEC "Endpoints" POST: 202, Location /api/v1/imports/runs/<run_id>,
    Retry-After 5, body an import_run with state QUEUED (--workers 0 keeps
    it QUEUED), no nextAction on a shape that maps directly."""
    srv = start_server(workers=0)
    r = upload(srv, _file())
    assert r.status_code == 202, r.text
    loc = r.headers.get("Location", "")
    m = RUN_PATH_RE.match(loc)
    assert m, "Location %r" % loc
    assert r.headers.get("Retry-After") == "5"
    assert r.headers["Content-Type"].split(";")[0].strip() == "application/json"
    run = r.json()
    assert run["id"] == m.group(1)
    assert_id(run["id"], "run")
    assert run["object"] == "import_run"
    assert run["kind"] == "jobs"
    assert run["state"] == "QUEUED"
    assert run["dryRun"] is False
    parse_ts(run["createdAt"])
    assert "error" not in run or run["error"] is None
    assert r.headers.get("RateLimit-Limit", "").isdigit(), "PRODUCT §3: RateLimit-* on every API response"
    g = srv.get(loc)
    assert g.status_code == 200
    assert g.json()["id"] == run["id"] and g.json()["state"] == "QUEUED"


def test_missing_file_part(module_server):
    """SPEC mode 1: MISSING_FILE 400 when the multipart body has no `file` part."""
    r = module_server.post(UPLOAD, files={"upload": ("loads.csv", _file(), CSV_CT)})
    assert_problem(r, 400, "MISSING_FILE", module_server)
    r = module_server.post(UPLOAD, data={"note": "hello"}, files={"other": ("a.csv", b"x", CSV_CT)})
    assert_problem(r, 400, "MISSING_FILE", module_server)
    body, ct = _multipart([("File", "loads.csv", CSV_CT, _file())])
    assert_problem(_raw_post(module_server, body, ct), 400, "MISSING_FILE", module_server)


@pytest.mark.parametrize("kind", ["loads", "projects", "Jobs", "jobs2", "x"])
def test_invalid_kind(module_server, kind):
    """SPEC "Endpoints" rule 4 / Bulk import 2: a kind other than `jobs` ->
    400 INVALID_KIND (even with a good file)."""
    r = upload(module_server, _file(), kind=kind)
    assert_problem(r, 400, "INVALID_KIND", module_server)


@pytest.mark.parametrize("value", ["abc", "0", "d3b07384-d9a0-4c9b-8f5e-1a2b3c4d5e6f", "x y"])
def test_idempotency_key_reserved(module_server, value):
    """SPEC rule 3: any non-empty Idempotency-Key -> 400 IDEMPOTENCY_KEY_RESERVED."""
    r = upload(module_server, _file(), headers={"Idempotency-Key": value})
    assert_problem(r, 400, "IDEMPOTENCY_KEY_RESERVED", module_server)


def test_empty_idempotency_key_is_not_rejected(start_server):
    """SPEC rule 3 rejects only a non-empty value."""
    srv = start_server(workers=0)
    r = upload(srv, _file(), headers={"Idempotency-Key": ""})
    assert r.status_code == 202, r.text


def test_empty_body(module_server):
    """PRODUCT §3: EMPTY_BODY 400 when the request body is empty."""
    r = _raw_post(module_server, b"", "multipart/form-data; boundary=abc")
    assert_problem(r, 400, "EMPTY_BODY", module_server)


MALFORMED = {
    "json_body": (b'{"file": "jobCode,loadNo\\n"}', "application/json"),
    "raw_csv_body": (b"jobCode,loadNo,loadDate\r\nJ,1,2026-01-01\r\n", "text/csv"),
    "urlencoded": (b"file=jobCode%2CloadNo", "application/x-www-form-urlencoded"),
    "no_content_type": (b"jobCode,loadNo,loadDate\r\nJ,1,2026-01-01\r\n", None),
    "multipart_without_boundary": (
        b"--abc\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n"
        b"jobCode\r\n--abc--\r\n", "multipart/form-data"),
    "wrong_boundary": (
        b"--other\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n"
        b"jobCode,loadNo,loadDate\r\nJ,1,2026-01-01\r\n--other--\r\n",
        "multipart/form-data; boundary=abc"),
    "garbage_in_multipart": (b"\x00\x01\x02 this is not multipart at all \xff\xfe",
                             "multipart/form-data; boundary=abc"),
    "unterminated": (
        b"--abc\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n"
        b"jobCode,loadNo,loadDate\r\nJ,1,2026-01-01\r\n",
        "multipart/form-data; boundary=abc"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_multipart(module_server, case):
    """PRODUCT §3: MALFORMED_MULTIPART 400 when not multipart/form-data, or a
    broken boundary or framing."""
    body, ct = MALFORMED[case]
    r = _raw_post(module_server, body, ct)
    assert_problem(r, 400, "MALFORMED_MULTIPART", module_server)


def test_two_file_parts_are_malformed(module_server):
    """SPEC Limits (1 file part per request) / PRODUCT §3: more than one
    `file` part -> MALFORMED_MULTIPART."""
    body, ct = _multipart([("file", "a.csv", CSV_CT, _file(job="A")),
                           ("file", "b.csv", CSV_CT, _file(job="B"))])
    assert_problem(_raw_post(module_server, body, ct), 400, "MALFORMED_MULTIPART", module_server)
    r = module_server.post(UPLOAD, files=[("file", ("a.csv", _file(job="A"), CSV_CT)),
                                   ("file", ("b.csv", _file(job="B"), CSV_CT))])
    assert_problem(r, 400, "MALFORMED_MULTIPART", module_server)


UNSUPPORTED = {
    "pdf": (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<<>>\n%%EOF\n",
            "loads.pdf", "application/pdf"),
    "pdf_named_csv": (b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n", "loads.csv", "text/csv"),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06"
            b"\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00"
            b"\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82", "loads.png", "image/png"),
    "legacy_xls": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + b"\xff" * 512,
                   "loads.xls", "application/vnd.ms-excel"),
    "gif_as_octet_stream": (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9"
                            b"\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00"
                            b"\x02\x02D\x01\x00;", "loads.csv", "application/octet-stream"),
    "gzip": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\x4b\x4c\x4a\x06\x00" * 20,
             "loads.csv.gz", "application/gzip"),
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_unsupported_mime(module_server, case):
    """PRODUCT §3: UNSUPPORTED_MIME 415 when the part is neither CSV nor XLSX
    by content (PDF, legacy .xls, images, ...), whatever its declared type."""
    data, name, ctype = UNSUPPORTED[case]
    r = upload(module_server, data, filename=name, content_type=ctype)
    assert_problem(r, 415, "UNSUPPORTED_MIME", module_server)


def test_csv_declared_types_accepted(start_server):
    """PRODUCT §3: browsers send .csv as text/csv, text/plain,
    application/vnd.ms-excel or application/octet-stream: all accepted when
    the content is text."""
    srv = start_server(workers=0)
    for ctype in ("text/csv", "text/plain", "application/vnd.ms-excel",
                  "application/octet-stream"):
        r = upload(srv, _file(job="CT-" + ctype), content_type=ctype)
        assert r.status_code == 202, (ctype, r.text)


def test_xlsx_accepted(start_server):
    """SPEC file types: XLSX is accepted (202) and read (SUCCEEDED)."""
    srv = start_server()
    table = [["jobCode", "loadNo", "loadDate"], ["JX", "1", "2026-11-01"], ["JX", "2", "2026-11-02"]]
    run = accepted_run(upload(srv, xlsx_bytes(table), filename="loads.xlsx",
                              content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"))
    run = wait_run(srv, run["id"])
    assert run["state"] == "SUCCEEDED", run


def test_too_large(start_server):
    """PRODUCT §3: TOO_LARGE 413 for a file part over LOADLINE_MAX_FILE_BYTES;
    a file under the limit is accepted."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_FILE_BYTES": "4000"})
    small = csv_bytes(rows(5, job="SMALL"))
    assert len(small) < 4000
    assert upload(srv, small).status_code == 202
    big = csv_bytes(rows(200, job="BIG"))
    assert len(big) > 4000
    assert_problem(upload(srv, big), 413, "TOO_LARGE", srv)


def test_too_large_detected_while_streaming(start_server):
    """PRODUCT §3: TOO_LARGE is detected while streaming, never buffered
    whole: a client sending a 40 MB file (limit 100 kB) receives the 413
    problem response before it has sent the whole body."""
    srv = start_server(workers=0, env={"LOADLINE_MAX_FILE_BYTES": "100000"})
    boundary = "streamBoundary42"
    head = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n"
            "Content-Type: text/csv\r\n\r\njobCode,loadNo,loadDate,notes\r\n" % boundary).encode()
    block = (b"J,1,2026-01-01," + b"x" * 1000 + b"\r\n") * 64
    total = 40 * 1024 * 1024
    tail = ("\r\n--%s--\r\n" % boundary).encode()
    req = ("POST /api/v1/imports/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           "Authorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=%s\r\n"
           "Content-Length: %d\r\n\r\n" % (srv.token, boundary, len(head) + total + len(tail))).encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    got = bytearray()
    done = threading.Event()

    def reader():
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got.extend(chunk)
                if b"\r\n\r\n" in got:
                    break
        except OSError:
            pass
        done.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    sent = 0
    try:
        s.sendall(req + head)
        while sent < total and not done.is_set():
            try:
                s.sendall(block)
            except OSError:
                break
            sent += len(block)
        done.wait(10)
    finally:
        s.close()
    assert bytes(got).startswith(b"HTTP/1.1 413"), \
        "client saw %r after sending %d bytes (the server may answer and reset the " \
        "connection before the client can read the 413)" % (bytes(got[:200]), sent)
    assert sent < total, "the server read the whole 40 MB before answering"


def test_unauthorized_upload(server):
    """SPEC mode 1 UNAUTHORIZED / PRODUCT §3: an upload without a valid
    token is 401 and creates no run."""
    r = upload(server, _file(), headers={"Authorization": "Bearer ll_live_bogus"})
    assert_problem(r, 401, "UNAUTHORIZED", server)
    r = server.post(UPLOAD, token=None, files={"file": ("a.csv", _file(), CSV_CT)})
    assert_problem(r, 401, "UNAUTHORIZED", server)
    runs = server.get("/api/v1/imports/runs")
    assert runs.status_code == 200 and runs.json()["data"] == []


@pytest.mark.parametrize("value", ["yes", "1", "maybe", "true, false"])
def test_invalid_dry_run_header(module_server, value):
    """PRODUCT §3: INVALID_HEADER 400 when Service-Dry-Run is not true/false."""
    r = upload(module_server, _file(), dry_run=value)
    assert_problem(r, 400, "INVALID_HEADER", module_server)


def test_dry_run_header_values(start_server):
    """SPEC Bulk import 5: `Service-Dry-Run: true` -> dryRun true; `false`
    is a live run."""
    srv = start_server(workers=0)
    r = upload(srv, _file(job="DRY"), dry_run=True)
    assert accepted_run(r)["dryRun"] is True
    r = upload(srv, _file(job="LIVE"), dry_run=False)
    assert accepted_run(r)["dryRun"] is False


def test_import_in_progress_409(start_server):
    """SPEC rule 1 / mode 1: the same file and kind while its run is QUEUED
    -> 409 IMPORT_IN_PROGRESS with existingRunUrl (the fingerprint is the
    contents, not the file name); another file, or another organization's
    push of the same file, is accepted."""
    srv = start_server(workers=0)
    data = _file(job="DUP")
    first = upload(srv, data)
    loc = first.headers["Location"]
    assert first.status_code == 202
    for name in ("loads.csv", "renamed.csv"):
        r = upload(srv, data, filename=name)
        body = assert_problem(r, 409, "IMPORT_IN_PROGRESS", srv, extra_keys={"existingRunUrl"})
        assert body["existingRunUrl"] in (loc, srv.public_base + loc), body["existingRunUrl"]
    assert upload(srv, _file(job="OTHER")).status_code == 202
    other = srv.new_org("Other Org")
    r = upload(srv, data, token=other.token)
    assert r.status_code == 202, "another organization's run must not block (or reveal) it"
    # the existing run is readable at existingRunUrl
    assert srv.get(loc).json()["state"] == "QUEUED"


def test_import_in_progress_while_running(start_server):
    """SPEC rule 1: the same file while its run is RUNNING -> 409
    IMPORT_IN_PROGRESS; once the run is terminal the same file is accepted
    again (and, unchanged, ends SKIPPED).  LOADLINE_DEBUG_ROW_DELAY_MS (the
    lead's test knob) keeps the run RUNNING long enough to push again."""
    srv = start_server(env={"LOADLINE_DEBUG_ROW_DELAY_MS": "10"})
    data = csv_bytes(rows(200, job="J-RUNNING"))
    run = accepted_run(upload(srv, data))
    deadline = time.monotonic() + 20
    while srv.get("/api/v1/imports/runs/" + run["id"]).json()["state"] == "QUEUED":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    r = upload(srv, data)
    state = srv.get("/api/v1/imports/runs/" + run["id"]).json()["state"]
    if state != "RUNNING":
        pytest.skip("the run finished before the second push (state %s)" % state)
    body = assert_problem(r, 409, "IMPORT_IN_PROGRESS", srv, extra_keys={"existingRunUrl"})
    assert body["existingRunUrl"].endswith("/api/v1/imports/runs/" + run["id"])
    assert wait_run(srv, run["id"], timeout=60)["state"] == "SUCCEEDED"
    again = wait_run(srv, accepted_run(upload(srv, data))["id"], timeout=60)
    assert again["state"] == "SKIPPED"


def test_import_in_progress_ends_when_run_is_terminal(start_server):
    """SPEC rule 1: only a QUEUED or RUNNING run blocks a re-push."""
    srv = start_server(workers=0)
    data = _file(job="CANCEL")
    run = accepted_run(upload(srv, data))
    srv.cli.admin("cancel-run", run["id"])
    assert srv.get("/api/v1/imports/runs/" + run["id"]).json()["state"] == "CANCELLED"
    assert upload(srv, data).status_code == 202


def test_envelope_errors_created_no_run(module_server):
    """SPEC "Errors" mode 1: envelope errors create no run (every request
    above made with this module's server was rejected synchronously)."""
    r = module_server.get("/api/v1/imports/runs")
    assert r.status_code == 200
    assert r.json()["data"] == [], [x["id"] for x in r.json()["data"]]


@pytest.mark.parametrize("megabytes", [12, 40])
def test_chunked_upload_over_the_limit_gets_413(module_server, megabytes):
    """Issue 12 (found from outside): a chunked body (no Content-Length)
    over LOADLINE_MAX_FILE_BYTES gets 413 TOO_LARGE, not an empty reply or
    a broken pipe."""
    def body():
        yield b'--B\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n'
        for _ in range(megabytes * 16):
            yield b"x" * 65536
        yield b"\r\n--B--\r\n"
    r = module_server.post("/api/v1/imports/jobs", data=body(),
                           headers={"Content-Type": "multipart/form-data; boundary=B"})
    assert "Content-Length" not in r.request.headers and r.request.headers["Transfer-Encoding"] == "chunked"
    assert_problem(r, 413, "TOO_LARGE", module_server)


@pytest.mark.parametrize("name", ["html_export.xls", "spreadsheetml_2003.xml", "sylk_export.slk", "dif_export.dif"])
def test_export_to_excel_files_that_are_not_spreadsheets(module_server, name):
    """Issue 12 (real files): "Export to Excel" files that are really HTML,
    Excel 2003 XML, SYLK or DIF are UNSUPPORTED_MIME with a message saying
    to save them as .xlsx or CSV (not read as one column of markup)."""
    data = (REPO_DATA / "regress" / name).read_bytes()
    r = module_server.post("/api/v1/imports/jobs", files={"file": (name, data, "application/vnd.ms-excel")})
    assert_problem(r, 415, "UNSUPPORTED_MIME", module_server)
    assert "as .xlsx or CSV" in r.json()["detail"], r.json()
