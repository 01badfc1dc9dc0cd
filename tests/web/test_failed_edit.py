"""Edit failed rows in the browser (issue 28 item 1; PRODUCT §15).

The run page's Failed tab shows the failed rows as a form of the file's own
columns (50 rows a page), failing cells marked with their messages.
Members and admins change cells and "Import corrected rows": a new run of
exactly the changed rows, with their original row numbers (CSRF as every
form).  A problem group with a column offers "Set <column> in N rows".
With script (app.js, same origin) cells are edited in place: Enter moves
down, Escape cancels the edit; the browser test edits two cells in headless
Chromium and imports them."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness.jobs import accepted_run, by_row, csv_bytes, results, rows, upload, wait_run
from web.test_browser import browser, shot, wait  # noqa: F401  (the fixture)
from web.test_run_problems_page import sign_in_browser
from web.webtools import add_member, forms, signin, text_of


def mixed(job, n=6, bad_dates=(1,)):
    """Row i+2 of the file fails for every i in bad_dates (a bad date); row 5
    fails with a bad weight."""
    recs = rows(n, job=job)
    for i in bad_dates:
        recs[i]["loadDate"] = "31/31/2026"
    recs[3]["weight"] = "12 bananas"
    return csv_bytes(recs)


def finished(srv, data):
    run = wait_run(srv, accepted_run(upload(srv, data))["id"])
    assert run["state"] == "PARTIAL", run
    return run


def fix_form(page, run_id):
    """The table's form (the problem groups' forms post to the same place)."""
    found = [f for f in forms(page).forms
             if f["action"] == "/imports/runs/%s/corrections" % run_id and f["attrs"].get("id") == "fix-form"]
    assert len(found) == 1, [f["action"] for f in forms(page).forms]
    return found[0]


def failed_page(w, run_id):
    r = w.get("/imports/runs/%s?bucket=failed" % run_id)
    assert r.status_code == 200, r.text[:300]
    return r.text


def headers_of(srv):
    return list(csv_bytes(rows(1)).decode().splitlines()[0].split(","))


def col(srv, name):
    return headers_of(srv).index(name)


@pytest.mark.parametrize("who", ["admin", "member"])
def test_table_of_the_files_columns_and_import_without_script(server, who):
    run = finished(server, mixed("FE-1-" + who))
    w = signin(server, add_member(server) if who == "member" else None)
    page = failed_page(w, run["id"])
    assert 'id="fix-rows"' in page
    f = fix_form(page, run["id"])
    assert f["fields"]["csrf"]
    d, wt = col(server, "loadDate"), col(server, "weight")
    assert f["fields"]["r3.%d" % d] == "31/31/2026" and f["fields"]["r5.%d" % wt] == "12 bananas"
    assert sorted({k.split(".")[0] for k in f["fields"] if k.startswith("r")}) == ["r3", "r5"]
    # Failing cells carry their messages; the header is the file's.
    assert 'class="cell-bad"' in page and "loadDate" in text_of(page)
    data = dict(f["fields"])
    data["r3.%d" % d] = "2026-11-04"        # row 5 left as it is: not imported
    r = w.post("/imports/runs/%s/corrections" % run["id"], data=data)
    assert r.status_code == 303, (r.status_code, r.text[:300])
    new_id = r.headers["Location"].rsplit("/", 1)[1]
    new = wait_run(server, new_id, confirm_staged=False)
    assert new["correctionOf"] == run["id"] and new["state"] == "SUCCEEDED", new
    assert sorted(by_row(results(server, new_id, "succeeded"))) == [3]
    assert 'href="/imports/runs/%s"' % run["id"] in w.get("/imports/runs/%s" % new_id).text


def test_csrf_and_nothing_changed_are_refused(server):
    run = finished(server, mixed("FE-2"))
    w = signin(server)
    f = fix_form(failed_page(w, run["id"]), run["id"])
    d = col(server, "loadDate")
    changed = dict(f["fields"], **{"r3.%d" % d: "2026-11-04"})
    bad = dict(changed, csrf="x" * len(f["fields"]["csrf"]))
    assert w.post("/imports/runs/%s/corrections" % run["id"], data=bad).status_code == 403
    no_csrf = {k: v for k, v in changed.items() if k != "csrf"}
    assert w.post("/imports/runs/%s/corrections" % run["id"], data=no_csrf).status_code == 403
    r = w.post("/imports/runs/%s/corrections" % run["id"], data=f["fields"])
    assert r.status_code == 400 and "No cell was changed" in text_of(r.text)
    # A row that did not fail is not the form's to correct.
    r = w.post("/imports/runs/%s/corrections" % run["id"], data=dict(changed, **{"r2.%d" % d: "2026-11-09"}))
    assert r.status_code == 400 and "not a failed row" in text_of(r.text)
    runs = server.get("/api/v1/imports/runs").json()["data"]
    assert [x for x in runs if x.get("correctionOf")] == []
    # Another organization's run is not found.
    assert w.post("/imports/runs/run_0000000000000000000000/corrections", data=changed).status_code == 404


def test_set_one_value_for_a_problem_group(server):
    run = finished(server, mixed("FE-3", n=8, bad_dates=(1, 2, 6)))
    w = signin(server)
    page = w.get("/imports/runs/%s" % run["id"]).text
    groups = [f for f in forms(page).forms if f["action"] == "/imports/runs/%s/corrections" % run["id"]
              and "group_code" in f["fields"]]
    date_group = [f for f in groups if f["fields"]["group_column"] == "loadDate"]
    assert len(date_group) == 1, groups
    assert "Set loadDate in 3 rows" in text_of(page)
    data = dict(date_group[0]["fields"], value="2026-11-06")
    r = w.post("/imports/runs/%s/corrections" % run["id"], data=data)
    assert r.status_code == 303, (r.status_code, r.text[:300])
    new = wait_run(server, r.headers["Location"].rsplit("/", 1)[1], confirm_staged=False)
    assert new["state"] == "SUCCEEDED" and new["counts"]["succeeded"] == 3, new
    assert sorted(by_row(results(server, new["id"], "succeeded"))) == [3, 4, 8]


def test_pages_of_50_rows(server):
    recs = rows(60, job="FE-4")
    for r in recs:
        r["loadDate"] = "31/31/2026"
    run = wait_run(server, accepted_run(upload(server, csv_bytes(recs)))["id"])
    w = signin(server)
    page = failed_page(w, run["id"])
    f = fix_form(page, run["id"])
    assert len({k.split(".")[0] for k in f["fields"] if k.startswith("r")}) == 50
    assert "fix_after=51" in page
    rest = fix_form(w.get("/imports/runs/%s?bucket=failed&fix_after=51" % run["id"]).text, run["id"])
    assert sorted({int(k[1:].split(".")[0]) for k in rest["fields"] if k.startswith("r")}) == list(range(52, 62))


@pytest.mark.parametrize("backend", ["sqlite"])
def test_browser_edits_two_cells_in_place_and_imports_them(server, browser):  # noqa: F811
    run = finished(server, mixed("FE-B"))
    sign_in_browser(server, browser)
    browser.get(server.base_url + "/imports/runs/%s?bucket=failed" % run["id"])
    d, wt = col(server, "loadDate"), col(server, "weight")
    date = browser.find_element(By.NAME, "r3.%d" % d)
    # Escape cancels an edit.
    date.click()
    date.send_keys(Keys.END, "x")
    assert date.get_attribute("value") == "31/31/2026x"
    date.send_keys(Keys.ESCAPE)
    assert date.get_attribute("value") == "31/31/2026"
    # Enter moves to the cell below (the same column of the next failed row), not posting the form.
    date.send_keys(Keys.ENTER)
    below = browser.find_element(By.NAME, "r5.%d" % d)
    assert browser.switch_to.active_element == below
    date.click()
    date.send_keys(Keys.CONTROL, "a")
    date.send_keys("2026-11-04")
    weight = browser.find_element(By.NAME, "r5.%d" % wt)
    weight.click()
    weight.send_keys(Keys.CONTROL, "a")
    weight.send_keys("12000", Keys.TAB)
    assert "is-changed" in weight.get_attribute("class")
    button = browser.find_element(By.ID, "import-corrected")
    assert "(2 rows)" in button.text
    shot(browser, "failed-rows-edited")
    button.click()
    wait(browser, lambda b: run["id"] not in b.current_url and "/imports/runs/run_" in b.current_url)
    new_id = browser.current_url.rsplit("/", 1)[1].split("?")[0]
    new = wait_run(server, new_id, confirm_staged=False)
    assert new["correctionOf"] == run["id"] and new["state"] == "SUCCEEDED", new
    assert sorted(by_row(results(server, new_id, "succeeded"))) == [3, 5]
