#!/usr/bin/python3
"""Real-world-shaped regression fixtures for issue 12 ("real files, read
right"), written into regress/ with their expectations in expected/regress/.
Each stands for files found in public projects' test corpora:
- backslash_entries.xlsx: zip entries named "xl\\workbook.xml" (some report
  exporters; Excel opens them) -> read like the original.
- local_header_mtime.xlsx, local_header_version.xlsx: local headers that
  differ slightly from the central directory (unzip, Python, POI accept
  them) -> read like the original.
- inline_string_with_v.xlsx: an inline-string cell that also carries <v>
  (Excel reads the inline string only) -> "1.0", not "1.01.".
- binary_workbook.xlsb: a binary workbook without VBA -> MACRO_REJECTED
  (its content type is the macro-enabled binary one, PRODUCT §4) with a
  message saying it is an .xlsb to save as .xlsx.
- zero_padded_formats.xlsx (openpyxl): numbers formatted "00000" (ZIP)
  and "00000000" (account numbers) keep their leading zeros: 8817 reads
  "08817" and "00008817", as Excel shows them.
- html_export.xls, spreadsheetml_2003.xml, sylk_export.slk, dif_export.dif:
  "Export to Excel" files that are not CSV or XLSX -> UNSUPPORTED_MIME.
Run from this folder: /usr/bin/python3 gen_realworld.py"""
import json
import os
import shutil
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "openpyxl", "dates_1900.xlsx")
OUT = os.path.join(HERE, "regress")
EXP = os.path.join(HERE, "expected", "regress")


def same_as_source(name):
    shutil.copy(os.path.join(HERE, "expected", "openpyxl", "dates_1900.xlsx.json"), os.path.join(EXP, name + ".json"))


def unsupported(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    with open(os.path.join(EXP, name + ".json"), "w") as f:
        json.dump({"error": {"code": "UNSUPPORTED_MIME"}}, f, indent=2)
        f.write("\n")


INLINE_PARTS = {
    "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    "xl/worksheets/sheet1.xml": '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>version</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>1.0</t></is><v>1.</v></c></row></sheetData></worksheet>',
}


def main():
    os.makedirs(EXP, exist_ok=True)
    zin = zipfile.ZipFile(SRC)
    with zipfile.ZipFile(os.path.join(OUT, "backslash_entries.xlsx"), "w", zipfile.ZIP_DEFLATED) as z:
        for i in zin.infolist():
            zi = zipfile.ZipInfo(i.filename.replace("/", "\\"), date_time=(2024, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, zin.read(i.filename))
    same_as_source("backslash_entries.xlsx")
    data = bytearray(open(SRC, "rb").read())
    assert data[:4] == b"PK\x03\x04"
    mtime = bytearray(data)
    mtime[10] ^= 0x21            # the first local header's time only
    open(os.path.join(OUT, "local_header_mtime.xlsx"), "wb").write(mtime)
    same_as_source("local_header_mtime.xlsx")
    version = bytearray(data)
    version[4] = 63              # "version needed to extract" of the local header only
    open(os.path.join(OUT, "local_header_version.xlsx"), "wb").write(version)
    same_as_source("local_header_version.xlsx")
    with zipfile.ZipFile(os.path.join(OUT, "inline_string_with_v.xlsx"), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in INLINE_PARTS.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text)
    with open(os.path.join(EXP, "inline_string_with_v.xlsx.json"), "w") as f:
        json.dump({"format": "xlsx", "encoding": "xlsx", "delimiter": None, "headerRow": 1,
                   "headers": ["version"], "rows": [{"row": 2, "cells": ["1.0"]}]}, f, indent=2)
        f.write("\n")
    xlsb = dict(INLINE_PARTS)
    xlsb["[Content_Types].xml"] = xlsb["[Content_Types].xml"].replace(
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>',
        '<Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/>')
    del xlsb["xl/workbook.xml"]
    with zipfile.ZipFile(os.path.join(OUT, "binary_workbook.xlsb"), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in xlsb.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text)
        z.writestr(zipfile.ZipInfo("xl/workbook.bin", date_time=(2024, 1, 1, 0, 0, 0)), bytes(range(256)) * 4)
    with open(os.path.join(EXP, "binary_workbook.xlsb.json"), "w") as f:
        json.dump({"format": "xlsx", "encoding": "xlsx", "delimiter": None, "error": {"code": "MACRO_REJECTED"}},
                  f, indent=2)
        f.write("\n")
    import openpyxl
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["zip", "account", "plain"])
    ws.append([8817, 4711, 8817])
    ws["A2"].number_format = "00000"
    ws["B2"].number_format = "00000000"
    path = os.path.join(OUT, "zero_padded_formats.xlsx")
    wb.save(path)
    # openpyxl stamps the time: rewrite with fixed dates so the file is reproducible.
    zin = zipfile.ZipFile(path)
    parts = [(i.filename, zin.read(i.filename)) for i in zin.infolist()]
    zin.close()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts:
            if name == "docProps/core.xml":
                continue
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)
    with open(os.path.join(EXP, "zero_padded_formats.xlsx.json"), "w") as f:
        json.dump({"format": "xlsx", "encoding": "xlsx", "delimiter": None, "headerRow": 1,
                   "headers": ["zip", "account", "plain"],
                   "rows": [{"row": 2, "cells": ["08817", "00004711", "8817"]}]}, f, indent=2)
        f.write("\n")
    unsupported("html_export.xls", b"<html><head><meta charset=\"utf-8\"></head><body><table>"
                b"<tr><td>jobCode</td><td>loadNo</td></tr><tr><td>J1</td><td>1</td></tr></table></body></html>\n")
    unsupported("spreadsheetml_2003.xml",
                b'<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n'
                b'<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" '
                b'xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="Loads"><Table>'
                b'<Row><Cell><Data ss:Type="String">jobCode</Data></Cell></Row></Table></Worksheet></Workbook>\n')
    unsupported("sylk_export.slk", b"ID;PWXL;N;E\r\nC;Y1;X1;K\"jobCode\"\r\nC;Y2;X1;K\"J1\"\r\nE\r\n")
    unsupported("dif_export.dif", b"TABLE\r\n0,1\r\n\"EXCEL\"\r\nVECTORS\r\n0,1\r\n\"\"\r\nTUPLES\r\n0,2\r\n\"\"\r\n"
                b"DATA\r\n0,0\r\n\"\"\r\n-1,0\r\nBOT\r\n1,0\r\n\"jobCode\"\r\n-1,0\r\nEOD\r\n")


if __name__ == "__main__":
    main()
