"""Corrected rows (issue 28 item 1; PRODUCT §15): POST
/api/v1/imports/runs/{id}/corrections makes a new run of exactly the failed
rows given, with their cells replaced, as pushing a fix-up file would: 202
like an upload, correctionOf on the new run, the original rowIndex in its
results, no review for a confirmed shape, a correction of a correction;
400 INVALID_CORRECTION, 404 for another org, 409 RUN_NOT_TERMINAL and
IMPORT_IN_PROGRESS, 410 after retention."""
import json
import time

import pytest

from harness.checks import assert_problem
from harness.jobs import (CSV_CT, XLSX_CT, accepted_run, by_row, csv_bytes, results, rows, upload, wait_run,
                          xlsx_bytes)


def corrections(srv, run_id, body, **kw):
    return srv.post("/api/v1/imports/runs/%s/corrections" % run_id, json=body, **kw)


def mixed(job, n=6):
    """Rows 3 and 5 (spreadsheet numbers) fail: a bad date, a bad weight."""
    recs = rows(n, job=job)
    recs[1]["loadDate"] = "31/31/2026"
    recs[3]["weight"] = "12 bananas"
    return csv_bytes(recs)


def imported(srv, data, **kw):
    run = wait_run(srv, accepted_run(upload(srv, data, **kw))["id"])
    assert run["state"] == "PARTIAL" and run["counts"]["failed"] == 2, run
    return run


def test_corrected_rows_succeed_with_their_original_row_index(server):
    run = imported(server, mixed("CO-1"))
    failed = by_row(results(server, run["id"], "failed"))
    assert sorted(failed) == [3, 5]
    r = corrections(server, run["id"], {"rows": [{"rowIndex": 3, "cells": {"loadDate": "2026-11-04"}},
                                                 {"rowIndex": 5, "cells": {"weight": "12000"}}]})
    new = accepted_run(r)
    assert r.headers["Location"] == "/api/v1/imports/runs/%s" % new["id"]
    assert new["correctionOf"] == run["id"] and "nextAction" not in new, new
    new = wait_run(server, new["id"], confirm_staged=False)
    assert new["state"] == "SUCCEEDED" and new["counts"]["succeeded"] == 2, new
    assert new["correctionOf"] == run["id"]
    ok = by_row(results(server, new["id"], "succeeded"))
    assert sorted(ok) == [3, 5]
    assert "correctionOf" not in server.get("/api/v1/imports/runs/%s" % run["id"]).json()
    # The stored Load has the corrected date.
    load = server.get("/api/v1/loads/%s" % ok[3]["createdRecordIds"][0]).json()
    assert load["loadDate"].startswith("2026-11-04"), load


def test_a_row_still_failing_is_corrected_again_from_the_new_run(server):
    run = imported(server, mixed("CO-2"))
    first = accepted_run(corrections(server, run["id"], {"rows": [
        {"rowIndex": 3, "cells": {"loadDate": "still bad"}},
        {"rowIndex": 5, "cells": {"weight": "12000"}}]}))
    first = wait_run(server, first["id"], confirm_staged=False)
    assert first["state"] == "PARTIAL", first
    assert sorted(by_row(results(server, first["id"], "failed"))) == [3]
    assert_problem(corrections(server, first["id"], {"rows": [{"rowIndex": 5, "cells": {"weight": "1"}}]}),
                   400, "INVALID_CORRECTION", server)
    second = accepted_run(corrections(server, first["id"], {"rows": [
        {"rowIndex": 3, "cells": {"loadDate": "2026-11-05"}}]}))
    assert second["correctionOf"] == first["id"]
    second = wait_run(server, second["id"], confirm_staged=False)
    assert second["state"] == "SUCCEEDED", second
    assert sorted(by_row(results(server, second["id"], "succeeded"))) == [3]


def test_invalid_corrections_are_400(server):
    run = imported(server, mixed("CO-3"))
    bad = [
        {},
        {"rows": []},
        {"rows": [{"rowIndex": 2, "cells": {"loadDate": "2026-11-04"}}]},         # row 2 succeeded
        {"rows": [{"rowIndex": 99, "cells": {"loadDate": "2026-11-04"}}]},
        {"rows": [{"rowIndex": 3, "cells": {"Load Day": "2026-11-04"}}]},          # no such header
        {"rows": [{"rowIndex": 3, "cells": {"loadDate": 20261104}}]},              # not a string
        {"rows": [{"rowIndex": 3, "cells": {"loadDate": None}}]},
        {"rows": [{"rowIndex": 3, "cells": {}}]},
        {"rows": [{"rowIndex": "3", "cells": {"loadDate": "x"}}]},
        {"rows": [{"rowIndex": 3, "cells": {"loadDate": "a"}}, {"rowIndex": 3, "cells": {"loadDate": "b"}}]},
        {"rows": [{"rowIndex": i, "cells": {"loadDate": "x"}} for i in range(2, 1003)]},
    ]
    for body in bad:
        r = corrections(server, run["id"], body)
        assert_problem(r, 400, "INVALID_CORRECTION", server)
    big = {"rows": [{"rowIndex": 3, "cells": {"loadDate": "x" * 30000}} for _ in range(40)]}
    assert_problem(corrections(server, run["id"], big), 413, "TOO_LARGE", server)
    # A NUL in a cell: jansson refuses \u0000 outright, as malformed JSON.
    nul = b'{"rows": [{"rowIndex": 3, "cells": {"loadDate": "x\\u0000y"}}]}'
    assert_problem(server.post("/api/v1/imports/runs/%s/corrections" % run["id"], data=nul,
                               headers={"Content-Type": "application/json"}), 400, "INVALID_REQUEST", server)
    assert_problem(server.post("/api/v1/imports/runs/%s/corrections" % run["id"], data=b"[1]",
                               headers={"Content-Type": "application/json"}), 400, "INVALID_REQUEST", server)


def test_other_org_is_404_and_unfinished_run_is_409(start_server):
    srv = start_server(workers=0)
    queued = accepted_run(upload(srv, mixed("CO-4")))
    body = {"rows": [{"rowIndex": 3, "cells": {"loadDate": "2026-11-04"}}]}
    assert_problem(corrections(srv, queued["id"], body), 409, "RUN_NOT_TERMINAL", srv)
    other = srv.new_org("Other Freight")
    assert_problem(corrections(srv, queued["id"], body, token=other.token), 404, "NOT_FOUND", srv)


def test_the_same_correction_while_one_is_active_is_409(server):
    run = imported(server, mixed("CO-5"))
    body = {"rows": [{"rowIndex": 3, "cells": {"loadDate": "2026-11-04"}}]}
    first = accepted_run(corrections(server, run["id"], body, headers={"Service-Dry-Run": "true"}))
    assert first["dryRun"] is True
    r = corrections(server, run["id"], body, headers={"Service-Dry-Run": "true"})
    if r.status_code == 409:      # the first is still QUEUED or RUNNING
        got = assert_problem(r, 409, "IMPORT_IN_PROGRESS", server, extra_keys=("existingRunUrl",))
        assert got["existingRunUrl"].endswith(first["id"])
    else:
        assert r.status_code == 202
    assert wait_run(server, first["id"])["state"] == "SUCCEEDED"


def test_after_retention_is_410(start_server):
    srv = start_server(env={"LOADLINE_KEEP_UPLOADS": "1s", "LOADLINE_SWEEP_INTERVAL": "1h"})
    run = imported(srv, mixed("CO-6"))
    time.sleep(1.2)
    body = {"rows": [{"rowIndex": 3, "cells": {"loadDate": "2026-11-04"}}]}
    assert_problem(corrections(srv, run["id"], body), 410, "UPLOAD_EXPIRED", srv)
    srv2 = start_server(env={"LOADLINE_KEEP_RESULTS": "1s", "LOADLINE_SWEEP_INTERVAL": "1h"})
    run = imported(srv2, mixed("CO-7"))
    time.sleep(1.2)
    assert_problem(corrections(srv2, run["id"], body), 410, "RESULTS_EXPIRED", srv2)


def test_a_file_with_title_rows_keeps_its_row_numbers(server):
    """A header below a title row: the corrected file keeps the header at
    its row number, so results keep the original numbers."""
    data = b"Weekly loads export\r\n\r\n" + mixed("CO-8")
    run = wait_run(server, accepted_run(upload(server, data))["id"])
    assert run["counts"]["failed"] == 2, run
    failed = sorted(by_row(results(server, run["id"], "failed")))
    assert failed == [5, 7]
    new = accepted_run(corrections(server, run["id"], {"rows": [{"rowIndex": 7, "cells": {"weight": "9"}}]}))
    new = wait_run(server, new["id"], confirm_staged=False)
    assert new["state"] == "SUCCEEDED", new
    assert sorted(by_row(results(server, new["id"], "succeeded"))) == [7]


CUSTOM = ["Job #", "Load Number", "Ship Date", "Remarks", "Tons"]


def custom_table(job):
    table = [CUSTOM]
    for i in range(5):
        table.append([job, "L%d" % i, "2026-11-0%d" % (i + 1), "note %d" % i, "12"])
    table[2][2] = "31/31/2026"          # row 3 fails
    table[4][4] = "12 bananas"          # row 5 fails
    return table


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_confirmed_custom_shape_is_not_reviewed_again(server, fmt):
    """Headers of the organization's own (confirmed once, at the first run's
    review): the correction has the same column shape and imports without
    a review, from a CSV or an XLSX upload alike."""
    table = custom_table("CO-9" + fmt)
    if fmt == "csv":
        data, ct = ("\r\n".join(",".join(r) for r in table) + "\r\n").encode(), CSV_CT
    else:
        data, ct = xlsx_bytes(table), XLSX_CT
    run = wait_run(server, accepted_run(upload(server, data, filename="week." + fmt, content_type=ct))["id"])
    assert run["counts"]["failed"] == 2, run
    new = accepted_run(corrections(server, run["id"], {"rows": [
        {"rowIndex": 3, "cells": {"Ship Date": "2026-11-03"}}, {"rowIndex": 5, "cells": {"Tons": "14"}}]}))
    assert "nextAction" not in new, new
    new = wait_run(server, new["id"], confirm_staged=False)
    # Committed (a weight without its unit warns, as in the original's good rows).
    assert new["counts"]["failed"] == 0 and new["counts"]["succeeded"] == 2, new
    assert new["fileName"] == "week." + fmt, new
    assert sorted(by_row(results(server, new["id"], "succeeded"))) == [3, 5]


def test_webhooks_carry_correction_runs(start_server):
    from api.test_webhooks import SWITCHES, Receiver, create_endpoint
    srv = start_server(env=SWITCHES)
    rec = Receiver()
    try:
        create_endpoint(srv, rec.url, events=["import_run.completed"])
        run = imported(srv, mixed("CO-10"))
        assert json.loads(rec.next()["body"])["data"]["object"]["id"] == run["id"]
        new = accepted_run(corrections(srv, run["id"], {"rows": [{"rowIndex": 3, "cells": {"loadDate": "2026-11-04"}}]}))
        done = wait_run(srv, new["id"], confirm_staged=False)
        event = json.loads(rec.next()["body"])
        assert event["type"] == "import_run.completed" and event["data"]["object"] == done
        assert done["correctionOf"] == run["id"]
    finally:
        rec.close()
