"""Issue 20, "Real files": what re-reading 1,423 public spreadsheets still
found.  Each workbook is built here with zipfile, as the originals are laid
out (docs/sheet.md says what is read and why)."""
import json
import os
import pathlib
import random
import subprocess
import sys
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("LOADLINE_BIN", str(REPO / "build" / "loadline"))
sys.path.insert(0, str(REPO / "tests"))
from harness.jobs import row, xlsx_bytes  # noqa: E402

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
WB_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"


def inspect(path, env=None):
    e = dict(os.environ, **(env or {}))
    p = subprocess.run([BIN, "inspect", str(path)], capture_output=True, timeout=120, env=e)
    assert p.stderr == b"", p.stderr
    return json.loads(p.stdout)


def rels(*items):
    return ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="%s">%s</Relationships>'
            % (PKG, "".join('<Relationship Id="%s" Type="%s/%s" Target="%s"/>' % i for i in items)))


def package(path, wb_part, sheet_target, sheet_part, sst_target=None, sst_part=None, names=None):
    """A workbook at wb_part whose worksheet and shared strings the
    workbook's relationships name by sheet_target / sst_target (relative to
    the workbook), stored at sheet_part / sst_part."""
    wb_dir, _, wb_name = wb_part.rpartition("/")
    wb_rels = (wb_dir + "/" if wb_dir else "") + "_rels/" + wb_name + ".rels"
    items = [("rId1", REL, "worksheet", sheet_target)]
    if sst_target:
        items.append(("rId2", REL, "sharedStrings", sst_target))
    cells = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>loadNo</t></is></c></row>' \
            '<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2"><v>7</v></c></row>'
    if not sst_target:
        cells = cells.replace('t="s"><v>0</v>', 't="inlineStr"><is><t>jobCode</t></is>') \
                     .replace('t="s"><v>1</v>', 't="inlineStr"><is><t>J1</t></is>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"><Default Extension="rels" ContentType="application/'
                   'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
                   '"application/xml"/><Override PartName="/%s" ContentType="%s"/></Types>' % (wb_part, WB_CT))
        z.writestr("_rels/.rels", rels(("rId1", REL, "officeDocument", wb_part)))
        z.writestr(wb_part, '<workbook xmlns="%s" xmlns:r="%s"><sheets><sheet name="S" sheetId="1" r:id="rId1"/>'
                            '</sheets></workbook>' % (NS, REL))
        z.writestr(wb_rels, rels(*items))
        z.writestr(sheet_part, '<worksheet xmlns="%s"><sheetData>%s</sheetData></worksheet>' % (NS, cells))
        if sst_part:
            z.writestr(sst_part, '<sst xmlns="%s"><si><t>jobCode</t></si><si><t>J1</t></si></sst>' % NS)


def test_parts_at_the_package_root(tmp_path):
    """POI's minimal_package.xlsx: workbook, worksheet and shared strings at
    the root of the package, nothing under xl/."""
    path = tmp_path / "minimal_package.xlsx"
    package(path, "workbook.xml", "sheet1.xml", "sheet1.xml", "sharedStrings.xml", "sharedStrings.xml")
    out = inspect(path)
    assert "error" not in out, out
    assert out["headers"] == ["jobCode", "loadNo"] and out["rows"] == [{"row": 2, "cells": ["J1", "7"]}]


def test_parts_in_unusual_folders(tmp_path):
    """POI's wtf_path.xlsx: the workbook in a folder of its own and the
    worksheet found through a ".." target, as Excel follows them."""
    path = tmp_path / "wtf_path.xlsx"
    package(path, "spreadsheet/book/wb.xml", "../sheets/first.xml", "spreadsheet/sheets/first.xml",
            "/strings/sst.xml", "strings/sst.xml")
    out = inspect(path)
    assert "error" not in out, out
    assert out["rows"] == [{"row": 2, "cells": ["J1", "7"]}]


def test_a_word_document_is_still_not_a_workbook(tmp_path):
    path = tmp_path / "doc.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("_rels/.rels", rels(("rId1", REL, "officeDocument", "word/document.xml")))
        z.writestr("word/document.xml", "<document/>")
    assert inspect(path)["error"]["code"] == "UNSUPPORTED_MIME"


def test_two_entries_of_one_name_are_refused(tmp_path):
    """Readers disagree on which copy is real (first or last): refused."""
    import warnings
    data = xlsx_bytes([["jobCode", "loadNo"], ["J1", "1"]])
    path = tmp_path / "dup.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out, zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        for info in z.infolist():
            out.writestr(info.filename, z.read(info))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.writestr("xl/worksheets/sheet1.xml", z.read("xl/worksheets/sheet1.xml").replace(b"J1", b"EVIL"))
    out = inspect(path)
    assert out["error"]["code"] == "MALFORMED_XLSX", out
    assert "two parts of the same name" in out["error"]["message"], out
    # Names that differ only in case (OPC names ignore case) are the same.
    path2 = tmp_path / "dup2.xlsx"
    with zipfile.ZipFile(path2, "w") as out2, zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        for info in z.infolist():
            out2.writestr(info.filename, z.read(info))
        out2.writestr("XL/Worksheets/Sheet1.xml", b"<worksheet/>")
    assert inspect(path2)["error"]["code"] == "MALFORMED_XLSX"


H50K = ["jobCode", "loadNo", "loadDate", "projectName", "material", "weight", "rate", "notes", "ticketNo",
        "truckType", "pickupStreet", "pickupCity", "pickupState", "pickupZip", "dropoffStreet", "dropoffCity",
        "dropoffState", "dropoffZip"]


def workbook_50k(path):
    """A legitimate 50,000-row, 18-column workbook of inline strings, as
    streaming writers make them: 5.2 MB, 70 MB of XML (13x)."""
    rnd = random.Random(7)
    table = [H50K]
    for i in range(50000):
        r = row(i, job="J-%d" % (i // 40))
        r.update(loadNo="L-%06d" % i, ticketNo="T%09d" % rnd.randrange(10 ** 9), weight=str(rnd.randrange(1000, 60000)),
                 notes="note %d %s" % (i, "".join(rnd.choice("abcdefghij klmnop") for _ in range(14))),
                 truckType=rnd.choice(["Tandem", "Triaxle", "Semi", "Quad"]),
                 pickupStreet="%d Quarry Rd" % rnd.randrange(1, 9999), dropoffStreet="%d Main St" % rnd.randrange(1, 9999),
                 dropoffCity="Dallas", dropoffState="TX", dropoffZip="75201")
        table.append([r[h] for h in H50K])
    data = xlsx_bytes(table)
    path.write_bytes(data)
    return data


def test_50000_rows_follow_the_row_limit(tmp_path):
    """Issue 20: a 50,000-row inline-string workbook of 5.2 MB failed as a
    "zip bomb" (70 MB of XML, past the flat 50 MB) even with
    LOADLINE_MAX_ROWS=50000.  The budget follows the row limit now."""
    path = tmp_path / "w50k.xlsx"
    data = workbook_50k(path)
    assert 5000000 < len(data) <= 5242880
    out = inspect(path, {"LOADLINE_MAX_ROWS": "50000"})
    assert "error" not in out, out.get("error")
    assert len(out["rows"]) == 50000 and out["rows"][-1]["cells"][1] == "L-049999"
    # At the default 750 rows it is what it is: too many rows.
    assert inspect(path)["error"]["code"] == "TOO_MANY_ROWS"


def test_a_dense_but_small_expansion_is_no_bomb(tmp_path):
    """POI's large_strings.xlsx (121x): a ratio alone no longer refuses a
    workbook; 2.9 MB of repetitive XML from ~15 KB reads."""
    path = tmp_path / "large_strings.xlsx"
    text = "The quick brown fox " * 200
    data = xlsx_bytes([["jobCode", "notes"]] + [["J%d" % i, text] for i in range(700)])
    path.write_bytes(data)
    with zipfile.ZipFile(path) as z:
        ratio = sum(i.file_size for i in z.infolist()) / len(data)
    assert ratio > 100
    out = inspect(path)
    assert "error" not in out, out.get("error")
    assert len(out["rows"]) == 700


def test_mac_roman_csv(tmp_path):
    """A CSV saved as Mac Roman ("Réunion" is R 0x8E union; read as
    Windows-1252 it was "RŽunion") is read as Mac Roman, encoding
    "macintosh"."""
    path = tmp_path / "mac.csv"
    path.write_bytes("jobCode,city,notes\nJ1,Réunion,Crème brûlée – “to go”\nJ2,Zürich,façade\n".encode("mac_roman"))
    out = inspect(path)
    assert out["encoding"] == "macintosh", out
    assert out["rows"][0]["cells"] == ["J1", "Réunion", "Crème brûlée – “to go”"]
    assert out["rows"][1]["cells"] == ["J2", "Zürich", "façade"]


def test_windows_1252_stays_windows_1252(tmp_path):
    """The same text saved as Windows-1252 (accents, curly quotes, dashes,
    euro, degree) is still Windows-1252: a tie goes to it too."""
    for text in ("jobCode,city,notes\nJ1,Réunion,Crème brûlée – “to go” 5 °C €3\nJ2,Zürich,façade\n",
                 "jobCode,notes\nJ1,don’t – ok\n", "jobCode,notes\nJ1,Société Générale\n"):
        path = tmp_path / "win.csv"
        path.write_bytes(text.encode("cp1252"))
        out = inspect(path)
        assert out["encoding"] == "windows-1252", (text, out)
        assert [out["headers"]] + [r["cells"] for r in out["rows"]] == [l.split(",") for l in text.splitlines()]


def test_ods_is_named(tmp_path):
    path = tmp_path / "loads.ods"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", "<office:document-content/>")
        z.writestr("META-INF/manifest.xml", "<manifest/>")
    out = inspect(path)
    assert out["error"]["code"] == "UNSUPPORTED_MIME", out
    assert "OpenDocument spreadsheet (.ods)" in out["error"]["message"]
    assert "save it as .xlsx or CSV" in out["error"]["message"]


def test_prn_is_named(tmp_path):
    """Excel's "Formatted Text (Space delimited)" (.prn): columns padded
    with spaces, no delimiter."""
    path = tmp_path / "loads.prn"
    path.write_bytes(b"jobCode   loadNo    loadDate\r\nJ1        L1        2026-11-01\r\n"
                     b"J1        L2        2026-11-02\r\n")
    out = inspect(path)
    assert out["error"]["code"] == "UNSUPPORTED_MIME", out
    assert ".prn" in out["error"]["message"] and "save the sheet as .xlsx or CSV" in out["error"]["message"]
    # One column with a space in its name, or a CSV, is still a CSV.
    path.write_bytes(b"job code\nJ 1\n")
    assert inspect(path)["format"] == "csv"
    path.write_bytes(b"jobCode,  loadNo,  loadDate\nJ1,  L1,  2026-11-01\n")
    assert "error" not in inspect(path)
