"""Settings → Webhooks (PRODUCT §12, issue 23 part 3): admins add an
endpoint (the signing secret shown once), send a test event, see the last
50 attempts and resend one, and delete the endpoint; members do not get
the page."""
import json
import re

from api.test_webhooks import SWITCHES, Receiver, verify_python
from harness.jobs import accepted_run, csv_bytes, rows, upload, wait_run
from web.webtools import add_member, signin, text_of, wait_for

PAGE = "/settings/webhooks"


def test_admin_adds_tests_resends_and_deletes(start_server):
    rcv = Receiver()
    try:
        srv = start_server(env=SWITCHES)
        w = signin(srv)
        r = w.submit(PAGE, PAGE, url=rcv.url)
        assert r.status_code == 200, text_of(r.text)[:600]
        m = re.search(r'id="new-secret" type="text" readonly value="(whsec_[A-Za-z0-9+/=]+)"', r.text)
        assert m, text_of(r.text)[:800]
        secret = m.group(1)
        assert "this is the only time it is shown" in text_of(r.text)
        page = w.get(PAGE).text
        assert secret not in page and rcv.url in page
        (ep,) = srv.get("/api/v1/webhook-endpoints").json()["data"]
        assert ep["events"] == ["import_run.staged", "import_run.completed"]

        r = w.submit(PAGE, "/settings/webhooks/%s/test" % ep["id"])
        assert r.status_code == 303
        test = rcv.next()
        body = json.loads(test["body"])
        assert body["type"] == "webhook.test" and body["data"]["object"]["object"] == "webhook_test"
        verify_python(secret, test)

        wait_run(srv, accepted_run(upload(srv, csv_bytes(rows(1, job="WP-1"))))["id"])
        done = rcv.next()
        assert json.loads(done["body"])["type"] == "import_run.completed"
        event_id = done["headers"]["webhook-id"]
        # The attempt is logged once the receiver has answered.
        wait_for(lambda: event_id in w.get(PAGE).text, what="the attempt in the log")
        page = w.get(PAGE).text
        assert "webhook.test" in page, text_of(page)[-1500:]
        assert "/settings/webhooks/%s/resend" % ep["id"] in page
        r = w.post("/settings/webhooks/%s/resend" % ep["id"],
                   data={"csrf": re.search(r'name="csrf" value="([^"]+)"', page).group(1), "event": event_id})
        assert r.status_code == 303, r.text[:300]
        again = rcv.next()
        assert again["headers"]["webhook-id"] == event_id and again["body"] == done["body"]

        r = w.submit(PAGE, "/settings/webhooks/%s/delete" % ep["id"])
        assert r.status_code == 303
        assert srv.get("/api/v1/webhook-endpoints").json()["data"] == []
    finally:
        rcv.close()


def test_refused_url_says_why(start_server):
    srv = start_server()
    w = signin(srv)
    r = w.submit(PAGE, PAGE, url="http://hooks.example.com/")
    assert r.status_code == 400 and "https://" in text_of(r.text)
    assert srv.get("/api/v1/webhook-endpoints").json()["data"] == []


def test_members_do_not_get_the_page(server):
    email = add_member(server)
    w = signin(server, email)
    assert w.get(PAGE).status_code == 403
    assert PAGE not in w.get("/settings/api-keys").text


def test_admin_edits_disables_enables_and_rotates(start_server):
    """PRODUCT §17 in the web app: edit URL and events (validated as when
    added), Disable and Enable, Rotate secret (the new one shown once; a
    delivery then verifies with the old and the new one), the start of the
    receiver's answer in the attempt log."""
    rcv = Receiver(reply=b'{"received": true}')
    try:
        srv = start_server(env=SWITCHES)
        old = srv.post("/api/v1/webhook-endpoints", json={"url": "https://hooks.example.com/x",
                                                          "events": ["import_run.staged"]}).json()
        w = signin(srv)
        edit = "/settings/webhooks/%s/edit" % old["id"]
        r = w.submit(PAGE, edit, url="ftp://nope")
        assert r.status_code == 400 and "https://" in text_of(r.text)
        r = w.submit(PAGE, edit, url=rcv.url, ev_completed="1")
        assert r.status_code == 303, text_of(r.text)[:500]
        ep = srv.get("/api/v1/webhook-endpoints/" + old["id"]).json()
        assert ep["url"] == rcv.url and ep["events"] == ["import_run.staged", "import_run.completed"], ep

        assert w.submit(PAGE, "/settings/webhooks/%s/disable" % ep["id"]).status_code == 303
        assert srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()["status"] == "disabled"
        page = w.get(PAGE).text
        assert "/settings/webhooks/%s/enable" % ep["id"] in page and "/disable" not in page
        assert w.submit(PAGE, "/settings/webhooks/%s/enable" % ep["id"]).status_code == 303
        assert srv.get("/api/v1/webhook-endpoints/" + ep["id"]).json()["status"] == "enabled"

        r = w.submit(PAGE, "/settings/webhooks/%s/rotate-secret" % ep["id"])
        assert r.status_code == 200, text_of(r.text)[:500]
        assert "New signing secret" in text_of(r.text) and "keeps signing beside it for 24 hours" in text_of(r.text)
        new = re.search(r'id="new-secret" type="text" readonly value="(whsec_[A-Za-z0-9+/=]+)"', r.text).group(1)
        assert new != old["secret"] and new not in w.get(PAGE).text
        assert w.submit(PAGE, "/settings/webhooks/%s/test" % ep["id"]).status_code == 303
        req = rcv.next()
        verify_python(new, req)
        verify_python(old["secret"], req)
        wait_for(lambda: "{&quot;received&quot;: true}" in w.get(PAGE).text or
                 '{"received": true}' in w.get(PAGE).text, what="the answer in the log")
    finally:
        rcv.close()
