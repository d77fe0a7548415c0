"""Fault injection for crash tests: `AGENT_CRASH_AT=<point>` makes a worker SIGKILL itself there.

Points, in the order a step passes them:
  holding_lease     the lease is claimed, the step has not started
  receipt_planned   the receipt is committed as `planned`, nothing sent
  receipt_sent      the receipt is `sent`, the ERP was not called yet
  erp_answered      the ERP answered; the answer is not recorded
  before_enqueue    the step's transition committed; the next step is not enqueued
`AGENT_CRASH_ONCE=<file>`: crash only if the file does not exist yet (it is created first),
so the restarted worker runs through. Unset in production: every call is a no-op.
"""
import os
import signal
from pathlib import Path

POINTS = ("holding_lease", "receipt_planned", "receipt_sent", "erp_answered", "before_enqueue")


def crash_point(name: str):
    if os.environ.get("AGENT_CRASH_AT") != name:
        return
    marker = os.environ.get("AGENT_CRASH_ONCE")
    if marker:
        path = Path(marker)
        if path.exists():
            return
        path.write_text(name)
    os.kill(os.getpid(), signal.SIGKILL)


class CrashingClient:
    """Wraps an ExternalClient with the two crash points around the call."""

    def __init__(self, client):
        self.client = client

    def send(self, operation, key, request):
        crash_point("receipt_sent")
        outcome = self.client.send(operation, key, request)
        crash_point("erp_answered")
        return outcome

    def lookup(self, operation, key, request):
        return self.client.lookup(operation, key, request)
