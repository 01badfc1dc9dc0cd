#!/usr/bin/python3
"""Which requests with many header fields reach our code, against a real
`loadline serve` (LOADLINE_BIN, else build/loadline) on a fresh SQLite
database: who answers GET /api/v1/whoami with N header fields in B bytes
of headers (counted as our limit counts them: each name and value plus 4)
and a URL of U bytes (path plus query, counted the same way).

  ours 200      our code answered normally
  ours 431/414  our problem JSON (application/problem+json, with the code)
  MHD 431 ...   libmicrohttpd's own answer (bare HTML, no request id)

Used for docs/benchmarks.md, poll path round 4 (the connection memory,
HTTP_CONNECTION_MEMORY in src/http/http.h).  Prints a Markdown table."""
import http.client
import os
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from harness.server import Server  # noqa: E402

PATH = "/api/v1/whoami"
MAX_URL = 8192


def request(port, token, nfields, total, url_bytes):
    """nfields in all (Host and Authorization included), total header bytes."""
    # the query "q=<v>" counts 1 + len(v) + 4
    qlen = max(0, url_bytes - len(PATH) - 5)
    lines = ["GET %s?q=%s HTTP/1.1" % (PATH, "a" * qlen)]
    fixed = [("Host", "127.0.0.1:%d" % port), ("Authorization", "Bearer " + token)]
    used = sum(len(k) + len(v) + 4 for k, v in fixed)
    npad = nfields - len(fixed)
    left = total - used
    for i in range(npad):
        per = left // (npad - i)
        name = "X-%04d" % i
        vlen = per - len(name) - 4
        assert vlen >= 1, "too few bytes for that many fields"
        fixed.append((name, "v" * vlen))
        left -= per
    lines += ["%s: %s" % kv for kv in fixed]
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode()
    got = sum(len(k) + len(v) + 4 for k, v in fixed)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(raw)
        r = http.client.HTTPResponse(s)
        r.begin()
        body = r.read()
        ctype = r.getheader("Content-Type") or ""
    except (ConnectionError, http.client.HTTPException, socket.timeout) as e:
        return "no answer (%s)" % type(e).__name__, got
    finally:
        s.close()
    if ctype.startswith("application/problem+json"):
        import json
        return "ours %d %s" % (r.status, json.loads(body)["code"]), got
    if ctype.startswith("application/json") and r.status == 200:
        return "ours 200", got
    kind = "bare HTML" if body.startswith(b"<html") else "other"
    return "MHD %d (%s, %s, %d bytes)" % (r.status, kind, ctype or "no Content-Type", len(body)), got


def main():
    d = tempfile.mkdtemp(prefix="ll-probe-")
    srv = Server("sqlite:" + os.path.join(d, "loadline.db"), "probe-headers")
    try:
        srv.start()
        srv.bootstrap("Probe Org")
        cases = [("(a) 100 fields, 32,000 B, 8 KiB URL", 100, 32000, MAX_URL),
                 ("(b) 101 fields, 32,000 B, 8 KiB URL", 101, 32000, MAX_URL),
                 ("(c) 100 fields, 32 KiB + 100 B, 8 KiB URL", 100, 32768 + 100, MAX_URL),
                 ("(d) URL 8 KiB + 1, 100 fields, 32,000 B", 100, 32000, MAX_URL + 1),
                 ("(d) URL 8 KiB + 1, few headers", 2, 200, MAX_URL + 1)]
        for n in (150, 200, 250, 300, 350, 400, 500, 600, 800, 1000, 1200, 1500, 2000):
            cases.append(("%d fields, 32,000 B, 8 KiB URL" % n, n, 32000, MAX_URL))
        for b in (40000, 48000, 56000, 64000, 80000, 96000, 112000, 128000):
            cases.append(("100 fields, %d B, 8 KiB URL" % b, 100, b, MAX_URL))
            cases.append(("3 fields, %d B, short URL" % b, 3, b, 40))
        print("| Request | header bytes | answered by |")
        print("|---|---|---|")
        for label, n, total, url in cases:
            who, got = request(srv.port, srv.token, n, total, url)
            print("| %s | %d | %s |" % (label, got, who))
        assert srv.get(PATH).status_code == 200
    finally:
        srv.stop()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
