"""Who did what and "Undo this import" in the web app (issue 28, PRODUCT
§15): the Imports page and the run page show who made each run (a person's
email, or the API token's name); an admin's run page offers "Undo this
import", whose confirmation says what the undo would do before anything is
written ("Undo will remove 3 loads and restore 0; 0 changed since and
stay"); members get no such button and 403 on its pages; the undo is a run
of its own, linked to the run it undoes."""
import re

from harness.jobs import csv_bytes, results, rows, wait_run
from web.test_import_form import post_file, run_id_of
from web.webtools import add_member, forms, signin, text_of


def test_created_by_on_imports_and_run_pages(server):
    w = signin(server)
    run_id, _ = run_id_of(post_file(w, csv_bytes(rows(2, job="WEB-WHO"))))
    wait_run(server, run_id)
    page = text_of(w.get("/imports").text)
    assert server.org.admin_email in page
    run = server.get("/api/v1/imports/runs/%s" % run_id).json()
    assert run["createdBy"] == {"type": "user", "id": server.org.admin_id, "email": server.org.admin_email}
    assert server.org.admin_email in text_of(w.get("/imports/runs/%s" % run_id).text)
    api_run = wait_run(server, server.post("/api/v1/imports/jobs",
                                           files={"file": ("x.csv", csv_bytes(rows(1, job="WEB-WHO2")),
                                                           "text/csv")}).json()["id"])
    assert "API token tests" in text_of(w.get("/imports/runs/%s" % api_run["id"]).text)


def test_admin_undoes_an_import_after_seeing_what_it_does(server):
    w = signin(server)
    run_id, _ = run_id_of(post_file(w, csv_bytes(rows(3, job="WEB-UNDO"))))
    wait_run(server, run_id)
    page = w.get("/imports/runs/%s" % run_id).text
    assert 'href="/imports/runs/%s/undo"' % run_id in page
    confirm = w.get("/imports/runs/%s/undo" % run_id)
    assert confirm.status_code == 200
    assert "Undo will remove 3 loads and restore 0; 0 changed since and stay." in text_of(confirm.text)
    # Nothing written by the confirmation page.
    ids = [e["createdRecordIds"][0] for e in results(server, run_id, "succeeded")]
    assert server.get("/api/v1/loads/%s" % ids[0]).status_code == 200
    f = forms(confirm.text).find("/imports/runs/%s/undo" % run_id)
    r = w.post("/imports/runs/%s/undo" % run_id, data=f["fields"])
    assert r.status_code == 303, r.text[:300]
    undo_id = re.match(r"^/imports/runs/(run_\w+)$", r.headers["Location"]).group(1)
    undo = wait_run(server, undo_id)
    assert undo["revertOf"] == run_id and undo["createdBy"]["type"] == "user"
    assert server.get("/api/v1/loads/%s" % ids[0]).status_code == 404
    assert 'id="revert-of"' in w.get("/imports/runs/%s" % undo_id).text


def test_members_cannot_undo(server):
    w = signin(server, add_member(server))
    run_id, _ = run_id_of(post_file(w, csv_bytes(rows(1, job="WEB-MEM"))))
    wait_run(server, run_id)
    assert 'id="undo"' not in w.get("/imports/runs/%s" % run_id).text
    assert w.get("/imports/runs/%s/undo" % run_id).status_code == 403
    f = forms(w.get("/imports").text).find("/imports")
    assert w.post("/imports/runs/%s/undo" % run_id, data={"csrf": f["fields"]["csrf"]}).status_code == 403


def test_settings_imports_sets_the_default_commit_policy(server):
    from harness.jobs import accepted_run, upload
    w = signin(server)
    page = w.get("/settings/imports")
    assert page.status_code == 200 and 'value="partial" checked' in page.text
    f = forms(page.text).find("/settings/imports")
    r = w.post("/settings/imports", data={"csrf": f["fields"]["csrf"], "commit": "all"})
    assert r.status_code == 303 and r.headers["Location"] == "/settings/imports?saved=1"
    assert 'value="all" checked' in w.get("/settings/imports").text
    bad = rows(3, job="WEB-ALL")
    bad[1]["loadDate"] = "nope"
    run = wait_run(server, accepted_run(upload(server, csv_bytes(bad)))["id"])
    assert run["commit"] == "all" and run["error"]["code"] == "ROWS_FAILED", run
    part = wait_run(server, accepted_run(server.post("/api/v1/imports/jobs?commit=partial", files={
        "file": ("p.csv", csv_bytes(bad), "text/csv")}))["id"])
    assert part["commit"] == "partial" and part["counts"]["succeeded"] == 2
    m = signin(server, add_member(server))
    assert m.get("/settings/imports").status_code == 403
    assert m.post("/settings/imports", data={"commit": "partial"}).status_code in (403, 400)
