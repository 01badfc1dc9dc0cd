#!/usr/bin/python3
"""Runs a C unit test (argv[1:]) with real services around it, reusing the
pytest harness: a throwaway PostgreSQL cluster (its database URL in
LOADLINE_TEST_PG_URL) and an SMTP server (aiosmtpd, URL in
LOADLINE_TEST_SMTP_URL) that writes every message it receives to a file in
LOADLINE_TEST_MAILDIR.  A service that cannot start fails the test."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from aiosmtpd.controller import Controller  # noqa: E402

from harness.net import free_port  # noqa: E402
from harness.pg import PgCluster  # noqa: E402


class Maildir:
    def __init__(self, path):
        self.path = path
        self.n = 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        name = os.path.join(self.path, "%03d.eml" % self.n)
        with open(name + ".tmp", "wb") as f:
            f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.content)
        os.rename(name + ".tmp", name)
        return "250 OK"


def main():
    pg = PgCluster()
    pg.start()
    maildir = tempfile.mkdtemp(prefix="ll-maildir-")
    port = free_port()
    smtp = Controller(Maildir(maildir), hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        env = dict(os.environ, LOADLINE_TEST_PG_URL=pg.url(pg._create_now()),
                   LOADLINE_TEST_SMTP_URL="smtp://127.0.0.1:%d" % port, LOADLINE_TEST_MAILDIR=maildir)
        return subprocess.run(sys.argv[1:], env=env).returncode
    finally:
        smtp.stop()
        pg.destroy()


if __name__ == "__main__":
    sys.exit(main())
