"""Settings → API keys and Settings → Communications (PRODUCT §7; SPEC
"Authentication" 2 and 5)."""
import time
import re

from web.webtools import Web, add_member, custom_csv, forms, signin, text_of, upload

KEYS = "/settings/api-keys"
COMMS = "/settings/communications"


def mint(w, name):
    r = w.submit(KEYS, KEYS, name=name)
    assert r.status_code == 200, r.text[:500]
    m = re.search(r'id="new-token" type="text" readonly value="(ll_live_[A-Za-z0-9]+)"', r.text)
    assert m, text_of(r.text)[:800]
    return m.group(1), r


def key_rows(w):
    t = w.get(KEYS).text
    return re.findall(r"<tr[^>]*>\s*<td>([^<]*)</td>\s*<td><code>(ll_live_\w{4})…</code>", t)


def test_mint_shows_token_once_and_it_works(server):
    """Mint: the token is shown once (with a copy button); it authenticates
    /api/v1/whoami for the same organization; the list shows prefix,
    creation and last use, never the token."""
    w = signin(server)
    token, r = mint(w, "ERP <nightly>")
    assert 'data-copy="new-token"' in r.text
    assert "this is the only time it is shown" in text_of(r.text)
    assert "ERP &lt;nightly&gt;" in r.text
    assert r.headers["Cache-Control"] == "no-store"
    who = server.get("/api/v1/whoami", token=token)
    assert who.status_code == 200
    assert who.json()["organization"]["id"] == server.org.id
    assert who.json()["name"] == "ERP <nightly>"
    page = w.get(KEYS)
    assert token not in page.text
    assert ("ERP &lt;nightly&gt;", token[:12]) in key_rows(w)
    row = page.text[page.text.index("ERP &lt;nightly&gt;"):]
    row = row[:row.index("</tr>")]
    assert "never" not in row  # lastUsedAt was set by the whoami call


def test_revoke_then_401(server):
    w = signin(server)
    token, _ = mint(w, "to revoke")
    assert server.get("/api/v1/whoami", token=token).status_code == 200
    key_id = server.get("/api/v1/whoami", token=token).json()["id"]
    r = w.submit(KEYS, "/settings/api-keys/%s/revoke" % key_id)
    assert r.status_code == 303
    assert server.get("/api/v1/whoami", token=token).status_code == 401
    page = text_of(w.get(r.headers["Location"]).text)
    assert "The key was revoked" in page and "revoked" in page


def test_mint_needs_a_name(server):
    w = signin(server)
    before = len(key_rows(w))
    r = w.submit(KEYS, KEYS, name="   ")
    assert r.status_code == 400
    assert 'id="new-token"' not in r.text
    assert len(key_rows(w)) == before


def test_mint_and_revoke_without_csrf_are_403_and_nothing_changes(server):
    w = signin(server)
    before = key_rows(w)
    assert w.post(KEYS, data={"name": "sneaky"}).status_code == 403
    assert w.post(KEYS, data={"name": "sneaky", "csrf": "nope"}).status_code == 403
    assert key_rows(w) == before
    key_id = server.get("/api/v1/whoami").json()["id"]
    assert w.post("/settings/api-keys/%s/revoke" % key_id, data={}).status_code == 403
    assert server.get("/api/v1/whoami").status_code == 200


def test_member_sees_keys_but_cannot_mint_or_revoke(server):
    m = signin(server, add_member(server))
    page = m.get(KEYS)
    assert page.status_code == 200
    assert ("tests", server.token[:12]) in key_rows(m)
    assert all(f["action"] == "/logout" for f in forms(page.text).forms)
    csrf = m.form(KEYS, "/logout")["fields"]["csrf"]
    assert m.post(KEYS, data={"csrf": csrf, "name": "member key"}).status_code == 403
    key_id = server.get("/api/v1/whoami").json()["id"]
    assert m.post("/settings/api-keys/%s/revoke" % key_id, data={"csrf": csrf}).status_code == 403
    assert server.get("/api/v1/whoami").status_code == 200
    assert len(key_rows(m)) == 1


def test_cannot_revoke_another_orgs_key(server):
    other = server.new_org("Other")
    w = signin(server, other.admin_email)
    key_id = server.get("/api/v1/whoami").json()["id"]
    csrf = w.form(KEYS, "/logout")["fields"]["csrf"]
    assert w.post("/settings/api-keys/%s/revoke" % key_id, data={"csrf": csrf}).status_code == 404
    assert server.get("/api/v1/whoami").status_code == 200
    assert server.token[:12] not in w.get(KEYS).text


def test_communications_recipients_roundtrip(server):
    """The "Bulk import mapping approvals" setting: empty = all admins; a
    list replaces them; the next staged run's email goes to that list."""
    w = signin(server)
    t = text_of(w.get(COMMS).text)
    assert "Bulk import mapping approvals" in t
    assert "every admin of the organization (%s)" % server.org.admin_email in t
    r = w.submit(COMMS, COMMS, recipients="ops@acme.test\nLead@Acme.test, lead@acme.test")
    assert r.status_code == 303
    f = w.form(COMMS, COMMS)
    assert f["fields"]["recipients"].split() == ["Lead@Acme.test", "ops@acme.test"]
    run = upload(server, custom_csv(2))
    deadline = time.monotonic() + 30   # the mail is queued once a worker has triaged the run
    while not [l for l in server.cli.admin("outbox", "--org", server.org.id).out.splitlines() if run["id"] in l]:
        assert time.monotonic() < deadline, "no approval mail queued"
        time.sleep(0.1)
    out = server.cli.admin("outbox", "--org", server.org.id).out
    line = [l for l in out.splitlines() if run["id"] in l][0]
    assert "to=Lead@Acme.test,ops@acme.test" in line
    # empty again: back to all admins
    assert w.submit(COMMS, COMMS, recipients="").status_code == 303
    assert "every admin of the organization" in text_of(w.get(COMMS).text)


def test_communications_rejects_bad_addresses(server):
    w = signin(server)
    r = w.submit(COMMS, COMMS, recipients="ops@acme.test\nnot-an-address")
    assert r.status_code == 400
    assert "“not-an-address” is not an email address." in text_of(r.text)
    assert "every admin" in text_of(w.get(COMMS).text)


def test_member_cannot_change_communications(server):
    m = signin(server, add_member(server))
    page = m.get(COMMS)
    assert page.status_code == 200
    f = forms(page.text).find(COMMS)
    assert f["buttons"] == []
    r = m.post(COMMS, data={"csrf": f["fields"]["csrf"], "recipients": "evil@x.test"})
    assert r.status_code == 403
    assert "every admin" in text_of(m.get(COMMS).text)


def test_settings_redirects_to_keys(module_server):
    r = signin(module_server).get("/settings")
    assert r.status_code == 303 and r.headers["Location"] == KEYS
    assert Web(module_server).get("/settings").status_code == 303


def test_communications_says_when_no_mail_is_sent(server, start_server):
    """Issue 30 item 4: with no SMTP server configured, Settings →
    Communications says that no email is sent and why; with one, it does
    not."""
    t = text_of(signin(server).get(COMMS).text)
    assert "No emails are sent: this Loadline server has no mail server configured" in t, t[:600]
    srv = start_server(env={"LOADLINE_SMTP_URL": "smtp://127.0.0.1:1"})
    assert "No emails are sent" not in text_of(signin(srv).get(COMMS).text)
