"""An in-process SMTP server (aiosmtpd) that records every message, for
tests that follow an email (the approval mail and its review link)."""
import email
import email.policy
import threading
import time

from aiosmtpd.controller import Controller

from .net import free_port


class Inbox:
    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append((sorted(envelope.rcpt_tos), msg))
        return "250 OK"

    def wait(self, n, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= n:
                    return list(self.messages)
            time.sleep(0.05)
        raise AssertionError("expected %d mails, got %d" % (n, len(self.messages)))


class Smtp:
    def __init__(self, port=None):
        self.port = port or free_port()
        self.inbox = Inbox()
        self.ctl = None

    def start(self):
        self.ctl = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.ctl.start()
        return self

    def stop(self):
        if self.ctl:
            self.ctl.stop()
            self.ctl = None

    @property
    def url(self):
        return "smtp://127.0.0.1:%d" % self.port
