"""Customers and Branches pages (issue 13; PRODUCT §8): in the navigation,
list and search for members, add for admins (CSRF, the API's name rule and
DUPLICATE_NAME), and what is added there is what rows then match."""
import pytest

from harness.jobs import csv_bytes, import_file, row
from web.webtools import add_member, forms, signin, text_of

PAGES = [("/customers", "customer", "Customers"), ("/branches", "branch", "Branches")]


@pytest.mark.parametrize("path,noun,title", PAGES)
def test_admin_adds_and_searches(server, path, noun, title):
    w = signin(server)
    page = w.get("/imports")
    assert 'href="%s"' % path in page.text  # in the navigation
    r = w.submit(path, path, name="  Granite Ridge Quarry ")
    assert r.status_code == 303 and r.headers["Location"].startswith(path + "?added=1")
    t = text_of(w.get(r.headers["Location"]).text)
    assert "Added." in t and "Granite Ridge Quarry" in t
    w.submit(path, path, name="Bolt <Haulers>")
    t = text_of(w.get(path + "?q=granite").text)
    assert "Granite Ridge Quarry" in t and "Bolt" not in t
    t = text_of(w.get(path).text)
    assert "Bolt <Haulers>" in t and "2 %s" % ("customers" if noun == "customer" else "branches") in t
    assert "<Haulers>" not in w.get(path).text  # escaped
    api = server.get("/api/v1/%s" % path.strip("/"), params={"q": "granite ridge"}).json()["data"]
    assert [x["name"] for x in api] == ["Granite Ridge Quarry"]


@pytest.mark.parametrize("path,noun,title", PAGES)
def test_duplicate_and_bad_names_are_refused_on_the_page(server, path, noun, title):
    w = signin(server)
    assert w.submit(path, path, name="North Yard").status_code == 303
    r = w.submit(path, path, name="north yard ")
    assert r.status_code == 409
    assert "already exists" in text_of(r.text) and 'value="north yard"' in r.text
    r = w.submit(path, path, name="   ")
    assert r.status_code == 400 and "1 to 200 characters" in text_of(r.text)
    assert len(server.get("/api/v1/%s" % path.strip("/")).json()["data"]) == 1


@pytest.mark.parametrize("path,noun,title", PAGES)
def test_member_views_but_cannot_add(server, path, noun, title):
    server.post("/api/v1/%s" % path.strip("/"), json={"name": "Seen By Members"})
    m = signin(server, add_member(server))
    page = m.get(path)
    assert page.status_code == 200 and "Seen By Members" in text_of(page.text)
    assert all(f["action"] != path or not f["buttons"] or f["fields"].get("q") is not None
               for f in forms(page.text).forms)
    assert "Only an organization admin can add" in text_of(page.text)
    csrf = m.form(path, "/logout")["fields"]["csrf"]
    assert m.post(path, data={"csrf": csrf, "name": "Member Made"}).status_code == 403
    assert "Member Made" not in text_of(m.get(path).text)


def test_add_without_csrf_is_403(server):
    w = signin(server)
    assert w.post("/customers", data={"name": "Sneaky"}).status_code == 403
    assert server.get("/api/v1/customers").json()["data"] == []


def test_signed_out_is_sent_to_sign_in(server):
    from web.webtools import Web
    r = Web(server).get("/customers")
    assert r.status_code in (302, 303) and "/login" in r.headers["Location"]


def test_added_customer_is_matched_by_the_next_import(server):
    w = signin(server)
    run, res = import_file(server, csv_bytes([row(1, customer="Dunmore Aggregates")]))
    assert any(x["code"] == "LOOKUP_MISS" for x in res["warnings"][0]["warnings"])
    w.submit("/customers", "/customers", name="DUNMORE AGGREGATES")
    run, res = import_file(server, csv_bytes([row(1, customer="Dunmore Aggregates", notes="again")]))
    assert run["state"] == "SUCCEEDED", res
