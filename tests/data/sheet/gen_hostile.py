#!/usr/bin/python3
"""Writes the hostile and broken fixtures (hostile/*) and their expected
`loadline inspect` result (expected/hostile/*.json): zip bombs, XML entity
attacks, macros, damaged packages, non-spreadsheet files.  Packages are made
with Python's zipfile from the openpyxl fixture loads_basic.xlsx, changing one
thing each; run gen_openpyxl.py first.

Run: /usr/bin/python3 gen_hostile.py
"""
import io
import json
import os
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")
BASE = os.path.join(HERE, "openpyxl", "loads_basic.xlsx")
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def write(name, data, code, fmt="xlsx"):
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(os.path.join(HERE, "expected", "hostile"), exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    exp = {"error": {"code": code}}
    if fmt == "xlsx":
        exp = {"format": "xlsx", "encoding": "xlsx", "delimiter": None, "error": {"code": code}}
    elif fmt == "csv":
        exp = {"format": "csv", "encoding": "utf-8", "delimiter": ",", "error": {"code": code}}
    with open(os.path.join(HERE, "expected", os.path.basename(OUT), name + ".json"), "w") as f:
        json.dump(exp, f, indent=2)
        f.write("\n")


def base_parts():
    with zipfile.ZipFile(BASE) as z:
        return {n: z.read(n) for n in z.namelist()}


def package(changes=None, drop=(), compression=zipfile.ZIP_DEFLATED):
    parts = base_parts()
    for n in drop:
        parts.pop(n, None)
    parts.update(changes or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for n, d in parts.items():
            z.writestr(n, d)
    return buf.getvalue()


def sheet(rows_xml):
    return ('<?xml version="1.0"?><worksheet xmlns="%s"><sheetData>%s</sheetData></worksheet>'
            % (MAIN, rows_xml)).encode()


SHEET = "xl/worksheets/sheet1.xml"


def bombs():
    # 1 GB of zeros would take a while to make; 200 MB deflates to ~200 KB
    # (ratio ~1000).  No bare ratio is judged since issue 20: the reader
    # stops at the row limit after ~20 KB of it.
    filler = b"<row><c><v>0</v></c></row>" * (200 * 1024 * 1024 // 26)
    write("zip_bomb_ratio.xlsx", package({SHEET: sheet("") [:-24] + filler + b"</sheetData></worksheet>"}),
          "TOO_MANY_ROWS")
    # Under the 50 MB budget, 120x: read (12 MB of white space, no row).
    filler = b" " * (12 * 1024 * 1024)
    write("zip_bomb_ratio_small.xlsx", package({SHEET: sheet("")[:-24] + filler + b"</sheetData></worksheet>"}),
          "EMPTY_FILE")
    # (Many parts each under the ratio but together past 50 MB would be a
    # multi-megabyte fixture: tests/unit/sheet covers it with lowered limits.)
    # A zip whose headers lie: the sheet is declared 100 bytes but inflates
    # to far more; the reader must count what comes out, not trust headers.
    real = sheet("".join('<row r="%d"><c t="inlineStr"><is><t>x</t></is></c></row>' % (i + 1)
                         for i in range(2000)))
    data = bytearray(package({SHEET: real}))
    for sig, size_off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = 0
        while True:
            at = data.find(sig, at)
            if at < 0:
                break
            name_len_off = 26 if sig == b"PK\x03\x04" else 28
            nlen = struct.unpack_from("<H", data, at + name_len_off)[0]
            name_at = at + (30 if sig == b"PK\x03\x04" else 46)
            if bytes(data[name_at:name_at + nlen]) == SHEET.encode():
                struct.pack_into("<I", data, at + size_off, 100)
            at += 4
    write("lying_sizes.xlsx", bytes(data), "MALFORMED_XLSX")


def xml_attacks():
    lol = '<!ENTITY lol0 "lololololololololol">' + "".join(
        '<!ENTITY lol%d "%s">' % (i, ("&lol%d;" % (i - 1)) * 10) for i in range(1, 10))
    write("billion_laughs.xlsx", package({SHEET: (
        '<?xml version="1.0"?><!DOCTYPE worksheet [%s]><worksheet xmlns="%s"><sheetData>'
        '<row r="1"><c t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>'
        % (lol, MAIN)).encode()}), "MALFORMED_XLSX")
    # openpyxl writes inline strings: add the shared strings part and its
    # relationship so that the reader opens it.
    rels = base_parts()["xl/_rels/workbook.xml.rels"].decode().replace("</Relationships>", (
        '<Relationship Id="rIdSst" Target="sharedStrings.xml" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/sharedStrings"/></Relationships>'))
    write("billion_laughs_sst.xlsx", package({"xl/_rels/workbook.xml.rels": rels.encode(),
                                              "xl/sharedStrings.xml": (
        '<?xml version="1.0"?><!DOCTYPE sst [%s]><sst xmlns="%s"><si><t>&lol9;</t></si></sst>'
        % (lol, MAIN)).encode()}), "MALFORMED_XLSX")
    write("external_entity.xlsx", package({SHEET: (
        '<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        '<worksheet xmlns="%s"><sheetData><row r="1"><c t="inlineStr"><is><t>&xxe;</t></is></c>'
        '</row></sheetData></worksheet>' % MAIN).encode()}), "MALFORMED_XLSX")
    write("external_dtd_network.xlsx", package({"xl/workbook.xml": (
        '<?xml version="1.0"?><!DOCTYPE workbook SYSTEM "http://127.0.0.1:9/evil.dtd">'
        '<workbook xmlns="%s"/>' % MAIN).encode()}), "MALFORMED_XLSX")
    write("parameter_entity.xlsx", package({"[Content_Types].xml": (
        b'<?xml version="1.0"?><!DOCTYPE Types [<!ENTITY % ext SYSTEM "http://127.0.0.1:9/x">%ext;]>'
        b'<Types/>')}), "MALFORMED_XLSX")
    write("corrupt_sheet_xml.xlsx", package({SHEET: sheet('<row r="1"><c><v>1</v></c>')[:-30]}),
          "MALFORMED_XLSX")
    write("shared_string_out_of_range.xlsx",
          package({SHEET: sheet('<row r="1"><c t="s"><v>9999</v></c></row>')}), "MALFORMED_XLSX")


def macros():
    ct = base_parts()["[Content_Types].xml"].decode()
    write("vba_project.xlsx", package({"xl/vbaProject.bin": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)}),
          "MACRO_REJECTED")
    write("xlsm_content_type.xlsx", package({"[Content_Types].xml": ct.replace(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
        "application/vnd.ms-excel.sheet.macroEnabled.main+xml").encode()}), "MACRO_REJECTED")
    write("excel4_macrosheet.xlsx", package({"[Content_Types].xml": ct.replace(
        "</Types>", '<Override PartName="/xl/macrosheets/sheet1.xml" '
        'ContentType="application/vnd.ms-excel.macrosheet+xml"/></Types>').encode(),
        "xl/macrosheets/sheet1.xml": ('<xm:macrosheet xmlns:xm="http://schemas.microsoft.com/office/'
                                      'excel/2006/main"><sheetData/></xm:macrosheet>').encode()}),
        "MACRO_REJECTED")


def damaged():
    good = open(BASE, "rb").read()
    write("truncated.xlsx", good[: len(good) * 2 // 3], "MALFORMED_XLSX")
    # Flip a byte in the middle of the worksheet's compressed data: inflating
    # fails or the CRC-32 check does.
    flipped = bytearray(good)
    at = flipped.find(b"PK\x03\x04" + good[4:6])
    while flipped[at + 30:at + 30 + len(SHEET)] != SHEET.encode():
        at = flipped.find(b"PK\x03\x04", at + 4)
    comp = struct.unpack_from("<I", flipped, at + 18)[0]
    start = at + 30 + len(SHEET) + struct.unpack_from("<H", flipped, at + 28)[0]
    flipped[start + comp // 2] ^= 0xFF
    write("bad_crc.xlsx", bytes(flipped), "MALFORMED_XLSX")
    write("no_workbook.xlsx", package(drop=["xl/workbook.xml"]), "MALFORMED_XLSX")
    write("no_content_types.xlsx", package(drop=["[Content_Types].xml"]) , "UNSUPPORTED_MIME", fmt=None)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("readme.txt", "just a zip")
    write("plain.zip", buf.getvalue(), "UNSUPPORTED_MIME", fmt=None)


def not_spreadsheets():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))
    write("image.png", png, "UNSUPPORTED_MIME", fmt=None)
    # UTF-16 with a BOM is read since PRODUCT §14 (Excel's "Unicode Text"):
    # no longer hostile, its expectation is the rows (written by hand).
    with open(os.path.join(OUT, "utf16.csv"), "wb") as f:
        f.write("\ufeffJob,Load\r\nJ1,L1\r\n".encode("utf-16-le"))
    write("random.bin", bytes((i * 37 + 11) % 256 for i in range(4096)), "UNSUPPORTED_MIME", fmt=None)
    write("gzip.csv.gz", b"\x1f\x8b\x08\x00" + bytes(20), "UNSUPPORTED_MIME", fmt=None)
    # Text with a stray NUL stays text, and so fails as a CSV.
    write("stray_nul.csv", b"Job,Load\r\nJ1,L1\x00\r\n", "MALFORMED_CSV", fmt="csv")


def regressions():
    """Reproducers of what fuzzing found, as fixtures (regress/)."""
    global OUT
    saved, OUT = OUT, os.path.join(HERE, "regress")
    os.makedirs(os.path.join(HERE, "expected", "regress"), exist_ok=True)
    # fuzz_xlsx, round 2: a part declaring an encoding its bytes are not in
    # made libxml2 print "encoding error" to stderr (its global handler),
    # which in the service is the log.  Now silent; the file is malformed.
    write("sheet_bad_shift_jis.xlsx", package({SHEET: (
        b'<?xml version="1.0" encoding="SHIFT_JIS"?><worksheet>\x00\x00\x00\x00\xff\xfe</worksheet>')}),
        "MALFORMED_XLSX")
    OUT = saved


if __name__ == "__main__":
    bombs()
    xml_attacks()
    macros()
    damaged()
    not_spreadsheets()
    regressions()
