"""The product's Celery app as bench/workflow.py's workers run it, with one probe added: how long
each message waited in the queue, and the CPU each task took.

    celery -A bench.queue_probe worker ...   (BENCH_QUEUE_LOG=<path prefix>)

Every message published by a process that imported this module (the bench itself, and the workers
chaining their next step) carries the wall-clock time it was sent in a header; when a worker starts
the task it appends one line to `<prefix>-<pid>.tsv`: the task's name, its first argument, the
milliseconds from when it could run (sent, or its countdown's end) to when it started, when it
started, and (once it ends) the CPU milliseconds the process spent on it. Nothing else of the
product changes: the app, its settings and its tasks are procurement.celery's."""
import os
import time
from datetime import datetime

from celery.signals import before_task_publish, task_postrun, task_prerun

from procurement.celery import app  # noqa: F401 - the app `celery -A bench.queue_probe` runs

SENT = "bench_sent_at"
_LOG = None
_RUNNING: dict = {}  # task id -> (its line so far, process CPU seconds when it started)


@before_task_publish.connect
def _stamp(headers=None, **kwargs):
    if headers is not None:
        headers.setdefault(SENT, time.time())


@task_prerun.connect
def _waited(task=None, args=None, **kwargs):
    global _LOG
    started = time.time()
    sent = getattr(task.request, SENT, None) if task is not None else None
    prefix = os.environ.get("BENCH_QUEUE_LOG")
    if sent is None or not prefix or task.request.is_eager:
        return
    ready = float(sent)
    eta = task.request.eta
    if eta:
        ready = max(ready, (eta if isinstance(eta, datetime) else datetime.fromisoformat(eta)).timestamp())
    if _LOG is None:
        _LOG = open(f"{prefix}-{os.getpid()}.tsv", "a", buffering=1)
    first = args[0] if args else ""
    _RUNNING[task.request.id] = (f"{task.name}\t{first}\t{(started - ready) * 1000:.2f}\t{started:.4f}",
                                 time.process_time())


@task_postrun.connect
def _spent(task_id=None, **kwargs):
    line, cpu = _RUNNING.pop(task_id, (None, 0.0))
    if line is not None:
        _LOG.write(f"{line}\t{(time.process_time() - cpu) * 1000:.2f}\n")
