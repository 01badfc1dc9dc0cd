"""Helpers of the web-app tests: reading forms out of pages, signing in
with a one-time link, uploading files that need a review."""
import re
import time
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlparse

import requests

CUSTOM_HEADERS = ["Job #", "Load Number", "Ship Date", "Remarks"]


class Forms(HTMLParser):
    """Every <form> of a page: action, method and its named fields (inputs,
    selects with their selected option, textareas), plus submit buttons."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._form = None
        self._select = None
        self._textarea = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._form = {"action": a.get("action"), "method": (a.get("method") or "get").lower(),
                          "fields": {}, "buttons": [], "disabled": [], "attrs": a}
            self.forms.append(self._form)
        if self._form is None:
            return
        if tag == "input" and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self._form["fields"][a["name"]] = a.get("value", "")
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            if "disabled" in a:
                self._form["disabled"].append(a["name"])
            self._form["fields"].setdefault(a["name"], None)
        elif tag == "option" and self._select:
            # the first option unless a later one is selected
            if "selected" in a or self._form["fields"][self._select] is None:
                self._form["fields"][self._select] = a.get("value", "")
        elif tag == "textarea" and a.get("name"):
            self._textarea = a["name"]
            self._form["fields"][a["name"]] = ""
        elif tag == "button":
            self._form["buttons"].append(a)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._form is not None and self._textarea:
            self._form["fields"][self._textarea] += data
        if self._form is not None and self._form["buttons"] and not self._textarea:
            b = self._form["buttons"][-1]
            b["text"] = (b.get("text", "") + data).strip()

    def find(self, action):
        for f in self.forms:
            if f["action"] == action:
                return f
        raise AssertionError("no form posting to %s among %s" % (action, [f["action"] for f in self.forms]))


def forms(html):
    return Forms(html)


class Web(requests.Session):
    """A browser-like session against one server: relative paths, and no
    automatic redirects unless follow=True (tests look at every 303)."""

    def __init__(self, srv):
        super().__init__()
        self.srv = srv

    def request(self, method, url, **kw):
        kw.setdefault("timeout", 20)
        kw["allow_redirects"] = kw.pop("follow", False)
        if url.startswith("/"):
            url = self.srv.base_url + url
        return super().request(method, url, **kw)

    def form(self, page_path, action):
        r = self.get(page_path)
        assert r.status_code == 200, (page_path, r.status_code, r.text[:500])
        return forms(r.text).find(action)

    def submit(self, page_path, form_action, **changes):
        """Posts the form of page_path that posts to form_action, with
        its fields as the page set them and `changes` applied."""
        f = self.form(page_path, form_action)
        data = {k: v for k, v in f["fields"].items() if v is not None}
        data.update(changes)
        return self.post(form_action, data=data)


def login_link(srv, email):
    out = srv.cli.admin("login-link", "--email", email).line
    assert "/login/link?token=ll_link_" in out, out
    return out


def signin(srv, email=None):
    """A Web session signed in with a one-time link (default: the admin)."""
    email = email or srv.org.admin_email
    link = login_link(srv, email)
    w = Web(srv)
    path = link[link.index("/login/link"):]
    r = w.get(path)
    assert r.status_code == 200, r.text[:500]
    f = forms(r.text).find("/login/link")
    r = w.post("/login/link", data=f["fields"])
    assert r.status_code == 303, (r.status_code, r.text[:500])
    assert "ll_session" in w.cookies
    return w


def add_member(srv, email="member@example.com", name="Mo Member"):
    srv.cli.admin("add-user", "--org", srv.org.id, "--email", email, "--name", name, "--role", "member")
    return email


def custom_csv(n=2, salt="", headers=None):
    headers = headers or CUSTOM_HEADERS
    lines = [",".join(headers)]
    for i in range(n):
        lines.append("JOB1,L%d%s,2026-11-0%d,note %d" % (i, salt, 1 + i % 9, i))
    return "\n".join(lines) + "\n"


def upload(srv, text, name="loads.csv", token=None, expect=202):
    r = srv.post("/api/v1/imports/jobs", files={"file": (name, text.encode(), "text/csv")},
                 **({"token": token} if token else {}))
    assert r.status_code == expect, r.text
    return r.json()


def text_of(html):
    """Visible-ish text of a page, whitespace collapsed (for assertions)."""
    t = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    t = re.sub(r"<[^>]+>", " ", t)
    import html as h
    return re.sub(r"\s+", " ", h.unescape(t)).strip()


def wait_for(pred, timeout=30.0, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(interval)
    raise AssertionError("timed out waiting for %s" % what)


def sso_to_callback(w, email, start="/login/oidc"):
    """Starts single sign-on in Web session w and signs in at the test
    provider (its login form, any password) as `email`.  Returns the URL
    the provider sends the browser back to (the callback, not yet opened)."""
    r = w.get(start)
    assert r.status_code == 303, (r.status_code, r.text[:500])
    url = r.headers["Location"]
    assert url.startswith(w.srv.oidc.issuer + "/auth?"), url
    for _ in range(10):
        r = w.get(url)
        if r.status_code in (302, 303):
            url = urljoin(url, r.headers["Location"])
            if url.startswith(w.srv.base_url):
                return url
            continue
        assert r.status_code == 200, (r.status_code, r.text[:500])
        f = forms(r.text).forms[0]
        data = {k: v for k, v in f["fields"].items() if v is not None}
        data.update({"login": email, "password": "any"})
        r = w.post(urljoin(url, f["action"]), data=data)
        assert r.status_code in (302, 303), (r.status_code, r.text[:500])
        url = urljoin(url, r.headers["Location"])
        if url.startswith(w.srv.base_url):
            return url
    raise AssertionError("the provider never sent the browser back")


def query_of(url):
    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
