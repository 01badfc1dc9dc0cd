"""GET /api/v1/whoami and its /v1/whoami alias (SPEC "Endpoints",
"Authentication" 4; PRODUCT §2)."""
import datetime

import pytest

from harness.checks import TOKEN_RE, assert_id, assert_request_id, parse_ts, utcnow

WHOAMI_PATHS = ["/api/v1/whoami", "/v1/whoami"]
SKEW = datetime.timedelta(seconds=5)


def _key_id_of(srv, org_id, token_name):
    lines = srv.cli.admin("list-tokens", "--org", org_id).out.strip().splitlines()
    ids = [l.split()[0] for l in lines if l.split()[2:3] == [token_name]]
    assert len(ids) == 1, "list-tokens:\n%s" % "\n".join(lines)
    return ids[0]


@pytest.mark.parametrize("path", WHOAMI_PATHS)
def test_whoami_body_shape_and_values(start_server, path):
    """PRODUCT §2: whoami -> 200 {id key_, object api_key, name, prefix
    ll_live_XXXX, createdAt, lastUsedAt, organization{id, object
    organization, name, createdAt}}; SPEC: /v1/whoami answers the same."""
    before = utcnow()
    srv = start_server(org_name="Acme Freight, Inc. — Über")
    org = srv.org
    assert TOKEN_RE.match(org.token), org.token
    r = srv.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].split(";")[0] == "application/json"
    assert_request_id(r)
    b = r.json()
    assert set(b) == {"id", "object", "name", "prefix", "createdAt", "lastUsedAt",
                      "organization"}, sorted(b)
    assert_id(b["id"], "key")
    assert b["id"] == _key_id_of(srv, org.id, "tests")
    assert b["object"] == "api_key"
    assert b["name"] == "tests"
    assert b["prefix"].startswith("ll_live_") and len(b["prefix"]) == len("ll_live_") + 4
    assert org.token.startswith(b["prefix"])
    created = parse_ts(b["createdAt"])
    assert before - SKEW <= created <= utcnow() + SKEW
    o = b["organization"]
    assert set(o) == {"id", "object", "name", "createdAt"}, sorted(o)
    assert o["id"] == org.id
    assert_id(o["id"], "org")
    assert o["object"] == "organization"
    assert o["name"] == "Acme Freight, Inc. — Über"
    assert before - SKEW <= parse_ts(o["createdAt"]) <= created + SKEW
    assert org.token not in r.text, "the token must never be echoed back"


def test_whoami_alias_answers_the_same(server):
    """SPEC "Endpoints": /v1/whoami is the contract path of /api/v1/whoami."""
    a = server.get("/api/v1/whoami").json()
    b = server.get("/v1/whoami").json()
    a.pop("lastUsedAt"), b.pop("lastUsedAt")
    assert a == b


def test_whoami_last_used_at_is_set_by_use(server):
    """PRODUCT §2 / lead: lastUsedAt is null before first use, then set
    (a timestamp no earlier than the key's creation, no later than now)."""
    before = utcnow()
    first = server.get("/api/v1/whoami").json()
    # The first answer may report the use it is serving or the state before it.
    if first["lastUsedAt"] is not None:
        assert before - SKEW <= parse_ts(first["lastUsedAt"]) <= utcnow() + SKEW
    second = server.get("/api/v1/whoami").json()
    assert second["lastUsedAt"] is not None, "lastUsedAt still null after a use"
    t2 = parse_ts(second["lastUsedAt"])
    assert parse_ts(second["createdAt"]) <= t2 <= utcnow() + SKEW
    assert t2 >= before - SKEW
    if first["lastUsedAt"] is not None:
        assert t2 >= parse_ts(first["lastUsedAt"])


def test_each_token_is_bound_to_its_own_org(server):
    """SPEC "Authentication" 2: each token is bound to one organization."""
    other = server.new_org("Second Org")
    a = server.get("/api/v1/whoami").json()
    b = server.get("/api/v1/whoami", token=other.token).json()
    assert a["organization"]["id"] == server.org.id
    assert b["organization"]["id"] == other.id != server.org.id
    assert b["organization"]["name"] == "Second Org"
    assert a["id"] != b["id"]
    # a second token of the same org: same org, its own key id
    t3 = server.mint(server.org.id, name="second")
    c = server.get("/api/v1/whoami", token=t3).json()
    assert c["organization"]["id"] == server.org.id and c["id"] != a["id"]
    assert c["name"] == "second"
