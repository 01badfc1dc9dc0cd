"""Single sign-on through a real OpenID Connect provider (npm's
oidc-provider, tests/web/oidc/): authorization code flow with PKCE, state
and nonce; ID token signature, iss, aud, exp checked; users matched by
verified email (PRODUCT §7, issue 7)."""
import pytest

from web.webtools import Web, query_of, signin, sso_to_callback, text_of

# The protocol does not depend on the storage backend; the session and user
# look-ups it ends in are covered on both by test_signin.py.
pytestmark = pytest.mark.parametrize("backend", ["sqlite"])


def no_session(w):
    return "ll_session" not in w.cookies


def test_full_sign_in(sso_server):
    """The sign-in page offers SSO; the flow sends state, nonce and an S256
    PKCE challenge; the provider's code is redeemed, the ID token verified,
    and the user with that verified email is signed in where they wanted
    to go."""
    w = Web(sso_server)
    page = w.get("/login?next=/settings/api-keys")
    assert 'href="/login/oidc?next=/settings/api-keys"' in page.text
    r = w.get("/login/oidc?next=/settings/api-keys")
    q = query_of(r.headers["Location"])
    assert q["response_type"] == "code"
    assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43
    assert len(q["state"]) >= 32 and len(q["nonce"]) >= 32
    assert q["redirect_uri"] == sso_server.base_url + "/login/oidc/callback"
    assert set(q["scope"].split()) >= {"openid", "email"}
    state_cookie = [c for c in r.raw.headers.getlist("Set-Cookie") if c.startswith("ll_oidc=")][0]
    assert "HttpOnly" in state_cookie and "SameSite=Lax" in state_cookie
    cb = sso_to_callback(w, sso_server.org.admin_email, start="/login/oidc?next=/settings/api-keys")
    assert "code" in query_of(cb) and query_of(cb)["iss"] == sso_server.oidc.issuer
    r = w.get(cb)
    assert r.status_code == 303, text_of(r.text)
    assert r.headers["Location"] == "/settings/api-keys"
    session = [c for c in r.raw.headers.getlist("Set-Cookie") if c.startswith("ll_session=")][0]
    attrs = [a.strip() for a in session.split(";")]
    assert "HttpOnly" in attrs and "SameSite=Lax" in attrs and "Path=/" in attrs
    page = w.get("/imports")
    assert page.status_code == 200
    assert "Ada Admin" in page.text and sso_server.org.name in page.text


def test_email_is_matched_case_insensitively(sso_server):
    w = Web(sso_server)
    assert w.get(sso_to_callback(w, sso_server.org.admin_email.upper())).status_code == 303
    assert w.get("/imports").status_code == 200


def test_unknown_email_is_refused(sso_server):
    w = Web(sso_server)
    r = w.get(sso_to_callback(w, "stranger@example.com"))
    assert r.status_code == 403
    assert "No Loadline organization has a user with the email stranger@example.com" in text_of(r.text)
    assert no_session(w)


def test_unverified_email_is_refused(sso_server):
    """Only a verified email matches: the provider says email_verified false
    for this account, and a user with that email exists."""
    email = "unverified-ops@example.com"
    sso_server.cli.admin("add-user", "--org", sso_server.org.id, "--email", email, "--name", "Ops",
                         "--role", "admin")
    w = Web(sso_server)
    r = w.get(sso_to_callback(w, email))
    assert r.status_code == 403
    assert "has not verified your email address" in text_of(r.text)
    assert no_session(w)


def test_tampered_id_token_is_refused(sso_server):
    """An ID token whose payload was changed after signing fails the
    signature check against the provider's JWKS."""
    w = Web(sso_server)
    cb = sso_to_callback(w, sso_server.org.admin_email)
    sso_server.oidc.tamper_next_id_token()
    r = w.get(cb)
    assert r.status_code == 400
    assert "did not check out" in text_of(r.text)
    assert no_session(w)
    assert "signature does not verify" in sso_server.stderr()


def test_wrong_state_is_refused(sso_server):
    """A callback whose state is not the one this browser was given is
    refused before the code is used; the right state from another browser
    (no state cookie) is refused too."""
    w = Web(sso_server)
    cb = sso_to_callback(w, sso_server.org.admin_email)
    q = query_of(cb)
    wrong = cb.replace("state=" + q["state"], "state=" + "X" * len(q["state"]))
    r = w.get(wrong)
    assert r.status_code == 400
    assert "did not start in this browser" in text_of(r.text)
    assert no_session(w)
    other = Web(sso_server)
    r = other.get(cb)
    assert r.status_code == 400 and no_session(other)
    missing = cb.replace("state=" + q["state"], "")
    assert Web(sso_server).get(missing).status_code == 400


def test_replayed_code_is_refused(sso_server):
    """A code works once: replaying the callback is refused (its state is
    used up), and the same code under a fresh state is refused by the
    provider at the token endpoint."""
    w = Web(sso_server)
    cb = sso_to_callback(w, sso_server.org.admin_email)
    code = query_of(cb)["code"]
    assert w.get(cb).status_code == 303
    # the same callback again, in the signed-in browser
    r = w.get(cb)
    assert r.status_code == 400
    # an attacker's fresh login, with the stolen code
    eve = Web(sso_server)
    r = eve.get("/login/oidc")
    state = query_of(r.headers["Location"])["state"]
    r = eve.get("/login/oidc/callback?code=%s&state=%s&iss=%s" % (code, state, sso_server.oidc.issuer))
    assert r.status_code == 400
    assert no_session(eve)
    assert "invalid_grant" in sso_server.stderr()


def test_provider_error_is_shown_as_failed_sign_in(sso_server):
    w = Web(sso_server)
    w.get("/login/oidc")
    r = w.get("/login/oidc/callback?error=access_denied&state=x")
    assert r.status_code == 400
    assert "did not sign you in" in text_of(r.text)


def test_sso_not_configured(server):
    assert "Single sign-on is not configured" in Web(server).get("/login").text
    assert Web(server).get("/login/oidc").status_code == 404
    assert Web(server).get("/login/oidc/callback?code=x&state=y").status_code == 404


def test_signed_in_via_sso_then_sign_out(sso_server):
    w = Web(sso_server)
    w.get(sso_to_callback(w, sso_server.org.admin_email))
    assert w.submit("/imports", "/logout").status_code == 303
    assert w.get("/imports").status_code == 303


def test_link_and_sso_users_share_one_identity(sso_server):
    """The same user signs in either way and sees the same organization."""
    a = signin(sso_server)
    b = Web(sso_server)
    b.get(sso_to_callback(b, sso_server.org.admin_email))
    assert text_of(a.get("/imports").text) == text_of(b.get("/imports").text)
