"""Fixtures of the web-app tests: a real OpenID Connect provider (npm's
oidc-provider, pinned in tests/web/oidc/package-lock.json), a loadline
server registered with it as a client, and a test SMTP server."""
import os
import subprocess
import threading

import pytest
import requests

from harness.net import free_port
from harness.npm import npm_ci_once
from harness.server import OUT_DIR, _die_with_parent
from harness.smtp import Smtp

OIDC_DIR = os.path.join(os.path.dirname(__file__), "oidc")


def ensure_node_modules():
    """`npm ci` in tests/web/oidc once, when node_modules is missing
    (quietly; the lockfile pins every package)."""
    err = npm_ci_once(OIDC_DIR, "oidc-provider")
    if err:
        pytest.fail(err, pytrace=False)


class OidcProvider:
    """node provider.mjs PORT: issuer http://127.0.0.1:PORT."""

    def __init__(self):
        self.port = free_port()
        self.issuer = "http://127.0.0.1:%d" % self.port
        os.makedirs(OUT_DIR, exist_ok=True)
        # One provider per pytest process (xdist workers each have theirs).
        self.log_path = os.path.join(OUT_DIR, "oidc-provider%s.log" % os.environ.get("PYTEST_XDIST_WORKER", ""))
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(["node", "provider.mjs", str(self.port)], cwd=OIDC_DIR,
                                     stdout=subprocess.PIPE, stderr=self._log, text=True,
                                     preexec_fn=_die_with_parent)
        ready = []
        t = threading.Thread(target=lambda: ready.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(30)
        if not ready or not ready[0].startswith("ready "):
            self.stop()
            raise AssertionError("the OIDC provider did not start; see %s" % self.log_path)

    def register(self, redirect_uri):
        """Dynamic Client Registration: a confidential client for one
        loadline server; returns (client_id, client_secret)."""
        r = requests.post(self.issuer + "/reg", json={
            "redirect_uris": [redirect_uri], "grant_types": ["authorization_code"],
            "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic"}, timeout=10)
        assert r.status_code == 201, r.text
        body = r.json()
        return body["client_id"], body["client_secret"]

    def tamper_next_id_token(self):
        r = requests.post(self.issuer + "/__test/tamper?mode=signature", timeout=10)
        assert r.status_code == 204, r.text

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log.close()


@pytest.fixture(scope="session")
def oidc_provider():
    ensure_node_modules()
    p = OidcProvider()
    yield p
    p.stop()


def start_sso_server(start_server, oidc_provider, env=None, **kw):
    """Starts a bootstrapped loadline server registered as a client of the
    test provider (its callback URL needs the port first)."""
    port = free_port()
    client_id, secret = oidc_provider.register("http://127.0.0.1:%d/login/oidc/callback" % port)
    e = {"LOADLINE_OIDC_ISSUER": oidc_provider.issuer, "LOADLINE_OIDC_CLIENT_ID": client_id,
         "LOADLINE_OIDC_CLIENT_SECRET": secret}
    e.update(env or {})
    srv = start_server(port=port, env=e, **kw)
    srv.oidc = oidc_provider
    return srv


@pytest.fixture
def sso_server(start_server, oidc_provider):
    """A bootstrapped loadline server whose sign-in uses the test provider."""
    return start_sso_server(start_server, oidc_provider)


@pytest.fixture
def smtp():
    s = Smtp().start()
    yield s
    s.stop()
