#!/usr/bin/python3
"""Writes the openpyxl fixtures (openpyxl/*.xlsx) and their expected
`loadline inspect` output (expected/openpyxl/*.json), both from one
description per workbook, so the expectation is what was meant, not what the
reader happened to produce.

Run with Debian's python3-openpyxl:  /usr/bin/python3 gen_openpyxl.py
openpyxl writes inline strings (t="inlineStr"), booleans, error cells,
number formats in styles.xml, and the 1904 date system on request.
"""
import datetime
import json
import os

import openpyxl
from openpyxl.utils import get_column_letter
from openpyxl.workbook.workbook import Workbook
from openpyxl.utils.datetime import CALENDAR_MAC_1904

HERE = os.path.dirname(os.path.abspath(__file__))


class Cell:
    """A value to write, its number format, and the text the reader must show."""

    def __init__(self, value, text, fmt=None, kind=None):
        self.value, self.text, self.fmt, self.kind = value, text, fmt, kind


def C(value, text=None, fmt=None, kind=None):
    return Cell(value, str(value) if text is None else text, fmt, kind)


def put(ws, rows):
    """rows: {row number: [Cell or None, ...]} (None = no cell written)."""
    for r, cells in rows.items():
        for j, c in enumerate(cells):
            if c is None:
                continue
            cell = ws.cell(row=r, column=j + 1)
            cell.value = c.value
            if c.kind:
                cell.data_type = c.kind
            if c.fmt:
                cell.number_format = c.fmt


def expectation(rows):
    """Header = first row with text; data rows = the other non-blank rows."""
    out = []
    for r in sorted(rows):
        cells = rows[r]
        texts = ["" if c is None else c.text for c in cells]
        while texts and texts[-1] == "" and cells[len(texts) - 1] is None:
            texts.pop()
        if any(t.strip() for t in texts):
            out.append((r, texts))
    head, data = out[0], out[1:]
    return {
        "format": "xlsx", "encoding": "xlsx", "delimiter": None,
        "headerRow": head[0], "headers": head[1],
        "rows": [{"row": r, "cells": t} for r, t in data],
    }


def save(wb, name, expected):
    os.makedirs(os.path.join(HERE, "openpyxl"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "expected", "openpyxl"), exist_ok=True)
    wb.save(os.path.join(HERE, "openpyxl", name + ".xlsx"))
    with open(os.path.join(HERE, "expected", "openpyxl", name + ".xlsx.json"), "w") as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write("\n")


def loads_basic():
    """Types a jobs file carries: text that looks numeric, dates, numbers
    that float arithmetic would spoil, booleans, errors, a blank row."""
    rows = {
        1: [C("Job Code"), C("Load #"), C("Load Date"), C("Weight"), C("Rate"), C("Zip"),
            C("Paid"), C("Check"), C("Notes")],
        2: [C("J-100"), C("0012"), C(datetime.date(2024, 1, 5), "2024-01-05", "yyyy-mm-dd"),
            C(12.5), C(1250), C("02134"), C(True, "TRUE"), C("#N/A", "#N/A", kind="e"), C("first")],
        3: [C("J-100"), C("0013"), C(datetime.date(2024, 2, 29), "2024-02-29", "m/d/yyyy"),
            C(0.1 + 0.2, "0.3"), C(1234567.891), C("60601"), C(False, "FALSE"), None,
            C("line one\nline two")],
        5: [C("J-200"), C("1"), C(datetime.datetime(2024, 3, 1, 13, 45, 30), "2024-03-01T13:45:30",
                                   "yyyy-mm-dd hh:mm:ss"),
            C(100000, "100000"), C(1e-7, "0.0000001"), None, None, None, C("  spaced  ")],
        6: [C("J-200"), C("2"), C(45000, "2023-03-15", "d-mmm-yy"), C(-42.75), C(123456789012345678,
                                                                               "123456789012346000"),
            C(12345, "12345", "00000"), None, None, C("Ünïcödé – “quotes” €")],
    }
    wb = Workbook()
    ws = wb.active
    ws.title = "Loads"
    put(ws, rows)
    save(wb, "loads_basic", expectation(rows))


def dates_1904():
    """The Mac 1904 date system, with built-in and custom date formats and
    a time-only format."""
    rows = {
        1: [C("Date"), C("Also date"), C("Time"), C("Number")],
        2: [C(datetime.date(2024, 1, 5), "2024-01-05", "mm-dd-yy"),
            C(datetime.datetime(2023, 12, 31, 6, 30), "2023-12-31T06:30:00", "dd/mm/yyyy hh:mm"),
            C(datetime.time(18, 15), "18:15:00", "h:mm AM/PM"), C(3.14159)],
        3: [C(datetime.date(1904, 1, 2), "1904-01-02", "yyyy-mm-dd"),
            C(datetime.date(2000, 2, 29), "2000-02-29", "[$-409]mmmm d, yyyy;@"),
            C(datetime.time(0, 0, 1), "00:00:01", "hh:mm:ss"), C(7)],
    }
    wb = Workbook()
    wb.epoch = CALENDAR_MAC_1904
    put(wb.active, rows)
    save(wb, "dates_1904", expectation(rows))


def dates_1900():
    """1900 system edge cases: before and after Excel's fictitious 1900-02-29."""
    rows = {
        1: [C("Date")],
        2: [C(datetime.date(1900, 1, 1), "1900-01-01", "yyyy-mm-dd")],
        3: [C(datetime.date(1900, 2, 28), "1900-02-28", "yyyy-mm-dd")],
        4: [C(datetime.date(1900, 3, 1), "1900-03-01", "yyyy-mm-dd")],
        5: [C(datetime.date(9999, 12, 31), "9999-12-31", "yyyy-mm-dd")],
    }
    wb = Workbook()
    put(wb.active, rows)
    save(wb, "dates_1900", expectation(rows))


def hidden_first():
    rows_hidden = {1: [C("WRONG")], 2: [C("hidden sheet")]}
    rows = {1: [C("Job"), C("Load")], 2: [C("J1"), C("L1")]}
    wb = Workbook()
    hidden = wb.active
    hidden.title = "Hidden"
    put(hidden, rows_hidden)
    hidden.sheet_state = "hidden"
    visible = wb.create_sheet("Visible")
    put(visible, rows)
    wb.active = 1
    save(wb, "hidden_first", expectation(rows))


def sparse_merged():
    """Gaps between cells and rows, a blank header column, merged cells
    (the value sits in the top-left cell only)."""
    rows = {
        2: [C("Job"), None, C("Load"), C(""), C("Date")],
        4: [None, C("b4")],
        7: [C("merged value"), None, None, None, C("e7")],
        9: [None, None, None, None, C("last")],
    }
    wb = Workbook()
    ws = wb.active
    put(ws, rows)
    ws.merge_cells("A7:C8")
    exp = expectation(rows)
    save(wb, "sparse_merged", exp)


def limits():
    wb = Workbook()
    ws = wb.active
    for j in range(101):
        ws.cell(row=1, column=j + 1, value="h%d" % j)
    ws.cell(row=2, column=1, value="x")
    save(wb, "too_many_headers", {"format": "xlsx", "encoding": "xlsx", "delimiter": None,
                                  "error": {"code": "TOO_MANY_HEADERS"}})

    rows = {1: [C("h%d" % j) for j in range(100)] + [C("")] * 3, 2: [C("x")]}
    wb = Workbook()
    put(wb.active, rows)
    save(wb, "hundred_headers", expectation(rows))

    wb = Workbook()
    ws = wb.active
    ws.append(["Job", "Load"])
    for i in range(751):
        ws.append(["J", str(i)])
    save(wb, "too_many_rows", {"format": "xlsx", "encoding": "xlsx", "delimiter": None,
                               "error": {"code": "TOO_MANY_ROWS"}})

    wb = Workbook()
    wb.active.append(["Job", "Load"])
    save(wb, "header_only", {"format": "xlsx", "encoding": "xlsx", "delimiter": None,
                             "error": {"code": "EMPTY_FILE"}})

    wb = Workbook()
    save(wb, "no_rows", {"format": "xlsx", "encoding": "xlsx", "delimiter": None,
                         "error": {"code": "EMPTY_FILE"}})


if __name__ == "__main__":
    print("openpyxl", openpyxl.__version__)
    loads_basic()
    dates_1904()
    dates_1900()
    hidden_first()
    sparse_merged()
    limits()
