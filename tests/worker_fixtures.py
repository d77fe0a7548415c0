"""A REAL Celery worker process for tests that need one (crash points, end to end on a broker).

`celery_worker_proc` (function scope) gives a `WorkerHarness`:

    worker = celery_worker_proc
    proc = worker.start({"AGENT_CRASH_AT": "receipt_sent", "AGENT_CRASH_ONCE": str(marker)})
    ...
    worker.wait_dead()                 # the worker SIGKILLed itself at its crash point
    worker.start()                     # a fresh worker, no crash
    worker.wait_for(lambda: ..., what="task awaiting approval")

Each worker is `python -m celery -A procurement worker --pool=solo` consuming one queue
unique to the test, on a dedicated Redis db (`TEST_WORKER_REDIS_DB`, default 5), against
pytest-django's TEST database (so the test must use `django_db(transaction=True)`: the
worker is another process and only sees committed rows) and the ERP simulator of
`erp_server`. The test process's Celery app is pointed at the same broker and queue for the
test, and restored afterwards. The worker publishes its own follow-up messages (`advance`
chaining, outbox) to the same queue: `task_default_queue` is passed on its command line.

Every worker started is killed at teardown, before pytest-django flushes the database; the
logs live under tmp_path and their tails are printed when the test failed.

Broker hygiene: the Redis db is shared by every run of these tests, possibly two sessions
at once, so it is not FLUSHDB'd (that would drop another session's messages). Instead the
keys of this test's queue, the `unacked` entries a SIGKILLed worker left for it and its
workers' remote-control bindings are deleted at setup and teardown; queue and worker names
are unique, so nothing else is touched.
"""
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BROKER_DB = 5
LEASE_SECONDS = 3
START_TIMEOUT_SECONDS = 30
READY_MARK = " ready."
KOMBU_SEP = "\x06\x16"
CRASH_ENV = ("AGENT_CRASH_AT", "AGENT_CRASH_ONCE")


def _broker_url() -> str:
    """The session's Redis url, moved to the dedicated db number."""
    base = os.environ.get("CELERY_BROKER_URL", "")
    if not base.startswith("redis://"):
        pytest.skip("needs Redis: set CELERY_BROKER_URL")
    db = os.environ.get("TEST_WORKER_REDIS_DB", str(DEFAULT_BROKER_DB))
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", "", ""))


def _database_url() -> str:
    """postgres://... of the database this test runs on (pytest-django's test database)."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        pytest.skip("a worker process needs PostgreSQL: set DATABASE_URL")
    user = quote(db.get("USER") or "postgres", safe="")
    password = db.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}" if password else user
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{quote(db['NAME'], safe='')}"


def _purge_queue(broker_url: str, queue: str, node_prefix: str = "") -> None:
    """Delete everything kombu keeps in Redis for `queue` (lists, bindings, unacked), and the
    remote-control (pidbox) bindings of the workers named `node_prefix...`."""
    import redis

    client = redis.Redis.from_url(broker_url)
    try:
        for key in client.scan_iter(match=f"{queue}*"):
            client.delete(key)
        for key in client.scan_iter(match="_kombu.binding*"):
            if client.type(key) != b"set":
                continue
            for member in client.smembers(key):
                text = member.decode("utf-8", "replace")
                if text.endswith(KOMBU_SEP + queue) or (node_prefix and KOMBU_SEP + node_prefix in text):
                    client.srem(key, member)
        for tag, raw in client.hscan_iter("unacked"):
            try:
                _payload, _exchange, routing_key = json.loads(raw)
            except (ValueError, TypeError):
                continue
            if routing_key == queue:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
    finally:
        client.close()


class WorkerHarness:
    def __init__(self, *, tmp_path: Path, queue: str, broker_url: str, database_url: str, erp_url: str):
        self.tmp_path = tmp_path
        self.queue = queue
        self.broker_url = broker_url
        self.database_url = database_url
        self.erp_url = erp_url
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.node_prefix = f"w{uuid.uuid4().hex[:10]}-"  # worker names: <prefix><n>@<host>

    @property
    def proc(self) -> subprocess.Popen | None:
        """The most recently started worker."""
        return self.procs[-1] if self.procs else None

    def env(self, extra_env: dict | None = None) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in CRASH_ENV}
        env.update({
            "DJANGO_SETTINGS_MODULE": "procurement.settings",
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": self.broker_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "ERP_URL": self.erp_url,
            "ERP_TIMEOUT_SECONDS": "2",
            "AGENT_LEASE_SECONDS": str(LEASE_SECONDS),
            "VAR_DIR": str(self.tmp_path / "worker-var"),
            "EMAIL_FILE_PATH": str(self.tmp_path / "worker-mail"),
            "PYTHONUNBUFFERED": "1",
        })
        env.update({k: str(v) for k, v in (extra_env or {}).items()})
        return env

    def start(self, extra_env: dict | None = None, *, wait_ready: bool = True, beat: bool = False) -> subprocess.Popen:
        """Start a worker (after the previous one is gone) and wait until it consumes. With `beat`,
        the worker runs the beat schedule too (`-B`, its schedule file under tmp_path)."""
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("a worker is already running; kill() it first")
        n = len(self.procs) + 1
        log_path = self.tmp_path / f"worker-{n}.log"
        name = f"{self.node_prefix}{n}@%h"
        argv = [sys.executable, "-m", "celery", "-A", "procurement", "worker", "--pool=solo", "--concurrency=1",
                "-Q", self.queue, "--without-gossip", "--without-mingle", "--without-heartbeat",
                "-n", name, "-l", "info", *(["-B", "-s", str(self.tmp_path / "beat-schedule")] if beat else []),
                # Config from the command line: what the worker itself enqueues goes to our queue too.
                "--", f"task_default_queue={self.queue}"]
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(argv, cwd=REPO_ROOT, env=self.env(extra_env), stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(proc)
        self.logs.append(log_path)
        if wait_ready:
            self._wait_ready(proc, log_path)
        return proc

    def _wait_ready(self, proc: subprocess.Popen, log_path: Path):
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while READY_MARK not in log_path.read_text(errors="replace"):
            if proc.poll() is not None:
                raise AssertionError(f"worker exited ({proc.returncode}) before it was ready\n{self.tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"worker not ready after {START_TIMEOUT_SECONDS}s\n{self.tail()}")
            time.sleep(0.05)

    def kill(self, proc: subprocess.Popen | None = None) -> int | None:
        """SIGKILL a worker (default: the latest) and reap it. Returns its exit status."""
        proc = proc or self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session: nothing it forked survives
            except ProcessLookupError:
                pass
            proc.wait(timeout=10)
        return proc.returncode

    def kill_all(self):
        for proc in self.procs:
            self.kill(proc)

    def wait_dead(self, timeout: float = 30, proc: subprocess.Popen | None = None) -> int:
        """Wait until the worker has exited by itself; returns its exit status (-9: SIGKILL)."""
        proc = proc or self.proc
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"worker still alive after {timeout}s\n{self.tail()}") from None

    def wait_for(self, predicate, timeout: float = 30, *, interval: float = 0.1, what: str = "", between=None):
        """Poll `predicate` (which reads the DB or the ERP) until it is truthy; returns its value.

        `between`, if given, runs before each poll (e.g. a recovery pass)."""
        deadline = time.monotonic() + timeout
        while True:
            if between is not None:
                between()
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}\n{self.tail()}")
            time.sleep(interval)

    def tail(self, lines: int = 60) -> str:
        out = []
        for n, path in enumerate(self.logs, start=1):
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                status = self.procs[n - 1].poll()
                out.append(f"--- worker {n} ({path}, exit {status}) ---")
                out.extend(text)
        return "\n".join(out)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    item.stash.setdefault(_reports_key, {})[report.when] = report
    return report


_reports_key = pytest.StashKey[dict]()


@pytest.fixture
def celery_worker_proc(request, transactional_db, erp_server, settings, tmp_path):
    """Start real Celery workers for this test; all are SIGKILLed and reaped at teardown.

    Depends on `transactional_db`, so its teardown (kill the workers) runs before the
    database flush, and on `erp_server`, whose url the workers call."""
    from procurement.celery import app

    queue = f"test-agent-{uuid.uuid4().hex}"
    broker_url = _broker_url()
    harness = WorkerHarness(tmp_path=tmp_path, queue=queue, broker_url=broker_url,
                            database_url=_database_url(), erp_url=erp_server.url)
    _purge_queue(broker_url, queue)

    # broker_write_url too: for publishing Celery prefers it, and its broker_url gives the
    # CELERY_BROKER_URL environment variable precedence over anything set in the config.
    saved = {key: app.conf.get(key) for key in ("broker_url", "broker_write_url", "task_default_queue",
                                                 "task_always_eager")}
    # The test process calls the same ERP (recovery looks keys up) and publishes to the same queue.
    settings.ERP_URL = erp_server.url
    settings.ERP_TIMEOUT_SECONDS = 2
    _point_app(app, broker_url=broker_url, broker_write_url=broker_url, task_default_queue=queue,
               task_always_eager=False)
    try:
        yield harness
    finally:
        harness.kill_all()
        _point_app(app, **saved)
        try:
            _purge_queue(broker_url, queue, harness.node_prefix)
        except Exception as exc:  # noqa: BLE001 - hygiene must not hide the test's own result
            print(f"could not purge broker queue {queue}: {exc}")
        reports = request.node.stash.get(_reports_key, {})
        if any(r.failed for r in reports.values()):
            print(harness.tail())


def _point_app(app, **conf):
    """Change the app's broker/queue config and drop its cached connections and producers.

    The app's pools live in kombu's process-wide pool groups (keyed by broker url), so closing
    one in place would leave a closed pool behind for the next user: reset the groups instead."""
    from kombu import pools

    for key, value in conf.items():
        app.conf[key] = value
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
