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
