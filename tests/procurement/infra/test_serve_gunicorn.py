"""The production server (DESIGN §11, §15): gunicorn with 2 workers of 2 threads answers 300
sequential chat posts without a 5xx, and the database never sees more connections from it than
workers x threads, during the run and after it (read from pg_stat_activity)."""
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from agentstate.models import Session, Turn
from procurement.people.tokens import token_issue

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[3]
WORKERS, THREADS, POSTS = 2, 2, 300
APP_NAME = "procurement-gunicorn-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
            f"?application_name={APP_NAME}")


def web_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP_NAME])
        return cursor.fetchone()[0]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_SETTINGS", "PYTEST"))}
    env |= {"DATABASE_URL": database_url(), "SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "false",
            "BIND": f"127.0.0.1:{port}", "WEB_WORKERS": str(WORKERS), "WEB_THREADS": str(THREADS),
            "THROTTLE_CHAT": "100000/min", "VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "procurement.settings"}
    log = open(tmp_path / "gunicorn.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=10)
                break
            except urllib.error.HTTPError:  # it answers (503 names a service that is down): it is up
                break
            except OSError:  # not listening yet, or still booting its workers
                time.sleep(0.5)
        else:
            pytest.fail("gunicorn did not come up: " + (tmp_path / "gunicorn.log").read_text()[-2000:])
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def post(url: str, token: str, text: str) -> int:
    request = urllib.request.Request(url, data=f'{{"text": "{text}"}}'.encode(), method="POST",
                                     headers={"Authorization": f"Token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as answered:
        return answered.code


def test_300_chat_posts_under_gunicorn_stay_within_the_connection_bound(demo, server):
    alice = demo["alice"]
    token = token_issue(user=alice)[1]
    sessions = [Session.objects.create(owner=alice) for _ in range(10)]
    statuses, seen = [], []
    for n in range(POSTS):
        session = sessions[n % len(sessions)]
        statuses.append(post(f"{server}/api/v1/sessions/{session.pk}/messages/", token, f"what is the status {n}"))
        if n % 10 == 0:
            seen.append(web_connections())
    time.sleep(1)
    after = web_connections()
    assert [s for s in statuses if s >= 500] == []
    assert statuses.count(201) == POSTS
    assert Turn.objects.filter(session__in=sessions).count() == 2 * POSTS
    assert 0 < max(seen) <= WORKERS * THREADS, seen
    assert after <= WORKERS * THREADS
