"""Reading runs and results (SPEC "Endpoints" GET runs/{id} and
results/{bucket}; PRODUCT §2-§3: ETag/304, NOT_FOUND for other orgs,
INVALID_BUCKET, INVALID_LIMIT, INVALID_CURSOR, RUN_NOT_TERMINAL, paging)."""
import urllib.parse

import pytest

from harness.checks import assert_problem, parse_ts
from harness.jobs import (BUCKETS, accepted_run, csv_bytes, import_file, results, rows,
                          upload, wait_run)

RUNS = "/api/v1/imports/runs/"


def test_run_etag_and_304(start_server):
    """SPEC GET run: 200 with an ETag; 304 with no body when If-None-Match
    matches the current state; a new ETag once the state changes."""
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="ETAG"))))
    r = srv.get(RUNS + run["id"])
    etag = r.headers.get("ETag")
    assert r.status_code == 200 and etag, r.headers
    assert not etag.startswith("W/"), "a strong ETag is expected: %r" % etag
    assert etag.startswith('"') and etag.endswith('"'), etag
    again = srv.get(RUNS + run["id"])
    assert again.headers.get("ETag") == etag, "ETag must be stable while nothing changes"
    nm = srv.get(RUNS + run["id"], headers={"If-None-Match": etag})
    assert nm.status_code == 304, nm.status_code
    assert nm.content == b""
    assert nm.headers.get("ETag") == etag
    other = srv.get(RUNS + run["id"], headers={"If-None-Match": '"something-else"'})
    assert other.status_code == 200
    srv.cli.admin("cancel-run", run["id"])
    changed = srv.get(RUNS + run["id"], headers={"If-None-Match": etag})
    assert changed.status_code == 200, changed.status_code
    assert changed.json()["state"] == "CANCELLED"
    assert changed.headers.get("ETag") not in (None, etag)


def test_terminal_run_304_is_served_from_memory_for_its_org_only(start_server):
    """Issue 11 goal 6: a finished run never changes, so its ETag is kept in
    memory and a poll with If-None-Match gets 304 before any database work;
    the token's organization is still checked (another org's token gets
    404, never a 304 that would reveal the run), and a stale ETag still gets
    the body."""
    srv = start_server(workers=1)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="ETAGT"))))
    done = wait_run(srv, run["id"])
    r = srv.get(RUNS + run["id"])
    etag = r.headers["ETag"]
    for _ in range(3):
        nm = srv.get(RUNS + run["id"], headers={"If-None-Match": etag})
        assert nm.status_code == 304 and nm.headers["ETag"] == etag and nm.content == b""
    other = srv.new_org("Other").token
    r = srv.get(RUNS + run["id"], headers={"If-None-Match": etag}, token=other)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    stale = srv.get(RUNS + run["id"], headers={"If-None-Match": '"0000"'})
    assert stale.status_code == 200 and stale.json()["state"] == done["state"]
    assert srv.get(RUNS + run["id"], headers={"If-None-Match": etag}, token=None).status_code == 401


def test_queued_run_is_processed_by_a_later_worker(start_server, make_db):
    """Issue 4 item 2: the runs table is the queue: a run accepted by a
    server with no workers is processed when a server with workers starts."""
    url = make_db()
    a = start_server(db_url=url, workers=0)
    run = accepted_run(upload(a, csv_bytes(rows(3, job="QUEUE"))))
    e0 = a.get(RUNS + run["id"]).headers["ETag"]
    assert a.stop() == 0
    b = start_server(db_url=url, workers=1, bootstrap=False)
    b.token = a.token
    done = wait_run(b, run["id"])
    assert done["state"] == "SUCCEEDED", done
    r = b.get(RUNS + run["id"], headers={"If-None-Match": e0})
    assert r.status_code == 200 and r.headers["ETag"] != e0


def test_other_orgs_run_is_404(start_server):
    """PRODUCT §3 NOT_FOUND: a run of another organization is 404 (never
    reveal that it exists), for the run and its results; unknown ids too."""
    srv = start_server()
    run, _ = import_file(srv, csv_bytes(rows(2, job="MINE")))
    other = srv.new_org("Nosy Org")
    for path in (RUNS + run["id"], RUNS + run["id"] + "/results/succeeded"):
        assert_problem(srv.get(path, token=other.token), 404, "NOT_FOUND", srv)
    for bad in ("run_doesnotexist123456", "x", "RUN_" + run["id"][4:]):
        assert_problem(srv.get(RUNS + bad), 404, "NOT_FOUND", srv)
        assert_problem(srv.get(RUNS + bad + "/results/failed"), 404, "NOT_FOUND", srv)
    listed = srv.get("/api/v1/imports/runs", token=other.token).json()
    assert listed["data"] == []


def test_results_before_terminal_is_409(start_server):
    """PRODUCT §3: RUN_NOT_TERMINAL 409 when results are asked for before the
    run is terminal (QUEUED here: --workers 0)."""
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="EARLY"))))
    for b in BUCKETS:
        assert_problem(srv.get(RUNS + run["id"] + "/results/" + b), 409, "RUN_NOT_TERMINAL", srv)


@pytest.fixture(scope="module")
def finished(module_server):
    """One terminal run of 25 clean rows per module and backend (read-only)."""
    run, _ = import_file(module_server, csv_bytes(rows(25, job="PAGE")))
    assert run["state"] == "SUCCEEDED", run
    return module_server, run


@pytest.mark.parametrize("bucket", ["bogus", "SUCCEEDED", "success", "warning", "all"])
def test_invalid_bucket(finished, bucket):
    """PRODUCT §3: INVALID_BUCKET 400 for a bucket not one of the four."""
    srv, run = finished
    r = srv.get(RUNS + run["id"] + "/results/" + bucket)
    assert_problem(r, 400, "INVALID_BUCKET", srv)


@pytest.mark.parametrize("limit", ["0", "1001", "x", "-1", "1.5", "", "10abc", "99999999999999999999"])
def test_invalid_limit(finished, limit):
    """PRODUCT §3: INVALID_LIMIT 400 when limit is outside 1..1000 or not a
    whole number."""
    srv, run = finished
    r = srv.get(RUNS + run["id"] + "/results/succeeded", params={"limit": limit})
    assert_problem(r, 400, "INVALID_LIMIT", srv)


@pytest.mark.parametrize("cursor", ["garbage", "AAAA", "../../etc", "%00", "eyJvZmZzZXQiOjF9"])
def test_invalid_cursor(finished, cursor):
    """PRODUCT §3: INVALID_CURSOR 400 for a cursor the service did not issue."""
    srv, run = finished
    r = srv.get(RUNS + run["id"] + "/results/succeeded", params={"cursor": cursor})
    assert_problem(r, 400, "INVALID_CURSOR", srv)


def test_pagination_follows_next_page_url(finished):
    """SPEC results: list with object/data/nextPageUrl (a path, null at the
    end); clients follow nextPageUrl; `cursor` is equivalent; limit 1..1000
    (PRODUCT §3, default 100); rows in rowIndex order."""
    srv, run = finished
    base = RUNS + run["id"] + "/results/succeeded"
    first = srv.get(base, params={"limit": 10})
    assert first.status_code == 200
    page = first.json()
    assert set(page) >= {"object", "data", "nextPageUrl"} and page["object"] == "list"
    assert len(page["data"]) == 10
    nxt = page["nextPageUrl"]
    assert isinstance(nxt, str) and nxt.startswith(RUNS + run["id"] + "/results/succeeded"), nxt
    second = srv.get(nxt).json()
    assert len(second["data"]) == 10
    # cursor=… is equivalent to following nextPageUrl
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(nxt).query)
    assert "cursor" in q, nxt
    via_cursor = srv.get(base, params={"cursor": q["cursor"][0], "limit": 10}).json()
    assert [e["rowIndex"] for e in via_cursor["data"]] == [e["rowIndex"] for e in second["data"]]
    third = srv.get(second["nextPageUrl"]).json()
    assert len(third["data"]) == 5 and third["nextPageUrl"] is None
    idx = [e["rowIndex"] for e in page["data"] + second["data"] + third["data"]]
    assert idx == list(range(2, 27)), idx
    # the default page holds all 25 (default 100); limit=1 pages one by one
    whole = srv.get(base).json()
    assert len(whole["data"]) == 25 and whole["nextPageUrl"] is None
    assert len(results(srv, run["id"], "succeeded", limit=1)) == 25
    assert len(results(srv, run["id"], "succeeded", limit=1000)) == 25
    # empty buckets are empty lists
    for b in ("failed", "warnings", "skipped"):
        e = srv.get(RUNS + run["id"] + "/results/" + b).json()
        assert e["data"] == [] and e["nextPageUrl"] is None


def test_default_page_size_is_100(start_server):
    """PRODUCT §3: limit defaults to 100."""
    srv = start_server()
    run, res = import_file(srv, csv_bytes(rows(130, job="BIGPAGE")))
    assert run["state"] == "SUCCEEDED"
    page = srv.get(RUNS + run["id"] + "/results/succeeded").json()
    assert len(page["data"]) == 100 and page["nextPageUrl"]
    assert len(res["succeeded"]) == 130
    assert [e["rowIndex"] for e in res["succeeded"]] == list(range(2, 132))


def test_runs_list_newest_first(start_server):
    """PRODUCT §2: GET /api/v1/imports/runs lists the organization's runs,
    newest first, paginated like results."""
    srv = start_server(workers=0)
    made = [accepted_run(upload(srv, csv_bytes(rows(1, job="LIST%d" % i)))) for i in range(3)]
    # Newest first is (createdAt, id) descending: runs made within the same
    # millisecond come in descending id order.
    newest = sorted(made, key=lambda x: (parse_ts(x["createdAt"]), x["id"]), reverse=True)
    ids = [x["id"] for x in newest][::-1]
    assert parse_ts(made[0]["createdAt"]) <= parse_ts(made[1]["createdAt"]) <= parse_ts(made[2]["createdAt"])
    r = srv.get("/api/v1/imports/runs")
    assert r.status_code == 200
    lst = r.json()
    assert lst["object"] == "list"
    assert [x["id"] for x in lst["data"]] == ids[::-1]
    for x in lst["data"]:
        assert x["object"] == "import_run"
        parse_ts(x["createdAt"])
    p1 = srv.get("/api/v1/imports/runs", params={"limit": 2}).json()
    assert [x["id"] for x in p1["data"]] == ids[::-1][:2] and p1["nextPageUrl"]
    p2 = srv.get(p1["nextPageUrl"]).json()
    assert [x["id"] for x in p2["data"]] == ids[:1] and p2["nextPageUrl"] is None


def test_file_name_loses_escapes_and_direction_overrides(server):
    """Issue 27 item 16: a file name with ESC (a terminal escape sequence) or
    a right-to-left override is stored without them (each becomes a space),
    so no page, listing or mail shows them; before, they were kept as sent."""
    from harness.jobs import accepted_run, csv_bytes, rows, upload
    name = "inv\x1b[31mred\u202egpj.csv\u2066x\u200f.csv"
    run = accepted_run(upload(server, csv_bytes(rows(1, job="FN-1")), filename=name))
    got = server.get("/api/v1/imports/runs/" + run["id"]).json()["fileName"]
    assert got == "inv [31mred gpj.csv x .csv", repr(got)
