"""The production server under load (DESIGN §11): requests per second and latency of the
manager's inbox (GET /approvals/, a page with its session) and of a chat post over the API, under
gunicorn with 2 workers, at 1, 8 and 32 concurrent clients on loopback, with the peak number of
PostgreSQL connections the server held (pg_stat_activity, sampled every 50 ms).

    .venv/bin/python bench/serve.py [--requests 200] [--seconds 20] [--threads 4]

It drops and recreates its own database `procurement_bench_serve` (server and credentials from
DATABASE_URL when that is PostgreSQL, else postgres@127.0.0.1:5432), migrates, seeds the demo
data and starts gunicorn on a free loopback port. Each scenario stops after --requests requests
or --seconds seconds, whichever comes first. Chat throttling is lifted for the run."""
import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.pgadmin import admin_sql, database_url, pct, server_params  # noqa: E402

DB = "procurement_bench_serve"
APP_NAME = "procurement-bench-serve"
WORKERS = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(url: str):
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)


def credentials() -> dict:
    """bob's session cookie for the inbox; alice's token and a session of hers for the chat."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    from agentstate.models import Session
    from procurement.people.tokens import token_issue

    users = get_user_model().objects
    bob, alice = users.get(username="bob"), users.get(username="alice")
    store = SessionStore()
    store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(bob.pk), "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = bob.get_session_auth_hash()
    store.create()
    return {"cookie": f"{settings.SESSION_COOKIE_NAME}={store.session_key}", "token": token_issue(user=alice)[1],
            "sessions": [str(Session.objects.create(owner=alice).pk) for _ in range(32)]}


def start_server(url: str, port: int, threads: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": f"{url}?application_name={APP_NAME}", "SECRET_KEY": secrets.token_urlsafe(50),
           "DEBUG": "false", "BIND": f"127.0.0.1:{port}", "WEB_WORKERS": str(WORKERS), "WEB_THREADS": str(threads),
           "THROTTLE_CHAT": "1000000/min", "THROTTLE_WRITE": "1000000/min"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn"], cwd=ROOT, env=env, stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(120):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/schema/", timeout=5)
            return proc
        except OSError:
            time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGTERM)
    sys.exit(f"gunicorn did not come up; see {log}")


class Peak(threading.Thread):
    """Samples the server's connections in pg_stat_activity until stopped."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.peak, self.stopped = url, 0, threading.Event()

    def run(self):
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stopped.is_set():
                count = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                                     [APP_NAME]).fetchone()[0]
                self.peak = max(self.peak, count)
                time.sleep(0.05)


def one(request: urllib.request.Request) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as answered:
        status = answered.code
    except OSError:
        status = 0
    return time.perf_counter() - started, status


def scenario(make_request, clients: int, total: int, seconds: float, url: str) -> dict:
    peak = Peak(url)
    peak.start()
    deadline = time.monotonic() + seconds
    latencies, failures, lock, counter = [], 0, threading.Lock(), iter(range(total))

    def client(_):
        nonlocal failures
        while time.monotonic() < deadline:
            with lock:
                n = next(counter, None)
            if n is None:
                return
            took, status = one(make_request(n))
            with lock:
                latencies.append(took)
                failures += status == 0 or status >= 400

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    elapsed = time.perf_counter() - started
    peak.stopped.set()
    peak.join()
    return {"requests": len(latencies), "failed": failures, "rps": len(latencies) / elapsed,
            "p50": pct(latencies, 50) * 1000, "p95": pct(latencies, 95) * 1000, "peak": peak.peak}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="per scenario (default 200)")
    parser.add_argument("--seconds", type=float, default=20, help="per scenario at most (default 20)")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker (default 4)")
    args = parser.parse_args()
    params = server_params("serve.py")
    admin_sql(params, f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)', f'CREATE DATABASE "{DB}"')
    url = database_url(params, DB)
    prepare(url)
    auth = credentials()
    port, log = free_port(), ROOT / "var" / "bench-serve-gunicorn.log"
    log.parent.mkdir(exist_ok=True)
    proc = start_server(url, port, args.threads, log)
    base = f"http://127.0.0.1:{port}"

    def inbox(n):
        return urllib.request.Request(f"{base}/approvals/", headers={"Cookie": auth["cookie"]})

    def chat(n):
        session = auth["sessions"][n % len(auth["sessions"])]
        return urllib.request.Request(f"{base}/api/v1/sessions/{session}/messages/", method="POST",
                                      data=b'{"text": "what is the status of my requests?"}',
                                      headers={"Authorization": f"Token {auth['token']}",
                                               "Content-Type": "application/json"})

    print(f"gunicorn: {WORKERS} workers x {args.threads} threads (bound: {WORKERS * args.threads} connections); "
          f"{args.requests} requests or {args.seconds:.0f} s per row")
    print(f"{'endpoint':<10} {'clients':>7} {'requests':>8} {'failed':>6} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'peak conns':>10}")
    try:
        for name, make in (("inbox", inbox), ("chat post", chat)):
            for clients in (1, 8, 32):
                row = scenario(make, clients, args.requests, args.seconds, url)
                print(f"{name:<10} {clients:>7} {row['requests']:>8} {row['failed']:>6} {row['rps']:>7.1f} "
                      f"{row['p50']:>7.0f} {row['p95']:>7.0f} {row['peak']:>10}", flush=True)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


if __name__ == "__main__":
    main()
