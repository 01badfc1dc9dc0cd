"""Helpers for the import tests (issue 4): jobs files, uploads, run polling,
results paging."""
import csv
import io
import time
import zipfile
from xml.sax.saxutils import escape

ADDRESS_PREFIXES = ["projectPickup", "projectDropoff", "pickup", "dropoff"]
ADDRESS_PARTS = ["Name", "Street", "City", "State", "Zip"]
SCHEMA_FIELDS = (["jobCode", "loadNo", "loadDate", "projectName", "customer", "branch",
                  "projectManager", "material", "truckType", "ticketNo", "weight",
                  "weightUnit", "rate", "notes"]
                 + [p + part for p in ADDRESS_PREFIXES for part in ADDRESS_PARTS])

TERMINAL = {"SUCCEEDED", "PARTIAL", "SKIPPED", "FAILED", "CANCELLED"}
BUCKETS = ["succeeded", "warnings", "failed", "skipped"]
CSV_CT = "text/csv"
XLSX_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

DEFAULT_HEADERS = ["jobCode", "loadNo", "loadDate", "projectName", "material", "weight",
                   "rate", "notes", "pickupStreet", "pickupCity", "pickupState", "pickupZip"]


def row(i, job="J-100", **over):
    """A clean jobs row; keyword arguments override or add fields."""
    r = {"jobCode": job, "loadNo": "L-%03d" % i, "loadDate": "2026-11-%02d" % (1 + i % 28),
         "projectName": "Project " + job, "material": "Gravel", "weight": str(1000 + i),
         "rate": "125.50", "notes": "note %d" % i, "pickupStreet": "%d Quarry Rd" % (100 + i % 3),
         "pickupCity": "Austin", "pickupState": "TX", "pickupZip": "78701"}
    r.update(over)
    return r


def rows(n, job="J-100", start=1, **over):
    return [row(i, job=job, **over) for i in range(start, start + n)]


def csv_text(records, headers=None, delimiter=","):
    """CSV text of dicts; headers default to DEFAULT_HEADERS plus any extra
    keys the records use, in first-seen order."""
    if headers is None:
        headers = list(DEFAULT_HEADERS)
        for r in records:
            for k in r:
                if k not in headers:
                    headers.append(k)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\r\n")
    w.writerow(headers)
    for r in records:
        w.writerow([r.get(h, "") for h in headers])
    return buf.getvalue()


def csv_bytes(records, headers=None, delimiter=",", encoding="utf-8"):
    return csv_text(records, headers, delimiter).encode(encoding)


def col_letter(idx):
    """0-based column index -> A1 column letters."""
    s = ""
    idx += 1
    while idx:
        idx, r = divmod(idx - 1, 26)
        s = chr(65 + r) + s
    return s


def cell_ref(headers, field, row_index):
    return "%s%d" % (col_letter(headers.index(field)), row_index)


WORKBOOK_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
MACRO_WORKBOOK_CT = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"


def xlsx_package_parts(workbook_ct=WORKBOOK_CT):
    """The parts of a one-sheet workbook but the sheet itself
    (xl/worksheets/sheet1.xml): for writers that stream the sheet."""
    return {
        "[Content_Types].xml":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="%s"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '</Types>' % workbook_ct,
        "_rels/.rels":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            '</Relationships>',
        "xl/workbook.xml":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheets><sheet name="Loads" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            '</Relationships>',
    }


def xlsx_bytes(table, workbook_ct=WORKBOOK_CT, extra_files=None, sheet_xml=None):
    """A minimal valid XLSX workbook (one sheet, inline strings) of a list of
    rows of strings; the first row is the header.  `extra_files` adds parts,
    `sheet_xml` replaces the worksheet text (to corrupt it)."""
    def cell(ci, ri, v):
        return ('<c r="%s%d" t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>'
                % (col_letter(ci), ri, escape(v)))
    rows_xml = "".join(
        '<row r="%d">%s</row>' % (ri, "".join(cell(ci, ri, v) for ci, v in enumerate(r)))
        for ri, r in enumerate(table, start=1))
    files = xlsx_package_parts(workbook_ct)
    files.update({
        "xl/worksheets/sheet1.xml":
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            '<sheetData>%s</sheetData></worksheet>' % rows_xml,
    })
    if sheet_xml is not None:
        files["xl/worksheets/sheet1.xml"] = sheet_xml
    files.update(extra_files or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in files.items():
            z.writestr(name, content)
    return buf.getvalue()


def upload(srv, data, filename="loads.csv", content_type=CSV_CT, kind="jobs",
           dry_run=None, headers=None, **kw):
    """POST /api/v1/imports/{kind} with one multipart part named `file`."""
    h = dict(headers or {})
    if dry_run is not None:
        h["Service-Dry-Run"] = "true" if dry_run is True else ("false" if dry_run is False else dry_run)
    return srv.post("/api/v1/imports/%s" % kind, headers=h,
                    files={"file": (filename, data, content_type)}, **kw)


def accepted_run(resp):
    assert resp.status_code == 202, "upload -> %d %s" % (resp.status_code, resp.text[:600])
    return resp.json()


def awaiting_review(srv, run_id, timeout=30.0):
    """The staged run once a worker has read its file and it shows
    nextAction (issue 27 item 9: not before)."""
    return wait_run(srv, run_id, timeout=timeout, confirm_staged=False)


def wait_run(srv, run_id, timeout=30.0, token=None, confirm_staged=True):
    """Polls GET /api/v1/imports/runs/{id} until terminal.  A run staged for
    mapping review (nextAction, a column shape the org has not confirmed) is
    confirmed once with the proposed mapping through `admin confirm-run`,
    as an admin would in the web app, unless confirm_staged is False (then
    the staged run is returned as it is)."""
    confirmed = False
    deadline = time.monotonic() + timeout
    delay = 0.02
    kw = {} if token is None else {"token": token}
    while True:
        r = srv.get("/api/v1/imports/runs/%s" % run_id, **kw)
        assert r.status_code == 200, "GET run -> %d %s" % (r.status_code, r.text[:500])
        run = r.json()
        if run["state"] in TERMINAL:
            return run
        if run.get("nextAction"):
            if not confirm_staged:
                return run
            if not confirmed:
                srv.cli.admin("confirm-run", run_id)
                confirmed = True
        if time.monotonic() > deadline:
            raise AssertionError("run %s still %s after %.0f s" % (run_id, run["state"], timeout))
        time.sleep(delay)
        delay = min(delay * 1.5, 0.3)


def results(srv, run_id, bucket, limit=None, token=None):
    """Every entry of a bucket, following nextPageUrl to the end."""
    kw = {} if token is None else {"token": token}
    path = "/api/v1/imports/runs/%s/results/%s" % (run_id, bucket)
    params = {"limit": limit} if limit is not None else None
    out = []
    pages = 0
    while path:
        r = srv.get(path, params=params, **kw)
        assert r.status_code == 200, "GET %s -> %d %s" % (path, r.status_code, r.text[:500])
        page = r.json()
        assert page["object"] == "list" and isinstance(page["data"], list), page
        out.extend(page["data"])
        path = page["nextPageUrl"]
        params = None
        pages += 1
        assert pages < 10000
        if path is not None:
            assert path.startswith("/api/v1/"), "nextPageUrl %r is not a path" % path
    return out


def all_results(srv, run_id, token=None):
    return {b: results(srv, run_id, b, token=token) for b in BUCKETS}


def import_file(srv, data, dry_run=None, filename="loads.csv", content_type=CSV_CT,
                token=None, timeout=30.0):
    """Upload, wait until terminal, fetch every bucket: (run, {bucket: rows})."""
    kw = {} if token is None else {"token": token}
    run = accepted_run(upload(srv, data, filename=filename, content_type=content_type,
                              dry_run=dry_run, **kw))
    run = wait_run(srv, run["id"], timeout=timeout, token=token)
    res = all_results(srv, run["id"], token=token) if run["state"] != "FAILED" else None
    return run, res


def by_row(entries):
    return {e["rowIndex"]: e for e in entries}


def codes_of(entry, key):
    return [x["code"] for x in entry.get(key, [])]


def find_issue(entry, key, code):
    hits = [x for x in entry.get(key, []) if x["code"] == code]
    assert hits, "no %s %s in %r" % (key, code, entry)
    return hits[0]
