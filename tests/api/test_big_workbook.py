"""A big workbook saved by a real spreadsheet program (PRODUCT §16, issue 29).

Excel and LibreOffice keep every text cell of a workbook in its shared
string table: a million-row file has ~2.1 million strings, 20 MB of text.
Held whole, the table grew with the file, and past 1,000,000 entries the
reader refused the file (MALFORMED_XLSX at row 449,318 of a million-row
workbook LibreOffice saved).  With the server's spool directory the table
spills there past 512 KiB of text and its caps grow with LOADLINE_MAX_ROWS
(docs/sheet.md); the equivalence of the spilled and in-memory tables is the
unit test `test_xlsx_shared_strings_spilled`.

Here the bench's messy rows (named pickup and dropoff on every row, weights
in t, tons, lb, lbs and kg, $ rates, M/D/YYYY dates) with a long note of
their own — 8,000 rows, ~2.6 MB of shared-string text, past the spill
threshold — are imported once as CSV and once as the .xlsx LibreOffice saves
of that CSV (its own type detection: dates, currency and ZIP codes become
numbers with formats), each in its own organization, in 2,000-row batches:
every load and its pickup must be the same."""
import pytest

from harness.db import db_int
from harness.jobs import XLSX_CT, wait_run

from .test_fixup_roundtrip import soffice

ROWS = 8000
HEADER = ["jobCode", "loadNo", "loadDate", "projectName", "material", "ticketNo", "weight", "rate", "notes",
          "pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip", "dropoffName", "dropoffStreet",
          "dropoffCity", "dropoffState", "dropoffZip"]
UNITS = ["12.5 t", "24000 lbs", "9000 kg", "18 tons", "21500 lb"]
MATERIALS = ["Crushed Limestone #57", "Rip Rap", "Fill Dirt", "Asphalt Millings", "Sand"]


def cells(n):
    j, p, d = (n * 7) % 400, (n * 7) % 60, (n * 11 + 3) % 60
    note = "load %d: " % n + " ".join("gate %d-%d" % (n, k) for k in range(28))
    return ["BJ-%04d" % j, "B-%06d" % n, "%d/%d/2026" % (1 + n % 12, 1 + n % 28), "Big Job %04d" % j,
            MATERIALS[n % 5], "T%08d" % n, UNITS[n % 5], "$1,%03d.%02d" % (n % 1000, n % 100), note,
            "Quarry %02d" % p, "%d Quarry Rd" % (100 + p), "Austin", "TX", "787%02d" % (p % 40),
            "Yard %02d" % d, "%d Yard Ave" % (200 + d), "Round Rock", "TX", "786%02d" % (d % 40)]


def csv_file():
    line = lambda c: ",".join('"%s"' % v if "," in v else v for v in c) + "\n"  # noqa: E731
    return (line(HEADER) + "".join(line(cells(n)) for n in range(ROWS))).encode()


COLUMNS = ("l.load_no", "l.load_date", "l.weight_centilb", "l.weight_unit", "l.rate_cents", "l.notes", "l.ticket_no",
           "l.material", "p.name", "p.street", "p.city", "p.state", "p.zip", "d.name", "d.street", "d.city",
           "d.state", "d.zip")
# the loads of one organization with no load of the same content and places in the other
DIFFERENT = ("SELECT COUNT(*) FROM (SELECT %s FROM loads l JOIN locations p ON p.id = l.pickup_location_id"
             " JOIN locations d ON d.id = l.dropoff_location_id WHERE l.org_id = '%%s' EXCEPT"
             " SELECT %s FROM loads l JOIN locations p ON p.id = l.pickup_location_id"
             " JOIN locations d ON d.id = l.dropoff_location_id WHERE l.org_id = '%%s') x"
             % (", ".join(COLUMNS), ", ".join(COLUMNS)))


def test_a_big_workbook_saved_by_libreoffice_imports_as_its_csv(start_server):
    data = csv_file()
    xlsx = soffice(data, ".csv", "xlsx")
    srv = start_server(env={"LOADLINE_MAX_ROWS": str(ROWS), "LOADLINE_MAX_FILE_BYTES": str(32 << 20)}, workers=1)
    other = srv.new_org("Workbook Freight")
    runs = []
    for token, name, body, ctype in ((srv.token, "loads.csv", data, "text/csv"),
                                     (other.token, "loads.xlsx", xlsx, XLSX_CT)):
        r = srv.post("/api/v1/imports/jobs", files={"file": (name, body, ctype)}, token=token)
        assert r.status_code == 202, r.text
        runs.append(wait_run(srv, r.json()["id"], token=token, timeout=300))
    for run in runs:   # PARTIAL: the weights in t, tons and kg are UNIT_NORMALIZED warnings
        assert run["state"] == "PARTIAL" and run["counts"]["succeeded"] == ROWS, run
        assert run["counts"] == runs[0]["counts"], runs
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM runs WHERE id = '%s' AND file_format = 'xlsx'" % runs[1]["id"]) == 1
    assert db_int(srv.db_url, "SELECT COUNT(*) FROM loads WHERE org_id = '%s'" % other.id) == ROWS
    for a, b in ((srv.org.id, other.id), (other.id, srv.org.id)):
        assert db_int(srv.db_url, DIFFERENT % (a, b)) == 0
