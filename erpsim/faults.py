"""Faults switched on over HTTP, so a test can make the ERP slow, failing or forgetful.

slow  - sleep `delay` seconds, then handle the request normally (the write still lands)
error - answer 503 and do nothing
drop  - do the work and commit it, then close the socket without answering
down  - like error, but meant to stay until cleared (an ERP that is out)

A fault with a `rate` (0 < rate <= 1) applies to that share of the matching requests, drawn at
random; the others pass to the next fault or the protocol (chaos runs use this).
"""
import random
import threading
from dataclasses import asdict, dataclass

from .errors import Invalid

MODES = ("slow", "error", "drop", "down")
METHODS = ("GET", "POST")
DEFAULT_SLOW_DELAY = 1.0


@dataclass
class Fault:
    mode: str
    path: str = "/"  # a path prefix; "/" matches every protocol path
    method: str | None = None  # None matches any method
    times: int | None = None  # None: until cleared
    delay: float = 0.0
    rate: float | None = None  # None: every matching request

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method:
            return False
        prefix = self.path.rstrip("/")
        return prefix == "" or path == prefix or path.startswith(prefix + "/")


def parse_fault(body: dict) -> Fault:
    mode = body.get("mode")
    if mode not in MODES:
        raise Invalid(f"mode must be one of {', '.join(MODES)}")
    path = body.get("path") or "/"
    if not isinstance(path, str) or not path.startswith("/"):
        raise Invalid("path must be a path prefix starting with /")
    method = body.get("method")
    if method is not None:
        method = str(method).upper()
        if method not in METHODS:
            raise Invalid(f"method must be one of {', '.join(METHODS)}")
    times = body.get("times")
    if times is not None and (isinstance(times, bool) or not isinstance(times, int) or times < 1):
        raise Invalid("times must be a positive integer")
    delay = body.get("delay", DEFAULT_SLOW_DELAY if mode == "slow" else 0.0)
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
        raise Invalid("delay must be a non-negative number of seconds")
    rate = body.get("rate")
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1):
        raise Invalid("rate must be a number above 0 and at most 1")
    return Fault(mode=mode, path=path, method=method, times=times, delay=float(delay),
                 rate=float(rate) if rate is not None else None)


class FaultBoard:
    """The faults in force, first match wins. Shared by all request threads."""

    def __init__(self):
        self._lock = threading.Lock()
        self._faults: list[Fault] = []

    def add(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def describe(self) -> list[dict]:
        with self._lock:
            return [asdict(fault) for fault in self._faults]

    def take(self, method: str, path: str) -> Fault | None:
        """The fault to apply to this request, using up one of its `times`."""
        with self._lock:
            for fault in self._faults:
                if not fault.matches(method, path):
                    continue
                if fault.rate is not None and random.random() >= fault.rate:
                    continue
                if fault.times is not None:
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                return fault
        return None
