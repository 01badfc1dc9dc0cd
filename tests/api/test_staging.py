"""Column shapes, staging for review, expiry and approval emails (issue 6;
SPEC "Bulk import behavior" 3, "States and transitions", "Authentication" 5;
PRODUCT §6), against a real SMTP server (aiosmtpd) started by the tests."""
import time
from datetime import datetime, timedelta

import pytest

from harness.server import start_workers, stop_workers
from harness.smtp import Smtp

TEMPLATE = "jobCode,loadNo,loadDate\n"
CUSTOM = "Job #,Load Number,Ship Date,Remarks\n"


@pytest.fixture
def smtp():
    s = Smtp()
    s.start()
    yield s
    s.stop()


def env_for(smtp_server, **extra):
    env = {"LOADLINE_SMTP_URL": smtp_server.url, "LOADLINE_SWEEP_INTERVAL": "1s"}
    env.update(extra)
    return env


def upload(srv, text, name="loads.csv", dry=False, expect=202):
    headers = {"Service-Dry-Run": "true"} if dry else {}
    r = srv.post("/api/v1/imports/jobs", files={"file": (name, text.encode(), "text/csv")}, headers=headers)
    assert r.status_code == expect, r.text
    return r.json()


def wait_run(srv, run_id, pred, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        run = srv.get("/api/v1/imports/runs/" + run_id).json()
        if pred(run):
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.05)


def terminal(run):
    return run["state"] in ("SUCCEEDED", "PARTIAL", "SKIPPED", "FAILED", "CANCELLED")


def awaiting_review(srv, run):
    """The run once a worker has read its file: only then does a staged run
    show nextAction (issue 27 item 9)."""
    return wait_run(srv, run["id"], lambda r: "nextAction" in r or terminal(r))


def custom_file(n=2, salt=""):
    return CUSTOM + "".join("JOB1,L%d%s,2026-11-0%d,note %d\n" % (i, salt, 1 + i % 9, i) for i in range(n))


def outbox(srv):
    """The org's mails as the outbox holds them (one line each), whether or
    not the mailer has sent them yet.  A staged run's mail is queued by the
    worker that triages it (reads the whole file), in the same transaction
    that records its row count."""
    return [line for line in srv.cli.admin("outbox", "--org", srv.org.id).out.splitlines() if line.strip()]


def wait_outbox(srv, pred, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        lines = outbox(srv)
        if pred(lines):
            return lines
        assert time.monotonic() < deadline, lines
        time.sleep(0.1)


def parse_ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")


def test_unmapped_shape_stages_run_with_next_action(start_server, smtp):
    """SPEC States: a live run of a new column shape stays QUEUED with
    nextAction {review_in_app, url under app_url, expiresAt = createdAt +
    72 h}; its results are RUN_NOT_TERMINAL; re-pushing the same file while it
    waits is 409 IMPORT_IN_PROGRESS."""
    srv = start_server(env=env_for(smtp))
    run = awaiting_review(srv, upload(srv, custom_file()))
    assert run["state"] == "QUEUED"
    na = run["nextAction"]
    assert na["type"] == "review_in_app"
    assert na["url"] == "%s/imports/runs/%s/review" % (srv.public_base, run["id"])
    assert parse_ts(na["expiresAt"]) - parse_ts(run["createdAt"]) == timedelta(hours=72)
    # Positive control: a run pushed later is processed to the end, so the
    # workers have been free to take the staged one and did not.
    control = upload(srv, TEMPLATE + "J9,L9,2026-11-01\n")
    assert wait_run(srv, control["id"], terminal)["state"] == "SUCCEEDED"
    again = srv.get("/api/v1/imports/runs/" + run["id"]).json()
    assert again["state"] == "QUEUED" and again["nextAction"] == na
    r = srv.get("/api/v1/imports/runs/%s/results/succeeded" % run["id"])
    assert r.status_code == 409 and r.json()["code"] == "RUN_NOT_TERMINAL"
    r = srv.post("/api/v1/imports/jobs", files={"file": ("loads.csv", custom_file().encode(), "text/csv")})
    assert r.status_code == 409 and r.json()["code"] == "IMPORT_IN_PROGRESS"
    assert r.json()["existingRunUrl"] == "/api/v1/imports/runs/" + run["id"]


def test_one_mail_per_staged_run_to_all_admins_not_members(start_server, smtp):
    """SPEC Authentication 5: the email goes to everyone with the admin role
    by default (not members), one email per staged run, saying which file,
    how many rows, which columns, the review link and when it expires."""
    srv = start_server(env=env_for(smtp))
    srv.cli.admin("add-user", "--org", srv.org.id, "--email", "second-admin@acme.test", "--name", "Two",
                  "--role", "admin")
    srv.cli.admin("add-user", "--org", srv.org.id, "--email", "member@acme.test", "--name", "M",
                  "--role", "member")
    a = upload(srv, custom_file(3), name="week-47.csv")
    b = upload(srv, custom_file(2, salt="b"), name="week-48.csv")
    msgs = smtp.inbox.wait(2)
    a = awaiting_review(srv, a)
    assert len(outbox(srv)) == 2, "exactly one mail per staged run"
    by_run = {m["X-Loadline-Run"]: (rcpt, m) for rcpt, m in msgs}
    assert set(by_run) == {a["id"], b["id"]}
    rcpt, m = by_run[a["id"]]
    assert rcpt == sorted([srv.org.admin_email, "second-admin@acme.test"])
    assert "member@acme.test" not in rcpt
    assert "week-47.csv" in m["Subject"] and "3 rows" in m["Subject"]
    body = m.get_content()
    assert "Job #, Load Number, Ship Date, Remarks" in body
    assert a["nextAction"]["url"] in body
    assert a["nextAction"]["expiresAt"] in body


def test_configured_approvers_replace_admins(start_server, smtp):
    """SPEC Authentication 5: an admin can restrict recipients to a list of
    addresses that need not belong to users."""
    srv = start_server(env=env_for(smtp))
    srv.cli.admin("set-approvers", "--org", srv.org.id, "--emails", "ops@partner.example,lead@elsewhere.example")
    upload(srv, custom_file())
    (rcpt, _), = smtp.inbox.wait(1)
    assert rcpt == ["lead@elsewhere.example", "ops@partner.example"]
    srv.cli.admin("set-approvers", "--org", srv.org.id, "--emails", "")
    upload(srv, custom_file(salt="x"))
    msgs = smtp.inbox.wait(2)
    assert msgs[1][0] == [srv.org.admin_email]


def test_dry_run_of_new_shape_uses_proposal_no_next_action_no_mail(start_server, smtp):
    """SPEC Bulk import 5 / PRODUCT §6: a dry run with an unmapped shape is
    processed with the proposed mapping, reaches a terminal state, has no
    nextAction and sends nothing."""
    srv = start_server(env=env_for(smtp))
    text = "jobCode,loadNo,loadDate,Remarks\nJ1,L1,2026-11-01,x\n"
    run = upload(srv, text, dry=True)
    assert "nextAction" not in run
    run = wait_run(srv, run["id"], terminal)
    assert run["dryRun"] is True and "nextAction" not in run
    assert run["state"] in ("SUCCEEDED", "PARTIAL")
    assert outbox(srv) == []


def test_template_shape_needs_no_review(start_server, smtp):
    """Design decision (docs/design.md): headers that are exactly the
    schema's field names — the published template — are mapped for every
    organization and commit without review or mail."""
    srv = start_server(env=env_for(smtp))
    run = upload(srv, TEMPLATE + "J1,L1,2026-11-01\n")
    assert "nextAction" not in run
    assert wait_run(srv, run["id"], terminal)["state"] == "SUCCEEDED"
    assert outbox(srv) == []


def test_confirm_releases_every_run_of_the_shape_and_later_pushes_skip_review(start_server, smtp):
    """SPEC States: confirming the mapping lets the run proceed to a
    terminal state; PRODUCT §6: other runs staged with the same shape
    proceed too; later pushes of that shape need no confirmation."""
    srv = start_server(env=env_for(smtp))
    a = upload(srv, custom_file(2))
    b = upload(srv, custom_file(3, salt="b"))
    smtp.inbox.wait(2)   # both triaged and their approvers told, as before a real review
    released = srv.cli.admin("confirm-run", a["id"], "--map",
                             "Job #=jobCode,Load Number=loadNo,Ship Date=loadDate,Remarks=notes",
                             "--email", srv.org.admin_email).line
    assert released == "2"
    for run_id, n in ((a["id"], 2), (b["id"], 3)):
        run = wait_run(srv, run_id, terminal)
        assert run["state"] == "SUCCEEDED" and "nextAction" not in run
        assert run["counts"]["succeeded"] == n
    rows = srv.get("/api/v1/imports/runs/%s/results/succeeded" % a["id"]).json()["data"]
    load = srv.get("/api/v1/loads/" + rows[0]["createdRecordIds"][0]).json()
    assert load["notes"] == "note 0" and load["loadDate"] == "2026-11-01"
    c = upload(srv, custom_file(4, salt="c"))
    assert "nextAction" not in c
    assert wait_run(srv, c["id"], terminal)["state"] == "SUCCEEDED"
    mails = outbox(srv)
    assert len(mails) == 2 and not any(c["id"] in m for m in mails), mails


def test_staging_expires_to_failed(start_server, smtp):
    """SPEC States: nobody confirms before expiresAt -> FAILED with
    error.code STAGING_EXPIRED; confirming afterwards is refused."""
    srv = start_server(env=env_for(smtp, LOADLINE_STAGING_TTL="2s"))
    run = awaiting_review(srv, upload(srv, custom_file()))
    assert parse_ts(run["nextAction"]["expiresAt"]) - parse_ts(run["createdAt"]) == timedelta(seconds=2)
    run = wait_run(srv, run["id"], terminal, timeout=15)
    assert run["state"] == "FAILED" and run["error"]["code"] == "STAGING_EXPIRED"
    assert "nextAction" not in run
    res = srv.cli.admin("confirm-run", run["id"], expect=1)
    assert "no longer waits for a mapping" in res.err or "STAGING_EXPIRED" in res.err


def test_mail_delivered_after_smtp_server_comes_back(start_server):
    """PRODUCT §6: a mail server that is down never fails or slows an API
    request, and the mail goes out when it is back (retries with backoff,
    each attempt recorded)."""
    down = Smtp()
    srv = start_server(env=env_for(down))
    t0 = time.monotonic()
    run = upload(srv, custom_file())
    assert time.monotonic() - t0 < 2.0
    deadline = time.monotonic() + 15
    while "error=" not in srv.cli.admin("outbox").out:   # a failed attempt recorded
        assert time.monotonic() < deadline
        time.sleep(0.2)
    listing = srv.cli.admin("outbox").out
    assert run["id"] in listing and " queued " in listing
    down.start()
    try:
        msgs = down.inbox.wait(1, timeout=30)
        assert msgs[0][1]["X-Loadline-Run"] == run["id"]
        deadline = time.monotonic() + 10
        while " sent " not in srv.cli.admin("outbox").out:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        down.stop()


def test_no_smtp_url_keeps_mail_in_outbox(start_server):
    """PRODUCT §1: with no LOADLINE_SMTP_URL, mails stay in the outbox."""
    srv = start_server()
    run = upload(srv, custom_file())
    lines = wait_outbox(srv, lambda lines: any(run["id"] in line for line in lines))
    assert len(lines) == 1 and " queued " in lines[0], lines


def test_uploaded_text_cannot_add_lines_or_headers_to_the_mail(start_server, smtp):
    """Issue 12 (found from outside): header cells and file names are the
    uploader's text; in the approval mail each stays on one line, so a
    CR/LF in them adds no header and no line to a mail every admin gets."""
    srv = start_server(env=env_for(smtp))
    evil = '"Job #\r\nBcc: victim@evil.test\r\n\r\nClick http://evil.test",Load Number,Ship Date,Remarks\n'
    text = evil + "JOB1,L1,2026-11-01,x\n"
    # Raw multipart: the file name carries a raw vertical tab and U+2028
    # (a client library would percent-encode them).
    name = "week\x0b47\u2028Subject: hi.csv".encode()
    body = (b'--B0UND\r\nContent-Disposition: form-data; name="file"; filename="' + name + b'"\r\n'
            b"Content-Type: text/csv\r\n\r\n" + text.encode() + b"\r\n--B0UND--\r\n")
    r = srv.post("/api/v1/imports/jobs", data=body,
                 headers={"Content-Type": "multipart/form-data; boundary=B0UND"})
    assert r.status_code == 202, r.text
    (rcpt, msg), = smtp.inbox.wait(1)
    assert rcpt == [srv.org.admin_email], "no recipient may be added"
    assert msg["Bcc"] is None
    assert "\n" not in msg["Subject"] and "Subject: hi" in msg["Subject"]
    lines = msg.get_content().splitlines()
    assert not any(line.startswith(("Bcc:", "Click")) for line in lines), lines
    columns = [line for line in lines if line.startswith("Columns:")]
    assert len(columns) == 1 and "Bcc: victim@evil.test" in columns[0] and "Click http" in columns[0], columns
    files = [line for line in lines if line.startswith("File:")]
    assert files == ["File:     week 47 Subject: hi.csv"], files


def test_staged_run_is_triaged_off_the_http_thread(start_server, smtp):
    """Issue 12/11: the upload reads only the header row to stage a run
    (rowCount null in the 202); a worker reads the whole file, records its
    row count while the run keeps waiting for review, then queues the mail.
    Issue 27 item 9: nextAction only once the worker has read the file — not
    in the 202, nor while no worker has read it (a file that then fails, an
    expansion bomb, was shown as awaiting review)."""
    srv = start_server(env=env_for(smtp))
    run = upload(srv, custom_file(7), name="seven.csv")
    assert run["state"] == "QUEUED" and "nextAction" not in run, run
    assert run["rowCount"] is None, "the HTTP thread read only the header row"
    triaged = wait_run(srv, run["id"], lambda r: r["rowCount"] is not None)
    assert triaged["rowCount"] == 7
    assert triaged["state"] == "QUEUED" and triaged["nextAction"]["type"] == "review_in_app"
    (_, m), = smtp.inbox.wait(1)
    assert m["X-Loadline-Run"] == run["id"] and "7 rows" in m["Subject"]


def test_no_next_action_until_a_worker_has_read_the_file(start_server, smtp):
    """Issue 27 item 9 (docs/design.md): with no worker to read it, a staged
    run stays QUEUED without nextAction, on the API and on the run page's
    review link; a worker process that reads it makes nextAction appear."""
    srv = start_server(env=env_for(smtp), workers=0)
    run = upload(srv, custom_file(3))
    time.sleep(0.5)
    got = srv.get("/api/v1/imports/runs/" + run["id"]).json()
    assert got["state"] == "QUEUED" and got["rowCount"] is None and "nextAction" not in got, got
    procs = start_workers(srv.db_url, 1, 1, env=env_for(smtp))
    try:
        got = awaiting_review(srv, run)
        assert got["rowCount"] == 3 and got["nextAction"]["type"] == "review_in_app", got
    finally:
        stop_workers(procs)


@pytest.mark.parametrize("case", ["too_many_rows", "malformed"])
def test_staged_file_that_cannot_import_fails_with_its_code_and_no_mail(start_server, smtp, case):
    """A file of a new shape that would fail anyway (more rows than the
    limit, or a parse error after its header) is not left for an admin to
    review: its triage unstages it and the run fails with the file's code,
    and no approver gets a mail for it."""
    srv = start_server(env=env_for(smtp, LOADLINE_MAX_ROWS="5"))
    if case == "too_many_rows":
        text, code = custom_file(6), "TOO_MANY_ROWS"
    else:
        text, code = custom_file(2) + 'JOB1,"L9,2026-11-01,unterminated\n', "MALFORMED_CSV"
    run = upload(srv, text)
    done = wait_run(srv, run["id"], terminal)
    assert done["state"] == "FAILED" and done["error"]["code"] == code, done
    assert "nextAction" not in done
    # Positive control: a good file of the same new shape does get its mail.
    good = upload(srv, custom_file(3, salt="g"))
    (_, m), = smtp.inbox.wait(1)
    assert m["X-Loadline-Run"] == good["id"]
    assert all(run["id"] not in line for line in outbox(srv))
