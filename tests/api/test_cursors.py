"""Page cursors are signed (issue 12, "forgeable page cursors"): a keyed MAC
binds a position to its list, the key is shared by every process of one
database, and a position out of range is INVALID_CURSOR, never the first
page again."""
import hashlib
import hmac
import urllib.parse
import zlib

import pytest

from harness.checks import assert_problem
from harness.db import db_value
from harness.jobs import csv_bytes, import_file, rows

RUNS = "/api/v1/imports/runs/"


@pytest.fixture(scope="module")
def paged(module_server):
    srv = module_server
    run, _ = import_file(srv, csv_bytes(rows(25, job="CUR")))
    assert run["state"] == "SUCCEEDED", run
    return srv, run


def cursor_of(url):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["cursor"][0]


def mac(key, scope, position):
    return hmac.new(key, scope.encode() + b"\x1f" + position.encode(), hashlib.sha256).hexdigest()[:32]


def test_cursor_is_a_keyed_mac_not_a_checksum(paged):
    """A cursor carrying the old, unkeyed CRC32 of its position (what anyone
    could compute) is refused; the issued one works."""
    srv, run = paged
    base = RUNS + run["id"] + "/results/succeeded"
    nxt = srv.get(base, params={"limit": 5}).json()["nextPageUrl"]
    cur = cursor_of(nxt)
    position, sig = cur.rsplit(".", 1)
    assert len(sig) == 32 and position == "6", cur
    assert srv.get(base, params={"cursor": cur, "limit": 5}).status_code == 200
    crc = "%08x" % zlib.crc32(("%s/succeeded|%s" % (run["id"], position)).encode())
    for forged in (position + "." + crc, "20." + sig, position + "." + sig[:-1] + ("0" if sig[-1] != "0" else "1")):
        r = srv.get(base, params={"cursor": forged, "limit": 5})
        assert_problem(r, 400, "INVALID_CURSOR", srv)


def test_cursor_of_another_list_is_refused(paged):
    """The MAC binds the cursor to its list: the succeeded bucket's cursor is
    not accepted on another run's or another bucket's list."""
    srv, run = paged
    cur = cursor_of(srv.get(RUNS + run["id"] + "/results/succeeded", params={"limit": 5}).json()["nextPageUrl"])
    r = srv.get(RUNS + run["id"] + "/results/failed", params={"cursor": cur})
    assert_problem(r, 400, "INVALID_CURSOR", srv)
    r = srv.get("/api/v1/imports/runs", params={"cursor": cur})
    assert_problem(r, 400, "INVALID_CURSOR", srv)


@pytest.mark.parametrize("position", ["2147483648", "99999999999999999999", "-1", "+5", "0x10", "5 "])
def test_position_out_of_range_is_invalid_not_first_page(paged, position):
    """Even with a valid MAC (computed here from the key in the database, as
    only the service could), a position that overflows or is malformed is
    INVALID_CURSOR: it never wraps back to the first page."""
    srv, run = paged
    key = bytes.fromhex(db_value(srv.db_url, "SELECT value FROM secrets WHERE name = 'cursor-mac'"))
    scope = "%s/succeeded" % run["id"]
    r = srv.get(RUNS + run["id"] + "/results/succeeded",
                params={"cursor": position + "." + mac(key, scope, position)})
    assert_problem(r, 400, "INVALID_CURSOR", srv)
    # the same key signs a good position: the test's MAC is the service's
    good = srv.get(RUNS + run["id"] + "/results/succeeded", params={"cursor": "20." + mac(key, scope, "20")})
    assert good.status_code == 200 and [d["rowIndex"] for d in good.json()["data"]] == list(range(21, 27))


def test_cursor_works_across_processes_of_one_database(paged, start_server):
    """The key lives in the database: a cursor issued by one serve process is
    honoured by another serving the same database (and after a restart)."""
    srv, run = paged
    other = start_server(db_url=srv.db_url, workers=0, bootstrap=False)
    base = RUNS + run["id"] + "/results/succeeded"
    nxt = srv.get(base, params={"limit": 5}).json()["nextPageUrl"]
    r = other.get(nxt, token=srv.token)
    assert r.status_code == 200, r.text
    assert [d["rowIndex"] for d in r.json()["data"]] == [7, 8, 9, 10, 11]
