"""Issue 12 (found from outside): the shared string table of an XLSX is
capped by count and by text, with a clear MALFORMED_XLSX message, instead
of ~80 MB of memory per parse.  Since issue 29 `inspect` reads as an import
does: the table spills to LOADLINE_SPOOL_DIR, its count cap is 1,000,000 or
32 entries a row of LOADLINE_MAX_ROWS, its text the expansion budget."""
import base64
import io
import json
import os
import pathlib
import subprocess
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("LOADLINE_BIN", str(REPO / "build" / "loadline"))

CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      '<Default Extension="xml" ContentType="application/xml"/>'
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
      '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
      '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>')
WB = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
      '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>')
WB_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
           '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
           '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
           '</Relationships>')
SHEET = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
         '<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>'
         '</sheetData></worksheet>')


def workbook(strings, path):
    sst = io.StringIO()
    sst.write('<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')
    for s in strings:
        sst.write("<si><t>%s</t></si>" % s)
    sst.write("</sst>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CT)
        z.writestr("_rels/.rels", RELS)
        z.writestr("xl/workbook.xml", WB)
        z.writestr("xl/_rels/workbook.xml.rels", WB_RELS)
        z.writestr("xl/worksheets/sheet1.xml", SHEET)
        z.writestr("xl/sharedStrings.xml", sst.getvalue())


def inspect(path, **env):
    # The file limit is lifted: the caps under test are the table's own.
    env = dict(os.environ, LOADLINE_MAX_FILE_BYTES="200000000", **env)
    p = subprocess.run([BIN, "inspect", str(path)], capture_output=True, timeout=120, env=env)
    return json.loads(p.stdout)


def random_strings(n, size):
    raw = os.urandom(n * size)
    text = base64.b64encode(raw).decode()
    random_strings.last = [text[i * size:(i + 1) * size] for i in range(n)]
    return random_strings.last


def test_too_many_shared_strings(tmp_path):
    """The count cap: 1,000,000 entries at the default row limit, and 32 a
    row of LOADLINE_MAX_ROWS past it (the table spills to LOADLINE_SPOOL_DIR,
    as in an import, so its size is not memory)."""
    path = tmp_path / "many.xlsx"
    workbook(random_strings(1000001, 6), path)
    out = inspect(path)
    assert out.get("error", {}).get("code") == "MALFORMED_XLSX", out
    assert "more entries than LOADLINE_MAX_ROWS allows (32 a row, 1,000,000 at least)" in out["error"]["message"], out
    out = inspect(path, LOADLINE_MAX_ROWS="40000", LOADLINE_SPOOL_DIR=str(tmp_path))
    assert "error" not in out and len(out["rows"]) == 1, out   # 1,280,000 entries allowed
    assert os.listdir(tmp_path) == ["many.xlsx"]   # the spool files were anonymous


def test_too_much_shared_text(tmp_path):
    """17.2 MB of text was past the 16 MB cap of a table held in memory; it
    spills now and reads.  The text stays bounded by the expansion budget
    (50 MB at 750 rows), which a bigger table meets first."""
    path = tmp_path / "big.xlsx"
    workbook(random_strings(4200, 4096), path)   # 17.2 MB of text
    out = inspect(path)
    assert "error" not in out and out["rows"][0]["cells"][0] == random_strings.last[1], out
    workbook(random_strings(12800, 4096), path)   # 52.4 MB of text
    out = inspect(path)
    assert out.get("error", {}).get("code") == "MALFORMED_XLSX", out
    assert "expands past the size limit" in out["error"]["message"], out


def test_a_table_within_the_caps_reads(tmp_path):
    path = tmp_path / "ok.xlsx"
    workbook(["jobCode", "J1"] + random_strings(20000, 8), path)
    out = inspect(path)
    assert "error" not in out, out
