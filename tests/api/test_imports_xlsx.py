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
