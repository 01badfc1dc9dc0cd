"""Imports pages: runs newest first with state and counts, a run's results
per bucket (paged), the CSV download with formula-safe cells, and the
Locations search (PRODUCT §7)."""
import csv
import io
import re

from harness.jobs import accepted_run, csv_bytes, row, rows, upload, wait_run
from web.webtools import add_member, custom_csv, signin, text_of
from web.webtools import upload as upload_text

TEMPLATE = ["jobCode", "loadNo", "loadDate", "projectName", "notes", "weight"]


def run_of(srv, records, name="loads.csv", headers=TEMPLATE):
    run = accepted_run(upload(srv, csv_bytes(records, headers=headers), filename=name))
    return wait_run(srv, run["id"])


def test_runs_newest_first_with_state_and_counts(server):
    a = run_of(server, rows(2), name="first.csv")
    b = run_of(server, rows(1, start=10) + [row(11, loadDate="not a date")], name="second.csv")
    staged = upload_text(server, custom_csv(2), name="third.csv")
    w = signin(server)
    r = w.get("/imports")
    assert r.status_code == 200
    t = text_of(r.text)
    assert t.index("third.csv") < t.index("second.csv") < t.index("first.csv")
    assert a["state"] == "SUCCEEDED" and b["state"] == "PARTIAL"
    assert re.search(r"second\.csv PARTIAL 2 1 0 1 0", t), t
    assert re.search(r"first\.csv SUCCEEDED 2 2 0 0 0", t), t
    assert "third.csv QUEUED needs review" in t
    assert 'href="/imports/runs/%s/review"' % staged["id"] in r.text
    # Issue 30 item 5: a PARTIAL run whose rows only warned reads as imported.
    warned = run_of(server, rows(1, start=20, weight="12 t"), name="fourth.csv")
    assert warned["state"] == "PARTIAL" and warned["counts"]["failed"] == 0, warned
    r = w.get("/imports")
    assert re.search(r"fourth\.csv Imported with 1 warning 1 1 1 0 0", text_of(r.text)), text_of(r.text)
    assert 'class="state state-ok" data-state="PARTIAL">Imported with 1 warning<' in r.text
    page = w.get("/imports/runs/" + warned["id"]).text
    assert 'id="run-state" data-state="PARTIAL">Imported with 1 warning<' in page


def test_run_page_results_per_bucket(server):
    run = run_of(server, rows(2) + [row(3, loadDate="31/31/2026"), row(4, weight="12 t")])
    w = signin(server)
    r = w.get("/imports/runs/" + run["id"])
    assert r.status_code == 200
    t = text_of(r.text)
    assert "PARTIAL" in t
    assert "Succeeded 3 Warnings 1 Failed 1 Skipped 0" in t
    # opens on the failed bucket: the row, its code, where and what to do
    assert "TYPE_MISMATCH" in t and "loadDate" in t and "31/31/2026" in t
    r = w.get("/imports/runs/%s?bucket=warnings" % run["id"])
    assert "UNIT_NORMALIZED" in text_of(r.text)
    r = w.get("/imports/runs/%s?bucket=succeeded" % run["id"])
    assert "L-001" in r.text and "Wrote load_" in r.text
    r = w.get("/imports/runs/%s?bucket=skipped" % run["id"])
    assert "No rows in this bucket" in text_of(r.text)


def test_results_are_paged(server):
    run = run_of(server, rows(60))
    w = signin(server)
    r = w.get("/imports/runs/%s?bucket=succeeded" % run["id"])
    first = re.findall(r"<td>(L-\d{3})</td>", r.text)
    assert len(first) == 50 and first[0] == "L-001"
    nxt = re.search(r'href="(/imports/runs/[^"]+after=\d+)"', r.text.replace("&amp;", "&"))
    assert nxt, "no next page link"
    r = w.get(nxt.group(1))
    second = re.findall(r"<td>(L-\d{3})</td>", r.text)
    assert second == ["L-%03d" % i for i in range(51, 61)]
    assert "Next page" not in r.text and "First page" in r.text


def test_csv_download_has_every_result_and_no_formulas(server):
    """Download of all results as CSV whose cells cannot run as formulas:
    cells starting with =, +, -, @, tab or CR that are not plain numbers get a leading apostrophe (tab
    and CR, which the pipeline trims from keys, in tests/unit/test_web.c)."""
    evil = [row(1, job="=HYPERLINK(\"http://x\")", projectName="+1+1"),
            row(2, job="@SUM(A1)", projectName="-2", loadDate="=1+1"),
            row(3, job="J-3", projectName="@home"),
            row(4, job="J-plain", projectName="a, \"quoted\" name")]
    run = run_of(server, evil)
    w = signin(server)
    r = w.get("/imports/runs/%s/results.csv" % run["id"])
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/csv")
    assert "attachment" in r.headers["Content-Disposition"]
    body = r.content.decode("utf-8-sig")
    table = list(csv.reader(io.StringIO(body)))
    assert table[0][:5] == ["bucket", "rowIndex", "jobCode", "loadNo", "projectName"]
    for line in table[1:]:
        for cell in line:
            # A plain number such as -2 is not a formula and stays as it is
            # (PRODUCT §11: never before a plain number).
            assert not cell or cell[0] not in "=+-@\t\r" or cell == "-2", line
    by_job = {l[2]: l for l in table[1:]}
    assert by_job["'@SUM(A1)"][4] == "-2"
    assert "'=HYPERLINK(\"http://x\")" in by_job and by_job["'=HYPERLINK(\"http://x\")"][4] == "'+1+1"
    failed = by_job["'@SUM(A1)"]
    assert failed[0] == "failed" and failed[5] == "TYPE_MISMATCH" and failed[9] == "'=1+1"
    assert by_job["J-3"][4] == "'@home"
    assert by_job["J-plain"][4] == 'a, "quoted" name'
    assert {l[0] for l in table[1:]} == {"succeeded", "failed"}
    assert len([l for l in table[1:] if l[0] == "succeeded"]) == 3


def test_csv_of_unfinished_run_is_409(server):
    run = upload_text(server, custom_csv(2))
    r = signin(server).get("/imports/runs/%s/results.csv" % run["id"])
    assert r.status_code == 409


def test_staged_run_page_links_to_review(server):
    run = upload_text(server, custom_csv(2))
    r = signin(server).get("/imports/runs/" + run["id"])
    t = text_of(r.text)
    assert "Waiting for a column review" in t
    assert 'href="/imports/runs/%s/review"' % run["id"] in r.text
    assert 'http-equiv="refresh"' not in r.text


def test_running_run_page_refreshes_itself(start_server):
    srv = start_server(workers=0)
    run = accepted_run(upload(srv, csv_bytes(rows(1), headers=TEMPLATE)))
    r = signin(srv).get("/imports/runs/" + run["id"])
    assert '<meta http-equiv="refresh" content="2">' in r.text
    assert "refreshes by itself" in text_of(r.text)


def test_failed_run_shows_its_code(server):
    run = accepted_run(upload(server, b"jobCode,loadNo,loadDate\n", filename="empty.csv"))
    wait_run(server, run["id"])
    t = text_of(signin(server).get("/imports/runs/" + run["id"]).text)
    assert "FAILED" in t and "EMPTY_FILE" in t


def test_locations_search_by_name_or_address(server):
    org = server.org.id
    server.cli.admin("add-location", "--org", org, "--name", "North Yard", "--street", "1 Quarry Rd",
                     "--city", "Austin", "--state", "TX", "--zip", "78701")
    server.cli.admin("add-location", "--org", org, "--name", "Dock <7>", "--street", "9 Harbor Way",
                     "--city", "Houston", "--state", "TX", "--zip", "77001")
    w = signin(server)
    t = text_of(w.get("/locations").text)
    assert "North Yard" in t and "Dock <7>" in t
    t = text_of(w.get("/locations?q=north%20yard").text)
    assert "North Yard" in t and "Dock" not in t
    t = text_of(w.get("/locations?q=harbor").text)
    assert "Dock <7>" in t and "North Yard" not in t
    t = text_of(w.get("/locations?q=78701").text)
    assert "North Yard" in t
    assert "0 locations match “nowhere”" in text_of(w.get("/locations?q=nowhere").text)
    r = w.get("/locations?q=%3Cscript%3E")
    assert "<script>" not in r.text.split("<main", 1)[1]
    assert 'label for="q"' in r.text


def test_member_can_view_everything(server):
    run = run_of(server, rows(1))
    from web.webtools import add_member
    m = signin(server, add_member(server))
    for path in ("/imports", "/imports/runs/" + run["id"], "/imports/runs/%s/results.csv" % run["id"],
                 "/locations", "/settings/api-keys", "/settings/communications"):
        assert m.get(path).status_code == 200, path


def test_run_page_offers_failed_rows_to_fix(server):
    """Issue 13 / PRODUCT §9, §14: a finished run with failed rows offers
    "Download failed rows to fix" as XLSX (recommended: every cell text)
    and as CSV (UTF-8 with a BOM), for a member too; a run without failed
    rows does not offer it."""
    bad = run_of(server, rows(1) + [row(2, loadDate="31/31/2026")], name="mixed.csv")
    good = run_of(server, rows(1, start=5), name="good.csv")
    m = signin(server, add_member(server))
    page = m.get("/imports/runs/" + bad["id"])
    assert "Download failed rows to fix (XLSX, recommended)" in text_of(page.text)
    link = "/imports/runs/%s/failed-rows" % bad["id"]
    assert 'href="%s?format=xlsx"' % link in page.text and 'href="%s?format=csv"' % link in page.text
    r = m.get(link + "?format=csv")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/csv")
    assert 'filename="mixed-failed-rows.csv"' in r.headers["Content-Disposition"]
    assert r.content.startswith(b"\xef\xbb\xbf")
    got = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert got[0] == TEMPLATE + ["errors"] and len(got) == 2 and got[1][2] == "31/31/2026"
    assert got[1][-1].startswith("TYPE_MISMATCH: ")
    x = m.get(link + "?format=xlsx")
    assert x.status_code == 200 and x.content[:2] == b"PK"
    assert 'filename="mixed-failed-rows.xlsx"' in x.headers["Content-Disposition"]
    assert m.get(link + "?format=pdf").status_code == 400
    assert "Download failed rows to fix" not in text_of(m.get("/imports/runs/" + good["id"]).text)
    other = signin(server, server.new_org("Elsewhere Inc").admin_email)
    assert other.get(link).status_code == 404
