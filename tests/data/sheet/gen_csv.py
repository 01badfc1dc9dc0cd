#!/usr/bin/python3
"""Writes the CSV fixtures (csv/*) and their expected `loadline inspect`
output (expected/csv/*.json) from one description each.

Most files are written by Python's csv module (an independent writer) in
the dialects spreadsheet programs produce: Excel on Windows (Windows-1252,
CRLF), Excel "CSV UTF-8" (BOM), European Excel (semicolons), tab-separated,
old Mac (CR).  Hand-made byte strings cover what no writer produces on
purpose: broken quoting, NUL bytes, blank lines in odd places.

Run: /usr/bin/python3 gen_csv.py
"""
import csv
import io
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "csv")
EXP = os.path.join(HERE, "expected", "csv")

JOBS = [
    ["Job Code", "Load #", "Load Date", "Ship From City", "Weight", "Rate", "Notes"],
    ["J-100", "0012", "2024-01-05", "Montréal", "12.5 t", "$1,250.00", "first load"],
    ["J-100", "0013", "1/6/2024", "Zürich", "24000", "1250", 'say "hello", then leave'],
    ["J-200", "7", "1/7/24", "São Paulo", "3 tons", "€900", "two\r\nlines"],
]


def write(name, data, expected):
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(EXP, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    with open(os.path.join(EXP, name + ".json"), "w") as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write("\n")


def ok(encoding, delimiter, rows, first=1, skip=()):
    """rows[0] is the header; row numbers count from `first`, and the
    numbers in `skip` are blank rows the reader must pass over."""
    numbers = [n for n in range(first, first + len(rows) + len(skip)) if n not in skip]
    return {
        "format": "csv", "encoding": encoding, "delimiter": delimiter,
        "headerRow": numbers[0], "headers": rows[0],
        "rows": [{"row": n, "cells": r} for n, r in zip(numbers[1:], rows[1:])],
    }


def err(code, encoding="utf-8", delimiter=","):
    return {"format": "csv", "encoding": encoding, "delimiter": delimiter, "error": {"code": code}}


def py_csv(rows, delimiter=",", terminator="\r\n"):
    s = io.StringIO()
    w = csv.writer(s, delimiter=delimiter, lineterminator=terminator, quoting=csv.QUOTE_MINIMAL)
    w.writerows(rows)
    return s.getvalue()


def dialects():
    write("excel_windows_1252.csv", py_csv(JOBS).encode("cp1252"), ok("windows-1252", ",", JOBS))
    write("excel_utf8_bom.csv", b"\xef\xbb\xbf" + py_csv(JOBS).encode(), ok("utf-8-bom", ",", JOBS))
    write("utf8_lf.csv", py_csv(JOBS, terminator="\n").encode(), ok("utf-8", ",", JOBS))
    write("semicolon_european.csv", py_csv(JOBS, ";").encode("cp1252"), ok("windows-1252", ";", JOBS))
    write("tab_separated.tsv", py_csv(JOBS, "\t").encode(), ok("utf-8", "\t", JOBS))
    # EDI and freight systems export pipe-delimited text (issue 12).
    write("pipe_separated_edi.txt", py_csv(JOBS, "|").encode(), ok("utf-8", "|", JOBS))
    write("mac_cr.csv", py_csv(JOBS, terminator="\r").encode(), ok("utf-8", ",", JOBS))
    # Windows-1252 specials in 0x80-0x9F: euro, curly quotes, dashes, trade mark.
    special = [["Name", "Note"], ["Caf\u00e9 \u20ac5", "\u201cquoted\u201d \u2013 \u2014 \u2122 \u0160"]]
    write("cp1252_specials.csv", py_csv(special).encode("cp1252"), ok("windows-1252", ",", special))


def hand_made():
    write("blank_rows.csv",
          b"\r\n,,\r\nJob,Load\r\n\r\nJ1,L1\r\n , \r\n\t\r\nJ2,L2\r\n\r\n",
          ok("utf-8", ",", [["Job", "Load"], ["J1", "L1"], ["J2", "L2"]], first=3, skip=(4, 6, 7)))
    write("no_final_newline.csv", b"a,b\n1,2",
          ok("utf-8", ",", [["a", "b"], ["1", "2"]]))
    write("mixed_line_ends.csv", b"a,b\r\n1,2\n3,4\r5,6\r\n",
          ok("utf-8", ",", [["a", "b"], ["1", "2"], ["3", "4"], ["5", "6"]]))
    write("embedded_newlines.csv", b'a,b\n"x\ny",1\n"p\r\nq\rr",2\nlast,3\n',
          ok("utf-8", ",", [["a", "b"], ["x\ny", "1"], ["p\r\nq\rr", "2"], ["last", "3"]]))
    # Excel's leniency: text after a closing quote is kept, a quote inside
    # an unquoted field is a character.
    write("lenient_quotes.csv", b'a,b\n"ab"c,x"y\n"",5 "in"\n',
          ok("utf-8", ",", [["a", "b"], ["abc", 'x"y'], ["", '5 "in"']]))
    write("ragged_rows.csv", b"a,b,c\n1\n1,2,3,4\n,,,,x\n",
          ok("utf-8", ",", [["a", "b", "c"], ["1"], ["1", "2", "3", "4"], ["", "", "", "", "x"]]))
    # The delimiter comes from the header line: commas in data do not count.
    write("semicolon_with_decimal_commas.csv", b"Weight;Rate\n12,5;1.250,00\n",
          ok("utf-8", ";", [["Weight", "Rate"], ["12,5", "1.250,00"]]))
    write("quoted_delimiter_in_header.csv", b'"a;b",c\n1,2\n',
          ok("utf-8", ",", [["a;b", "c"], ["1", "2"]]))
    # Excel's delimiter hint line: not a row, the header is row 1.
    write("excel_sep_line.csv", b"sep=;\r\nJob;Load,No\r\nJ1;1,5\r\n",
          ok("utf-8", ";", [["Job", "Load,No"], ["J1", "1,5"]]))
    # A fix-up file (issue 22) as LibreOffice Calc 7.4 saves it after a
    # person corrected a date: text quoted, numbers bare, LF, and the formula
    # guard kept as text.  The reader takes the guard off (only the guard:
    # 'hello, '5 and ''=x keep their apostrophes); -5 never had one.
    write("fixup_saved_by_libreoffice.csv",
          b'"jobCode","notes","phone","weight","errors"\n'
          b'"J-1","\'=SUM(A1:A3)","\'+1-800-555-0100",-5,"TYPE_MISMATCH: loadDate"\n'
          b'"J-2","\'@risk","\'-- see office",12,""\n'
          b'"J-3","\'hello","\'5","\'\'=x",""\n',
          ok("utf-8", ",", [["jobCode", "notes", "phone", "weight", "errors"],
                            ["J-1", "=SUM(A1:A3)", "+1-800-555-0100", "-5", "TYPE_MISMATCH: loadDate"],
                            ["J-2", "@risk", "-- see office", "12", ""],
                            ["J-3", "'hello", "'5", "''=x", ""]]))
    write("unterminated_quote.csv", b'Job,Load\nJ1,"L1\nJ2,L2\n', err("MALFORMED_CSV"))
    write("nul_byte.csv", b"Job,Load\nJ1,L\x001\n", err("MALFORMED_CSV"))
    write("empty.csv", b"", err("EMPTY_FILE"))
    write("bom_only.csv", b"\xef\xbb\xbf", err("EMPTY_FILE", "utf-8-bom"))
    write("blank_lines_only.csv", b"\n\r\n,,,\n", err("EMPTY_FILE"))
    write("header_only.csv", b"Job,Load,Date\r\n", err("EMPTY_FILE"))


def limits():
    head = ",".join("h%d" % i for i in range(101)) + "\n1\n"
    write("too_many_headers.csv", head.encode(), err("TOO_MANY_HEADERS"))
    hundred = [["h%d" % i for i in range(100)] + ["", "", ""], ["x"]]
    write("hundred_headers_then_blank.csv", py_csv(hundred).encode(), ok("utf-8", ",", hundred))
    rows = [["Job", "Load"]] + [["J", str(i)] for i in range(750)]
    write("max_rows.csv", py_csv(rows).encode(), ok("utf-8", ",", rows))
    rows.append(["J", "750"])
    write("too_many_rows.csv", py_csv(rows).encode(), err("TOO_MANY_ROWS"))


if __name__ == "__main__":
    dialects()
    hand_made()
    limits()
