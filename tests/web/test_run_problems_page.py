"""The run page's grouped problems and the fix loop (issue 22 part 3;
PRODUCT §11 "Run page").

Problems are shown grouped above the per-row tabs ("No customer named “X”
— N rows", with the code, severity and first row numbers; at most 20 groups,
a note when there are more).  In a customer/branch LOOKUP_MISS group an admin
gets one button, "Add customer “X”", posting to /imports/runs/{id}/fix (CSRF,
admins only), which creates the record exactly as POST /api/v1/customers
does and returns to the run page with a note suggesting "Import this file
again"; a name that exists already gets a friendly note.  Members see the
group without the button.  The browser test walks the whole loop: warning →
add customer → import again → the warning is gone."""
import re

import pytest
from selenium.webdriver.common.by import By

from harness.jobs import accepted_run, csv_bytes, row, rows, upload, wait_run
from web.test_browser import browser, shot, wait  # noqa: F401  (the fixture)
from web.webtools import add_member, forms, login_link, signin, text_of

CUSTOMER = "Cascade Civil Group"


def unknown_customer_file(job, n=6, customer=CUSTOMER):
    return csv_bytes(rows(n, job=job, customer=customer))


def finished(srv, data):
    return wait_run(srv, accepted_run(upload(srv, data))["id"])


def customers_named(srv, name):
    r = srv.get("/api/v1/customers", params={"q": name})
    assert r.status_code == 200, r.text
    return [c for c in r.json()["data"] if c["name"] == name]


def fix_form(html, run_id):
    return forms(html).find("/imports/runs/%s/fix" % run_id)


def test_groups_shown_above_the_tabs(server):
    recs = rows(6, job="PG-1", customer=CUSTOMER) + [row(7, job="PG-1", customer="Acme", branch="North")]
    run = finished(server, csv_bytes(recs))
    assert run["state"] == "PARTIAL"
    w = signin(server)
    page = w.get("/imports/runs/%s" % run["id"]).text
    assert page.index('id="problems"') < page.index('class="tabs"')
    text = text_of(page)
    assert "No customer named “%s” — 6 rows" % CUSTOMER in text
    assert "LOOKUP_MISS warning" in text and "Rows 2, 3, 4, 5, 6, 7" in text
    assert "No branch named “North” — 1 row" in text and "Row 8" in text
    f = fix_form(page, run["id"])
    assert f["fields"]["kind"] == "customer" and f["fields"]["name"] == CUSTOMER and f["fields"]["csrf"]
    assert f["buttons"][0]["text"] == "Add customer “%s”" % CUSTOMER
    kinds = {(x["fields"].get("kind"), x["fields"].get("name")) for x in forms(page).forms
             if x["action"] == "/imports/runs/%s/fix" % run["id"]}
    assert kinds == {("customer", CUSTOMER), ("customer", "Acme"), ("branch", "North")}


def test_at_most_20_groups(server):
    recs = [row(i, job="PG-2", customer="Customer %02d" % i) for i in range(1, 24)]
    run = finished(server, csv_bytes(recs))
    page = signin(server).get("/imports/runs/%s" % run["id"]).text
    assert page.count('class="problem warn"') == 20
    assert "3 more groups are not shown here" in text_of(page)


def test_admin_adds_the_customer_without_script(server):
    run = finished(server, unknown_customer_file("PG-3"))
    w = signin(server)
    f = fix_form(w.get("/imports/runs/%s" % run["id"]).text, run["id"])
    r = w.post("/imports/runs/%s/fix" % run["id"], data=f["fields"])
    assert r.status_code == 303, (r.status_code, r.text[:300])
    assert r.headers["Location"].startswith("/imports/runs/%s?fixed=added" % run["id"])
    assert len(customers_named(server, CUSTOMER)) == 1
    page = w.get(r.headers["Location"]).text
    note = text_of(page)
    assert "Added customer “%s”" % CUSTOMER in note and "Import this file again" in note
    # The group stays (it is this run's), without the button now.
    assert "No customer named “%s” — 6 rows" % CUSTOMER in note and "This customer exists now" in note
    assert "/imports/runs/%s/fix" % run["id"] not in page
    # Posted again (a page still open elsewhere): said kindly, nothing created twice.
    r = w.post("/imports/runs/%s/fix" % run["id"], data=f["fields"])
    assert r.status_code == 303 and "fixed=exists" in r.headers["Location"]
    assert "exists already" in text_of(w.get(r.headers["Location"]).text)
    assert len(customers_named(server, CUSTOMER)) == 1


def test_branch_fix(server):
    run = finished(server, csv_bytes(rows(2, job="PG-4", branch="  Westside ")))
    w = signin(server)
    f = fix_form(w.get("/imports/runs/%s" % run["id"]).text, run["id"])
    assert f["fields"] == {"csrf": f["fields"]["csrf"], "kind": "branch", "name": "Westside"}
    assert w.post("/imports/runs/%s/fix" % run["id"], data=f["fields"]).status_code == 303
    names = [b["name"] for b in server.get("/api/v1/branches", params={"q": "Westside"}).json()["data"]]
    assert names == ["Westside"]


def test_member_sees_the_group_without_the_button_and_is_refused(server):
    run = finished(server, unknown_customer_file("PG-5"))
    admin_csrf = fix_form(signin(server).get("/imports/runs/%s" % run["id"]).text, run["id"])["fields"]["csrf"]
    m = signin(server, add_member(server))
    page = m.get("/imports/runs/%s" % run["id"]).text
    assert "No customer named “%s” — 6 rows" % CUSTOMER in text_of(page)
    assert "/imports/runs/%s/fix" % run["id"] not in page
    csrf = forms(page).find("/logout")["fields"]["csrf"]
    for token in (csrf, admin_csrf):
        r = m.post("/imports/runs/%s/fix" % run["id"], data={"csrf": token, "kind": "customer", "name": CUSTOMER})
        assert r.status_code == 403, r.status_code
    assert customers_named(server, CUSTOMER) == []


def test_bad_csrf_and_bad_form(server):
    run = finished(server, unknown_customer_file("PG-6"))
    w = signin(server)
    f = fix_form(w.get("/imports/runs/%s" % run["id"]).text, run["id"])
    bad = dict(f["fields"], csrf="x" * len(f["fields"]["csrf"]))
    assert w.post("/imports/runs/%s/fix" % run["id"], data=bad).status_code == 403
    no_csrf = {k: v for k, v in f["fields"].items() if k != "csrf"}
    assert w.post("/imports/runs/%s/fix" % run["id"], data=no_csrf).status_code == 403
    assert customers_named(server, CUSTOMER) == []
    weird = dict(f["fields"], kind="project")
    assert w.post("/imports/runs/%s/fix" % run["id"], data=weird).status_code == 400
    blank = dict(f["fields"], name="   ")
    assert w.post("/imports/runs/%s/fix" % run["id"], data=blank).status_code == 400
    assert w.post("/imports/runs/run_0000000000000000000000/fix", data=f["fields"]).status_code == 404


def sign_in_browser(srv, driver):
    link = login_link(srv, srv.org.admin_email)
    driver.get(srv.base_url + link[link.index("/login/link"):])
    driver.find_element(By.CSS_SELECTOR, "form[action='/login/link'] button").click()
    wait(driver, lambda d: d.current_url.endswith("/imports"))


@pytest.mark.parametrize("backend", ["sqlite"])
def test_browser_fix_loop(server, browser):  # noqa: F811
    """Headless Chromium, the whole loop: a file whose rows name an unknown
    customer → the run page shows the group → "Add customer" → "Import this
    file again" → the new run's page has no LOOKUP_MISS group."""
    run = finished(server, unknown_customer_file("PG-LOOP"))
    assert run["counts"]["warnings"] == 6
    sign_in_browser(server, browser)
    browser.get(server.base_url + "/imports/runs/%s" % run["id"])
    problems = browser.find_element(By.ID, "problems").text
    assert "No customer named “%s” — 6 rows" % CUSTOMER in problems and "LOOKUP_MISS" in problems
    shot(browser, "run-problems")
    browser.find_element(By.CSS_SELECTOR, "form[action$='/fix'] button").click()
    wait(browser, lambda d: "fixed=added" in d.current_url)
    assert "Added customer “%s”" % CUSTOMER in browser.find_element(By.ID, "fix-note").text
    assert len(customers_named(server, CUSTOMER)) == 1
    assert "This customer exists now" in browser.find_element(By.ID, "problems").text
    assert browser.find_elements(By.CSS_SELECTOR, "form[action$='/fix']") == []
    shot(browser, "run-problems-fixed")
    browser.find_element(By.CSS_SELECTOR, "form[action$='/rerun'] button").click()
    wait(browser, lambda d: re.search(r"/imports/runs/run_\w+$", d.current_url) and run["id"] not in d.current_url)
    again = browser.current_url.rsplit("/", 1)[1]
    wait(browser, lambda d: d.find_element(By.ID, "run-state").get_attribute("data-state") in ("SUCCEEDED", "PARTIAL"),
         timeout=30)
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "LOOKUP_MISS" not in body and "No customer named" not in body
    assert browser.find_elements(By.ID, "problems") == []
    shot(browser, "run-problems-gone")
    assert server.get("/api/v1/imports/runs/%s/problems" % again).json()["data"] == []


def test_rerun_after_the_fix_sets_the_customer(server):
    """After the customer is added, importing the same file again updates the
    loads with it (PRODUCT §11 "Skipped means nothing would change")."""
    run = finished(server, unknown_customer_file("PG-SET", n=2))
    w = signin(server)
    f = fix_form(w.get("/imports/runs/%s" % run["id"]).text, run["id"])
    assert w.post("/imports/runs/%s/fix" % run["id"], data=f["fields"]).status_code == 303
    rerun = forms(w.get("/imports/runs/%s" % run["id"]).text).find("/imports/runs/%s/rerun" % run["id"])
    r = w.post("/imports/runs/%s/rerun" % run["id"], data=rerun["fields"])
    again = wait_run(server, r.headers["Location"].rsplit("/", 1)[1])
    assert again["counts"]["succeeded"] == 2, again
    ids = server.get("/api/v1/imports/runs/%s/results/succeeded" % again["id"]).json()["data"]
    load = server.get("/api/v1/loads/%s" % ids[0]["createdRecordIds"][0]).json()
    project = server.get("/api/v1/projects/%s" % load["projectId"]).json()
    assert project["customerId"] == customers_named(server, CUSTOMER)[0]["id"]
