"""Imports from the browser (issue 23 part 4; PRODUCT §12): "Import a file"
on the Imports page for members and admins, through exactly the API's import
path (same codes, 409, staging), landing on the run page; "Import this file
again" on a finished run; "Download template".  The form works without
script (these tests post it as a browser without script does); the browser
test in test_browser_import() uploads through it in headless Chromium."""
import csv
import io
import os
import re
import shutil
import tempfile

import pytest
from selenium.webdriver.common.by import By

from harness.jobs import awaiting_review, csv_bytes, rows, wait_run
from web.test_browser import browser, shot, wait  # noqa: F401  (the fixture)
from web.webtools import add_member, forms, login_link, signin, text_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def post_file(w, data, name="loads.csv", dry=False, csrf=True):
    f = forms(w.get("/imports").text).find("/imports")
    fields = {"csrf": f["fields"]["csrf"]} if csrf else {}
    if dry:
        fields["dry_run"] = "true"
    return w.post("/imports", data=fields, files={"file": (name, data, "text/csv")})


def run_id_of(resp):
    assert resp.status_code == 303, (resp.status_code, resp.text[:500])
    m = re.match(r"^/imports/runs/(run_\w+)(\?already=1)?$", resp.headers["Location"])
    assert m, resp.headers["Location"]
    return m.group(1), bool(m.group(2))


def test_member_imports_a_file_without_script(server):
    w = signin(server, add_member(server))
    page = w.get("/imports").text
    assert 'enctype="multipart/form-data"' in page and "Import a file" in page
    rid, already = run_id_of(post_file(w, csv_bytes(rows(3, job="WEB-1")), name="from-browser.csv"))
    assert not already
    run = wait_run(server, rid)
    assert run["state"] == "SUCCEEDED" and run["counts"]["succeeded"] == 3 and run["fileName"] == "from-browser.csv"
    assert "from-browser.csv" in text_of(w.get("/imports/runs/%s" % rid).text)


def test_dry_run_checkbox(server):
    w = signin(server)
    rid, _ = run_id_of(post_file(w, csv_bytes(rows(2, job="WEB-2")), dry=True))
    run = wait_run(server, rid)
    assert run["dryRun"] is True and run["counts"]["succeeded"] == 2
    assert "dry run" in text_of(w.get("/imports/runs/%s" % rid).text)


def test_same_codes_as_the_api(start_server):
    srv = start_server(env={"LOADLINE_MAX_FILE_BYTES": "2000"}, workers=0)
    w = signin(srv)
    r = post_file(w, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    assert r.status_code == 415 and "UNSUPPORTED_MIME" in r.text
    r = post_file(w, b"jobCode,loadNo,loadDate\n" + b"J,L,2026-01-01\n" * 200)
    assert r.status_code == 413 and "TOO_LARGE" in r.text
    # No CSRF token: refused like every form.
    assert post_file(w, csv_bytes(rows(1, job="WEB-3")), csrf=False).status_code == 403
    # The same bytes while their run waits (no workers): the existing run.
    data = csv_bytes(rows(1, job="WEB-3"))
    first, _ = run_id_of(post_file(w, data))
    again, already = run_id_of(post_file(w, data))
    assert again == first and already
    assert "already being imported" in text_of(w.get("/imports/runs/%s?already=1" % first).text)


def test_wrong_file_type_is_answered_on_the_form(server):
    """Issue 30: a file that is not CSV or XLSX is answered on the Imports
    page itself — the form again, the error next to the file input (named
    by aria-describedby), the dry-run choice kept — not an error page
    that replaces it."""
    w = signin(server)
    r = post_file(w, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", name="invoice.pdf", dry=True)
    assert r.status_code == 415, r.text[:500]
    f = forms(r.text).find("/imports")
    assert f, "the Imports form is on the page"
    assert f["fields"].get("dry_run") == "true", "the dry-run choice is kept: %r" % f["fields"]
    m = re.search(r'<input type="file" id="file"[^>]*aria-describedby="file-error"[^>]*>\s*'
                  r'<p class="alert" role="alert" id="file-error">([^<]*)</p>', r.text)
    assert m, r.text[:3000]
    assert "invoice.pdf" in m.group(1) and "UNSUPPORTED_MIME" in m.group(1), m.group(1)
    assert "<h1>Imports</h1>" in r.text
    # Without the box ticked it stays unticked.
    r = post_file(w, b"%PDF-1.7\n", name="x.pdf")
    assert r.status_code == 415 and forms(r.text).find("/imports")["fields"].get("dry_run") is None


def test_new_shape_waits_for_review(server):
    w = signin(server)
    data = csv_bytes(rows(2, job="WEB-4")).replace(b"jobCode", b"Job Number", 1)
    rid, _ = run_id_of(post_file(w, data))
    run = awaiting_review(server, rid)
    assert run["nextAction"]["type"] == "review_in_app"
    assert "Review columns" in text_of(w.get("/imports/runs/%s" % rid).text)


def test_import_this_file_again(server):
    w = signin(server)
    rid, _ = run_id_of(post_file(w, csv_bytes(rows(2, job="WEB-5"))))
    wait_run(server, rid)
    f = forms(w.get("/imports/runs/%s" % rid).text).find("/imports/runs/%s/rerun" % rid)
    again, _ = run_id_of(w.post("/imports/runs/%s/rerun" % rid, data=f["fields"]))
    assert again != rid
    run = wait_run(server, again)
    assert run["state"] == "SKIPPED" and run["counts"]["skipped"] == 2


def test_download_template(server):
    w = signin(server, add_member(server))
    r = w.get("/imports/template?format=csv")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    header = next(csv.reader(io.StringIO(r.content.decode())))
    assert header[:3] == ["jobCode", "loadNo", "loadDate"] and len(header) == 34
    assert w.get("/imports/template?format=xlsx").content[:2] == b"PK"
    page = w.get("/imports").text
    assert 'href="/imports/template?format=csv"' in page and 'href="/imports/template?format=xlsx"' in page


@pytest.mark.parametrize("backend", ["sqlite"])
def test_browser_import(server, browser):  # noqa: F811
    """Headless Chromium: sign in, choose examples/loads.csv in the form,
    tick dry run, import; the run page refreshes itself until the run is
    done; then Import this file again."""
    link = login_link(server, server.org.admin_email)
    browser.get(server.base_url + link[link.index("/login/link"):])
    browser.find_element(By.CSS_SELECTOR, "form[action='/login/link'] button").click()
    wait(browser, lambda d: d.current_url.endswith("/imports"))
    tmp = tempfile.mkdtemp(prefix="ll-upload-")
    try:
        path = os.path.join(tmp, "loads.csv")
        shutil.copy(os.path.join(ROOT, "examples", "loads.csv"), path)
        browser.find_element(By.ID, "file").send_keys(path)
        browser.find_element(By.NAME, "dry_run").click()
        shot(browser, "import-form")
        browser.find_element(By.CSS_SELECTOR, "form[action='/imports'] button[type=submit]").click()
        wait(browser, lambda d: re.search(r"/imports/runs/run_\w+$", d.current_url))
        rid = browser.current_url.rsplit("/", 1)[1]
        wait(browser, lambda d: d.find_element(By.ID, "run-state").get_attribute("data-state") in ("SUCCEEDED", "PARTIAL"), timeout=30)
        body = browser.find_element(By.TAG_NAME, "body").text
        assert "dry run" in body and "loads.csv" in body
        shot(browser, "import-run-page")
        run = server.get("/api/v1/imports/runs/%s" % rid).json()
        assert run["dryRun"] is True and run["counts"]["succeeded"] == 12
        browser.find_element(By.CSS_SELECTOR, "form[action$='/rerun'] button").click()
        wait(browser, lambda d: re.search(r"/imports/runs/run_\w+$", d.current_url) and rid not in d.current_url)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("backend", ["sqlite"])
def test_browser_drop_a_file(server, browser):  # noqa: F811
    """With script, a file dropped on the form's zone is the one imported."""
    link = login_link(server, server.org.admin_email)
    browser.get(server.base_url + link[link.index("/login/link"):])
    browser.find_element(By.CSS_SELECTOR, "form[action='/login/link'] button").click()
    wait(browser, lambda d: d.current_url.endswith("/imports"))
    assert browser.find_element(By.CSS_SELECTOR, ".drop-hint").is_displayed()
    text = csv_bytes(rows(2, job="DROP-1")).decode()
    n = browser.execute_script("""
        var zone = document.querySelector('[data-dropzone]');
        var dt = new DataTransfer();
        dt.items.add(new File([arguments[0]], 'dropped.csv', {type: 'text/csv'}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        return document.getElementById('file').files.length;""", text)
    assert n == 1
    browser.find_element(By.CSS_SELECTOR, "form[action='/imports'] button[type=submit]").click()
    wait(browser, lambda d: re.search(r"/imports/runs/run_\w+$", d.current_url))
    run = wait_run(server, browser.current_url.rsplit("/", 1)[1])
    assert run["fileName"] == "dropped.csv" and run["counts"]["succeeded"] == 2


def _post_headers_only(srv, cookie=None, origin=None, size=5_000_000):
    """POST /imports announcing a large multipart body and sending only its
    first KB; the status line of the answer, or None when the server waits
    for the rest (2 s)."""
    import socket
    head = ["POST /imports HTTP/1.1", "Host: 127.0.0.1:%d" % srv.port,
            "Content-Type: multipart/form-data; boundary=XyZ", "Content-Length: %d" % size]
    if cookie:
        head.append("Cookie: " + cookie)
    if origin:
        head.append("Origin: " + origin)
    c = socket.create_connection(("127.0.0.1", srv.port))
    try:
        c.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + b"--XyZ\r\n" + b"x" * 1024)
        c.settimeout(2)
        try:
            data = c.recv(4096)
        except socket.timeout:
            return None
        return data.split(b"\r\n", 1)[0].decode()
    finally:
        c.close()


def test_upload_gates_come_before_the_body(server):
    """Issue 27 item 7: POST /imports checks the session, and that it was not
    posted from another site, before it reads the file: an anonymous or
    cross-site upload announcing 5 MB is answered after its first KB (it
    used to be read, and spooled, to the end first).  A signed-in
    same-site upload is still read."""
    assert (_post_headers_only(server) or "").endswith("303 See Other")
    w = signin(server)
    cookie = "; ".join("%s=%s" % (k, v) for k, v in w.cookies.items())
    assert (_post_headers_only(server, cookie, origin="https://evil.example") or "").endswith("403 Forbidden")
    assert _post_headers_only(server, cookie, origin=server.base_url) is None, "a member's upload is read"
