"""Visible operation (PRODUCT §17, issue 30): with no SMTP configured the
server says so at start-up, and the approval it could not mail is logged
with its review link; staging a run is logged with its review link (with
or without mail); the "run finished" line says the run's state and file
name.  Read from the server's JSON log on stderr."""
import json
import time

from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run
from harness.smtp import Smtp

from .test_imports_staging import messy_file, wait_staged

APP = "https://app.loadline.test"


def logged(srv, msg):
    lines = [json.loads(ln) for ln in srv.stderr().splitlines() if ln.startswith("{")]
    return [e for e in lines if e.get("msg") == msg]


def wait_logged(srv, msg, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not logged(srv, msg):
        assert time.monotonic() < deadline, "no %r line in:\n%s" % (msg, srv.stderr()[-3000:])
        time.sleep(0.05)
    return logged(srv, msg)


def test_no_smtp_start_up_warning_and_unsent_approval_logged_with_its_link(start_server):
    srv = start_server(env={"LOADLINE_APP_URL": APP})
    warn = logged(srv, "mail is off: LOADLINE_SMTP_URL is not set")
    assert warn and warn[0]["level"] == "warn", srv.stderr()[-2000:]
    run = wait_staged(srv, accepted_run(upload(srv, messy_file("NOSMTP"), filename="messy.csv"))["id"])
    link = "%s/imports/runs/%s/review" % (APP, run["id"])
    assert run["nextAction"]["url"] == link
    staged = wait_logged(srv, "run staged for review")
    assert staged[0]["runId"] == run["id"] and staged[0]["reviewUrl"] == link and staged[0]["fileName"] == "messy.csv"
    unsent = wait_logged(srv, "approval mail not sent: no SMTP server is configured (LOADLINE_SMTP_URL)")
    assert unsent[0]["level"] == "warn" and unsent[0]["runId"] == run["id"] and unsent[0]["reviewUrl"] == link
    assert unsent[0]["mailId"].startswith("mail_")


def test_staged_run_logged_with_smtp_and_no_mail_warning(start_server):
    smtp = Smtp().start()
    try:
        srv = start_server(env={"LOADLINE_APP_URL": APP, "LOADLINE_SMTP_URL": smtp.url})
        assert not logged(srv, "mail is off: LOADLINE_SMTP_URL is not set")
        run = wait_staged(srv, accepted_run(upload(srv, messy_file("SMTP")))["id"])
        staged = wait_logged(srv, "run staged for review")
        assert staged[0]["reviewUrl"] == "%s/imports/runs/%s/review" % (APP, run["id"])
        smtp.inbox.wait(1)
        assert not logged(srv, "approval mail not sent: no SMTP server is configured (LOADLINE_SMTP_URL)")
    finally:
        smtp.stop()


def test_run_finished_line_has_state_and_file_name(start_server):
    srv = start_server()
    run = wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(2, job="LOGS-1")), filename="two.csv"))["id"])
    line = [e for e in wait_logged(srv, "run finished") if e["runId"] == run["id"]][0]
    assert line["state"] == run["state"] == "SUCCEEDED" and line["fileName"] == "two.csv", line
