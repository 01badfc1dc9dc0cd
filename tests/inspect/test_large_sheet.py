"""Issue 12 (real files): a large legitimate workbook (here 54 MB of sheet
XML, 9,999 rows, beyond the 50 MB expansion limit) is TOO_MANY_ROWS — the
reader stops at the row limit before the expansion limit speaks — not
MALFORMED_XLSX "zip bomb?"."""
import base64
import io
import json
import os
import subprocess
import zipfile

from test_shared_strings_cap import BIN, CT, RELS, WB, WB_RELS


def column(c):
    s = ""
    while True:
        s = chr(65 + c % 26) + s
        c = c // 26 - 1
        if c < 0:
            return s


def big_workbook(path, rows, cols=100):
    letters = [column(c) for c in range(cols)]
    text = base64.b64encode(os.urandom(rows * cols * 5)).decode()
    out = io.StringIO()
    out.write('<?xml version="1.0" encoding="UTF-8"?><worksheet '
              'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
    k = 0
    for r in range(1, rows + 1):
        out.write('<row r="%d">' % r)
        for c in range(cols):
            out.write('<c r="%s%d" t="inlineStr"><is><t>%s</t></is></c>' % (letters[c], r, text[k:k + 6]))
            k += 6
        out.write("</row>")
    out.write("</sheetData></worksheet>")
    sst_ct = ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
              'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
    sst_rel = ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
               'relationships/sharedStrings" Target="sharedStrings.xml"/>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CT.replace(sst_ct, ""))
        z.writestr("_rels/.rels", RELS)
        z.writestr("xl/workbook.xml", WB)
        z.writestr("xl/_rels/workbook.xml.rels", WB_RELS.replace(sst_rel, ""))
        z.writestr("xl/worksheets/sheet1.xml", out.getvalue())
    return len(out.getvalue())


def test_large_sheet_is_too_many_rows_not_a_bomb(tmp_path):
    path = tmp_path / "big.xlsx"
    xml_bytes = big_workbook(path, 9999)
    assert xml_bytes > 50 * 1024 * 1024
    env = dict(os.environ, LOADLINE_MAX_FILE_BYTES="200000000")
    env.pop("LOADLINE_MAX_ROWS", None)
    p = subprocess.run([BIN, "inspect", str(path)], capture_output=True, timeout=120, env=env)
    err = json.loads(p.stdout)["error"]
    assert err["code"] == "TOO_MANY_ROWS", err
