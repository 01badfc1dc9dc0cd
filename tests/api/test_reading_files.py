"""Reading files as a person reads them (PRODUCT §14, issue 26 items 1-5):
title rows above the header, group rows, summary rows at the end, the
worksheet of a workbook, units in headers and number formats, UTF-16 and
European ;-separated files.  Every test runs on both backends."""
import io

import pytest

from harness.checks import assert_problem
from harness.jobs import (CSV_CT, XLSX_CT, accepted_run, all_results, by_row, find_issue,
                          upload, wait_run)

HEAD = ["Job Code", "Load #", "Load Date", "Material", "Weight"]


def _csv(lines, delimiter=","):
    return ("\r\n".join(delimiter.join(cells) for cells in lines) + "\r\n").encode("utf-8")


def _load(srv, entry):
    r = srv.get("/api/v1/loads/" + entry["createdRecordIds"][0])
    assert r.status_code == 200, r.text
    return r.json()


def _import(srv, data, params=None, filename="loads.csv", ct=CSV_CT):
    run = accepted_run(upload(srv, data, filename=filename, content_type=ct, params=params))
    run = wait_run(srv, run["id"])
    res = all_results(srv, run["id"]) if run["state"] != "FAILED" else None
    return run, res


TITLED = [
    ["Weekly Load Report"],
    ["Printed 2026-11-20", "", "", "", ""],
    [],
    HEAD,
    ["J-1", "L-1", "2026-11-01", "Gravel", "1000"],
    ["J-1", "L-2", "2026-11-02", "Sand", "2000"],
]


def test_title_rows_above_the_header(server):
    """§14 Header row: title, date and blank rows above the header are not
    data; the header is detected; rowIndex keeps the spreadsheet's numbers;
    file.headerRow says where the header was."""
    run, res = _import(server, _csv(TITLED))
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["headerRow"] == 4
    assert [e["rowIndex"] for e in res["succeeded"]] == [5, 6]
    assert [e["source"]["loadNo"] for e in res["succeeded"]] == ["L-1", "L-2"]
    assert run["counts"]["succeeded"] == 2


def test_header_row_parameter(server):
    """§14: POST /api/v1/imports/jobs?headerRow=N sets the header row."""
    lines = [["Loads", "export"], ["Owner", "Dispatch"]] + TITLED[3:]
    run, res = _import(server, _csv(lines), params={"headerRow": "3"})
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["headerRow"] == 3
    assert [e["rowIndex"] for e in res["succeeded"]] == [4, 5]


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "1048577", "", "2x"])
def test_header_row_parameter_invalid(server, bad):
    """§14 / INVALID_IMPORT_OPTION: a headerRow that is not a row number is a 400."""
    r = upload(server, _csv(TITLED), params={"headerRow": bad})
    assert_problem(r, 400, "INVALID_IMPORT_OPTION", server)


@pytest.mark.parametrize("bad", ["", "x" * 32])
def test_sheet_parameter_invalid(server, bad):
    """§14 / INVALID_IMPORT_OPTION: an empty or over-long sheet name is a 400."""
    r = upload(server, _csv(TITLED), params={"sheet": bad})
    assert_problem(r, 400, "INVALID_IMPORT_OPTION", server)


def test_header_row_past_the_end_fails(server):
    """A headerRow past the end of the file fails the run (EMPTY_FILE)."""
    run, _ = _import(server, _csv(TITLED), params={"headerRow": "40"})
    assert run["state"] == "FAILED" and run["error"]["code"] == "EMPTY_FILE", run
    assert "40" in run["error"]["message"]


def test_group_row_is_joined(server):
    """§14: a group row spanning the columns below ("Pickup" over Name /
    City / State, filled only in the group's first column) is joined into
    the headers: "Pickup City" maps pickupCity."""
    lines = [
        ["", "", "", "Pickup", "", "", "Delivery", "", ""],
        ["Job Code", "Load #", "Load Date", "Name", "City", "State", "Name", "City", "State"],
        ["J-1", "L-1", "2026-11-01", "Quarry", "Austin", "TX", "Site", "Dallas", "TX"],
    ]
    run, res = _import(server, _csv(lines))
    assert run["state"] in ("SUCCEEDED", "PARTIAL"), run
    assert run["file"]["headerRow"] == 2
    entry = res["warnings"][0]
    assert entry["rowIndex"] == 3
    # The names matched no saved location: the warnings name the joined columns.
    got = {(w["field"], w["column"]) for w in entry["warnings"]}
    assert ("pickupName", "Pickup Name") in got and ("dropoffName", "Delivery Name") in got, got


def test_totals_row_is_ignored_and_listed(server):
    """§14 Summary rows: a Total row at the end is ignored and listed in
    file.summaryRows; the run is SUCCEEDED, not PARTIAL."""
    lines = TITLED[3:] + [["Total:", "", "", "", "3000"]]
    run, res = _import(server, _csv(lines))
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["summaryRows"] == [4]
    assert run["counts"] == {"succeeded": 2, "warnings": 0, "failed": 0, "skipped": 0}


def test_numbers_only_summary_row(server):
    """§14: a row of only numbers under numeric columns with the key and
    date columns empty, at the end, is a summary row too."""
    lines = TITLED[3:] + [["", "", "", "", "3000"], ["Grand Total", "", "", "", "3000"]]
    run, _ = _import(server, _csv(lines))
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["summaryRows"] == [4, 5]


def test_real_row_missing_its_key_still_fails(server):
    """§14: a real row without its key is not a summary row: it fails."""
    lines = TITLED[3:] + [["J-1", "", "2026-11-03", "Gravel", "500"]]
    run, res = _import(server, _csv(lines))
    assert run["state"] == "PARTIAL", run
    assert run["file"]["summaryRows"] == []
    failed = by_row(res["failed"])
    assert failed[4]["errors"][0]["code"] == "MISSING_REQUIRED"


def test_header_unit_converts_with_warning(server):
    """§14 Units: "Net Tons" 24.5 is 49,000 lb, with UNIT_NORMALIZED."""
    lines = [["Job Code", "Load #", "Load Date", "Net Tons"], ["J-1", "L-1", "2026-11-01", "24.5"]]
    run, res = _import(server, _csv(lines))
    # A warning makes the run PARTIAL (PRODUCT §5 outcome); nothing failed.
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 0, run
    e = res["warnings"][0]
    assert float(_load(server, e)["weight"]) == 49000
    w = find_issue(e, "warnings", "UNIT_NORMALIZED")
    assert w["field"] == "weight" and "Net Tons" in w["message"], w


def test_unit_precedence(server):
    """§14: a unit in the cell, then the weightUnit column, then the header;
    a bare number with none of them is pounds."""
    lines = [["Job Code", "Load #", "Load Date", "Weight (tons)", "Weight Unit"],
             ["J-1", "L-1", "2026-11-01", "10 kg", ""],      # the cell's unit
             ["J-1", "L-2", "2026-11-01", "10", "kg"],       # the weightUnit column
             ["J-1", "L-3", "2026-11-01", "10", ""]]         # the header
    run, res = _import(server, _csv(lines))
    assert run["counts"]["succeeded"] == 3 and run["counts"]["failed"] == 0, run
    got = {e["rowIndex"]: _load(server, e)["weight"] for e in res["succeeded"]}
    assert float(got[2]) == pytest.approx(22.05, abs=0.01)
    assert float(got[3]) == pytest.approx(22.05, abs=0.01)
    assert float(got[4]) == 20000
    lines = [["Job Code", "Load #", "Load Date", "Weight"], ["J-1", "L-1", "2026-11-01", "10"]]
    run, res = _import(server, _csv(lines))
    assert float(_load(server, res["succeeded"][0])["weight"]) == 10
    assert run["counts"]["warnings"] == 0


def test_utf16le_unicode_text(server):
    """§14 Encodings: Excel's "Unicode Text" (tab-separated UTF-16LE with a
    BOM) is read; file.encoding says utf-16le."""
    text = "\r\n".join("\t".join(c) for c in [HEAD, ["J-1", "L-1", "2026-11-01", "Kies Zürich", "100"]])
    run, res = _import(server, b"\xff\xfe" + text.encode("utf-16-le"), filename="loads.txt")
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["encoding"] == "utf-16le" and run["file"]["delimiter"] == "\t"
    assert _load(server, res["succeeded"][0])["material"] == "Kies Zürich"


def test_utf16be(server):
    text = "\r\n".join("\t".join(c) for c in [HEAD, ["J-1", "L-1", "2026-11-01", "Sand", "100"]])
    run, _ = _import(server, b"\xfe\xff" + text.encode("utf-16-be"), filename="loads.txt")
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["encoding"] == "utf-16be"


def test_european_semicolon_file(server):
    """§14: in a ;-separated file numbers follow the European convention
    ("1.234,56", "24,5 t")."""
    lines = [["Job Code", "Load #", "Load Date", "Weight", "Rate"],
             ["J-1", "L-1", "2026-11-01", "24,5 t", "1.234,56"],
             ["J-1", "L-2", "2026-11-01", "1.200", "12,5"]]
    run, res = _import(server, _csv(lines, ";"))
    assert run["file"]["delimiter"] == ";"
    got = {e["rowIndex"]: _load(server, e) for e in res["succeeded"]}
    assert float(got[2]["rate"]) == pytest.approx(1234.56)
    assert float(got[2]["weight"]) == pytest.approx(24.5 * 2204.62, abs=0.01)
    assert float(got[3]["rate"]) == pytest.approx(12.5)


openpyxl = pytest.importorskip("openpyxl")


def _xlsx(sheets, formats=None):
    """A workbook of (name, rows) sheets; formats maps (sheet, cell) to a number format."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, rows in sheets:
        ws = wb.create_sheet(name)
        for r in rows:
            ws.append(r)
    for (sheet, cell), fmt in (formats or {}).items():
        wb[sheet][cell].number_format = fmt
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


LOADS = [["Job Code", "Load #", "Load Date", "Weight"], ["J-1", "L-1", "2026-11-01", 1000]]


def test_workbook_with_summary_first_sheet(server):
    """§14 Sheet: the first visible sheet whose header maps jobCode or
    loadNo is read; file.sheet and file.sheets say which and what else."""
    data = _xlsx([("Summary", [["Report"], ["Loads", 1]]), ("Loads", LOADS)])
    run, res = _import(server, data, filename="loads.xlsx", ct=XLSX_CT)
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["sheet"] == "Loads"
    assert run["file"]["sheets"] == ["Summary", "Loads"]
    assert res["succeeded"][0]["source"]["loadNo"] == "L-1"


def test_sheet_parameter_and_not_found(server):
    """§14: ?sheet=NAME picks a sheet; a name the workbook lacks fails the
    run with SHEET_NOT_FOUND, its message listing the sheets."""
    data = _xlsx([("A", LOADS), ("B", [LOADS[0], ["J-2", "L-9", "2026-11-02", 5]])])
    run, res = _import(server, data, params={"sheet": "B"}, filename="loads.xlsx", ct=XLSX_CT)
    assert run["file"]["sheet"] == "B"
    assert res["succeeded"][0]["source"]["loadNo"] == "L-9"
    run, _ = _import(server, data, params={"sheet": "Nope"}, filename="x.xlsx", ct=XLSX_CT)
    assert run["state"] == "FAILED" and run["error"]["code"] == "SHEET_NOT_FOUND", run
    assert '"A"' in run["error"]["message"] and '"B"' in run["error"]["message"]


def test_number_format_units_and_currency(server):
    """§14: an XLSX number whose format shows a unit has that unit; a
    currency format reads as money."""
    rows = [["Job Code", "Load #", "Load Date", "Weight", "Rate"],
            ["J-1", "L-1", "2026-11-01", 24.5, 1234.5],
            ["J-1", "L-2", "2026-11-01", 1200, 99]]
    data = _xlsx([("Loads", rows)], {("Loads", "D2"): '0.00 "tons"', ("Loads", "D3"): '#,##0" lb"',
                                     ("Loads", "E2"): '"$"#,##0.00', ("Loads", "E3"): '#,##0.00 "USD"'})
    run, res = _import(server, data, filename="loads.xlsx", ct=XLSX_CT)
    assert run["counts"]["failed"] == 0, (run, res)
    got = {e["rowIndex"]: e for e in res["succeeded"]}
    assert float(_load(server, got[2])["weight"]) == 49000
    find_issue(by_row(res["warnings"])[2], "warnings", "UNIT_NORMALIZED")
    assert float(_load(server, got[3])["weight"]) == 1200
    assert float(_load(server, got[2])["rate"]) == pytest.approx(1234.5)
    assert float(_load(server, got[3])["rate"]) == pytest.approx(99)


def test_exported_report_workbook(server):
    """A report as exported: a title and a date line, a group row with
    merged cells over the address columns, the data, a totals row with a
    SUM formula; a notes sheet first.  Read as a person reads it."""
    wb = openpyxl.Workbook()
    notes = wb.active
    notes.title = "Notes"
    notes.append(["Exported from Dispatch"])
    ws = wb.create_sheet("Report")
    ws.append(["Hauling report, November"])
    ws.append(["Run on", "2026-11-20"])
    ws.append([])
    ws.append(["", "", "", "Pickup", "", "", "Dropoff", "", "", ""])
    ws.merge_cells("D4:F4")
    ws.merge_cells("G4:I4")
    ws.append(["Job Code", "Load #", "Load Date", "Name", "City", "State", "Name", "City", "State", "Net Tons"])
    ws.append(["J-7", "L-1", "2026-11-01", "Quarry", "Austin", "TX", "Site", "Dallas", "TX", 20])
    ws.append(["J-7", "L-2", "2026-11-02", "Quarry", "Austin", "TX", "Site", "Dallas", "TX", 22.5])
    ws.append(["Total", "", "", "", "", "", "", "", "", "=SUM(J6:J7)"])
    out = io.BytesIO()
    wb.save(out)
    run, res = _import(server, out.getvalue(), filename="report.xlsx", ct=XLSX_CT)
    assert run["counts"]["failed"] == 0 and run["counts"]["succeeded"] == 2, (run, res)
    f = run["file"]
    assert (f["sheet"], f["sheets"], f["headerRow"], f["summaryRows"]) == ("Report", ["Notes", "Report"], 5, [8])
    rows = by_row(res["warnings"])
    assert sorted(rows) == [6, 7]
    cols = {w["column"] for w in rows[6]["warnings"]}
    assert {"Pickup Name", "Dropoff Name", "Net Tons"} <= cols, cols
    assert float(_load(server, rows[7])["weight"]) == 45000
