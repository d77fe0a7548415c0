"""One trace per piece of work (DESIGN §13): a W3C trace-context trace id (32 lowercase hex) is
born with the request that starts a task and is carried by everything done for it.

The task keeps its trace id (Task.trace_id); every event of the task is written with it. While
work for a task runs (a step, a recovery of its receipts, a chat turn) the trace is the current
one (`using(trace_id)`), so whatever leaves the process takes it along: a `traceparent` header on
an HTTP call or a Celery message, a header on mail, a field on a memory use, a key in the logs.
When OpenTelemetry is installed the current trace is also the current OpenTelemetry context, so
its instrumented spans (Django, Celery, requests) belong to the same trace; an incoming request's
trace (its `traceparent`) is where a new task's trace comes from.
"""
import contextlib
import re
import secrets
from contextvars import ContextVar

_CURRENT: ContextVar[str] = ContextVar("agentstate_trace_id", default="")
_TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
INVALID = "0" * 32

try:  # OpenTelemetry is optional: without it the trace is carried by our own headers alone.
    from opentelemetry import context as otel_context
    from opentelemetry import trace as otel_trace
except ImportError:  # pragma: no cover - the runtime lock installs it
    otel_trace = otel_context = None


def new_trace_id() -> str:
    return secrets.token_hex(16)


def new_span_id() -> str:
    return secrets.token_hex(8)


def is_trace_id(value) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"[0-9a-f]{32}", value)) and value != INVALID


def current() -> str:
    """The trace of the work running now: ours if set, else OpenTelemetry's current span's, else ""."""
    ours = _CURRENT.get()
    if ours:
        return ours
    if otel_trace is not None:
        context = otel_trace.get_current_span().get_span_context()
        if context.is_valid:
            return format(context.trace_id, "032x")
    return ""


def current_or_new() -> str:
    return current() or new_trace_id()


@contextlib.contextmanager
def using(trace_id: str):
    """Run the block as part of `trace_id` (a blank or invalid id leaves the current trace as it is)."""
    if not is_trace_id(trace_id):
        yield current()
        return
    token = _CURRENT.set(trace_id)
    otel_token = _attach_otel(trace_id)
    try:
        yield trace_id
    finally:
        if otel_token is not None:
            otel_context.detach(otel_token)
        _CURRENT.reset(token)


def traceparent(trace_id: str | None = None) -> str:
    """A W3C `traceparent` header value for an outgoing call in `trace_id` (default: the current
    trace); "" when there is no trace."""
    trace_id = trace_id or current()
    if not is_trace_id(trace_id):
        return ""
    return f"00-{trace_id}-{new_span_id()}-01"


def trace_id_of(header) -> str:
    """The trace id of a `traceparent` header value, or "" when it is not a valid one."""
    match = _TRACEPARENT.match((header or "").strip().lower())
    if not match or match.group(1) == INVALID or match.group(2) == "0" * 16:
        return ""
    return match.group(1)


def _attach_otel(trace_id: str):
    if otel_trace is None:
        return None
    span = otel_trace.get_current_span().get_span_context()
    if span.is_valid and format(span.trace_id, "032x") == trace_id:
        return None  # already in this trace
    parent = otel_trace.SpanContext(trace_id=int(trace_id, 16), span_id=int(new_span_id(), 16), is_remote=True,
                                    trace_flags=otel_trace.TraceFlags(otel_trace.TraceFlags.SAMPLED))
    return otel_context.attach(otel_trace.set_span_in_context(otel_trace.NonRecordingSpan(parent)))
