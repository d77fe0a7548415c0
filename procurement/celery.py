"""The Celery app: `celery -A procurement worker` and `celery -A procurement beat`.

Every message carries the trace it was sent in as a W3C `traceparent` header, and a worker runs
the task in that trace (agentstate.trace), so a request's steps stay one trace across processes."""
import os

from celery import Celery
from celery.signals import before_task_publish, task_postrun, task_prerun, worker_process_init
from django.db import close_old_connections

from agentstate import trace
from procurement.infra import telemetry

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")

app = Celery("procurement")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


_TRACES: dict = {}  # task id -> the context manager of the trace it runs in


@before_task_publish.connect
def _send_trace(headers=None, **kwargs):
    parent = trace.traceparent()
    if parent and headers is not None:
        headers.setdefault("traceparent", parent)


@task_prerun.connect
@task_postrun.connect
def _recycle_connections(task=None, **kwargs):
    """What Django does around a web request, around a task: a connection past CONN_MAX_AGE, or
    one that saw an error and no longer answers, is closed (the next query opens a new one); the
    rest is kept, health-checked at its first query (conn_health_checks). settings.CELERY_DB_REUSE_MAX
    stops Celery's own fixup from closing every connection at every task."""
    if task is not None and not task.request.is_eager:
        close_old_connections()


@task_prerun.connect
def _enter_trace(task_id=None, task=None, **kwargs):
    trace_id = trace.trace_id_of(getattr(task.request, "traceparent", None)) if task is not None else ""
    if trace_id and not task.request.is_eager:
        _TRACES[task_id] = trace.using(trace_id)
        _TRACES[task_id].__enter__()


@task_postrun.connect
def _leave_trace(task_id=None, **kwargs):
    entered = _TRACES.pop(task_id, None)
    if entered is not None:
        entered.__exit__(None, None, None)


@worker_process_init.connect
def _instrument_worker(**kwargs):
    telemetry.setup()
