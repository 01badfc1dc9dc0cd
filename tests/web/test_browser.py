"""The web app in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by python3-selenium.  Screenshots of every screen go
to tests/.out/screens/ (issue 7 "Tests and evidence")."""
import base64
import os
import re
import shutil
import tempfile

import pytest
from selenium import webdriver
from selenium.common.exceptions import (NoSuchElementException, StaleElementReferenceException,
                                        WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from harness.server import OUT_DIR
from web.conftest import start_sso_server
from harness.jobs import awaiting_review
from web.webtools import custom_csv, login_link, upload, wait_for

pytestmark = pytest.mark.parametrize("backend", ["sqlite"])

SCREENS = os.path.join(OUT_DIR, "screens")
CHROMIUM = os.environ.get("LOADLINE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("LOADLINE_CHROMEDRIVER", "/usr/bin/chromedriver")


@pytest.fixture
def browser():
    profile = tempfile.mkdtemp(prefix="ll-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,900", "--user-data-dir=" + profile):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def shot(driver, name, width=1280):
    """Saves a full-page screenshot as tests/.out/screens/<name>.png (the
    DevTools protocol captures beyond the viewport)."""
    os.makedirs(SCREENS, exist_ok=True)
    if width != 1280:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    png = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 4000), "scale": 1}})
    with open(os.path.join(SCREENS, name + ".png"), "wb") as f:
        f.write(base64.b64decode(png["data"]))
    if width != 1280:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


class _NodeLeftDocument(Exception):
    pass


def wait(driver, cond, timeout=20):
    # pages reload themselves (a run that is working) and forms navigate:
    # elements go stale, or chromedriver finds the body node of the page
    # that is being left ("Node with given id does not belong to the
    # document"); both mean "not yet", so the condition is tried again.
    def tolerant(drv):
        try:
            return cond(drv)
        except WebDriverException as e:
            if "does not belong to the document" in str(e):
                raise _NodeLeftDocument() from e
            raise
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,
                                                              NoSuchElementException,
                                                              _NodeLeftDocument)).until(tolerant)


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def click_button(driver, label):
    driver.find_element(By.XPATH, "//button[normalize-space()='%s']" % label).click()


def test_sign_in_review_from_email_confirm_and_see_results(start_server, oidc_provider, smtp, browser):
    """Sign in with SSO, open the review link from the email the SMTP server
    received, change one mapping, confirm, watch the run finish, see its
    results."""
    srv = start_sso_server(start_server, oidc_provider, env={"LOADLINE_SMTP_URL": smtp.url})
    run = upload(srv, custom_csv(3), name="week-47.csv")
    _, mail = smtp.inbox.wait(1)[0]
    link = re.search(r"(http://\S+/imports/runs/\S+/review)", mail.get_content()).group(1)
    run = awaiting_review(srv, run["id"])
    assert link == run["nextAction"]["url"]

    d = browser
    d.get(srv.base_url + "/imports")
    wait(d, EC.url_contains("/login"))
    shot(d, "01-sign-in")
    d.find_element(By.LINK_TEXT, "Sign in with single sign-on").click()
    wait(d, EC.presence_of_element_located((By.NAME, "login")))
    d.find_element(By.NAME, "login").send_keys(srv.org.admin_email)
    d.find_element(By.NAME, "password").send_keys("any password")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    assert "week-47.csv" in text(d) and "needs review" in text(d)
    shot(d, "02-imports")

    d.get(link)
    wait(d, EC.presence_of_element_located((By.CSS_SELECTOR, "form[data-review]")))
    assert "Review the columns of week-47.csv" in text(d)
    shot(d, "03-review")
    remarks = Select(d.find_element(By.ID, "col-3"))
    new_field = "material" if remarks.first_selected_option.get_attribute("value") != "material" else "notes"
    # script feedback: a field chosen twice is flagged at once
    remarks.select_by_value("jobCode")
    wait(d, EC.visibility_of_element_located((By.ID, "duplicate-fields")))
    assert "jobCode is chosen more than once" in d.find_element(By.ID, "duplicate-fields").text
    shot(d, "04-review-duplicate")
    remarks.select_by_value(new_field)
    wait(d, EC.invisibility_of_element_located((By.ID, "duplicate-fields")))
    # the preview of the first rows follows the choices (fetched by the script)
    date = Select(d.find_element(By.ID, "col-2"))
    date.select_by_value("")
    wait(d, lambda drv: "MISSING_REQUIRED" in drv.find_element(By.ID, "preview").text)
    assert d.find_element(By.ID, "missing-required").is_displayed()
    shot(d, "04b-review-preview")
    date.select_by_value("loadDate")
    wait(d, lambda drv: "MISSING_REQUIRED" not in drv.find_element(By.ID, "preview").text)
    click_button(d, "Confirm mapping and import")
    wait(d, EC.url_to_be(srv.base_url + "/imports/runs/" + run["id"]))
    wait(d, lambda drv: "SUCCEEDED" in drv.find_element(By.ID, "run-state").text, timeout=30)
    assert "Succeeded 3" in text(d)
    shot(d, "05-run-finished")
    assert "L0" in text(d) and "Wrote load_" in text(d)

    result = srv.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"]).json()["data"][0]
    load = srv.get("/api/v1/loads/" + result["createdRecordIds"][0]).json()
    assert load[new_field] == "note 0"


def test_mint_key_use_it_revoke_it(start_server, browser):
    """Mint a key in the UI and use it against /api/v1/whoami; revoke it and
    see 401."""
    srv = start_server()
    d = browser
    link = login_link(srv, srv.org.admin_email)
    # the CLI prints {app_url}, which it cannot know here: the server's port
    d.get(srv.base_url + link[link.index("/login/link"):])
    shot(d, "06-sign-in-link")
    click_button(d, "Sign in")
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    shot(d, "07-imports-empty")
    d.find_element(By.LINK_TEXT, "Settings").click()
    wait(d, EC.url_to_be(srv.base_url + "/settings/api-keys"))
    d.find_element(By.ID, "key-name").send_keys("Browser key")
    click_button(d, "Create key")
    token = wait(d, EC.presence_of_element_located((By.ID, "new-token"))).get_attribute("value")
    assert token.startswith("ll_live_")
    copy = d.find_element(By.CSS_SELECTOR, "[data-copy=new-token]")
    assert copy.is_displayed()
    shot(d, "08-key-minted")
    who = srv.get("/api/v1/whoami", token=token)
    assert who.status_code == 200 and who.json()["name"] == "Browser key"

    d.get(srv.base_url + "/settings/api-keys")
    row = d.find_element(By.XPATH, "//tr[td[normalize-space()='Browser key']]")
    assert "never" not in row.text  # lastUsedAt from the whoami call
    row.find_element(By.XPATH, ".//button[normalize-space()='Revoke']").click()
    wait(d, EC.alert_is_present()).accept()
    wait(d, EC.url_contains("revoked=1"))
    assert "The key was revoked" in text(d)
    shot(d, "09-key-revoked")
    assert srv.get("/api/v1/whoami", token=token).status_code == 401

    # the other screens, for the record
    d.find_element(By.LINK_TEXT, "Communications").click()
    d.find_element(By.ID, "recipients").send_keys("ops@acme.test\nlead@acme.test")
    click_button(d, "Save recipients")
    wait(d, EC.url_contains("saved=1"))
    shot(d, "10-communications")
    srv.cli.admin("add-location", "--org", srv.org.id, "--name", "North Yard", "--street", "1 Quarry Rd",
                  "--city", "Austin", "--state", "TX", "--zip", "78701")
    d.find_element(By.LINK_TEXT, "Locations").click()
    d.find_element(By.ID, "q").send_keys("quarry")
    click_button(d, "Search")
    wait(d, lambda drv: "North Yard" in text(drv))
    shot(d, "11-locations")
    shot(d, "12-locations-phone", width=390)
    d.get(srv.base_url + "/imports/runs/run_nope")
    shot(d, "13-not-found")
    click_button(d, "Sign out")
    wait(d, EC.url_contains("signed_out=1"))
    d.get(srv.base_url + "/settings/api-keys")
    wait(d, EC.url_contains("/login"))


def test_keyboard_only_confirm(start_server, browser):
    """Keyboard-usable: the skip link, then Tab through the review form to
    the confirm button and press Enter."""
    from selenium.webdriver.common.keys import Keys
    srv = start_server()
    run = awaiting_review(srv, upload(srv, custom_csv(2))["id"])
    d = browser
    link = login_link(srv, srv.org.admin_email)
    d.get(srv.base_url + link[link.index("/login/link"):])
    click_button(d, "Sign in")
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    d.get(run["nextAction"]["url"])
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    assert d.switch_to.active_element.text == "Skip to content"
    for _ in range(40):
        d.switch_to.active_element.send_keys(Keys.TAB)
        if d.switch_to.active_element.text == "Confirm mapping and import":
            break
    else:
        raise AssertionError("the confirm button is not reachable with Tab")
    d.switch_to.active_element.send_keys(Keys.ENTER)
    wait(d, EC.url_to_be(srv.base_url + "/imports/runs/" + run["id"]))
    wait_for(lambda: srv.get("/api/v1/imports/runs/" + run["id"]).json()["state"] == "SUCCEEDED",
             what="run to succeed")


def test_customers_and_branches_pages(start_server, browser):
    """Issue 13: Customers and Branches are in the navigation; an admin adds
    a customer in the browser, finds it by search, and a duplicate is
    refused on the page with the typed name kept."""
    srv = start_server()
    d = browser
    link = login_link(srv, srv.org.admin_email)
    d.get(srv.base_url + link[link.index("/login/link"):])
    click_button(d, "Sign in")
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    d.find_element(By.LINK_TEXT, "Customers").click()
    wait(d, EC.url_to_be(srv.base_url + "/customers"))
    d.find_element(By.ID, "ref-name").send_keys("Granite Ridge Quarry")
    click_button(d, "Add customer")
    wait(d, EC.url_contains("added=1"))
    assert "Granite Ridge Quarry" in text(d)
    shot(d, "14-customers")
    d.find_element(By.ID, "ref-name").send_keys("granite ridge quarry")
    click_button(d, "Add customer")
    wait(d, lambda drv: "already exists" in text(drv))
    assert d.find_element(By.ID, "ref-name").get_attribute("value") == "granite ridge quarry"
    d.find_element(By.LINK_TEXT, "Branches").click()
    wait(d, EC.url_to_be(srv.base_url + "/branches"))
    d.find_element(By.ID, "ref-name").send_keys("North Yard")
    click_button(d, "Add branch")
    wait(d, EC.url_contains("added=1"))
    q = d.find_element(By.ID, "q")
    q.clear()
    q.send_keys("north")
    click_button(d, "Search")
    wait(d, lambda drv: "1 branch matches “north”" in text(drv))
    shot(d, "15-branches-search")
    names = [x["name"] for x in srv.get("/api/v1/customers").json()["data"]]
    assert names == ["Granite Ridge Quarry"]


def test_column_mapping_learned_and_forgotten(start_server, browser):
    """PRODUCT §14 "Learning from confirmations": the review screen says why
    each column is proposed; confirming with one column changed teaches the
    organization; Settings → Column mapping lists the header with its field
    and who confirmed it, and Forget removes it."""
    srv = start_server()
    d = browser
    run = upload(srv, "Haul Code,Load Number,Ship Date\nH-1,L1,2026-11-02\nH-1,L2,2026-11-03\n")
    link = login_link(srv, srv.org.admin_email)
    d.get(srv.base_url + link[link.index("/login/link"):])
    click_button(d, "Sign in")
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    d.get(srv.base_url + "/imports/runs/%s/review" % run["id"])
    why = d.find_elements(By.CSS_SELECTOR, ".why")
    assert [w.get_attribute("data-reason") for w in why] == ["none", "synonym", "synonym"]
    Select(d.find_element(By.ID, "col-0")).select_by_value("jobCode")
    shot(d, "14-review-reasons")
    click_button(d, "Confirm mapping and import")
    # the review page's URL already contains /imports/runs/: wait for the
    # run page itself, or the next get() can abort the form's POST
    wait(d, EC.url_to_be(srv.base_url + "/imports/runs/" + run["id"]))
    d.get(srv.base_url + "/settings/api-keys")
    d.find_element(By.LINK_TEXT, "Column mapping").click()
    wait(d, EC.url_to_be(srv.base_url + "/settings/column-mapping"))
    row = d.find_element(By.XPATH, "//tr[td[normalize-space()='Haul Code']]")
    assert "jobCode" in row.text
    shot(d, "15-column-mapping")
    row.find_element(By.XPATH, ".//button[normalize-space()='Forget']").click()
    wait(d, EC.alert_is_present()).accept()
    wait(d, EC.url_contains("forgot=1"))
    assert "Haul Code" not in text(d) and "Forgotten" in text(d)
