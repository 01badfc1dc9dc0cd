"""The fix loop walked the way a person walks it (issue 22 item 4; PRODUCT §11
"Fix-up files round-trip", §9): push a file → download its fix-up
(GET /api/v1/imports/runs/{id}/failed-rows) → correct the failed cells →
save it from a spreadsheet program → push it back.  The corrected rows must
succeed with their ORIGINAL text: the CSV formula guard (`'=SUM(A1:A3)`),
which a spreadsheet keeps as text when it saves a CSV, is taken off by the
reader; a plain number (`-5`) never had one; `'hello` keeps its apostrophe.
Nothing is duplicated: the rows that succeeded the first time stay as they
were, a fix-up of a fix-up has one `errors` column, and no push after the
first waits for review (the fix-up's column shape is the original file's).

"A spreadsheet program" is LibreOffice headless (`soffice --convert-to`,
Debian's libreoffice-calc-nogui, installed by scripts/deps): the cells are
corrected with Python's csv module / openpyxl on a copy, then LibreOffice
opens that copy as a person would (the delimiter and character set chosen
in its import dialog, everything else as it comes) and saves it again.
A machine without soffice FAILS these tests: it is a dependency, not an
option.  The ten CSV dialects all run through the Python path; a
representative subset through LibreOffice (each conversion is ~2 s: one
soffice process per conversion, a private profile per test session, and
the same bytes converted once for both backends)."""
import atexit
import csv
import hashlib
import io
import os
import shutil
import subprocess
import tempfile

import openpyxl
import pytest

from harness.db import db_int
from harness.jobs import XLSX_CT, by_row, results, upload, wait_run, xlsx_bytes

# A column shape the organization maps once (reviewed on the first push):
# the fix-ups must come back under the same shape, without a review.
HEADERS = ["Job No", "Load No", "Load Date", "Material", "Truck Type", "Weight", "Notes"]
FIELDS = ["jobCode", "loadNo", "loadDate", "material", "truckType", "weight", "notes"]
# What LibreOffice's CSV filter calls the delimiters and character sets
# (help: "CSV Filter Options"; 76 = UTF-8, 1 = Windows-1252).
LO_SEPARATOR = {",": "44", ";": "59", "\t": "9"}
LO_CHARSET = {"utf-8": "76", "cp1252": "1"}


class Variant:
    def __init__(self, name, encoding="utf-8", bom=False, delimiter=",", newline="\r\n", multiline=False):
        self.name, self.encoding, self.bom = name, encoding, bom
        self.delimiter, self.newline, self.multiline = delimiter, newline, multiline

    def __repr__(self):
        return self.name

    def text(self, table):
        s = io.StringIO()
        csv.writer(s, delimiter=self.delimiter, lineterminator=self.newline).writerows(table)
        return s.getvalue()

    def encode(self, table):
        return (b"\xef\xbb\xbf" if self.bom else b"") + self.text(table).encode(self.encoding)

    def decode(self, data):
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        return list(csv.reader(io.StringIO(data.decode(self.encoding), newline=""), delimiter=self.delimiter))


# The ten dialects the issue found broken (UTF-8, BOM, Windows-1252, `;`,
# tab, CRLF, quoted newlines, and their usual combinations).
VARIANTS = [
    Variant("utf8-comma-lf", newline="\n"),
    Variant("utf8-comma-crlf"),
    Variant("utf8bom-comma-crlf", bom=True),
    Variant("cp1252-comma-crlf", encoding="cp1252"),
    Variant("utf8-semicolon", delimiter=";"),
    Variant("cp1252-semicolon", encoding="cp1252", delimiter=";"),
    Variant("utf8bom-semicolon", bom=True, delimiter=";"),
    Variant("utf8-tab", delimiter="\t", newline="\n"),
    Variant("cp1252-tab-crlf", encoding="cp1252", delimiter="\t"),
    Variant("utf8-comma-quoted-newlines", multiline=True),
]
BY_NAME = {v.name: v for v in VARIANTS}
# Through LibreOffice: one of each delimiter, both character sets, the BOM
# and a cell with a line break.
LO_VARIANTS = ["utf8bom-comma-crlf", "cp1252-semicolon", "utf8-tab", "utf8-comma-quoted-newlines"]

# Formula-like text a guard is written before, and text that must come back
# exactly as it is (a number, an apostrophe that is not a guard).
GUARDED = ["=SUM(A1:A3)", "+1-800-555-0100", "@risk", "-- see office"]


def records(v, tag):
    """Five rows: 1 and 4 import, 2, 3 and 5 fail (a date, a weight, a
    missing load number) and carry the cells the guard is about."""
    accent = "Sankt Pölten é" if v.encoding == "cp1252" else "Zürich — “quoted”"
    note5 = "line one\nline two, \"quoted\"" if v.multiline else "two words, \"quoted\""
    return [
        ["J-%s" % tag, "%s-1" % tag, "2026-11-02", "Gravel", "Tri-axle", "1000", "fine"],
        ["J-%s" % tag, "%s-2" % tag, "31/31/2026", "@risk", "-- see office", "1200", "=SUM(A1:A3)"],
        ["J-%s" % tag, "%s-3" % tag, "2026-11-03", "Sand", "-5", "12 bananas", "+1-800-555-0100"],
        ["J-%s" % tag, "%s-4" % tag, "2026-11-04", "Rock", "Belly dump", "1100", accent],
        ["J-%s" % tag, "", "2026-11-05", "'hello", "'5", "900", note5],
    ]


# ---- LibreOffice ----

_PROFILE = tempfile.mkdtemp(prefix="ll-soffice-profile-")
atexit.register(shutil.rmtree, _PROFILE, True)
_CONVERTED = {}


def soffice(data, suffix, convert_to, infilter=None):
    """data saved by LibreOffice: opened (with infilter, as its import dialog
    would) and saved again (convert_to).  The same input is converted once."""
    exe = shutil.which("soffice")
    assert exe, ("LibreOffice is missing (soffice not on PATH): scripts/deps installs "
                 "libreoffice-calc-nogui; the fix-up round trip needs a real spreadsheet program")
    key = hashlib.sha256(repr((data, suffix, convert_to, infilter)).encode()).hexdigest()
    if key in _CONVERTED:
        return _CONVERTED[key]
    with tempfile.TemporaryDirectory(prefix="ll-soffice-") as d:
        src = os.path.join(d, "fixup" + suffix)
        with open(src, "wb") as f:
            f.write(data)
        out = os.path.join(d, "out")
        argv = [exe, "-env:UserInstallation=file://" + _PROFILE, "--headless", "--norestore", "--nologo"]
        if infilter:
            argv.append("--infilter=" + infilter)
        argv += ["--convert-to", convert_to, "--outdir", out, src]
        p = subprocess.run(argv, capture_output=True, timeout=180, env=dict(os.environ, HOME=d))
        path = os.path.join(out, "fixup." + convert_to.split(":")[0])
        assert p.returncode == 0 and os.path.exists(path), (p.returncode, p.stdout, p.stderr)
        with open(path, "rb") as f:
            saved = f.read()
    _CONVERTED[key] = saved
    return saved


def libreoffice_csv(v, data):
    opts = "%s,34,%s,1" % (LO_SEPARATOR[v.delimiter], LO_CHARSET[v.encoding])
    return soffice(data, ".csv", "csv:Text - txt - csv (StarCalc):" + opts,
                   infilter="Text - txt - csv (StarCalc):" + opts)


# ---- the loop ----

def push(srv, org, data, name, content_type="text/csv", review=False):
    """Uploads and waits.  review: the first push of the org's new column
    shape, which waits for review (confirmed with the proposed mapping, as
    an admin would); any other push that waits for review fails the test."""
    r = upload(srv, data, filename=name, content_type=content_type, token=org.token)
    assert r.status_code == 202, r.text
    # Never in the 202: only once a worker has read the file (issue 27 item 9).
    assert not r.json().get("nextAction"), r.json()
    run = wait_run(srv, r.json()["id"], token=org.token, confirm_staged=review)
    assert run["state"] in ("SUCCEEDED", "PARTIAL"), run
    if not review:
        assert "nextAction" not in run, "a fix-up file waited for review: %r" % run
    return run


def fixup(srv, org, run_id, fmt=None):
    q = "?format=" + fmt if fmt else ""
    r = srv.get("/api/v1/imports/runs/%s/failed-rows%s" % (run_id, q), token=org.token)
    assert r.status_code == 200, r.text
    return r


def correct(table, fix_load_no=True):
    """The person's corrections, made on the failed rows only: a real date,
    a weight, the missing load number.  Every other cell is left as the
    spreadsheet showed it (guard and all)."""
    head = table[0]
    col = {h: i for i, h in enumerate(head)}
    out = [list(head)]
    for r in table[1:]:
        r = list(r)
        if r[col["Load Date"]] == "31/31/2026":
            r[col["Load Date"]] = "2026-11-06"
        if r[col["Weight"]] == "12 bananas":
            r[col["Weight"]] = "1300"
        if fix_load_no and not r[col["Load No"]]:
            r[col["Load No"]] = r[col["Job No"]].replace("J-", "") + "-5"
        out.append(r)
    return out


def loads_of(srv, org, run_id):
    """The stored Load of each succeeded row, by its load number."""
    out = {}
    for e in results(srv, run_id, "succeeded", token=org.token):
        r = srv.get("/api/v1/loads/" + e["createdRecordIds"][0], token=org.token)
        assert r.status_code == 200, r.text
        out[r.json()["loadNo"]] = r.json()
    return out


def assert_original_text(stored, original):
    """Each stored Load carries the text of the original file's row."""
    by_no = {r[1]: r for r in original}
    for no, load in stored.items():
        want = dict(zip(FIELDS, by_no[no]))
        for f in ("material", "truckType", "notes"):
            assert load[f] == want[f], (no, f, load[f], want[f])


def check_fixup_csv(v, run, body, expect_rows, guarded=(), plain=()):
    """The fix-up file: the upload's own dialect, UTF-8 always with a BOM
    (PRODUCT §14: whether or not the upload had one; LibreOffice 7.4 saves
    UTF-8 without), Windows-1252 without; the header plus ONE `errors`
    column (last, filled in on every row), the formula-like text guarded,
    numbers and other text as they were."""
    utf8 = run["file"]["encoding"].startswith("utf-8")  # an ASCII fix-up of cp1252 reads as UTF-8
    assert body.startswith(b"\xef\xbb\xbf") == utf8, run["file"]
    table = v.decode(body)
    assert table[0] == HEADERS + ["errors"], table[0]
    assert len(table) == 1 + expect_rows, table
    assert all(len(r) == len(HEADERS) + 1 and r[-1] for r in table[1:]), table
    cells = [c for r in table[1:] for c in r[:-1]]
    for text in guarded:
        assert "'" + text in cells and text not in cells, (text, cells)
    for text in plain:
        assert text in cells and "'" + text not in cells, (text, cells)
    return table


def walk_csv(srv, v, tag, spreadsheet):
    """The whole loop for one dialect; spreadsheet(v, data) is what saving
    the corrected file from a spreadsheet program does to it."""
    org = srv.new_org("Round trip %s" % tag)
    original = records(v, tag)
    run1 = push(srv, org, v.encode([HEADERS] + original), "loads.csv", review=True)
    assert run1["counts"]["succeeded"] == 2 and run1["counts"]["failed"] == 3, run1
    first = loads_of(srv, org, run1["id"])
    assert sorted(first) == ["%s-1" % tag, "%s-4" % tag]
    # Round 1: the fix-up, corrected except for the missing load number.
    table = check_fixup_csv(v, run1, fixup(srv, org, run1["id"]).content, 3, guarded=GUARDED,
                            plain=["-5", "'5", "'hello", "12 bananas"])
    edited = spreadsheet(v, v.encode(correct(table, fix_load_no=False)))
    run2 = push(srv, org, edited, "loads-failed-rows.csv")
    assert run2["counts"]["succeeded"] == 2 and run2["counts"]["failed"] == 1, run2
    # Round 2: a fix-up of a fix-up replaces `errors`, never adds one.
    table2 = check_fixup_csv(v, run2, fixup(srv, org, run2["id"]).content, 1, plain=["'5", "'hello"])
    assert table2[1][-1].startswith("MISSING_REQUIRED"), table2
    run3 = push(srv, org, spreadsheet(v, v.encode(correct(table2))), "loads-failed-rows-failed-rows.csv")
    assert run3["state"] == "SUCCEEDED" and run3["counts"]["succeeded"] == 1, run3
    # The original text, once each; the first two rows untouched.
    stored = {}
    for run in (run1, run2, run3):
        stored.update(loads_of(srv, org, run["id"]))
    assert len(stored) == 5
    assert_original_text(stored, [r[:1] + ["%s-5" % tag if not r[1] else r[1]] + r[2:] for r in original])
    assert stored["%s-2" % tag]["notes"] == "=SUM(A1:A3)" and stored["%s-2" % tag]["material"] == "@risk"
    assert stored["%s-3" % tag]["notes"] == "+1-800-555-0100" and stored["%s-3" % tag]["truckType"] == "-5"
    assert stored["%s-5" % tag]["material"] == "'hello"
    assert loads_of(srv, org, run1["id"]) == first
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM loads WHERE org_id = '%s'" % org.id) == 5


def python_save(v, data):
    """A spreadsheet that saves what it was given (the guard kept as text)."""
    return data


def libreoffice_save(v, data):
    return libreoffice_csv(v, data)


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_csv_fixup_round_trip(module_server, variant):
    walk_csv(module_server, variant, "P%d" % VARIANTS.index(variant), python_save)


@pytest.mark.parametrize("name", LO_VARIANTS)
def test_csv_fixup_round_trip_through_libreoffice(module_server, name):
    walk_csv(module_server, BY_NAME[name], "LO%d" % LO_VARIANTS.index(name), libreoffice_save)


def test_libreoffice_keeps_the_guard_as_text():
    """Why the reader must take the guard off: LibreOffice opens
    `'=SUM(A1:A3)` from a CSV as the text `'=SUM(A1:A3)` and saves it so."""
    v = BY_NAME["utf8-comma-crlf"]
    saved = libreoffice_csv(v, v.encode([["a", "b"], ["'=SUM(A1:A3)", "-5"]]))
    assert v.decode(saved) == [["a", "b"], ["'=SUM(A1:A3)", "-5"]]


def test_row_wider_than_header(module_server):
    """A failed row with more cells than the header: its extra cells keep
    their own columns (blank headers, ignored on import) and `errors` stays
    the last column of every row; pushed back corrected, it imports under
    the original shape, without review."""
    srv, v = module_server, BY_NAME["utf8-comma-crlf"]
    org = srv.new_org("Wide rows")
    rows = records(v, "W")[:3]
    rows[1] = rows[1] + ["extra 1", "extra 2"]
    run1 = push(srv, org, v.encode([HEADERS] + rows), "wide.csv", review=True)
    assert run1["counts"]["failed"] == 2, run1
    table = v.decode(fixup(srv, org, run1["id"]).content)
    assert table[0] == HEADERS + ["", "", "errors"], table[0]
    assert table[1][:-1] == ["J-W", "W-2", "31/31/2026", "'@risk", "'-- see office", "1200", "'=SUM(A1:A3)",
                             "extra 1", "extra 2"], table[1]
    assert table[1][-1].startswith("TYPE_MISMATCH") and table[2][-1], table
    assert table[2][len(HEADERS):-1] == ["", ""], table[2]
    run2 = push(srv, org, v.encode(correct(table)), "wide-failed-rows.csv")
    assert run2["state"] == "SUCCEEDED" and run2["counts"]["succeeded"] == 2, run2
    # Its own fix-up (none failed): the header alone, still one `errors`.
    assert v.decode(fixup(srv, org, run2["id"]).content) == [HEADERS + ["", "", "errors"]]


def test_older_fixup_of_a_fixup_imports_without_review(module_server):
    """Files made before issue 22 end in `errors,errors` (one column per
    round): they map as the original shape too, and their fix-up has one."""
    srv, v = module_server, BY_NAME["utf8-comma-crlf"]
    org = srv.new_org("Older fix-ups")
    push(srv, org, v.encode([HEADERS] + records(v, "O")), "loads.csv", review=True)
    old = [HEADERS + ["errors", "errors"],
           ["J-O", "O-7", "2026-11-07", "Gravel", "Tri-axle", "800", "'=1+2", "TYPE_MISMATCH: x", "X: y"],
           ["J-O", "O-8", "bad date", "Gravel", "Tri-axle", "800", "n", "A: b", "C: d"]]
    run = push(srv, org, v.encode(old), "loads-failed-rows-failed-rows.csv")
    assert run["counts"]["succeeded"] == 1 and run["counts"]["failed"] == 1, run
    table = v.decode(fixup(srv, org, run["id"]).content)
    assert table[0] == HEADERS + ["errors"] and len(table[1]) == len(HEADERS) + 1, table
    assert table[1][-1].startswith("TYPE_MISMATCH"), table
    ok = loads_of(srv, org, run["id"])
    assert ok["O-7"]["notes"] == "=1+2"


def test_xlsx_fixup_round_trip_through_libreoffice(module_server):
    """XLSX fix-ups carry no guard (text cells are text): corrected with
    openpyxl, saved again by LibreOffice (xlsx → xlsx), pushed back: the
    rows succeed with their original text, no review, nothing duplicated."""
    srv = module_server
    org = srv.new_org("Round trip xlsx")
    v = BY_NAME["utf8-comma-crlf"]
    original = records(v, "X")
    run1 = push(srv, org, xlsx_bytes([HEADERS] + original), "week 47.xlsx", content_type=XLSX_CT, review=True)
    assert run1["counts"]["failed"] == 3, run1
    wb = openpyxl.load_workbook(io.BytesIO(fixup(srv, org, run1["id"]).content))
    ws = wb.active
    table = [[c if c is not None else "" for c in r] for r in ws.iter_rows(values_only=True)]
    assert table[0] == HEADERS + ["errors"] and len(table) == 4, table
    assert "=SUM(A1:A3)" in table[1] and ws.cell(2, HEADERS.index("Notes") + 1).data_type == "s"
    fixed = correct(table)
    for i, (before, after) in enumerate(zip(table[1:], fixed[1:]), start=2):
        for j, (a, b) in enumerate(zip(before, after), start=1):
            if a != b:
                ws.cell(i, j).value = b
    buf = io.BytesIO()
    wb.save(buf)
    saved = soffice(buf.getvalue(), ".xlsx", "xlsx:Calc MS Excel 2007 XML")
    run2 = push(srv, org, saved, "week 47-failed-rows.xlsx", content_type=XLSX_CT)
    assert run2["state"] == "SUCCEEDED" and run2["counts"]["succeeded"] == 3, (run2, by_row(
        results(srv, run2["id"], "failed", token=org.token)))
    stored = loads_of(srv, org, run1["id"])
    stored.update(loads_of(srv, org, run2["id"]))
    assert len(stored) == 5
    assert stored["X-2"]["notes"] == "=SUM(A1:A3)" and stored["X-3"]["notes"] == "+1-800-555-0100"
    assert stored["X-2"]["truckType"] == "-- see office" and stored["X-5"]["material"] == "'hello"
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM loads WHERE org_id = '%s'" % org.id) == 5


def test_reviewing_a_fixup_confirms_the_original_shape(module_server):
    """A fix-up of a shape never confirmed (the first push was a dry run,
    which imports with the proposal and asks nobody) waits for review under
    the ORIGINAL file's shape: the review maps the file's columns without
    `errors`, and once confirmed the original layout imports without review."""
    srv, v = module_server, BY_NAME["utf8-comma-crlf"]
    org = srv.new_org("Review a fix-up")
    original = v.encode([HEADERS] + records(v, "R"))
    r = upload(srv, original, filename="loads.csv", token=org.token, dry_run=True)
    assert r.status_code == 202 and not r.json().get("nextAction"), r.text
    dry = wait_run(srv, r.json()["id"], token=org.token, confirm_staged=False)
    assert dry["state"] == "PARTIAL" and dry["counts"]["failed"] == 3, dry
    table = v.decode(fixup(srv, org, dry["id"]).content)
    assert table[0] == HEADERS + ["errors"]
    run = push(srv, org, v.encode(correct(table)), "loads-failed-rows.csv", review=True)
    assert run["state"] == "SUCCEEDED" and run["counts"]["succeeded"] == 3, run
    again = push(srv, org, v.encode([HEADERS] + records(v, "R2")), "next week.csv")
    assert again["counts"]["succeeded"] == 2 and again["counts"]["failed"] == 3, again


# ---- PRODUCT §14: fix-ups that survive spreadsheet programs ----

KEYS = ["0007", "00012345", "4000123456789012345"]


def zero_rows(tag):
    """Rows whose load numbers a spreadsheet's type guessing would change
    (0007 -> 7, 00012345 -> 12345, a 19-digit number -> 4.00012345678901E+18);
    every one fails on its date, so all three come back in the fix-up."""
    return [["J-%s" % tag, k, "31/31/2026", "Gravel", "Tri-axle", "1000", "row %d" % i]
            for i, k in enumerate(KEYS)]


def openpyxl_table(data):
    ws = openpyxl.load_workbook(io.BytesIO(data)).active
    return ws, [[c if c is not None else "" for c in r] for r in ws.iter_rows(values_only=True)]


def test_xlsx_fixup_of_a_csv_upload_keeps_leading_zeros_through_libreoffice(module_server):
    """Every run offers its failed rows as XLSX (failed-rows?format=xlsx),
    whose cells and columns are text: corrected and saved by LibreOffice,
    the keys 0007, 00012345 and a 19-digit number come back exactly, so the
    corrected rows update the same Loads instead of creating new ones."""
    srv = module_server
    org = srv.new_org("Leading zeros")
    v = BY_NAME["utf8-comma-crlf"]
    ok = [["J-Z", k, "2026-11-02", "Sand", "Tri-axle", "900", "first"] for k in KEYS]
    run0 = push(srv, org, v.encode([HEADERS] + ok), "zeros.csv", review=True)
    assert run0["counts"]["succeeded"] == 3, run0
    run1 = push(srv, org, v.encode([HEADERS] + zero_rows("Z")), "zeros.csv")
    assert run1["counts"]["failed"] == 3, run1
    r = fixup(srv, org, run1["id"], "xlsx")
    assert r.headers["Content-Type"].startswith("application/vnd.openxmlformats")
    assert 'filename="zeros-failed-rows.xlsx"' in r.headers["Content-Disposition"]
    ws, table = openpyxl_table(r.content)
    assert table[0] == HEADERS + ["errors"] and [t[1] for t in table[1:]] == KEYS, table
    for row in ws.iter_rows(min_row=2):
        assert all(c.data_type == "s" and c.number_format == "@" for c in row if c.value is not None)
    # A spreadsheet program saves it (xlsx -> xlsx), after the dates are fixed.
    for i in range(2, 2 + len(KEYS)):
        ws.cell(i, HEADERS.index("Load Date") + 1).value = "2026-11-09"
    buf = io.BytesIO()
    ws.parent.save(buf)
    saved = soffice(buf.getvalue(), ".xlsx", "xlsx:Calc MS Excel 2007 XML")
    _, back = openpyxl_table(saved)
    assert [t[1] for t in back[1:]] == KEYS, back
    run2 = push(srv, org, saved, "zeros-failed-rows.xlsx", content_type=XLSX_CT)
    assert run2["state"] == "SUCCEEDED" and run2["counts"]["succeeded"] == 3, run2
    stored = loads_of(srv, org, run2["id"])
    assert sorted(stored) == sorted(KEYS) and all(l["loadDate"] == "2026-11-09" for l in stored.values())
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM loads WHERE org_id = '%s'" % org.id) == 3


def test_csv_fixup_saved_as_xlsx_loses_its_guard(module_server):
    """A CSV fix-up opened in LibreOffice and saved as .xlsx keeps the
    formula guard in its cells ('=SUM(A1:A3)); the XLSX reader takes it off
    exactly as the CSV reader does, so the original text imports."""
    srv = module_server
    org = srv.new_org("Guard in xlsx")
    v = BY_NAME["utf8-comma-crlf"]
    run1 = push(srv, org, v.encode([HEADERS] + records(v, "G")), "loads.csv", review=True)
    body = fixup(srv, org, run1["id"], "csv").content
    assert body.startswith(b"\xef\xbb\xbf")
    corrected = v.encode(correct(v.decode(body)))
    opts = "44,34,76,1"
    saved = soffice(corrected, ".csv", "xlsx:Calc MS Excel 2007 XML", infilter="Text - txt - csv (StarCalc):" + opts)
    _, table = openpyxl_table(saved)
    assert "'=SUM(A1:A3)" in [c for r in table for c in r], table
    run2 = push(srv, org, saved, "loads-failed-rows.xlsx", content_type=XLSX_CT)
    assert run2["state"] == "SUCCEEDED" and run2["counts"]["succeeded"] == 3, run2
    stored = loads_of(srv, org, run2["id"])
    assert stored["G-2"]["notes"] == "=SUM(A1:A3)" and stored["G-2"]["material"] == "@risk"
    assert stored["G-3"]["notes"] == "+1-800-555-0100" and stored["G-5"]["material"] == "'hello"


def test_utf8_fixup_begins_with_a_bom(module_server):
    """A UTF-8 upload without a BOM gets a fix-up with one, so that a
    spreadsheet program reads it as UTF-8 (LibreOffice's import dialog
    preselects UTF-8 on a BOM, Excel needs one); CJK text comes back intact
    through LibreOffice; Windows-1252 uploads get Windows-1252 fix-ups."""
    srv = module_server
    org = srv.new_org("BOM")
    v = BY_NAME["utf8-comma-lf"]
    rows = [["J-B", "B-1", "31/31/2026", "東京物流", "Tri-axle", "1000", "ok"]]
    run = push(srv, org, v.encode([HEADERS] + rows), "tokyo.csv", review=True)
    body = fixup(srv, org, run["id"]).content
    assert body.startswith(b"\xef\xbb\xbf") and "東京物流".encode() in body
    saved = libreoffice_csv(v, body)
    assert v.decode(saved)[1][3] == "東京物流"
    cp = BY_NAME["cp1252-comma-crlf"]
    run = push(srv, org, cp.encode([HEADERS] + [["J-B", "B-2", "31/31/2026", "Köln", "x", "1", "é"]]), "k.csv")
    body = fixup(srv, org, run["id"]).content
    assert not body.startswith(b"\xef\xbb\xbf") and "Köln".encode("cp1252") in body
    assert srv.get("/api/v1/imports/runs/%s/failed-rows?format=ods" % run["id"], token=org.token).status_code == 400
