"""Web app sign-in with one-time links, sessions, sign-out, and the gates
every page passes (PRODUCT §7; issue 7 "Security tests")."""
import pytest

from web.webtools import Web, forms, login_link, signin, text_of

PAGES = ["/", "/imports", "/imports/runs/run_x/review", "/imports/runs/run_x", "/settings/api-keys",
         "/settings/communications", "/locations"]


@pytest.mark.parametrize("path", PAGES)
def test_no_session_redirects_to_signin(module_server, path):
    """Issue 7: no session -> redirect to sign-in (303), remembering where
    the user was going."""
    r = Web(module_server).get(path)
    assert r.status_code == 303, r.status_code
    loc = r.headers["Location"]
    assert loc.startswith("/login"), loc
    if path != "/":
        assert loc == "/login?next=" + path
    assert r.headers.get("Cache-Control") == "no-store"


def test_signin_page_works_without_session(module_server):
    """PRODUCT §7: the sign-in page is server-rendered HTML with no external
    resources; without OIDC configured it says so."""
    r = Web(module_server).get("/login")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    assert "Sign in to Loadline" in r.text
    assert 'src="http' not in r.text and 'href="http' not in r.text
    csp = r.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp


def test_login_link_signs_in_once_with_session_cookie_flags(server):
    """PRODUCT §7 / issue 7: the link from `admin login-link` signs in once;
    the session cookie is HttpOnly, SameSite=Lax, Path=/ (not Secure over
    http); a second use of the link is refused."""
    link = login_link(server, server.org.admin_email)
    path = link[link.index("/login/link"):]
    w = Web(server)
    r = w.get(path)
    assert r.status_code == 200
    f = forms(r.text).find("/login/link")
    assert f["fields"]["csrf"]
    r = w.post("/login/link", data=f["fields"])
    assert r.status_code == 303 and r.headers["Location"] == "/imports"
    cookies = r.raw.headers.getlist("Set-Cookie")
    session = [c for c in cookies if c.startswith("ll_session=")]
    assert len(session) == 1, cookies
    attrs = [a.strip() for a in session[0].split(";")]
    assert "HttpOnly" in attrs
    assert "SameSite=Lax" in attrs
    assert "Path=/" in attrs
    assert "Secure" not in attrs
    assert any(a.startswith("Max-Age=") and int(a[8:]) > 0 for a in attrs)
    assert w.get("/imports").status_code == 200
    # the same link again, from another browser
    w2 = Web(server)
    r = w2.get(path)
    f = forms(r.text).find("/login/link")
    r = w2.post("/login/link", data=f["fields"])
    assert r.status_code == 400
    assert "not valid" in r.text
    assert "ll_session" not in w2.cookies


def test_secure_cookie_when_app_url_is_https(start_server):
    """Issue 7: the session cookie is Secure when the app URL is https."""
    srv = start_server(env={"LOADLINE_APP_URL": "https://app.loadline.test"})
    link = login_link(srv, srv.org.admin_email)
    w = Web(srv)
    r = w.get(link[link.index("/login/link"):])
    f = forms(r.text).find("/login/link")
    r = w.post("/login/link", data=f["fields"], cookies={"ll_csrf": f["fields"]["csrf"]})
    assert r.status_code == 303
    session = [c for c in r.raw.headers.getlist("Set-Cookie") if c.startswith("ll_session=")][0]
    assert "Secure" in [a.strip() for a in session.split(";")]


def test_link_post_without_csrf_is_403_and_link_still_works(server):
    """Every form posts with a CSRF token: the link form without it (or
    with a wrong one) is 403 and the link is not used up."""
    link = login_link(server, server.org.admin_email)
    token = link.split("token=")[1]
    w = Web(server)
    w.get("/login/link?token=" + token)
    r = w.post("/login/link", data={"token": token})
    assert r.status_code == 403
    r = w.post("/login/link", data={"token": token, "csrf": "x" * 32})
    assert r.status_code == 403
    assert "ll_session" not in w.cookies
    r = w.get("/login/link?token=" + token)
    r = w.post("/login/link", data=forms(r.text).find("/login/link")["fields"])
    assert r.status_code == 303


def test_malformed_link_is_refused(module_server):
    r = Web(module_server).get("/login/link?token=ll_link_nope")
    assert r.status_code == 400
    assert "not valid" in r.text


def test_next_is_followed_but_never_off_site(server):
    """After sign-in the user lands where they were going; a `next` that
    points to another site is ignored (no open redirect)."""
    for nxt, want in [("/settings/api-keys", "/settings/api-keys"), ("//evil.test/x", "/imports"),
                      ("https://evil.test/", "/imports"), ("/\\evil.test", "/imports")]:
        link = login_link(server, server.org.admin_email)
        w = Web(server)
        r = w.get(link[link.index("/login/link"):] + "&next=" + nxt)
        f = forms(r.text).find("/login/link")
        r = w.post("/login/link", data=f["fields"])
        assert r.status_code == 303
        assert r.headers["Location"] == want, (nxt, r.headers["Location"])


def test_signout_revokes_session(server):
    """Sessions are server-side and revoked on sign-out: the old cookie no
    longer opens anything."""
    w = signin(server)
    old = w.cookies["ll_session"]
    r = w.submit("/imports", "/logout")
    assert r.status_code == 303 and r.headers["Location"].startswith("/login")
    cleared = [c for c in r.raw.headers.getlist("Set-Cookie") if c.startswith("ll_session=")]
    assert cleared and "Max-Age=0" in cleared[0]
    replay = Web(server)
    replay.cookies.set("ll_session", old)
    r = replay.get("/imports")
    assert r.status_code == 303 and r.headers["Location"].startswith("/login")
    assert "You are signed out" in Web(server).get("/login?signed_out=1").text


def test_signout_without_csrf_is_403_and_session_lives(server):
    """A POST without or with a wrong CSRF token -> 403, nothing changed."""
    w = signin(server)
    assert w.post("/logout", data={}).status_code == 403
    assert w.post("/logout", data={"csrf": "wrong"}).status_code == 403
    assert w.get("/imports").status_code == 200


def test_forged_session_cookie_is_no_session(module_server):
    w = Web(module_server)
    w.cookies.set("ll_session", "A" * 43)
    r = w.get("/imports")
    assert r.status_code == 303


def test_unknown_page_is_html_404(module_server):
    w = signin(module_server)
    r = w.get("/no/such/page")
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("text/html")
    assert "Not found" in text_of(r.text)


def test_post_that_is_not_a_form_is_refused(server):
    w = signin(server)
    csrf = w.form("/imports", "/logout")["fields"]["csrf"]
    r = w.post("/logout", data='{"csrf": "%s"}' % csrf, headers={"Content-Type": "application/json"})
    assert r.status_code == 415
    assert w.get("/imports").status_code == 200


def test_demoted_or_other_org_user_sees_only_own_org(server):
    """A session belongs to one user of one organization; what it shows is
    that organization's."""
    other = server.new_org("Other Org")
    w = signin(server, other.admin_email)
    r = w.get("/imports")
    assert r.status_code == 200
    assert "Other Org" in r.text
    assert server.org.name not in r.text


def test_sessions_expire(start_server):
    """Sessions are server-side and expire (LOADLINE_SESSION_TTL, 12 h by
    default): past it the same cookie is no session."""
    import time
    srv = start_server(env={"LOADLINE_SESSION_TTL": "1s"})
    w = signin(srv)
    assert w.get("/imports").status_code == 200
    time.sleep(1.2)   # time is what is tested: the 1 s session lifetime must pass
    r = w.get("/imports")
    assert r.status_code == 303 and r.headers["Location"].startswith("/login")


def test_static_assets_need_no_session_and_revalidate(module_server):
    """One small stylesheet and one script, served by the program itself
    with an ETag (no external fonts or CDNs)."""
    w = Web(module_server)
    css = w.get("/static/app.css")
    assert css.status_code == 200 and css.headers["Content-Type"].startswith("text/css")
    assert len(css.content) < 16 * 1024
    assert "@import" not in css.text and "url(http" not in css.text
    again = w.get("/static/app.css", headers={"If-None-Match": css.headers["ETag"]})
    assert again.status_code == 304
    js = w.get("/static/app.js")
    assert js.status_code == 200 and "javascript" in js.headers["Content-Type"]
    assert w.get("/static/nope.css").status_code == 404
    assert w.get("/static/layout.html").status_code == 404  # templates are not served
