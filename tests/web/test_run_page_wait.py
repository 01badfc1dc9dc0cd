"""The run page waits by long poll (issue 30; PRODUCT §12 "the run page
refreshes itself until the run is terminal"): in a browser with script the
page is not reloaded every 2 s while its run is unchanged, and shows the run
finished well under a second after it ends; without script the meta
refresh (inside <noscript>) remains.  The run is held QUEUED by a server
without workers, then a `loadline worker` process imports it (the change
reaches the held request across processes)."""
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run
from harness.server import assert_workers_clean, start_workers, stop_workers
from web.test_browser import browser, click_button, wait  # noqa: F401  (the fixture)
from web.webtools import login_link, signin


def test_running_page_long_polls_and_keeps_a_noscript_refresh(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(1, job="WAIT-0"))))
    w = signin(srv)
    page = w.get("/imports/runs/" + run["id"]).text
    assert re.search(r'<noscript><meta http-equiv="refresh" content="2"></noscript>', page), page[:1500]
    m = re.search(r'data-run-wait="(/imports/runs/%s/wait\?since=([0-9a-f]{32}))"' % run["id"], page)
    assert m, page[:3000]
    etag = srv.get("/api/v1/imports/runs/" + run["id"]).headers["ETag"]
    assert etag == '"%s"' % m.group(2), "the token is the run's ETag"
    t0 = time.monotonic()
    r = w.get(m.group(1).replace("since=", "since=x"))
    assert r.status_code == 200 and r.json()["changed"] is True and time.monotonic() - t0 < 1
    assert w.get("/imports/runs/run_0000000000000000000000/wait?since=x").status_code == 404


def test_browser_shows_the_run_finished_at_once(start_server, browser):  # noqa: F811
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(2, job="WAIT-1"))))
    d = browser
    link = login_link(srv, srv.org.admin_email)
    d.get(srv.base_url + link[link.index("/login/link"):])
    click_button(d, "Sign in")
    wait(d, EC.url_to_be(srv.base_url + "/imports"))
    d.get(srv.base_url + "/imports/runs/" + run["id"])
    assert d.find_element(By.ID, "run-state").get_attribute("data-state") == "QUEUED"
    # A mark on the loaded page: a reload (the old 2 s refresh) clears it.
    d.execute_script("window.__stillHere = true;")
    time.sleep(3)
    assert d.execute_script("return window.__stillHere === true;"), "the page reloaded while nothing changed"
    procs = start_workers(srv.db_url, 1, 1)
    try:
        done = wait_run(srv, run["id"])
        ended = time.monotonic()
        assert done["state"] == "SUCCEEDED", done
        wait(d, lambda drv: drv.find_element(By.ID, "run-state").get_attribute("data-state") == "SUCCEEDED",
             timeout=10)
        lag = time.monotonic() - ended
        assert lag < 1.0, "the page showed the finished run %.2f s after it ended" % lag
    finally:
        assert_workers_clean(stop_workers(procs))
