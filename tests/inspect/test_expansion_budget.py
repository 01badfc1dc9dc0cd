"""Issue 20, item 1 (high): shared-string amplification.  A workbook whose
cells all refer to one long shared string cost memory per reference (a
40 KB upload took 130 MB, 650 KB took 2.35 GB).  The text every cell expands
to (shared strings included) now counts against the expansion budget, a
cell holds at most 32,767 characters (CELL_TOO_LONG), and peak memory stays
within the bound docs/sheet.md states ("Memory").

The peak is the child's own maximum resident set (os.wait4), measured
against the documented bound for the default limits; an ASan build
(LOADLINE_BIN of `make check`) keeps freed memory in quarantine and adds
shadow memory, so its allowance is larger (docs/sheet.md says by how much).
"""
import base64
import json
import os
import pathlib
import subprocess
import zipfile

import pytest

from harness.jobs import col_letter

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("LOADLINE_BIN", str(REPO / "build" / "loadline"))

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      '<Default Extension="xml" ContentType="application/xml"/>'
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      '</Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>')
WB = ('<?xml version="1.0" encoding="UTF-8"?><workbook ' + NS + ' '
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
      '<sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>')
WB_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
           '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
           '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
           '</Relationships>')

# docs/sheet.md, "Memory": a read at the default limits stays under this
# (the file, the shared-string table, one row, and 50 MB of cell text
# handed to the caller).  inspect holds what it prints in a temporary file.
BOUND_MB = 160
# ASan: shadow memory (1/8), redzones and a 256 MB quarantine of freed blocks.
ASAN_BOUND_MB = 480


def is_asan(path):
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


def write_workbook(path, shared, sheet_rows):
    """shared: list of strings; sheet_rows: the <row> elements' XML."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CT)
        z.writestr("_rels/.rels", RELS)
        z.writestr("xl/workbook.xml", WB)
        z.writestr("xl/_rels/workbook.xml.rels", WB_RELS)
        z.writestr("xl/sharedStrings.xml", '<?xml version="1.0" encoding="UTF-8"?><sst %s>%s</sst>'
                   % (NS, "".join("<si><t>%s</t></si>" % s for s in shared)))
        z.writestr("xl/worksheets/sheet1.xml", '<?xml version="1.0" encoding="UTF-8"?><worksheet %s><sheetData>%s'
                   '</sheetData></worksheet>' % (NS, "".join(sheet_rows)))


def hostile(path, length, refs_per_row, rows=750):
    """Header jobCode/loadNo/loadDate, then `rows` rows whose cells all refer
    to one random string of `length` characters (incompressible, so the
    file's size is about length * 3/4)."""
    big = base64.b64encode(os.urandom(length))[:length].decode()
    cols = "ABCDEFGHIJ"
    head = '<row r="1">%s</row>' % "".join('<c r="%s1" t="s"><v>%d</v></c>' % (cols[i], i + 1) for i in range(3))
    body = ['<row r="%d">%s</row>' % (r, "".join('<c r="%s%d" t="s"><v>0</v></c>' % (cols[i], r)
                                                  for i in range(refs_per_row))) for r in range(2, rows + 2)]
    write_workbook(path, [big, "jobCode", "loadNo", "loadDate"], [head] + body)


# The peak is the child's ru_maxrss (os.wait4).  Linux counts in it the
# memory of the process it was forked from, up to the exec: forked from the
# test's Python (holding the workbooks and the output) it would be that
# Python's size.  So a small Python forks loadline and reports its peak.
MEASURE = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(ru.ru_maxrss))
"""


def peak_mb(path, env=None):
    """inspect's JSON output and its peak resident set in MB."""
    e = dict(os.environ, **(env or {}))
    e.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    rss = str(path) + ".maxrss"
    with open(os.devnull, "wb") as null:
        p = subprocess.run(["/usr/bin/python3", "-S", "-c", MEASURE, rss, BIN, "inspect", str(path)],
                           stdout=subprocess.PIPE, stderr=null, env=e, timeout=300)
    with open(rss) as f:
        kb = int(f.read())
    return json.loads(p.stdout), kb / 1024.0


def bound():
    return ASAN_BOUND_MB if is_asan(BIN) else BOUND_MB


@pytest.mark.parametrize("length,refs", [(50000, 3), (350000, 3), (860000, 3)], ids=["40KB", "270KB", "650KB"])
def test_one_long_string_many_references(tmp_path, length, refs):
    """The issue's three hostile sizes: refused (the cell is past Excel's
    32,767 characters) within the bound, the first reference enough."""
    path = tmp_path / "hostile.xlsx"
    hostile(path, length, refs)
    out, mb = peak_mb(path)
    assert out.get("error", {}).get("code") == "CELL_TOO_LONG", out
    assert "32,767 characters" in out["error"]["message"], out
    assert out["error"]["message"].startswith("row 2: "), out
    assert mb < bound(), "peak %.0f MB for a %d-byte file" % (mb, path.stat().st_size)


def test_references_under_the_cell_cap_count_against_the_budget(tmp_path):
    """Cells of 32,000 characters each, 750 rows x 3 references (72 MB of
    text from a 30 KB file): past the 50 MB budget, refused within the
    bound, on the row that crosses it."""
    path = tmp_path / "budget.xlsx"
    hostile(path, 32000, 3)
    out, mb = peak_mb(path)
    assert out.get("error", {}).get("code") == "MALFORMED_XLSX", out
    assert "50 MB" in out["error"]["message"], out
    assert mb < bound(), "peak %.0f MB for a %d-byte file" % (mb, path.stat().st_size)


def test_a_workbook_within_the_budget_reads(tmp_path):
    """Just under the budget (750 rows x 2 references to 32,000 characters,
    48 MB of text): every row is read, within the bound."""
    path = tmp_path / "ok.xlsx"
    hostile(path, 32000, 2)
    out, mb = peak_mb(path)
    assert "error" not in out, out.get("error")
    assert len(out["rows"]) == 750
    assert len(out["rows"][749]["cells"][1]) == 32000
    assert mb < bound(), "peak %.0f MB" % mb


def test_cell_cap_counts_characters_as_excel_does(tmp_path):
    """32,767 characters is Excel's limit, counted in UTF-16 units: 32,767
    'é' (65,534 bytes) read; one more is refused."""
    for n, ok in ((32767, True), (32768, False)):
        path = tmp_path / ("c%d.xlsx" % n)
        write_workbook(path, ["jobCode", "\u00e9" * n],
                       ['<row r="1"><c r="A1" t="s"><v>0</v></c></row>',
                        '<row r="2"><c r="A2" t="s"><v>1</v></c></row>'])
        out, _ = peak_mb(path)
        if ok:
            assert "error" not in out, out
            assert len(out["rows"][0]["cells"][0]) == n
        else:
            assert out["error"]["code"] == "CELL_TOO_LONG", out
            assert out["error"]["message"].startswith("row 2: column A has 32,768 characters"), out


def test_csv_cell_cap(tmp_path):
    path = tmp_path / "long.csv"
    path.write_bytes(b"jobCode,notes\nJ1," + b"x" * 40000 + b"\n")
    out, _ = peak_mb(path)
    assert out["error"]["code"] == "CELL_TOO_LONG", out
    assert out["error"]["message"].startswith("row 2: column B has 40,000 characters"), out


def test_one_row_of_inline_text_near_the_budget(tmp_path):
    """The most one row can hold: 1,600 inline cells of 30,000 characters
    (48 MB of text, deflated to ~0.1 MB because they repeat) — queued,
    rendered and printed within the bound."""
    path = tmp_path / "row.xlsx"
    text = "x" * 30000
    cells = "".join('<c r="%s2" t="inlineStr"><is><t>%s</t></is></c>' % (col_letter(i), text) for i in range(1600))
    write_workbook(path, ["jobCode"], ['<row r="1"><c r="A1" t="s"><v>0</v></c></row>', '<row r="2">%s</row>' % cells])
    out, mb = peak_mb(path)
    assert "error" not in out, out.get("error")
    assert len(out["rows"][0]["cells"]) == 1600
    assert mb < bound(), "peak %.0f MB for a %d-byte file" % (mb, path.stat().st_size)
