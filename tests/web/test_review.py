"""The review screen at {app_url}/imports/runs/<id>/review (PRODUCT §6-§7,
issue 7 "Review"), driven over HTTP as a browser without JavaScript would."""
import re
import time

from harness.db import db_exec
from harness.jobs import awaiting_review, wait_run
from web.webtools import Web, add_member, custom_csv, forms, signin, text_of, upload

BUTTON = "Confirm mapping and import"


def review_path(run):
    return "/imports/runs/%s/review" % run["id"]


def staged(srv, text=None, name="week-47.csv"):
    run = awaiting_review(srv, upload(srv, text or custom_csv(3), name=name)["id"])
    assert run["state"] == "QUEUED" and "nextAction" in run, run
    return run


def test_review_page_shows_file_columns_samples_and_proposal(server):
    """One row per file column: header, sample values, a select of schema
    fields pre-set to the proposal ("Ignore" allowed); file name, row count
    and expiry; the submit button labelled exactly as the product says."""
    run = staged(server)
    w = signin(server)
    r = w.get(review_path(run))
    assert r.status_code == 200
    t = text_of(r.text)
    assert "week-47.csv" in t and "Rows 3" in t
    assert run["nextAction"]["expiresAt"] in r.text  # <time datetime=...>
    f = forms(r.text).find(review_path(run))
    assert f["fields"]["col0"] == "jobCode"
    assert f["fields"]["col1"] == "loadNo"
    assert f["fields"]["col2"] == "loadDate"
    assert "col3" in f["fields"]
    assert f["fields"]["ncols"] == "4"
    assert [b.get("text") for b in f["buttons"]] == [BUTTON, "Check the first rows"]
    for header in ("Job #", "Load Number", "Ship Date", "Remarks"):
        assert '<label for="col-' in r.text and header in t
    assert "JOB1" in t and "note 1" in t          # sample values
    assert '<option value="">Ignore this column</option>' in r.text or 'value="" selected' in r.text
    assert 'id="missing-required" role="status" hidden' in r.text


def test_required_fields_nothing_maps_to_are_flagged(server):
    run = staged(server, "Job #,Remarks,Other\nJ1,x,y\n")
    t = text_of(signin(server).get(review_path(run)).text)
    assert "Required fields without a column: loadNo, loadDate" in t


def test_confirm_with_one_mapping_changed_imports_and_leads_to_run(server):
    """Confirm stores the mapping as edited and runs the import, then the
    browser lands on the run's page; the edited choice is what imported."""
    run = staged(server)
    w = signin(server)
    r = w.submit(review_path(run), review_path(run), col3="notes")
    assert r.status_code == 303, r.text[:800]
    assert r.headers["Location"] == "/imports/runs/" + run["id"]
    done = wait_run(server, run["id"], confirm_staged=False)
    assert done["state"] == "SUCCEEDED" and done["counts"]["succeeded"] == 3
    assert "nextAction" not in done
    res = server.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"]).json()["data"]
    load = server.get("/api/v1/loads/" + res[0]["createdRecordIds"][0]).json()
    assert load["notes"] == "note 0"
    page = w.get("/imports/runs/" + run["id"])
    assert page.status_code == 200 and "SUCCEEDED" in page.text
    # the shape is mapped now: the same columns import without review
    again = upload(server, custom_csv(2, salt="b"))
    assert "nextAction" not in again


def test_ignore_is_allowed(server):
    run = staged(server)
    w = signin(server)
    r = w.submit(review_path(run), review_path(run), col3="")
    assert r.status_code == 303
    done = wait_run(server, run["id"], confirm_staged=False)
    res = server.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"]).json()["data"]
    assert server.get("/api/v1/loads/" + res[0]["createdRecordIds"][0]).json()["notes"] is None
    assert done["state"] == "SUCCEEDED"


def test_a_field_chosen_twice_is_refused_and_nothing_confirmed(server):
    run = staged(server)
    w = signin(server)
    r = w.submit(review_path(run), review_path(run), col3="jobCode")
    assert r.status_code == 400
    assert "jobCode is chosen for two columns" in text_of(r.text)
    # the form comes back with the user's choices
    assert forms(r.text).find(review_path(run))["fields"]["col3"] == "jobCode"
    assert server.get("/api/v1/imports/runs/" + run["id"]).json()["nextAction"]


def test_unknown_field_is_refused(server):
    run = staged(server)
    w = signin(server)
    r = w.submit(review_path(run), review_path(run), col3="password")
    assert r.status_code == 400
    assert server.get("/api/v1/imports/runs/" + run["id"]).json()["state"] == "QUEUED"


def test_post_without_or_with_wrong_csrf_is_403_and_nothing_changes(server):
    run = staged(server)
    w = signin(server)
    f = w.form(review_path(run), review_path(run))
    data = dict(f["fields"])
    del data["csrf"]
    assert w.post(review_path(run), data=data).status_code == 403
    data["csrf"] = "A" * 43
    assert w.post(review_path(run), data=data).status_code == 403
    # a token of another session is wrong too
    other = signin(server)
    data["csrf"] = other.form(review_path(run), review_path(run))["fields"]["csrf"]
    assert w.post(review_path(run), data=data).status_code == 403
    # A confirmation clears nextAction inside the POST itself, so the run
    # is checked at once: nothing asynchronous to wait for.
    body = server.get("/api/v1/imports/runs/" + run["id"]).json()
    assert body["state"] == "QUEUED" and body["nextAction"]


def test_member_can_look_but_not_confirm(server):
    """Members can view; only admins confirm.  A member's POST (with a valid
    CSRF token) is 403 and the run stays staged."""
    run = staged(server)
    m = signin(server, add_member(server))
    r = m.get(review_path(run))
    assert r.status_code == 200
    f = forms(r.text).find(review_path(run))
    assert f["buttons"] == []
    assert set(f["disabled"]) == {"col0", "col1", "col2", "col3"}
    assert "Only an organization admin can confirm" in text_of(r.text)
    data = {"csrf": f["fields"]["csrf"], "ncols": "4", "col0": "jobCode", "col1": "loadNo",
            "col2": "loadDate", "col3": "notes"}
    r = m.post(review_path(run), data=data)
    assert r.status_code == 403
    body = server.get("/api/v1/imports/runs/" + run["id"]).json()
    assert body["state"] == "QUEUED" and body["nextAction"]


def test_another_orgs_run_is_404(server):
    """Another organization's run -> 404, for the review and run pages, GET
    and POST alike; it stays staged."""
    run = staged(server)
    other = server.new_org("Rival Freight")
    w = signin(server, other.admin_email)
    for path in (review_path(run), "/imports/runs/" + run["id"], "/imports/runs/%s/results.csv" % run["id"]):
        r = w.get(path)
        assert r.status_code == 404, path
        assert "week-47.csv" not in r.text
    csrf = w.form("/imports", "/logout")["fields"]["csrf"]
    r = w.post(review_path(run), data={"csrf": csrf, "ncols": "4", "col0": "jobCode", "col1": "loadNo",
                                       "col2": "loadDate", "col3": ""})
    assert r.status_code == 404
    assert server.get("/api/v1/imports/runs/" + run["id"]).json()["nextAction"]


def test_decided_run_offers_nothing_to_confirm(server):
    run = staged(server)
    w = signin(server)
    f = w.form(review_path(run), review_path(run))
    assert w.post(review_path(run), data=f["fields"]).status_code == 303
    wait_run(server, run["id"], confirm_staged=False)
    r = w.get(review_path(run))
    assert r.status_code == 200
    assert "Nothing to confirm" in text_of(r.text)
    assert BUTTON not in r.text
    # posting the old form again changes nothing
    r = w.post(review_path(run), data=f["fields"])
    assert r.status_code == 409
    assert BUTTON not in r.text


def test_expired_review_says_so(start_server):
    srv = start_server(env={"LOADLINE_STAGING_TTL": "1s", "LOADLINE_SWEEP_INTERVAL": "60s"})
    run = staged(srv)
    time.sleep(1.2)   # time is what is tested: the 1 s review window must pass
    w = signin(srv)
    r = w.get(review_path(run))
    assert r.status_code == 200
    t = text_of(r.text)
    assert "This review has expired" in t
    assert BUTTON not in r.text and "<select" not in r.text
    csrf = w.form("/imports", "/logout")["fields"]["csrf"]
    r = w.post(review_path(run), data={"csrf": csrf, "ncols": "4", "col0": "jobCode", "col1": "loadNo",
                                       "col2": "loadDate", "col3": ""})
    assert r.status_code == 409
    assert "This review has expired" in text_of(r.text)


def test_headers_and_samples_are_escaped(server):
    """Templates escape by default: file text never becomes markup."""
    run = staged(server, '<script>alert(1)</script>,Load Number,Ship Date\n"<img src=x onerror=alert(2)>",L1,2026-11-01\n',
                 name="<b>evil</b>.csv")
    r = signin(server).get(review_path(run))
    assert r.status_code == 200
    assert "<script>alert(1)</script>" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    assert "<img src=x" not in r.text
    assert "<b>evil</b>" not in r.text and "&lt;b&gt;evil&lt;/b&gt;.csv" in r.text


def test_unknown_run_is_404(module_server):
    w = signin(module_server)
    assert w.get("/imports/runs/run_doesnotexist/review").status_code == 404
    assert w.get("/imports/runs/%s/review" % ("x" * 300)).status_code == 404


def test_preview_of_first_rows_follows_the_choices_and_stores_nothing(server):
    """The welcome extra: how the first rows would validate with the current
    choice.  The page opens with the proposal checked; "Check the first
    rows" re-checks the choices on the form without confirming anything."""
    run = staged(server, "Job #,Load Number,Ship Date,Weight\nJ1,L1,2026-11-01,12 t\nJ1,L2,soon,3\n")
    w = signin(server)
    r = w.get(review_path(run))
    t = text_of(r.text)
    assert "The first rows with this mapping" in t
    assert re.search(r"2 UNIT_NORMALIZED weight · column “Weight”", t), t
    assert re.search(r"3 TYPE_MISMATCH loadDate · column “Ship Date”", t), t
    r = w.submit(review_path(run), review_path(run), col2="", action="preview")
    assert r.status_code == 200
    t = text_of(r.text)
    assert t.count("MISSING_REQUIRED loadDate") == 2
    assert forms(r.text).find(review_path(run))["fields"]["col2"] == ""
    r = w.submit(review_path(run), review_path(run), col3="", action="preview")
    assert "2 imports cleanly" in text_of(r.text)
    body = server.get("/api/v1/imports/runs/" + run["id"]).json()
    assert body["state"] == "QUEUED" and body["nextAction"]


def test_store_bug_on_the_review_page_is_500_not_503(server):
    """Issue 20 item 11: a store failure that is not an outage (here a table
    renamed away, standing for a SQL bug) is 500 on the review page, as
    everywhere else — not 503 with Retry-After, which tells a browser or a
    person that retrying will help."""
    run = staged(server)
    w = signin(server)
    assert w.get(review_path(run)).status_code == 200
    db_exec(server.db_url, "ALTER TABLE run_files RENAME TO run_files_gone")
    try:
        r = w.get(review_path(run))
        assert r.status_code == 500, (r.status_code, r.text[:300])
        assert "Retry-After" not in r.headers
        assert "trying again will not help" in text_of(r.text)
    finally:
        db_exec(server.db_url, "ALTER TABLE run_files_gone RENAME TO run_files")
    assert w.get(review_path(run)).status_code == 200
