#!/usr/bin/python3
"""Writes the LibreOffice fixtures with Debian's LibreOffice Calc, headless:

  libreoffice/formulas.xlsx          from libreoffice-src/formulas.fods: formulas with
                                     cached values (number, text, error, boolean, date),
                                     rich text runs, a multi-paragraph cell, 2-dp numbers
  libreoffice/typed_from_csv.xlsx    from libreoffice-src/typed.csv: Calc's own type
                                     detection (ISO dates become date cells, 0012 a number)
  libreoffice/roundtrip_*.xlsx       openpyxl fixtures re-saved by Calc (shared strings,
                                     Calc's styles, covered merged cells, hidden sheet, 1904)
  hostile/legacy.xls                 a real BIFF8 .xls            -> UNSUPPORTED_MIME
  hostile/document.pdf               a real PDF                   -> UNSUPPORTED_MIME
  hostile/encrypted_*.xlsx           saved with a password (OLE2 + EncryptionInfo,
                                     through the UNO API)         -> MALFORMED_XLSX

and the expected `loadline inspect` output of each in expected/.

Needs: apt-get install libreoffice-calc-nogui python3-uno; run gen_openpyxl.py first.
Run: /usr/bin/python3 gen_libreoffice.py
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "libreoffice-src")


def soffice(fmt, src, outdir, profile):
    subprocess.run(["soffice", "-env:UserInstallation=file://" + profile, "--headless",
                    "--convert-to", fmt, "--outdir", outdir, src],
                   check=True, capture_output=True, timeout=180)


def expect(rel, data):
    path = os.path.join(HERE, "expected", rel + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")


def xlsx(headers, rows, header_row=1):
    return {"format": "xlsx", "encoding": "xlsx", "delimiter": None, "headerRow": header_row,
            "headers": headers, "rows": [{"row": n, "cells": c} for n, c in rows]}


def unsupported():
    return {"error": {"code": "UNSUPPORTED_MIME"}}


def encrypt(src, targets, profile):
    """Saves src with a password through UNO, once per (path, CryptoType):
    Calc then writes an OLE2 compound file holding EncryptionInfo +
    EncryptedPackage, as Excel does.  Calc 7.4 writes only "Standard"
    (Excel 2007) encryption; Excel 2010+ "Agile" files have the same
    container, which is all the reader looks at."""
    import uno
    from com.sun.star.beans import NamedValue, PropertyValue

    def prop(name, value, cls=PropertyValue):
        p = cls()
        p.Name, p.Value = name, value
        return p

    port = 2302
    proc = subprocess.Popen(["soffice", "-env:UserInstallation=file://" + profile, "--headless",
                             "--invisible", "--norestore",
                             "--accept=socket,host=127.0.0.1,port=%d;urp;" % port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local)
        for _ in range(60):
            try:
                ctx = resolver.resolve(
                    "uno:socket,host=127.0.0.1,port=%d;urp;StarOffice.ComponentContext" % port)
                break
            except Exception:
                time.sleep(0.5)
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        for dst, crypto in targets:
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(src), "_blank", 0,
                                               (prop("Hidden", True),))
            data = uno.Any("[]com.sun.star.beans.NamedValue",
                           (prop("OOXPassword", "secret", NamedValue),
                            prop("CryptoType", crypto, NamedValue)))
            uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(dst), (
                prop("FilterName", "Calc MS Excel 2007 XML"),
                PropertyValue("EncryptionData", 0, data, 0))))
            doc.close(True)
        try:
            desktop.terminate()
        except Exception:
            pass
    finally:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def main():
    out = os.path.join(HERE, "libreoffice")
    hostile = os.path.join(HERE, "hostile")
    os.makedirs(out, exist_ok=True)
    os.makedirs(hostile, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="lo-profile-")
    tmp = tempfile.mkdtemp(prefix="lo-out-")
    try:
        soffice("xlsx", os.path.join(SRC, "formulas.fods"), out, profile)
        expect("libreoffice/formulas.xlsx", xlsx(
            ["Job", "Qty", "Double", "Label", "Ratio", "Big?", "Due", "Shipped", "Rich", "Price"],
            [(2, ["J-1", "21", "42", "J-1/21", "#DIV/0!", "TRUE", "2024-01-05", "2023-12-31",
                  "plain bold end", "1250.5"]),
             (3, ["J-2", "0.1", "0.3", "J-2", "0.333333333333333", "FALSE", "2024-02-05",
                  "multi\nparagraph", "#N/A", "100000"])]))

        soffice("xlsx", os.path.join(SRC, "typed.csv"), tmp, profile)
        shutil.move(os.path.join(tmp, "typed.xlsx"), os.path.join(out, "typed_from_csv.xlsx"))
        # Calc reads 0012 as the number 12 and ISO dates as dates (its
        # defaults); text it cannot type stays text.
        expect("libreoffice/typed_from_csv.xlsx", xlsx(
            ["Job", "Load", "Date", "Weight", "Zip", "Note"],
            [(2, ["J-1", "12", "2024-01-05", "12.5", "2134", "plain"]),
             (4, ["J-2", "13", "2024-12-31", "100000", "60601", "after a blank line"])]))

        for name in ["loads_basic", "dates_1904", "dates_1900", "hidden_first", "sparse_merged"]:
            soffice("xlsx", os.path.join(HERE, "openpyxl", name + ".xlsx"), tmp, profile)
            shutil.move(os.path.join(tmp, name + ".xlsx"),
                        os.path.join(out, "roundtrip_" + name + ".xlsx"))
            with open(os.path.join(HERE, "expected", "openpyxl", name + ".xlsx.json")) as f:
                expect("libreoffice/roundtrip_" + name + ".xlsx", json.load(f))

        base = os.path.join(HERE, "openpyxl", "loads_basic.xlsx")
        for fmt, name in [("xls", "legacy.xls"), ("pdf", "document.pdf")]:
            soffice(fmt, base, tmp, profile)
            shutil.move(os.path.join(tmp, "loads_basic." + fmt), os.path.join(hostile, name))
            expect("hostile/" + name, unsupported())

        encrypted = [("encrypted_standard.xlsx", "Standard")]  # Calc 7.4 cannot write Agile
        encrypt(base, [(os.path.join(hostile, n), c) for n, c in encrypted], profile)
        for name, _ in encrypted:
            expect("hostile/" + name, {"format": "xlsx", "encoding": "xlsx", "delimiter": None,
                                       "error": {"code": "MALFORMED_XLSX"}})
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    print(subprocess.run(["soffice", "--version"], capture_output=True, text=True).stdout.strip())
    main()
