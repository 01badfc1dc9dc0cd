"""Who made a run and the commit policy (issue 28, PRODUCT §15).

Every run carries createdBy: the token that pushed or re-ran it.
POST /api/v1/imports/jobs?commit=all is all-or-nothing: when a row fails,
nothing of the run is written (one transaction), it ends FAILED with
ROWS_FAILED, its failed rows listed as usual and counts.notCommitted the rows
it would otherwise have written.  commit=partial (the default) is SPEC's
behaviour; the organization's default comes from Settings → Imports."""
from harness.checks import assert_problem
from harness.jobs import accepted_run, csv_bytes, results, rows, upload, wait_run


def push(srv, data, commit=None, **kw):
    path = "/api/v1/imports/jobs" + ("?commit=" + commit if commit else "")
    return srv.post(path, files={"file": ("loads.csv", data, "text/csv")}, **kw)


def bad_rows(job):
    rs = rows(6, job=job)
    rs[2]["loadDate"] = "not a date"
    rs[4]["loadDate"] = ""
    return rs


def test_runs_carry_the_token_that_made_them(server):
    me = server.get("/api/v1/whoami").json()
    run = wait_run(server, accepted_run(upload(server, csv_bytes(rows(2, job="WHO-1"))))["id"])
    assert run["createdBy"] == {"type": "token", "id": me["id"], "name": me["name"]}
    assert run["commit"] == "partial" and run["revertOf"] is None
    other = server.mint(server.org.id, name="nightly sync")
    again = accepted_run(server.post("/api/v1/imports/runs/%s/rerun" % run["id"], token=other))
    assert again["createdBy"]["type"] == "token" and again["createdBy"]["name"] == "nightly sync"
    assert again["createdBy"]["id"] != me["id"]


def test_commit_all_writes_nothing_when_a_row_fails(server):
    run = wait_run(server, accepted_run(push(server, csv_bytes(bad_rows("ALL-1")), commit="all"))["id"])
    assert run["state"] == "FAILED" and run["commit"] == "all", run
    assert run["error"]["code"] == "ROWS_FAILED"
    assert run["counts"]["failed"] == 2 and run["counts"]["notCommitted"] == 4, run["counts"]
    assert run["counts"]["succeeded"] == 0
    failed = results(server, run["id"], "failed")
    assert sorted(e["rowIndex"] for e in failed) == [4, 6]
    assert results(server, run["id"], "succeeded") == []
    # Nothing was written: the same rows pushed partially all create.
    part = wait_run(server, accepted_run(push(server, csv_bytes(bad_rows("ALL-1")), commit="partial"))["id"])
    assert part["counts"]["succeeded"] == 4 and "notCommitted" not in part["counts"], part
    assert part["state"] == "PARTIAL"


def test_commit_all_without_failures_writes_everything(server):
    run = wait_run(server, accepted_run(push(server, csv_bytes(rows(5, job="ALL-2")), commit="all"))["id"])
    assert run["state"] == "SUCCEEDED" and run["counts"]["succeeded"] == 5, run
    assert "notCommitted" not in run["counts"]


def test_commit_all_dry_run(server):
    r = push(server, csv_bytes(bad_rows("ALL-3")), commit="all", headers={"Service-Dry-Run": "true"})
    run = wait_run(server, accepted_run(r)["id"])
    assert run["state"] == "FAILED" and run["error"]["code"] == "ROWS_FAILED" and run["dryRun"] is True


def test_commit_option_is_checked(server):
    assert_problem(push(server, csv_bytes(rows(1)), commit="most"), 400, "INVALID_IMPORT_OPTION", server)


def test_push_all_or_nothing(server, tmp_path):
    import json
    from api.test_push import push as cli_push
    rc, out, err = cli_push(server, tmp_path, csv_bytes(bad_rows("ALL-CLI")), "--all-or-nothing", "--json")
    assert rc == 2, (rc, out, err)
    run = json.loads(out)
    assert run["commit"] == "all" and run["error"]["code"] == "ROWS_FAILED" and run["counts"]["notCommitted"] == 4
    rc, out, err = cli_push(server, tmp_path, csv_bytes(rows(2, job="ALL-CLI2")), "--all-or-nothing",
                            "--header-row", "1", "--json")
    assert rc == 0, (rc, out, err)
    assert json.loads(out)["commit"] == "all"
