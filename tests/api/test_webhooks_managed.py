"""Webhook endpoints fully managed (PRODUCT §17, issue 30): PATCH (url,
events, enabled: a disabled endpoint re-enabled), rotate-secret (the old
secret signs beside the new one for 24 h — both verify with the Standard
Webhooks reference library — then only the new one), the attempt log per
endpoint with the first 1 KB of each answer, and resend.  A real receiver
runs in the test process (test_webhooks.Receiver)."""
import json
import shutil
import subprocess
import time

import pytest

from harness.checks import assert_problem
from harness.db import db_exec
from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run

from .test_webhooks import SWITCHES, VERIFY, Receiver, create_endpoint, ensure_node_modules, verify_python


def reference_verifies(secret, req):
    """Whether the Standard Webhooks reference library accepts req under
    secret (tests/webhooks/verify.js)."""
    ensure_node_modules()
    h = req["headers"]
    msg = {"secret": secret, "body": req["body"].decode(),
           "headers": {k: h[k] for k in ("webhook-id", "webhook-timestamp", "webhook-signature")}}
    p = subprocess.run([shutil.which("node"), str(VERIFY / "verify.js")], input=json.dumps(msg).encode(),
                       capture_output=True, timeout=30)
    return p.returncode == 0


def patch(srv, ep_id, body, expect=200):
    r = srv.request("PATCH", "/api/v1/webhook-endpoints/" + ep_id, json=body)
    assert r.status_code == expect, r.text
    return r


def send_test(srv, ep_id):
    r = srv.post("/api/v1/webhook-endpoints/%s/test" % ep_id)
    assert r.status_code == 202, r.text


def attempts(srv, ep_id, query=""):
    r = srv.get("/api/v1/webhook-endpoints/%s/attempts%s" % (ep_id, query))
    assert r.status_code == 200, r.text
    return r.json()


def wait_attempts(srv, ep_id, n, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        got = attempts(srv, ep_id)["data"]
        if len(got) >= n:
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.1)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_patch_disables_then_re_enables(start_server, receiver):
    """enabled: false stops deliveries; enabled: true re-enables the
    endpoint (status enabled, failingSince cleared) and the next event is
    delivered."""
    srv = start_server(env=SWITCHES)
    ep = create_endpoint(srv, receiver.url, events=["import_run.completed"]).json()
    off = patch(srv, ep["id"], {"enabled": False}).json()
    assert off["status"] == "disabled" and off["disabledAt"], off
    wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(1, job="WHP-1"))))["id"])
    time.sleep(1.0)
    assert receiver.requests.empty(), "nothing is sent to a disabled endpoint"
    on = patch(srv, ep["id"], {"enabled": True}).json()
    assert on["status"] == "enabled" and on["disabledAt"] is None and on["failingSince"] is None, on
    assert srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json() == on
    run = wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(1, job="WHP-2"))))["id"])
    req = receiver.next()
    assert json.loads(req["body"])["data"]["object"]["id"] == run["id"]
    verify_python(ep["secret"], req)


def test_patch_re_enables_an_endpoint_the_sender_disabled(start_server):
    """An endpoint disabled after its retry window (PRODUCT §12) is
    re-enabled by PATCH and delivered to again."""
    rcv = Receiver(script=[500] * 6)
    try:
        srv = start_server(env=dict(SWITCHES, LOADLINE_WEBHOOK_RETRY_FOR="2s"))
        ep = create_endpoint(srv, rcv.url, events=["import_run.completed"]).json()
        wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(1, job="WHP-3"))))["id"])
        deadline = time.monotonic() + 30
        while srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()["status"] != "disabled":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        rcv.script.clear()
        assert patch(srv, ep["id"], {"enabled": True}).json()["status"] == "enabled"
        send_test(srv, ep["id"])
        deadline = time.monotonic() + 20
        while True:
            req = rcv.next()
            if json.loads(req["body"])["type"] == "webhook.test":
                break
            assert time.monotonic() < deadline
        assert req["status"] == 200
    finally:
        rcv.close()


def test_patch_validates_like_create(module_server):
    """url is validated as at creation (https only without the switch; a
    never-deliverable host refused); events as at creation; unknown members
    and a wrong enabled are 400; another id is 404."""
    srv = module_server
    ep = create_endpoint(srv, "https://hooks.example.com/a").json()
    for url in ("http://hooks.example.com/b", "ftp://x", "https://127.0.0.1/hook", ""):
        assert_problem(patch(srv, ep["id"], {"url": url}, expect=400), 400, "INVALID_WEBHOOK_URL", srv)
    assert_problem(patch(srv, ep["id"], {"events": []}, expect=400), 400, "INVALID_WEBHOOK_EVENTS", srv)
    assert_problem(patch(srv, ep["id"], {"events": ["nope"]}, expect=400), 400, "INVALID_WEBHOOK_EVENTS", srv)
    assert_problem(patch(srv, ep["id"], {"secret": "whsec_x"}, expect=400), 400, "INVALID_REQUEST", srv)
    assert_problem(patch(srv, ep["id"], {"enabled": "yes"}, expect=400), 400, "INVALID_REQUEST", srv)
    assert_problem(patch(srv, "whe_0000000000000000000000", {"enabled": True}, expect=404), 404, "NOT_FOUND", srv)
    got = srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()
    assert got["url"] == "https://hooks.example.com/a", "a refused PATCH changes nothing"
    done = patch(srv, ep["id"], {"url": "https://hooks.example.com/b", "events": ["import_run.staged"]}).json()
    assert done["url"] == "https://hooks.example.com/b" and done["events"] == ["import_run.staged"], done
    assert "secret" not in done
    srv.request("DELETE", "/api/v1/webhook-endpoints/" + ep["id"])


def test_rotate_secret_signs_with_both_for_24h_then_only_the_new(start_server, receiver):
    """rotate-secret returns a new secret once; a delivery within the
    overlap carries two v1 signatures and the reference library verifies
    it with the old and with the new secret; once the overlap is over
    (expiry moved into the past in the database) only the new one."""
    srv = start_server(env=SWITCHES)
    ep = create_endpoint(srv, receiver.url).json()
    old = ep["secret"]
    r = srv.post("/api/v1/webhook-endpoints/%s/rotate-secret" % ep["id"])
    assert r.status_code == 200, r.text
    assert r.headers["Cache-Control"] == "no-store"
    rotated = r.json()
    new = rotated["secret"]
    assert new.startswith("whsec_") and new != old
    until = time.mktime(time.strptime(rotated["previousSecretExpiresAt"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    assert abs(until - (time.time() + 24 * 3600)) < 120, rotated
    got = srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()
    assert "secret" not in got and got["previousSecretExpiresAt"] == rotated["previousSecretExpiresAt"]

    send_test(srv, ep["id"])
    req = receiver.next()
    assert len(req["headers"]["webhook-signature"].split(" ")) == 2, req["headers"]
    assert reference_verifies(new, req) and reference_verifies(old, req)
    assert not reference_verifies("whsec_" + "QUJD" * 8, req)

    db_exec(srv.db_url, "UPDATE webhook_endpoints SET previous_secret_until = 1 WHERE id = '%s'" % ep["id"])
    assert srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()["previousSecretExpiresAt"] is None
    send_test(srv, ep["id"])
    req = receiver.next()
    assert len(req["headers"]["webhook-signature"].split(" ")) == 1, req["headers"]
    assert reference_verifies(new, req) and not reference_verifies(old, req)
    assert_problem(srv.post("/api/v1/webhook-endpoints/whe_0000000000000000000000/rotate-secret"), 404, "NOT_FOUND",
                   srv)


def test_attempts_list_keeps_1kb_of_each_answer(start_server):
    """GET …/attempts: newest first, status, duration, error, the event,
    and the first 1 KB of the receiver's answer; paged by limit/cursor."""
    rcv = Receiver(script=[500], reply=b"x" * 1000 + "é".encode() * 1000)
    try:
        srv = start_server(env=SWITCHES)
        ep = create_endpoint(srv, rcv.url).json()
        send_test(srv, ep["id"])
        got = wait_attempts(srv, ep["id"], 2)
        first, second = got[1], got[0]
        assert first["object"] == "webhook_attempt" and first["id"].startswith("wha_")
        assert first["attempt"] == 1 and first["status"] == 500 and first["result"] == "failed"
        assert first["error"] == "HTTP 500" and first["type"] == "webhook.test"
        assert second["attempt"] == 2 and second["status"] == 200 and second["result"] == "delivered"
        assert second["error"] is None and second["eventId"] == first["eventId"]
        assert second["endpointId"] == ep["id"] and isinstance(second["durationMs"], int)
        for a in got:
            body = a["responseBody"]
            assert len(body.encode()) <= 1024 and body.startswith("x" * 1000) and "é" in body, body
        page = attempts(srv, ep["id"], "?limit=1")
        assert [a["id"] for a in page["data"]] == [second["id"]] and page["nextPageUrl"], page
        rest = srv.get(page["nextPageUrl"]).json()
        assert [a["id"] for a in rest["data"]] == [first["id"]] and rest["nextPageUrl"] is None, rest
        assert_problem(srv.get("/api/v1/webhook-endpoints/whe_0000000000000000000000/attempts"), 404,
                       "NOT_FOUND", srv)
    finally:
        rcv.close()


def test_resend_makes_a_new_delivery(start_server, receiver):
    """POST /api/v1/webhook-attempts/{id}/resend: the same event (same
    webhook-id) is delivered again and logged as a new attempt; a disabled
    endpoint's attempt is 409 WEBHOOK_ENDPOINT_DISABLED; unknown ids 404."""
    srv = start_server(env=SWITCHES)
    ep = create_endpoint(srv, receiver.url).json()
    send_test(srv, ep["id"])
    first = receiver.next()
    att = wait_attempts(srv, ep["id"], 1)[0]
    r = srv.post("/api/v1/webhook-attempts/%s/resend" % att["id"])
    assert r.status_code == 202, r.text
    assert r.json() == {"object": "webhook_resend", "attemptId": att["id"], "eventId": att["eventId"],
                        "endpointId": ep["id"]}
    again = receiver.next()
    assert again["headers"]["webhook-id"] == first["headers"]["webhook-id"] == att["eventId"]
    assert again["body"] == first["body"]
    verify_python(ep["secret"], again)
    got = wait_attempts(srv, ep["id"], 2)
    assert [a["attempt"] for a in got] == [2, 1] and got[0]["result"] == "delivered"
    patch(srv, ep["id"], {"enabled": False})
    assert_problem(srv.post("/api/v1/webhook-attempts/%s/resend" % att["id"]), 409, "WEBHOOK_ENDPOINT_DISABLED",
                   srv)
    assert_problem(srv.post("/api/v1/webhook-attempts/wha_0000000000000000000000/resend"), 404, "NOT_FOUND", srv)
    other = srv.new_org()
    assert_problem(srv.post("/api/v1/webhook-attempts/%s/resend" % att["id"], token=other.token), 404,
                   "NOT_FOUND", srv)
