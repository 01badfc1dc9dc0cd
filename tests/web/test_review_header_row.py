"""The review screen's header row and worksheet (PRODUCT §14 "Header row",
"Sheet"): it shows the rows above the header and lets an admin read the
file from another row; the shape remembers it.  Driven over HTTP as a
browser without JavaScript would."""
import io
import time

import pytest

from harness.jobs import wait_run
from web.webtools import forms, signin, text_of, upload

# Row 1 reads as a header (its words name fields, data below it), but the
# admin knows the columns are named in row 3 (a stale row sits between).
TWO_HEADERS = ("Job #,Load Number,Ship Date,Remarks\n"
               "JOB0,L0,2026-10-01,stale\n"
               "Job Code,Load No,Load Date,Notes\n"
               "JOB1,L1,2026-11-01,first\n"
               "JOB1,L2,2026-11-02,second\n")


def review_path(run, query=""):
    return "/imports/runs/%s/review%s" % (run["id"], query)


def staged(srv, text):
    """Uploads text and waits until the run awaits review (nextAction: in
    the 202, or once a worker has read the file)."""
    run = upload(srv, text)
    deadline = time.monotonic() + 20
    while "nextAction" not in run:
        assert run["state"] == "QUEUED" and time.monotonic() < deadline, run
        time.sleep(0.05)
        run = srv.get("/api/v1/imports/runs/" + run["id"]).json()
    return run


def test_review_shows_rows_above_the_header(server):
    """Title rows above the detected header are listed, with the header."""
    text = "Weekly load report\nPrinted 2026-11-20\n\nJob #,Load Number,Ship Date,Remarks\nJ1,L1,2026-11-01,x\n"
    run = staged(server, text)
    w = signin(server)
    r = w.get(review_path(run))
    assert r.status_code == 200
    t = text_of(r.text)
    assert "took row 4 as the header" in t
    assert "Weekly load report" in t and "Printed 2026-11-20" in t
    assert 'data-header-row="1"' in r.text and 'data-header-row="2"' in r.text
    assert 'data-header-row="4"' not in r.text   # the header itself has no link
    assert 'data-header-row="5"' in r.text       # nor is it only rows above
    f = forms(r.text).find(review_path(run))
    assert f["fields"]["col0"] == "jobCode"


def test_admin_picks_another_header_row_and_the_shape_remembers_it(server):
    """"Use row 3 as the header": the page reads the file from row 3;
    confirming imports rows 4.. and stores the shape with its row, so the
    same report pushed again maps without review, read from row 3."""
    run = staged(server, TWO_HEADERS)
    w = signin(server)
    page = w.get(review_path(run))
    assert "took row 1 as the header" in text_of(page.text)
    picked = review_path(run, "?headerRow=3")
    assert ('href="%s"' % picked) in page.text
    r = w.get(picked)
    assert r.status_code == 200
    t = text_of(r.text)
    assert "took row 3 as the header" in t and "Job Code" in t
    f = forms(r.text).find(review_path(run))
    assert f["fields"]["headerRow"] == "3"
    assert f["fields"]["col0"] == "jobCode" and f["fields"]["col3"] == "notes"
    r = w.submit(picked, review_path(run))
    assert r.status_code == 303, r.text[:800]
    done = wait_run(server, run["id"], confirm_staged=False)
    assert done["state"] == "SUCCEEDED", done
    assert done["file"]["headerRow"] == 3 and done["counts"]["succeeded"] == 2
    again = upload(server, TWO_HEADERS.replace("second", "third"))
    assert "nextAction" not in again, again
    done = wait_run(server, again["id"], confirm_staged=False)
    assert done["file"]["headerRow"] == 3 and done["state"] == "SUCCEEDED", done


def test_a_row_that_cannot_be_the_header_says_so(server):
    """A blank row or one past the end: the page says why and shows the
    file as Loadline reads it."""
    run = staged(server, "Title\n\nJob #,Load Number,Ship Date\nJ1,L1,2026-11-01\n")
    w = signin(server)
    for row in ("2", "99"):
        r = w.get(review_path(run, "?headerRow=" + row))
        assert r.status_code == 200
        t = text_of(r.text)
        assert ("Row %s cannot be the header" % row) in t and "took row 3 as the header" in t


openpyxl = pytest.importorskip("openpyxl")


def test_review_offers_the_other_sheets(server):
    """A workbook's review lists its sheets; another can be read."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Loads"
    for row in (["Job #", "Load Number", "Ship Date"], ["J1", "L1", "2026-11-01"]):
        ws.append(row)
    other = wb.create_sheet("Returns")
    for row in (["Job #", "Load Number", "Ship Date"], ["J2", "L9", "2026-11-02"]):
        other.append(row)
    out = io.BytesIO()
    wb.save(out)
    r = server.post("/api/v1/imports/jobs", files={"file": ("w.xlsx", out.getvalue(), "application/octet-stream")})
    run = r.json()
    deadline = time.monotonic() + 20
    while "nextAction" not in run:
        assert run["state"] == "QUEUED" and time.monotonic() < deadline, run
        time.sleep(0.05)
        run = server.get("/api/v1/imports/runs/" + run["id"]).json()
    w = signin(server)
    page = w.get(review_path(run))
    assert 'data-sheet="Returns"' in page.text and "Loads</strong> (read)" in page.text
    r = w.get(review_path(run, "?sheet=Returns"))
    assert "Returns</strong> (read)" in r.text and "J2" in text_of(r.text)
    f = forms(r.text).find(review_path(run))
    assert f["fields"]["sheet"] == "Returns"


def test_run_page_says_how_the_file_was_read(server):
    """The run page names the header row and the summary rows left out."""
    text = ("Weekly load report\n\njobCode,loadNo,loadDate,weight\n"
            "J-RP,1,2026-11-01,5\nJ-RP,2,2026-11-02,7\nTotal,,,12\n")
    run = upload(server, text)
    done = wait_run(server, run["id"])
    assert done["file"]["headerRow"] == 3 and done["file"]["summaryRows"] == [6], done
    t = text_of(signin(server).get("/imports/runs/" + run["id"]).text)
    assert "header in row 3, summary row 6 left out" in t, t
