"""GET /metrics (PRODUCT §10): Prometheus text exposition without a token;
route patterns as labels, never raw ids; counters move as a run completes.
The text is checked by a strict parser of the exposition format (0.0.4):
every sample belongs to a declared family of its type, names and labels
are well-formed, histogram buckets are cumulative and end at +Inf = _count."""
import math
import re
import subprocess
import time

import pytest

from harness.jobs import csv_bytes, import_file, row, rows
from harness.server import loadline_bin

# The version the binary reports (loadline --version), as build_info carries it.
VERSION = subprocess.run([loadline_bin(), "--version"], capture_output=True, text=True).stdout.split()[-1]

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(r"^(%s)(?:\{(%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))


def parse(text):
    """{(name, frozenset(labels)): value}, checking the format strictly."""
    assert text.endswith("\n")
    types, samples, helps = {}, {}, set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            assert name not in helps, "two HELP lines for " + name
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped"), line
            assert name not in types, "two TYPE lines for " + name
            types[name] = kind
            continue
        assert not line.startswith("#") and line.strip(), "stray line %r" % line
        m = SAMPLE.match(line)
        assert m, "malformed sample %r" % line
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        kind = types.get(name) or types.get(family)
        assert kind, "sample %s before its TYPE" % name
        if name != family and types.get(family) != "histogram":
            assert name in types, name
        v = float(value)
        assert not math.isnan(v)
        if kind == "counter":
            assert v >= 0 and name.endswith("_total"), line
        lab = frozenset(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', labels))
        key = (name, lab)
        assert key not in samples, "duplicate sample " + line
        samples[key] = v
    for fam, kind in types.items():
        if kind != "histogram":
            continue
        series = {}
        for (name, lab), v in samples.items():
            if name == fam + "_bucket":
                rest = frozenset(x for x in lab if x[0] != "le")
                le = dict(lab)["le"]
                series.setdefault(rest, []).append((math.inf if le == "+Inf" else float(le), v))
        for rest, buckets in series.items():
            buckets.sort()
            assert buckets[-1][0] == math.inf, fam
            counts = [v for _, v in buckets]
            assert counts == sorted(counts), "buckets of %s not cumulative: %s" % (fam, buckets)
            assert samples[(fam + "_count", rest)] == counts[-1]
            assert (fam + "_sum", rest) in samples
    return samples


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(srv):
    r = srv.get("/metrics", token=None)
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return parse(r.text)


def test_metrics_move_as_a_run_completes(server):
    before = scrape(server)
    assert value(before, "loadline_build_info", version=VERSION) == 1
    assert ("loadline_import_queue_depth", frozenset()) in before
    assert ("loadline_outbox_pending", frozenset()) in before
    recs = rows(3, job="J-MET") + [row(4, job="J-MET", loadDate="")]
    run, _ = import_file(server, csv_bytes(recs))
    assert run["state"] == "PARTIAL", run
    after = scrape(server)
    assert value(after, "loadline_import_runs_total", state="PARTIAL") == \
        value(before, "loadline_import_runs_total", state="PARTIAL") + 1
    assert value(after, "loadline_import_rows_total", bucket="succeeded") - \
        value(before, "loadline_import_rows_total", bucket="succeeded") == 3
    assert value(after, "loadline_import_rows_total", bucket="failed") - \
        value(before, "loadline_import_rows_total", bucket="failed") == 1
    assert value(after, "loadline_import_run_duration_seconds_count") == \
        value(before, "loadline_import_run_duration_seconds_count") + 1
    route = "/api/v1/imports/runs/{id}"
    assert value(after, "loadline_http_requests_total", method="GET", route=route, status="200") >= 1
    assert value(after, "loadline_http_requests_total", method="POST", route="/api/v1/imports/{kind}",
                 status="202") == 1
    assert value(after, "loadline_http_request_duration_seconds_count", method="GET", route=route) >= 1
    # /metrics counts its own previous scrape
    assert value(after, "loadline_http_requests_total", method="GET", route="/metrics", status="200") >= 1
    assert value(after, "loadline_import_queue_depth") == 0


def test_labels_are_patterns_never_ids(server):
    server.get("/api/v1/imports/runs/run_0000000000000000000000")
    server.get("/api/v1/loads/load_123")
    server.get("/api/v1/nothing/here/42")
    server.get("/docs/api/errors/NOT_FOUND", token=None)
    samples = scrape(server)
    routes = {dict(lab).get("route") for (name, lab) in samples if name == "loadline_http_requests_total"}
    assert "/api/v1/loads/{id}" in routes and "docs" in routes and "unmatched" in routes, routes
    for r in routes:
        assert not re.search(r"(run|load)_[0-9A-Za-z]+|/42\b", r), r


def test_metrics_while_the_database_is_away_still_answers(start_server, private_pg, backend):
    """The process's own series are served when the database is down; the
    database gauges are left out rather than made up."""
    if backend != "postgres":
        pytest.skip("PostgreSQL only")
    srv = start_server(db_url=private_pg.url(private_pg.create_database()))
    private_pg.stop()
    try:
        samples = scrape(srv)
        assert ("loadline_import_queue_depth", frozenset()) not in samples
        assert value(samples, "loadline_build_info", version=VERSION) == 1
    finally:
        private_pg.start()


def test_metrics_on_their_own_listener(start_server):
    """LOADLINE_METRICS_LISTEN: /metrics moves to that address (and only
    /metrics is served there); the API address no longer answers it."""
    import requests
    from harness.net import free_port
    port = free_port()
    srv = start_server(env={"LOADLINE_METRICS_LISTEN": "127.0.0.1:%d" % port})
    assert srv.get("/api/v1/whoami").status_code == 200
    assert srv.get("/metrics", token=None).status_code == 404
    r = requests.get("http://127.0.0.1:%d/metrics" % port, timeout=10)
    assert r.status_code == 200
    samples = parse(r.text)
    assert value(samples, "loadline_http_requests_total", method="GET", route="/api/v1/whoami", status="200") == 1
    assert requests.get("http://127.0.0.1:%d/api/v1/whoami" % port, timeout=10).status_code == 404


def _local_non_loopback_address():
    """An address of this host that is not loopback (the interface a packet
    to TEST-NET-1 would leave by; nothing is sent), or None."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        addr = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if addr.startswith("127.") else addr


def _raw_get(port, path, headers=b"", source="127.0.0.1"):
    import socket
    s = socket.socket()
    s.settimeout(5)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    try:
        s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + b"\r\n")
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                return data
            data += c
    finally:
        s.close()


@pytest.mark.parametrize("headers", [b"X-Forwarded-For: 203.0.113.9\r\n",
                                     b"Forwarded: for=203.0.113.9\r\n",
                                     b"X-Real-IP: 203.0.113.9\r\n"])
def test_metrics_on_the_api_listener_only_for_local_scrapers(module_server, headers):
    """Issue 20 item 10: without LOADLINE_METRICS_LISTEN, /metrics on the
    API listener (database-wide queue and outbox counts, no token) is
    answered only to a client on this host talking to it directly: a
    request relayed by a reverse proxy (it names the client in Forwarded,
    X-Forwarded-For or X-Real-IP) or from another address gets 404."""
    assert _raw_get(module_server.port, "/metrics").startswith(b"HTTP/1.1 200")
    assert _raw_get(module_server.port, "/metrics", headers).startswith(b"HTTP/1.1 404")
    other = _local_non_loopback_address()
    if other:
        assert _raw_get(module_server.port, "/metrics", source=other).startswith(b"HTTP/1.1 404")
        assert _raw_get(module_server.port, "/healthz", source=other).startswith(b"HTTP/1.1 200")


def test_a_worker_process_serves_its_run_metrics(start_server):
    """PRODUCT §10 for `loadline worker` (no API listener): with
    LOADLINE_METRICS_LISTEN its run counters are scraped there, and they
    move as the worker finishes a run."""
    import time
    import requests
    from harness.jobs import upload, wait_run, accepted_run
    from harness.net import free_port
    from harness.server import start_workers, stop_workers, assert_workers_clean
    srv = start_server(workers=0)
    port = free_port()
    procs = start_workers(srv.db_url, 1, 1, {"LOADLINE_METRICS_LISTEN": "127.0.0.1:%d" % port})
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                before = parse(requests.get("http://127.0.0.1:%d/metrics" % port, timeout=5).text)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the worker's metrics listener never came up"
                time.sleep(0.1)
        run = accepted_run(upload(srv, csv_bytes(rows(3, job="WMET"))))
        assert wait_run(srv, run["id"])["state"] == "SUCCEEDED"
        after = parse(requests.get("http://127.0.0.1:%d/metrics" % port, timeout=5).text)
        assert value(after, "loadline_import_runs_total", state="SUCCEEDED") == \
            value(before, "loadline_import_runs_total", state="SUCCEEDED") + 1
        assert value(after, "loadline_import_rows_total", bucket="succeeded") >= 3
    finally:
        results = stop_workers(procs)
    assert_workers_clean(results)


def test_runs_awaiting_review_are_counted(server):
    """Issue 21 item 5 / PRODUCT §13: loadline_import_runs_awaiting_review
    counts runs staged for mapping review (QUEUED and staged), database-wide
    like the queue depth, which does not count them."""
    assert value(scrape(server), "loadline_import_runs_awaiting_review") == 0
    custom = "Job #,Load Number,Ship Date,Remarks\n"
    ids = []
    for salt in ("a", "b"):
        text = custom + "JOB1,L1%s,2026-11-01,note\n" % salt
        r = server.post("/api/v1/imports/jobs", files={"file": ("c%s.csv" % salt, text.encode(), "text/csv")})
        assert r.status_code == 202 and r.json()["state"] == "QUEUED", r.text
        ids.append(r.json()["id"])
    samples = scrape(server)
    assert ("loadline_import_runs_awaiting_review", frozenset()) in samples
    assert value(samples, "loadline_import_runs_awaiting_review") == 2
    assert value(samples, "loadline_import_queue_depth") == 0
    server.cli.admin("cancel-run", ids[0])
    assert value(scrape(server), "loadline_import_runs_awaiting_review") == 1


def test_process_series(start_server):
    """Issue 21 item 5 / PRODUCT §13: Prometheus' standard process series,
    read from /proc/self: CPU seconds, resident memory, open descriptors and
    the start time, each agreeing with what /proc says of the process."""
    import os
    import time
    t0 = time.time()
    srv = start_server()
    t1 = time.time()
    samples = scrape(srv)
    pid = srv.proc.pid
    start = value(samples, "process_start_time_seconds")
    assert t0 - 2 <= start <= t1 + 1, (t0, start, t1)
    cpu = value(samples, "process_cpu_seconds_total")
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    assert 0 < cpu <= (int(fields[11]) + int(fields[12])) / ticks + 1.0, cpu
    rss = value(samples, "process_resident_memory_bytes")
    with open("/proc/%d/status" % pid) as f:
        vmrss = int(next(l for l in f if l.startswith("VmRSS:")).split()[1]) * 1024
    assert 0.5 * vmrss <= rss <= 2 * vmrss, (rss, vmrss)
    fds = value(samples, "process_open_fds")
    now = len(os.listdir("/proc/%d/fd" % pid))
    assert 5 <= fds and abs(fds - now) <= 8, (fds, now)
    assert value(samples, "process_max_fds") >= fds
    assert value(samples, "process_virtual_memory_bytes") >= rss


def test_duration_buckets_start_at_1ms(server):
    """Issue 21 item 5: requests and runs take 1-30 ms; the duration
    histograms' first bucket is 1 ms (it was 5 ms for requests and 50 ms for
    runs, so every run fell into the first bucket)."""
    run, _ = import_file(server, csv_bytes(rows(2, job="J-BKT")))
    assert run["state"] == "SUCCEEDED", run
    samples = scrape(server)
    for fam, labels in (("loadline_http_request_duration_seconds", {"method": "GET",
                                                                     "route": "/api/v1/imports/runs/{id}"}),
                        ("loadline_import_run_duration_seconds", {})):
        les = sorted(float(dict(lab)["le"]) for (name, lab) in samples
                     if name == fam + "_bucket" and {k: v for k, v in lab if k != "le"} == labels)
        assert les[0] == 0.001 and 0.0025 in les and 0.005 in les and les[-1] == math.inf, (fam, les)


def promtool_check(text):
    """`promtool check metrics` (Debian's prometheus package; scripts/deps)
    finds no problem in the exposition."""
    import shutil
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run scripts/deps"
    p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(), p.stdout + p.stderr


def test_method_label_and_web_route_patterns(server):
    """Issue 30: request series carry `method`; each web page has its own
    route pattern (not one route="web"), ids never in it; promtool clean."""
    server.get("/api/v1/whoami")
    server.post("/api/v1/webhook-endpoints", json={})
    import requests
    requests.get(server.base_url + "/login", timeout=10)
    requests.get(server.base_url + "/imports/runs/run_0000000000000000000000", timeout=10, allow_redirects=False)
    requests.post(server.base_url + "/logout", timeout=10, allow_redirects=False)
    requests.get(server.base_url + "/no/such/page", timeout=10)
    r = server.get("/metrics", token=None)
    promtool_check(r.text)
    samples = parse(r.text)
    reqs = {(dict(lab)["method"], dict(lab)["route"]) for (name, lab) in samples
            if name == "loadline_http_requests_total"}
    assert ("GET", "/api/v1/whoami") in reqs and ("POST", "/api/v1/webhook-endpoints") in reqs, reqs
    assert ("GET", "/login") in reqs and ("GET", "/imports/runs/{id}") in reqs and ("POST", "/logout") in reqs, reqs
    assert ("GET", "unmatched") in reqs, reqs
    assert not any(route == "web" for _, route in reqs), reqs
    assert value(samples, "loadline_http_request_duration_seconds_count", method="GET", route="/login") == 1


def test_webhook_series(start_server):
    """PRODUCT §17: loadline_webhook_deliveries_total{result},
    loadline_webhook_delivery_duration_seconds (histogram) and
    loadline_webhook_pending move as a delivery fails, waits and succeeds;
    promtool clean."""
    from .test_webhooks import SWITCHES, Receiver, create_endpoint
    rcv = Receiver(script=[500])
    try:
        srv = start_server(env=dict(SWITCHES, LOADLINE_WEBHOOK_RETRY_MIN="3s"))
        text = srv.get("/metrics", token=None).text
        promtool_check(text)
        before = parse(text)
        assert value(before, "loadline_webhook_pending") == 0
        assert ("loadline_webhook_delivery_duration_seconds_count", frozenset()) in before
        ep = create_endpoint(srv, rcv.url).json()
        assert srv.post("/api/v1/webhook-endpoints/%s/test" % ep["id"]).status_code == 202
        assert rcv.next()["status"] == 500
        deadline = time.monotonic() + 10
        while value(scrape(srv), "loadline_webhook_deliveries_total", result="retrying") < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert value(scrape(srv), "loadline_webhook_pending") == 1, "the retry waits"
        assert rcv.next()["status"] == 200
        deadline = time.monotonic() + 10
        while value(scrape(srv), "loadline_webhook_deliveries_total", result="delivered") < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        text = srv.get("/metrics", token=None).text
        promtool_check(text)
        after = parse(text)
        assert value(after, "loadline_webhook_pending") == 0
        assert value(after, "loadline_webhook_deliveries_total", result="failed") == 0
        assert value(after, "loadline_webhook_delivery_duration_seconds_count") == 2
        assert value(after, "loadline_webhook_delivery_duration_seconds_bucket", le="+Inf") == 2
    finally:
        rcv.close()
