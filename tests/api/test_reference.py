"""Customers and branches in the product (issue 13; PRODUCT §8):
GET/POST /api/v1/customers and /api/v1/branches, GET …/{id}, the same auth,
paging and problem conventions as every endpoint, DUPLICATE_NAME by the
import's name matching, and a LOOKUP_MISS that names where to add the
record — which then makes the row match."""
import threading

import pytest

from harness.jobs import by_row, csv_bytes, find_issue, import_file, row

KINDS = [("customers", "customer", "cus_"), ("branches", "branch", "brn_")]


def create(srv, plural, name, **kw):
    return srv.post("/api/v1/" + plural, json={"name": name}, **kw)


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_create_read_and_duplicate(server, plural, noun, prefix):
    r = create(server, plural, "  ACME   Paving ")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["id"].startswith(prefix) and body["object"] == noun and body["name"] == "ACME   Paving"
    assert r.headers["Location"] == "/api/v1/%s/%s" % (plural, body["id"])
    got = server.get(r.headers["Location"])
    assert got.status_code == 200 and got.json() == body
    assert "ETag" in got.headers
    again = server.get(r.headers["Location"], headers={"If-None-Match": got.headers["ETag"]})
    assert again.status_code == 304
    # Same name by the import's rules: case and whitespace do not count.
    dup = create(server, plural, "\tacme   paving  ")
    assert dup.status_code == 409, dup.text
    p = dup.json()
    assert p["code"] == "DUPLICATE_NAME" and p["existingId"] == body["id"]
    assert p["existingUrl"] == "/api/v1/%s/%s" % (plural, body["id"])
    assert dup.headers["Content-Type"].startswith("application/problem+json")


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_bad_bodies(server, plural, noun, prefix):
    for kw in ({"data": b"name=x", "headers": {"Content-Type": "application/x-www-form-urlencoded"}},
               {"data": b"{nope", "headers": {"Content-Type": "application/json"}},
               {"json": ["x"]}, {"json": {"name": 5}}, {"json": {"name": "   "}},
               {"json": {"name": "a\nb"}}, {"json": {"name": "x" * 201}}):
        r = server.post("/api/v1/" + plural, **kw)
        assert r.status_code == 400, (kw, r.text)
        assert r.json()["code"] == "INVALID_REQUEST"
    big = server.post("/api/v1/" + plural, data=b'{"name": "' + b"x" * 20000 + b'"}',
                      headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["code"] == "TOO_LARGE"
    assert create(server, plural, "x" * 200).status_code == 201


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_list_search_and_pages(server, plural, noun, prefix):
    names = ["Acme Paving", "Acme Rock", "Bolt Haulers", "Granite Co"]
    made = [create(server, plural, n).json() for n in names]
    # The documented order is (createdAt, id): records made within the same
    # millisecond come in id order, not necessarily in the order made.
    ids = [x["id"] for x in sorted(made, key=lambda x: (x["createdAt"], x["id"]))]
    r = server.get("/api/v1/" + plural)
    assert r.status_code == 200 and [x["id"] for x in r.json()["data"]] == ids
    found = server.get("/api/v1/" + plural, params={"q": "  ACME "}).json()["data"]
    assert [x["name"] for x in found] == ["Acme Paving", "Acme Rock"]
    page1 = server.get("/api/v1/" + plural, params={"limit": 3}).json()
    assert len(page1["data"]) == 3 and page1["nextPageUrl"]
    page2 = server.get(page1["nextPageUrl"]).json()
    assert [x["id"] for x in page2["data"]] == ids[3:] and page2["nextPageUrl"] is None
    assert server.get("/api/v1/" + plural, params={"cursor": "forged"}).json()["code"] == "INVALID_CURSOR"
    assert server.get("/api/v1/" + plural, params={"q": "x" * 201}).status_code == 400


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_other_org_and_auth(server, plural, noun, prefix):
    mine = create(server, plural, "Mine Inc").json()
    token = server.new_org("Other org").token
    r = server.get("/api/v1/%s/%s" % (plural, mine["id"]), token=token)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
    assert server.get("/api/v1/" + plural, token=token).json()["data"] == []
    # The other org may use the same name: names are per organization.
    assert create(server, plural, "Mine Inc", token=token).status_code == 201
    assert server.get("/api/v1/" + plural, token=None).status_code == 401
    assert server.post("/api/v1/" + plural, json={"name": "x"}, token=None).status_code == 401
    assert server.get("/api/v1/%s/%sbad" % (plural, prefix)).status_code == 404
    r = server.request("DELETE", "/api/v1/" + plural)
    assert r.status_code == 405 and "POST" in r.headers["Allow"]


def test_concurrent_creates_make_one(server):
    codes = []
    def go():
        codes.append(create(server, "customers", "Race Co").status_code)
    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [201] + [409] * 7
    assert len(server.get("/api/v1/customers", params={"q": "race co"}).json()["data"]) == 1


def test_lookup_miss_names_the_page_then_the_row_matches(server):
    """LOOKUP_MISS says where to add the record (the Customers page and the
    endpoint); once added there, the same row matches it."""
    data = csv_bytes([row(1, customer="Dunmore Aggregates", branch="North Yard")])
    run, res = import_file(server, data)
    entry = by_row(res["warnings"])[2]
    cust = find_issue(entry, "warnings", "LOOKUP_MISS")
    msgs = {w["field"]: w["message"] for w in entry["warnings"] if w["code"] == "LOOKUP_MISS"}
    assert "Customers page" in msgs["customer"] and "/api/v1/customers" in msgs["customer"], msgs
    assert "Branches page" in msgs["branch"] and "/api/v1/branches" in msgs["branch"], msgs
    assert cust["docUrl"].endswith("/LOOKUP_MISS")
    cid = create(server, "customers", " dunmore aggregates ").json()["id"]
    bid = create(server, "branches", "NORTH YARD").json()["id"]
    run, res = import_file(server, csv_bytes([row(1, customer="Dunmore Aggregates", branch="North Yard",
                                                  notes="changed")]))
    assert run["state"] == "SUCCEEDED", res
    load = server.get("/api/v1/loads/" + res["succeeded"][0]["createdRecordIds"][0]).json()
    proj = server.get("/api/v1/projects/" + load["projectId"]).json()
    assert (proj["customerId"], proj["branchId"]) == (cid, bid)


# Names that render like "Acme Paving" (issue 20 item 8): zero-width space,
# zero-width joiner, soft hyphen, word joiner, inner no-break space,
# fullwidth letters, a ligature, a leading byte-order mark.
LOOK_ALIKES = ["Acme\u200b Paving", "Ac\u200dme Paving", "Ac\u00adme Paving", "Acme Pav\u2060ing",
               "Acme\u00a0Paving", "\uff21\uff43\uff4d\uff45 Paving", "\ufeffAcme Paving", "Acme Pa\u200cving"]


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_look_alike_names_are_duplicates(server, plural, noun, prefix):
    """Issue 20 item 8 / docs/jobs-schema.md: customer and branch names are
    compared in NFKC with default-ignorable characters removed, so a name
    that renders identically is DUPLICATE_NAME (both orders), search finds
    it, and an import row spelled with look-alikes matches the record."""
    first = create(server, plural, "Acme Paving").json()
    for name in LOOK_ALIKES:
        dup = create(server, plural, name)
        assert dup.status_code == 409, (name, dup.text)
        assert dup.json()["existingId"] == first["id"], name
    found = server.get("/api/v1/" + plural, params={"q": "\uff41\uff43\uff4d\uff45\u00ad"}).json()["data"]
    assert [x["id"] for x in found] == [first["id"]]
    other = create(server, plural, "\uff22\u200bolt Haulers").json()   # stored look-alike first
    assert create(server, plural, "bolt haulers").json()["existingId"] == other["id"]
    # still different: other letters, inner spacing (as before), a plain hyphen
    for name in ("Acme  Paving", "Acme-Paving", "Acme Paving 2"):
        assert create(server, plural, name).status_code == 201, name
    field = noun
    run, res = import_file(server, csv_bytes([row(1, job="J-LOOK", **{field: "\uff41cme\u00a0pav\u00ading"})]))
    assert run["state"] == "SUCCEEDED", res
    load = server.get("/api/v1/loads/" + res["succeeded"][0]["createdRecordIds"][0]).json()
    proj = server.get("/api/v1/projects/" + load["projectId"]).json()
    assert proj[field + "Id"] == first["id"], proj


@pytest.mark.parametrize("plural,noun,prefix", KINDS)
def test_dotted_capital_i_is_a_look_alike(server, plural, noun, prefix):
    """Issue 27 item 16: "İSTANBUL FREIGHT" (Turkish dotted capital I)
    renders like "Istanbul Freight": DUPLICATE_NAME, both orders."""
    first = create(server, plural, "Istanbul Freight").json()
    dup = create(server, plural, "İSTANBUL FREIGHT")
    assert dup.status_code == 409 and dup.json()["existingId"] == first["id"], dup.text
    other = create(server, plural, "İzmir Haulers").json()
    assert create(server, plural, "izmir haulers").json()["existingId"] == other["id"]


def test_location_names_keep_the_spec_rule(server):
    """Location names keep SPEC's rule (case and surrounding whitespace):
    a fullwidth or zero-width-spaced name is another location."""
    from harness.db import db_int
    recs = [row(1, job="J-LOCN", pickupName="Main Quarry"), row(2, job="J-LOCN", pickupName="Main\u200b Quarry"),
            row(3, job="J-LOCN", pickupName="\uff2dain Quarry")]
    run, res = import_file(server, csv_bytes(recs))
    assert run["state"] in ("SUCCEEDED", "PARTIAL"), res
    n = db_int(server.db_url, "SELECT COUNT(*) FROM locations WHERE name LIKE '%Quarry' OR name LIKE '%ain Quarry'")
    assert n == 3, n


def test_migration_rekeys_saved_names(server, tmp_path):
    """Issue 20 item 8: keys saved before the rule (name_key of the text as
    written) are made again by `loadline migrate` (migration 9), on both
    backends: a look-alike saved earlier is then found as a duplicate."""
    import subprocess
    from harness.db import db_exec, db_value
    from harness.server import child_env, loadline_bin
    made = create(server, "customers", "\uff27ranite\u200b Works").json()
    old_key = "\uff47ranite\u200b works"   # what name_key() made: NFC + case folding only
    db_exec(server.db_url, "UPDATE customers SET name_key = '%s' WHERE id = '%s'" % (old_key, made["id"]))
    db_exec(server.db_url, "DELETE FROM schema_migrations WHERE version = 9")
    assert create(server, "customers", "Granite Works").status_code == 201   # the stale key hid it
    p = subprocess.run([loadline_bin(), "--db", server.db_url, "migrate"], capture_output=True, timeout=60,
                       env=child_env({}))
    assert p.returncode == 0, p
    assert db_value(server.db_url, "SELECT name_key FROM customers WHERE id = '%s'" % made["id"]) == "granite works"
    dup = create(server, "customers", "GRANITE WORKS")
    assert dup.status_code == 409 and dup.json()["existingId"] == made["id"], dup.text


def _fix_loop_file():
    """Two jobs, five rows, every row naming a customer and a branch the
    organization does not have yet."""
    recs = [row(i, job="J-FIX" if i <= 3 else "J-FIX2", customer="Cascade Civil Group", branch="North Yard")
            for i in range(1, 6)]
    return csv_bytes(recs)


def test_added_customer_makes_the_identical_repush_update(server):
    """PRODUCT §11 "Skipped means nothing would change" (issue 22 item 1):
    an identical re-push whose names now resolve to records added since is
    not a no-op: every row updates its Load (same ids), its warnings gone,
    and the Projects get the customer; only the push after that is
    skipped."""
    data = _fix_loop_file()
    run, res = import_file(server, data)
    assert run["state"] == "PARTIAL" and run["counts"]["warnings"] == 5, run
    load_ids = [e["createdRecordIds"][0] for e in res["succeeded"]]
    for e in res["warnings"]:
        assert sorted(w["field"] for w in e["warnings"] if w["code"] == "LOOKUP_MISS") == ["branch", "customer"]
    cid = create(server, "customers", "Cascade Civil Group").json()["id"]

    # The customer now resolves: every row is written again, the branch
    # still misses.
    run, res = import_file(server, data)
    assert run["counts"] == {"succeeded": 5, "warnings": 5, "failed": 0, "skipped": 0}, run
    assert [e["createdRecordIds"][0] for e in res["succeeded"]] == load_ids, "the same Loads are updated"
    for e in res["warnings"]:
        assert [(w["code"], w["field"]) for w in e["warnings"]] == [("LOOKUP_MISS", "branch")], e
    projects = set()
    for lid in load_ids:
        load = server.get("/api/v1/loads/" + lid).json()
        projects.add(load["projectId"])
    assert len(projects) == 2
    for pid in projects:
        proj = server.get("/api/v1/projects/" + pid).json()
        assert (proj["customerId"], proj["branchId"]) == (cid, None), proj

    bid = create(server, "branches", "north yard").json()["id"]
    run, res = import_file(server, data)
    assert run["state"] == "SUCCEEDED", run
    assert run["counts"] == {"succeeded": 5, "warnings": 0, "failed": 0, "skipped": 0}, run
    for pid in projects:
        proj = server.get("/api/v1/projects/" + pid).json()
        assert (proj["customerId"], proj["branchId"]) == (cid, bid), proj

    # Nothing would change now: all skipped.
    run, res = import_file(server, data)
    assert run["state"] == "SKIPPED", run
    assert run["counts"] == {"succeeded": 0, "warnings": 0, "failed": 0, "skipped": 5}, run
    assert all(e["reason"] == "duplicate_of_prior_import" and "warnings" not in e for e in res["skipped"])


def test_repush_still_missing_is_skipped(server):
    """PRODUCT §11: a name that still matches nothing changes nothing: the
    identical re-push is skipped, as before."""
    data = _fix_loop_file()
    import_file(server, data)
    run, res = import_file(server, data)
    assert run["state"] == "SKIPPED" and run["counts"]["skipped"] == 5, run


def test_project_changed_elsewhere_is_not_a_noop(server):
    """PRODUCT §11 and §5 ("the first row of a job in a file sets the
    Project's fields"): when another file renamed the Project, re-pushing
    the first file sets it back, so its first row of the job is written
    (the other rows, which do not write the Project, are skipped)."""
    data = csv_bytes([row(i, job="J-PRJ") for i in range(1, 4)])
    import_file(server, data)
    other, _ = import_file(server, csv_bytes([row(9, job="J-PRJ", projectName="Renamed")]))
    assert other["state"] == "SUCCEEDED", other
    run, res = import_file(server, data)
    assert run["counts"] == {"succeeded": 1, "warnings": 0, "failed": 0, "skipped": 2}, run
    assert [e["rowIndex"] for e in res["succeeded"]] == [2]
    load = server.get("/api/v1/loads/" + res["succeeded"][0]["createdRecordIds"][0]).json()
    assert server.get("/api/v1/projects/" + load["projectId"]).json()["name"] == "Project J-PRJ"
    run, _ = import_file(server, data)
    assert run["state"] == "SKIPPED", run


def _cells_hash(values):
    """The hash Loads were stored with before issue 22: SHA-256 over each
    non-blank normalized value's field name and text (NUL after each), in
    schema order."""
    import hashlib
    h = hashlib.sha256()
    for name, text in values:
        h.update(name.encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()


def test_loads_stored_before_keep_skipping(server):
    """Issue 22 item 1: Loads written before the hash held the resolved
    references (their content_hash is the cells' hash alone) keep skipping
    an identical re-push of an unchanged file; once a name resolves to a
    record their Project does not have, they are updated."""
    from harness.db import db_exec
    headers = ["jobCode", "loadNo", "loadDate", "customer", "material"]
    recs = [{"jobCode": "J-OLD", "loadNo": "L-%d" % i, "loadDate": "2026-10-0%d" % i, "customer": "Old Rock Co",
             "material": "Sand"} for i in (1, 2)]
    data = csv_bytes(recs, headers=headers)
    run, res = import_file(server, data)
    assert run["counts"]["warnings"] == 2, run
    for r, e in zip(recs, res["succeeded"]):
        legacy = _cells_hash([(k, r[k]) for k in ("jobCode", "loadNo", "loadDate", "customer", "material")])
        db_exec(server.db_url, "UPDATE loads SET content_hash = '%s' WHERE id = '%s'"
                % (legacy, e["createdRecordIds"][0]))
    run, _ = import_file(server, data)
    assert run["state"] == "SKIPPED" and run["counts"]["skipped"] == 2, run
    cid = create(server, "customers", "Old Rock Co").json()["id"]
    run, res = import_file(server, data)
    assert run["counts"] == {"succeeded": 2, "warnings": 0, "failed": 0, "skipped": 0}, run
    load = server.get("/api/v1/loads/" + res["succeeded"][0]["createdRecordIds"][0]).json()
    assert server.get("/api/v1/projects/" + load["projectId"]).json()["customerId"] == cid
    run, _ = import_file(server, data)
    assert run["state"] == "SKIPPED", run


def test_first_row_of_a_job_sets_the_project_on_every_push(server):
    """PRODUCT §5 ("the first row of a job in a file sets the Project's
    fields") and §11: rows of one job that disagree on the project name are
    not a change on an identical re-push (no row flips the name back and
    forth), and a later row of the job that changes its own Load does not
    take the Project from the first row."""
    recs = [row(1, job="J-TWO", projectName="Alpha"), row(2, job="J-TWO", projectName="Beta")]
    run, res = import_file(server, csv_bytes(recs))
    pid = server.get("/api/v1/loads/" + res["succeeded"][0]["createdRecordIds"][0]).json()["projectId"]
    assert server.get("/api/v1/projects/" + pid).json()["name"] == "Alpha"
    for _ in range(2):
        run, _ = import_file(server, csv_bytes(recs))
        assert run["state"] == "SKIPPED", run
    recs[1]["material"] = "Sand"
    run, res = import_file(server, csv_bytes(recs))
    assert run["counts"] == {"succeeded": 1, "warnings": 0, "failed": 0, "skipped": 1}, run
    assert [e["rowIndex"] for e in res["succeeded"]] == [3]
    assert server.get("/api/v1/projects/" + pid).json()["name"] == "Alpha"
