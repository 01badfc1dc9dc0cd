"""A hanging OpenID provider must not freeze sign-in for everyone (issue 12,
found from outside): discovery and keys are fetched without holding a lock
across the network, one fetch at a time, with short time-outs and a short
back-off after a failure, so unrelated requests (/healthz, the API) stay
fast and sign-in attempts fail fast with 503."""
import socket
import threading
import time

import pytest
import requests


@pytest.fixture
def hanging_provider():
    """Accepts connections and never answers."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)
    held, stop = [], threading.Event()

    def accept():
        lsock.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(lsock.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield "http://127.0.0.1:%d" % lsock.getsockname()[1]
    stop.set()
    t.join(2)
    for c in held:
        c.close()
    lsock.close()


def test_hanging_provider_freezes_nobody(start_server, hanging_provider):
    """Issue 12, and issue 20 item 7 (found from outside, low): sign-ins
    against a provider that never answers get 503 at once, and /healthz and
    whoami stay fast meanwhile, even with only 4 HTTP threads."""
    srv = start_server(workers=0, env={"LOADLINE_OIDC_ISSUER": hanging_provider,
                                       "LOADLINE_OIDC_CLIENT_ID": "loadline", "LOADLINE_HTTP_THREADS": "4"})
    base = "http://127.0.0.1:%d" % srv.port
    answers = []

    def sign_in():
        t0 = time.monotonic()
        r = requests.get(base + "/login/oidc", allow_redirects=False, timeout=30)
        answers.append((r.status_code, time.monotonic() - t0))

    threads = [threading.Thread(target=sign_in) for _ in range(10)]
    for t in threads:
        t.start()
    worst = 0.0
    while any(t.is_alive() for t in threads):
        for path, token in (("/healthz", None), ("/api/v1/whoami", srv.token)):
            t0 = time.monotonic()
            headers = {"Authorization": "Bearer " + token} if token else {}
            assert requests.get(base + path, headers=headers, timeout=30).status_code == 200
            worst = max(worst, time.monotonic() - t0)
        time.sleep(0.05)
    for t in threads:
        t.join()
    # The provider's 4 s time-out is spent by the refresher thread, started
    # with the server; no HTTP thread waits for it (issue 20 item 7: a
    # shared 1.5 s wait at a cold start held the HTTP threads, and the
    # unrelated requests queued on them).
    assert worst < 0.75, "/healthz or whoami took %.2f s while sign-ins met the provider" % worst
    assert [s for s, _ in answers] == [503] * 10, answers
    assert max(d for _, d in answers) < 0.75, answers
    # Later attempts (the provider known to be failing) are answered at once.
    t0 = time.monotonic()
    assert requests.get(base + "/login/oidc", allow_redirects=False, timeout=30).status_code == 503
    assert time.monotonic() - t0 < 0.5
