"""Tracing and structured logs (DESIGN §11, §13).

`setup()` instruments Django, Celery and requests with OpenTelemetry, so every span belongs to
the W3C trace of its work (agentstate.trace attaches a task's trace as the current context).
Nothing is exported unless OTEL_EXPORTER_OTLP_ENDPOINT is set (the standard variable; the OTLP
exporter then reads its other OTEL_* settings itself). `TraceMiddleware` runs a request in the
trace its `traceparent` names, or a new one, when OpenTelemetry does not. `JsonLines` writes one
JSON object per log record with the trace id of the work it belongs to.
"""
import json
import logging
import os
from datetime import UTC, datetime

from agentstate import trace

_SET_UP = False


def setup():
    """Instrument once per process (web at start, each worker process as it starts)."""
    global _SET_UP
    if _SET_UP or os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return
    _SET_UP = True
    try:
        from opentelemetry import trace as otel
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.requests import RequestsInstrumentor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:  # pragma: no cover - the runtime lock installs them
        return
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME",
                                                                                       "procurement")}))
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    otel.set_tracer_provider(provider)
    DjangoInstrumentor().instrument()
    CeleryInstrumentor().instrument()
    RequestsInstrumentor().instrument()


class TraceMiddleware:
    """The request's trace: the one OpenTelemetry opened for it, else its `traceparent`'s, else new."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with trace.using(trace.current() or trace.trace_id_of(request.headers.get("traceparent"))
                         or trace.new_trace_id()):
            return self.get_response(request)


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the trace id, and the exception."""

    def format(self, record: logging.LogRecord) -> str:
        line = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
                "level": record.levelname, "logger": record.name, "message": record.getMessage(),
                "trace_id": trace.current()}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
