"""Import this file again and the jobs template (issue 22 part 3, issue 23
part 4; PRODUCT §11, §12).

POST /api/v1/imports/runs/{id}/rerun makes a new run of the stored upload
exactly as pushing the same bytes again would: same fingerprint (a 409
IMPORT_IN_PROGRESS with existingRunUrl while a twin is active), same staging,
the original file name, Service-Dry-Run honoured; 410 UPLOAD_EXPIRED once
retention took the file; 404 for another organization's run.
GET /api/v1/imports/jobs/template?format=csv|xlsx gives every schema field
as a header and one example row; a file made from it needs no review."""
import csv
import io
import os
import time

import openpyxl
from harness.checks import assert_problem
from harness.jobs import accepted_run, awaiting_review, csv_bytes, rows, upload, wait_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_FIELDS = [
    "jobCode", "loadNo", "loadDate", "projectName", "customer", "branch", "projectManager", "material",
    "truckType", "ticketNo", "weight", "weightUnit", "rate", "notes",
    "projectPickupName", "projectPickupStreet", "projectPickupCity", "projectPickupState", "projectPickupZip",
    "projectDropoffName", "projectDropoffStreet", "projectDropoffCity", "projectDropoffState", "projectDropoffZip",
    "pickupName", "pickupStreet", "pickupCity", "pickupState", "pickupZip",
    "dropoffName", "dropoffStreet", "dropoffCity", "dropoffState", "dropoffZip"]


def rerun(srv, run_id, **kw):
    return srv.post("/api/v1/imports/runs/%s/rerun" % run_id, **kw)


def test_rerun_is_a_push_of_the_same_bytes(server):
    data = csv_bytes(rows(5, job="RR-1"))
    first = accepted_run(upload(server, data, filename="monday.csv"))
    first = wait_run(server, first["id"])
    assert first["state"] == "SUCCEEDED"
    r = rerun(server, first["id"])
    again = accepted_run(r)
    assert r.headers["Location"] == "/api/v1/imports/runs/%s" % again["id"]
    assert r.headers["Retry-After"] == "5"
    assert again["id"] != first["id"] and again["fileName"] == "monday.csv" and again["dryRun"] is False
    again = wait_run(server, again["id"])
    # Same bytes, nothing changed: every row skipped, as a second push.
    assert again["state"] == "SKIPPED" and again["counts"]["skipped"] == 5, again
    pushed = wait_run(server, accepted_run(upload(server, data))["id"])
    assert pushed["counts"] == again["counts"]


def test_rerun_honours_dry_run_and_checks_the_header(server):
    first = wait_run(server, accepted_run(upload(server, csv_bytes(rows(2, job="RR-2"))))["id"])
    dry = accepted_run(rerun(server, first["id"], headers={"Service-Dry-Run": "true"}))
    assert dry["dryRun"] is True
    assert_problem(rerun(server, first["id"], headers={"Service-Dry-Run": "yes"}), 400, "INVALID_HEADER", server)


def test_rerun_while_a_twin_is_active_is_409(start_server):
    srv = start_server(workers=0)
    first = accepted_run(upload(srv, csv_bytes(rows(2, job="RR-3"))))
    r = rerun(srv, first["id"])
    body = assert_problem(r, 409, "IMPORT_IN_PROGRESS", srv, extra_keys=("existingRunUrl",))
    assert body["existingRunUrl"] == "/api/v1/imports/runs/%s" % first["id"]


def test_rerun_stages_a_new_shape_as_a_push_would(server):
    """A dry run of an unmapped shape is processed with the proposed
    mapping; its live re-run waits for review, like a live push of it."""
    data = csv_bytes(rows(2, job="RR-4")).replace(b"jobCode", b"Job Number", 1)
    dry = wait_run(server, accepted_run(upload(server, data, dry_run=True))["id"])
    assert dry["dryRun"] is True and dry["state"] == "SUCCEEDED"
    live = awaiting_review(server, accepted_run(rerun(server, dry["id"]))["id"])
    assert live["dryRun"] is False and live["nextAction"]["type"] == "review_in_app", live
    # While it waits, the same bytes are one import: a second re-run is a 409.
    assert_problem(rerun(server, dry["id"]), 409, "IMPORT_IN_PROGRESS", server, extra_keys=("existingRunUrl",))


def test_rerun_of_another_orgs_run_is_404(server):
    first = wait_run(server, accepted_run(upload(server, csv_bytes(rows(1, job="RR-5"))))["id"])
    other = server.new_org("Other Freight")
    r = rerun(server, first["id"], token=other.token)
    assert_problem(r, 404, "NOT_FOUND", server)


def test_rerun_after_retention_is_410(start_server):
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "1s", "LOADLINE_SWEEP_INTERVAL": "1h"})
    first = wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(1, job="RR-6"))))["id"])
    time.sleep(1.2)
    assert_problem(rerun(srv, first["id"]), 410, "UPLOAD_EXPIRED", srv)


def test_template_csv_has_every_field_and_imports_without_review(server):
    r = server.get("/api/v1/imports/jobs/template", params={"format": "csv"})
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/csv")
    assert 'filename="loadline-jobs-template.csv"' in r.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(r.content.decode("utf-8"))))
    assert table[0] == SCHEMA_FIELDS and len(table) == 2
    example = dict(zip(table[0], table[1]))
    assert example["jobCode"] and example["loadNo"] and example["loadDate"]
    run = accepted_run(upload(server, r.content, filename="template.csv"))
    assert not run.get("nextAction"), "the template's shape needs no review"
    run = wait_run(server, run["id"])
    assert run["counts"]["succeeded"] == 1 and run["counts"]["failed"] == 0, run
    assert server.get("/api/v1/imports/jobs/template").content == r.content, "csv is the default"


def test_template_xlsx_has_every_field_and_imports_without_review(server):
    r = server.get("/api/v1/imports/jobs/template", params={"format": "xlsx"})
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    ws = openpyxl.load_workbook(io.BytesIO(r.content)).active
    got = [[c.value for c in row] for row in ws.iter_rows()]
    assert got[0] == SCHEMA_FIELDS and len(got) == 2
    assert got[1][SCHEMA_FIELDS.index("pickupZip")] == "78654", "ZIPs are text cells"
    run = wait_run(server, accepted_run(upload(server, r.content, filename="template.xlsx",
                                              content_type="application/octet-stream"))["id"])
    assert run["counts"]["succeeded"] == 1 and run["counts"]["failed"] == 0, run


def test_template_format_is_checked(server):
    assert_problem(server.get("/api/v1/imports/jobs/template", params={"format": "pdf"}), 400, "INVALID_REQUEST",
                   server)


def test_example_file_imports_for_the_bootstrap_org(cli, start_server):
    """README's first import: examples/loads.csv pushed with the token that
    `admin bootstrap` (make run) prints names the customer bootstrap made,
    so its only warnings are unit conversions."""
    out = cli.admin("bootstrap").out
    token = [ln.split()[-1] for ln in out.splitlines() if ln.startswith("API token:")][0]
    assert "export LOADLINE_URL=" in out and "loadline push examples/loads.csv" in out
    srv = start_server(bootstrap=False, db_url=cli.db_url)
    with open(os.path.join(ROOT, "examples", "loads.csv"), "rb") as f:
        data = f.read()
    run = wait_run(srv, accepted_run(upload(srv, data, token=token))["id"], token=token)
    assert run["counts"] == {"succeeded": 12, "warnings": run["counts"]["warnings"], "failed": 0, "skipped": 0}
    res = srv.get("/api/v1/imports/runs/%s/results/warnings" % run["id"], token=token).json()["data"]
    codes = {w["code"] for e in res for w in e["warnings"]}
    assert codes == {"UNIT_NORMALIZED"}, codes
