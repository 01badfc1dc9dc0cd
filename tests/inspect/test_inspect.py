"""Drives `loadline inspect` over every fixture in tests/data/sheet and
compares its JSON with the committed expectation (expected/<path>.json), and
the csv-spectrum files with the objects in their JSON twins.

Binary: $LOADLINE_BIN, default build/loadline from the repository root.
Run: /usr/bin/python3 -m pytest tests/inspect
"""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "sheet"
EXPECTED = DATA / "expected"
BIN = os.environ.get("LOADLINE_BIN", str(REPO / "build" / "loadline"))
# Folders of fixture files; scripts, writers and expectations live beside them.
FIXTURE_DIRS = ["csv", "openpyxl", "libreoffice", "exceljs", "sheetjs", "hostile", "regress"]


def fixtures():
    out = []
    for d in FIXTURE_DIRS:
        for p in sorted((DATA / d).glob("*")):
            if p.is_file() and p.name != "README.md":
                out.append(p.relative_to(DATA).as_posix())
    return out


def inspect(path, *args, env=None):
    e = dict(os.environ)
    e.pop("LOADLINE_MAX_ROWS", None)
    e.pop("LOADLINE_MAX_FILE_BYTES", None)
    e.update(env or {})
    p = subprocess.run([BIN, "inspect", *args, str(path)], capture_output=True, env=e, timeout=60)
    return p.returncode, p.stdout, p.stderr


def test_every_fixture_has_an_expectation():
    missing = [f for f in fixtures() if not (EXPECTED / (f + ".json")).exists()]
    assert not missing, missing
    assert len(fixtures()) > 50


@pytest.mark.parametrize("rel", fixtures())
def test_fixture(rel):
    expected = json.loads((EXPECTED / (rel + ".json")).read_text())
    rc, out, err = inspect(DATA / rel)
    got = json.loads(out)
    # Nothing on stderr: in the service that is the log, and a hostile file
    # must not write there (libxml2 would, by default).
    assert err == b"", err
    if "error" in expected:
        assert rc == 1, (out, err)
        assert got["error"]["code"] == expected["error"]["code"], got
        assert got["error"]["message"], got
        for k in ("format", "encoding", "delimiter"):
            assert got.get(k) == expected.get(k), (k, got)
        assert "rows" not in got
    else:
        assert rc == 0, (out, err)
        assert got == expected


SPECTRUM = sorted((DATA / "csv-spectrum" / "csvs").glob("*.csv"))


@pytest.mark.parametrize("csv_path", SPECTRUM, ids=[p.stem for p in SPECTRUM])
def test_csv_spectrum(csv_path):
    want = json.loads((DATA / "csv-spectrum" / "json" / (csv_path.stem + ".json")).read_text())
    rc, out, _ = inspect(csv_path)
    assert rc == 0
    got = json.loads(out)
    assert [dict(zip(got["headers"], r["cells"])) for r in got["rows"]] == want


def test_usage_errors(tmp_path):
    assert inspect("")[0] == 2
    p = subprocess.run([BIN, "inspect"], capture_output=True)
    assert p.returncode == 2 and b"usage" in p.stderr
    assert inspect(tmp_path / "missing.csv")[0] == 2
    assert inspect(DATA / "csv" / "utf8_lf.csv", "--max-rows", "zero")[0] == 2
    assert inspect(DATA / "csv" / "utf8_lf.csv", "--bogus")[0] == 2


def test_max_rows_flag_and_env():
    f = DATA / "csv" / "utf8_lf.csv"  # three data rows
    rc, out, _ = inspect(f, "--max-rows", "2")
    assert rc == 1 and json.loads(out)["error"]["code"] == "TOO_MANY_ROWS"
    rc, out, _ = inspect(f, env={"LOADLINE_MAX_ROWS": "2"})
    assert rc == 1 and json.loads(out)["error"]["code"] == "TOO_MANY_ROWS"
    rc, out, _ = inspect(f, "--max-rows", "3", env={"LOADLINE_MAX_ROWS": "2"})
    assert rc == 0 and len(json.loads(out)["rows"]) == 3
    rc, out, _ = inspect(DATA / "csv" / "max_rows.csv", env={"LOADLINE_MAX_ROWS": "1000"})
    assert rc == 0


def test_file_size_limit():
    f = DATA / "csv" / "utf8_lf.csv"
    rc, out, _ = inspect(f, env={"LOADLINE_MAX_FILE_BYTES": "10"})
    assert rc == 1 and json.loads(out)["error"]["code"] == "TOO_LARGE"
