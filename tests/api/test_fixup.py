"""The fix-up file (issue 13 part 5; PRODUCT §9):
GET /api/v1/imports/runs/{id}/failed-rows gives the failed rows in the
upload's own format — CSV in its delimiter and encoding (BOM kept), XLSX
as XLSX — with the original header and columns plus `errors`; a person fixes
the cells and pushes it again, and those rows succeed without a review."""
import csv
import io

import openpyxl
import pytest

from harness.jobs import (CSV_CT, XLSX_CT, accepted_run, by_row, csv_bytes, import_file, upload, wait_run,
                          xlsx_bytes)

HEADERS = ["jobCode", "loadNo", "loadDate", "notes", "weight", "material"]


def records():
    return [
        {"jobCode": "J-1", "loadNo": "L-1", "loadDate": "2026-11-02", "notes": "fine", "weight": "1000",
         "material": "Austin"},
        {"jobCode": "J-1", "loadNo": "L-2", "loadDate": "31/31/2026", "notes": "=1+2", "weight": "-5",
         "material": "Sankt Pölten é"},
        {"jobCode": "J-1", "loadNo": "", "loadDate": "2026-11-03", "notes": "semi; colon, comma \"q\"",
         "weight": "12 bananas", "material": "Houston"},
    ]


def fixup(srv, run_id, **kw):
    return srv.get("/api/v1/imports/runs/%s/failed-rows" % run_id, **kw)


def parse_csv(data, encoding, delimiter):
    text = data.decode(encoding)
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def fix(rows):
    """The person's fix: a real date, a loadNo, a weight; errors column dropped
    or kept (it is ignored either way).  The formula guard ('=1+2) stays, as
    a spreadsheet saving a CSV keeps it: the reader takes it off (issue 22;
    tests/api/test_fixup_roundtrip.py checks the stored text)."""
    out = []
    for r in rows:
        d = dict(zip(HEADERS + ["errors"], r))
        if d["loadDate"] == "31/31/2026":
            d["loadDate"] = "2026-11-04"
        if not d["loadNo"]:
            d["loadNo"] = "L-3"
        if d["weight"] in ("12 bananas", "-5"):
            d["weight"] = "12000"
        out.append(d)
    return out


@pytest.mark.parametrize("delimiter,encoding,bom", [(",", "utf-8", False), (";", "utf-8", True),
                                                    (",", "cp1252", False)])
def test_csv_round_trip(server, delimiter, encoding, bom):
    data = csv_bytes(records(), headers=HEADERS, delimiter=delimiter, encoding=encoding)
    if bom:
        data = b"\xef\xbb\xbf" + data
    run, res = import_file(server, data, filename="loads.csv")
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 2, run
    r = fixup(server, run["id"])
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/csv")
    assert ("windows-1252" if encoding == "cp1252" else "utf-8") in r.headers["Content-Type"]
    assert 'filename="loads-failed-rows.csv"' in r.headers["Content-Disposition"]
    assert r.headers["X-Failed-Rows"] == "2"
    body = r.content
    # PRODUCT §14: UTF-8 fix-ups always begin with a BOM, Windows-1252 never.
    utf8 = encoding == "utf-8"
    assert body.startswith(b"\xef\xbb\xbf") == utf8
    if encoding == "cp1252":
        assert "é".encode("cp1252") in body and "é".encode("utf-8") not in body
    rows = parse_csv(body[3:] if utf8 else body, encoding, delimiter)
    assert rows[0] == HEADERS + ["errors"]
    assert len(rows) == 3
    second, third = rows[1], rows[2]
    assert second[:3] == ["J-1", "L-2", "31/31/2026"] and second[5] == "Sankt Pölten é"
    assert second[3] == "'=1+2" and second[4] == "-5"   # formula-safe; numbers untouched
    assert second[6].startswith("TYPE_MISMATCH: ") and "loadDate" in second[6]
    assert third[3] == 'semi; colon, comma "q"'
    assert "MISSING_REQUIRED: " in third[6] and "TYPE_MISMATCH: " in third[6]
    # Fixed and pushed again, errors column and all: no review, both succeed.
    fixed = csv_bytes(fix(rows[1:]), headers=HEADERS + ["errors"], delimiter=delimiter, encoding=encoding)
    run2, res2 = import_file(server, fixed, filename="loads-failed-rows.csv")
    assert run2["state"] == "SUCCEEDED", res2["failed"]
    assert run2["counts"]["succeeded"] == 2 and run2.get("nextAction") is None
    ok = {e["rowIndex"] for e in res2["succeeded"]}
    assert ok == {2, 3}
    # Nothing left to fix: the header row alone.
    again = fixup(server, run2["id"])
    assert again.status_code == 200 and again.headers["X-Failed-Rows"] == "0"
    assert len(parse_csv(again.content[3:] if utf8 else again.content, encoding, delimiter)) == 1


def test_xlsx_round_trip(server):
    table = [HEADERS] + [[r[h] for h in HEADERS] for r in records()]
    run, res = import_file(server, xlsx_bytes(table), filename="week 47.xlsx", content_type=XLSX_CT)
    assert run["counts"]["failed"] == 2, run
    r = fixup(server, run["id"])
    assert r.status_code == 200
    assert r.headers["Content-Type"] == XLSX_CT
    assert 'filename="week 47-failed-rows.xlsx"' in r.headers["Content-Disposition"]
    wb = openpyxl.load_workbook(io.BytesIO(r.content), read_only=True)
    rows = [[c if c is not None else "" for c in row] for row in wb.active.iter_rows(values_only=True)]
    assert rows[0] == HEADERS + ["errors"]
    assert len(rows) == 3
    assert rows[1][:3] == ["J-1", "L-2", "31/31/2026"] and rows[1][3] == "=1+2"  # a string cell, not a formula
    assert rows[2][6].count(": ") >= 2
    fixed = [HEADERS + ["errors"]] + [[d[h] for h in HEADERS + ["errors"]] for d in fix(rows[1:])]
    run2, res2 = import_file(server, xlsx_bytes(fixed), filename="fixed.xlsx", content_type=XLSX_CT)
    assert run2["state"] == "SUCCEEDED", (run2, res2)
    assert {e["rowIndex"] for e in res2["succeeded"]} == {2, 3}


def test_conventions(server):
    run, res = import_file(server, csv_bytes(records(), headers=HEADERS))
    other = server.new_org("Other org").token
    assert fixup(server, run["id"], token=other).status_code == 404
    assert fixup(server, run["id"], token=None).status_code == 401
    assert fixup(server, "run_nope").status_code == 404
    failed = accepted_run(upload(server, b"jobCode,loadNo,loadDate\n", filename="empty.csv"))
    wait_run(server, failed["id"])
    r = fixup(server, failed["id"])
    assert r.status_code == 409 and r.json()["code"] == "NO_ROW_RESULTS"


@pytest.mark.parametrize("kind", ["xlsx", "csv"])
def test_cell_longer_than_an_xlsx_cell_is_never_dropped_silently(server, kind):
    """Issue 20, item 9: the fix-up XLSX silently left out cells longer than
    the 32,767 characters an .xlsx cell holds.  Such a cell is now refused
    when the file is read (CELL_TOO_LONG, naming row and column), so there
    is no fix-up file to drop it from, and the answer says why."""
    table = [HEADERS] + [[r[h] for h in HEADERS] for r in records()]
    table[3][3] = "n" * 40000
    if kind == "xlsx":
        data, ct, name = xlsx_bytes(table), XLSX_CT, "long.xlsx"
    else:
        data, ct, name = csv_bytes([dict(zip(HEADERS, t)) for t in table[1:]], headers=HEADERS), CSV_CT, "long.csv"
    run = accepted_run(upload(server, data, filename=name, content_type=ct))
    run = wait_run(server, run["id"])
    assert run["state"] == "FAILED" and run["error"]["code"] == "CELL_TOO_LONG", run
    assert run["error"]["message"].startswith("row 4: column D has 40,000 characters"), run
    r = fixup(server, run["id"])
    assert r.status_code == 409 and r.json()["code"] == "NO_ROW_RESULTS"
