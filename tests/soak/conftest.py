"""The reliability soak (`make soak`, `make soak-short`): long fault runs,
outside `make check`'s time budget.  Collected only when LOADLINE_SOAK is
set; SOAK_SCALE (default 1) multiplies the counts; figures are appended to
tests/.out/soak-figures.txt and printed at the end."""
import os

import pytest


def pytest_ignore_collect(collection_path, config):
    return not os.environ.get("LOADLINE_SOAK")


FIGURES = []


@pytest.fixture
def figure():
    def record(name, value, goal=None, ok=True):
        FIGURES.append((name, value, goal, ok))
    return record


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    terminalreporter.write_sep("=", "soak figures")
    lines = []
    for name, value, goal, ok in FIGURES:
        lines.append("%-62s %-16s %-14s %s" % (name, value, goal or "", "ok" if ok else "MISSED"))
    for line in lines:
        terminalreporter.write_line(line)
    out = os.path.join(os.path.dirname(__file__), "..", ".out")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "soak-figures.txt"), "a") as f:
        f.write("\n".join(lines) + "\n")
