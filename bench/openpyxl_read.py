#!/usr/bin/env python3
"""Times openpyxl (Debian's python3-openpyxl) reading a workbook read-only,
every cell's value, best of N runs of process CPU time; prints the seconds.
bench_import compares the C reader with it (issue 11 goal 4).

    python3 bench/openpyxl_read.py FILE [RUNS]
"""
import sys
import time

import openpyxl


def read(path):
    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    n = 0
    for row in wb.active.iter_rows(values_only=True):
        for v in row:
            n += v is not None
    wb.close()
    return n


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    best = None
    for _ in range(runs):
        t0 = time.process_time()
        cells = read(path)
        t = time.process_time() - t0
        best = t if best is None or t < best else best
    print("%.6f %d" % (best, cells))


if __name__ == "__main__":
    main()
