"""XLSX parse-level outcomes through the API (SPEC "Errors" mode 2:
MACRO_REJECTED, MALFORMED_XLSX; PRODUCT §4: no external entities, no
entity expansion).  Workbooks are built by harness/jobs.xlsx_bytes."""
from harness.jobs import (MACRO_WORKBOOK_CT, XLSX_CT, accepted_run, all_results, upload,
                          wait_run, xlsx_bytes)

TABLE = [["jobCode", "loadNo", "loadDate"], ["JX", "1", "2026-11-01"], ["JX", "2", "2026-11-02"]]


def _run(srv, data):
    run = accepted_run(upload(srv, data, filename="loads.xlsx", content_type=XLSX_CT))
    return wait_run(srv, run["id"])


def test_xlsx_rows_read(server):
    """SPEC file types / PRODUCT §4: an XLSX's first sheet is read; format xlsx."""
    run = _run(server, xlsx_bytes(TABLE))
    assert run["state"] == "SUCCEEDED", run
    assert run["file"]["format"] == "xlsx"
    res = all_results(server, run["id"])
    assert [e["rowIndex"] for e in res["succeeded"]] == [2, 3]
    assert [e["source"]["loadNo"] for e in res["succeeded"]] == ["1", "2"]


def test_macro_enabled_workbook_is_rejected(server):
    """PRODUCT §4 / SPEC mode 2: a macro-enabled content type or a VBA
    project -> run FAILED with MACRO_REJECTED."""
    vba = {"xl/vbaProject.bin": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 1024}
    for data in (xlsx_bytes(TABLE, workbook_ct=MACRO_WORKBOOK_CT, extra_files=vba),
                 xlsx_bytes(TABLE + [["JX", "3", "2026-11-03"]], extra_files=vba)):
        run = _run(server, data)
        assert run["state"] == "FAILED" and run["error"]["code"] == "MACRO_REJECTED", run


def test_corrupt_xml_is_malformed_xlsx(server):
    """PRODUCT §4 / SPEC mode 2: corrupt XML in the package -> run FAILED with
    MALFORMED_XLSX."""
    bad = ('<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
           'spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>jobCode')
    run = _run(server, xlsx_bytes(TABLE, sheet_xml=bad))
    assert run["state"] == "FAILED" and run["error"]["code"] == "MALFORMED_XLSX", run


def test_external_entities_are_never_resolved(server):
    """PRODUCT §4: no external entities, no network, no entity expansion: a
    worksheet with a DOCTYPE pulling /etc/passwd or expanding entities is
    rejected as MALFORMED_XLSX, or read without the entity's contents."""
    ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    def sheet(doctype, cell):
        return ('<?xml version="1.0"?>%s<worksheet xmlns="%s"><sheetData>'
                '<row r="1"><c r="A1" t="inlineStr"><is><t>jobCode</t></is></c>'
                '<c r="B1" t="inlineStr"><is><t>loadNo</t></is></c>'
                '<c r="C1" t="inlineStr"><is><t>loadDate</t></is></c>'
                '<c r="D1" t="inlineStr"><is><t>notes</t></is></c></row>'
                '<row r="2"><c r="A2" t="inlineStr"><is><t>JXE</t></is></c>'
                '<c r="B2" t="inlineStr"><is><t>1</t></is></c>'
                '<c r="C2" t="inlineStr"><is><t>2026-11-01</t></is></c>'
                '<c r="D2" t="inlineStr"><is><t>%s</t></is></c></row>'
                '</sheetData></worksheet>' % (doctype, ns, cell))
    xxe = sheet('<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', "&xxe;")
    lol = sheet('<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
                '<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">'
                '<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]>', "&g;")
    for name, xml in (("xxe", xxe), ("laughs", lol)):
        run = _run(server, xlsx_bytes(TABLE, sheet_xml=xml))
        if run["state"] == "FAILED":
            assert run["error"]["code"] == "MALFORMED_XLSX", (name, run)
            continue
        res = all_results(server, run["id"])
        text = repr(res)
        assert "root:" not in text and "aaaaaaaaaaaaaaaaaaaa" not in text, name
        for e in res["succeeded"]:
            l = server.get("/api/v1/loads/" + e["createdRecordIds"][0]).json()
            assert "root:" not in (l.get("notes") or "") and len(l.get("notes") or "") < 100, name


def test_shared_string_amplification_is_refused(server):
    """Issue 20, item 1 (high): every cell of 750 rows refers to one shared
    string of 860,000 characters (a 650 KB upload that took 2.35 GB and
    7 s): the run fails on the first reference, CELL_TOO_LONG, naming the
    row and column, and the server's peak memory stays where it was
    (tests/inspect/test_expansion_budget.py measures the documented bound)."""
    import base64
    import io
    import os
    import zipfile
    big = base64.b64encode(os.urandom(860000))[:860000].decode()
    base = xlsx_bytes(TABLE)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(base)) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                rows = "".join('<row r="%d">%s</row>' % (r, "".join('<c r="%s%d" t="s"><v>3</v></c>' % (c, r)
                                                                   for c in "ABC")) for r in range(2, 752))
                head = '<row r="1">%s</row>' % "".join('<c r="%s1" t="s"><v>%d</v></c>' % (c, i)
                                                        for i, c in enumerate("ABC"))
                data = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
                        '%s%s</sheetData></worksheet>' % (head, rows)).encode()
            elif info.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rId9" Type="http://schemas.openxmlformats'
                                    b'.org/officeDocument/2006/relationships/sharedStrings" Target="sst.xml"/>'
                                    b'</Relationships>')
            w.writestr(info.filename, data)
        w.writestr("xl/sst.xml", '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>jobCode'
                   '</t></si><si><t>loadNo</t></si><si><t>loadDate</t></si><si><t>%s</t></si></sst>' % big)
    before = _peak_mb(server)
    run = _run(server, out.getvalue())
    assert run["state"] == "FAILED" and run["error"]["code"] == "CELL_TOO_LONG", run
    assert run["error"]["message"].startswith("row 2: column A has 860,000 characters"), run
    # The server's own peak (VmHWM) hardly moves: it grew by 1.9 GB before.
    grew = _peak_mb(server) - before
    assert grew < 200, "the server's peak grew by %d MB" % grew


def _peak_mb(srv):
    with open("/proc/%d/status" % srv.proc.pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


def test_50000_row_workbook_imports_with_the_row_limit_raised(start_server, tmp_path):
    """Issue 20, real files: a legitimate 50,000-row inline-string workbook
    of 5.2 MB (70 MB of XML) failed as a zip bomb even with
    LOADLINE_MAX_ROWS=50000; the expansion budget follows the row limit."""
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "inspect"))
    from test_real_files import workbook_50k
    data = workbook_50k(tmp_path / "w50k.xlsx")
    srv = start_server(env={"LOADLINE_MAX_ROWS": "50000"})
    run = accepted_run(upload(srv, data, filename="w50k.xlsx", content_type=XLSX_CT))
    run = wait_run(srv, run["id"], timeout=600)
    assert run["state"] == "SUCCEEDED", run
    assert run["counts"]["succeeded"] == 50000, run
