"""Issue 12 (real files): the messages a user gets for files that are not
CSV or XLSX, or that Loadline refuses, say what the file is and what to do
(fixtures: tests/data/sheet/gen_realworld.py)."""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("LOADLINE_BIN", str(REPO / "build" / "loadline"))
REGRESS = REPO / "tests" / "data" / "sheet" / "regress"


def error_of(name):
    p = subprocess.run([BIN, "inspect", str(REGRESS / name)], capture_output=True, timeout=60)
    return json.loads(p.stdout)["error"]


def test_binary_workbook_says_xlsb_and_save_as_xlsx():
    e = error_of("binary_workbook.xlsb")
    assert e["code"] == "MACRO_REJECTED"
    assert ".xlsb" in e["message"] and "save it as .xlsx" in e["message"], e
    assert "macro-enabled (its content type says so)" not in e["message"]


@pytest.mark.parametrize("name,what", [("html_export.xls", "HTML page"),
                                       ("spreadsheetml_2003.xml", "Excel 2003 XML"),
                                       ("sylk_export.slk", "SYLK"), ("dif_export.dif", "DIF")])
def test_exports_that_are_not_spreadsheets_say_what_they_are(name, what):
    e = error_of(name)
    assert e["code"] == "UNSUPPORTED_MIME"
    assert what in e["message"] and "save it as .xlsx or CSV" in e["message"], e
