"""The compose web service, run for real without Docker (DESIGN §11; issue 11 "done when").

This machine has no Docker engine and no registry for base images, so the web service's own
command and environment are taken from docker-compose.yml verbatim, interpolated as compose
would (DEMO unset, SECRET_KEY set, every other variable at its default), and the command runs
here under sh against the local PostgreSQL and Redis. Only what names another container is
pointed at its local stand-in: the `postgres` host (and a throwaway database instead of
`procurement`), the `redis` host (this run's Redis database), the `erp` host (a simulator this
test starts), `mailpit`, and BIND (the container's port 8000 is not ours to take here).

It must migrate, create no demo user, serve /healthz with gunicorn, and answer the sign-in page
behind a TLS proxy; `manage.py check --deploy` in the same environment reports no issue."""
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest
import yaml
from django.conf import settings

pytestmark = [pytest.mark.postgres, pytest.mark.redis]
ROOT = Path(__file__).resolve().parent.parent
THROWAWAY_DB = "compose_web_run"
VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?:(:?[-?+])([^}]*))?\}|\$(\w+)")


def interpolate(text: str, env: dict) -> str:
    """Compose's variable interpolation: ${X}, ${X:-default}, ${X-default}, ${X:?error}, $X, $$."""
    def one(match):
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group(1) or match.group(4), match.group(2), match.group(3)
        value = env.get(name)
        empty = value is None or (value == "" and op and op.startswith(":"))
        if op in (":-", "-"):
            return arg if empty else value
        if op in (":?", "?"):
            if empty:
                raise AssertionError(f"compose would refuse to start: {arg}")
            return value
        if op in (":+", "+"):
            return "" if empty else arg
        return value or ""
    return VARIABLE.sub(one, text)


def web_service() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]


def local(url: str, *, host: str, port: int | None = None, path: str | None = None) -> str:
    """The same URL (scheme, user, password) with the container's host swapped for a local one."""
    parts = urlparse(url)
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    netloc = f"{auth}{host}:{port or parts.port}"
    return urlunparse(parts._replace(netloc=netloc, path=parts.path if path is None else path))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def throwaway_database():
    db = settings.DATABASES["default"]
    server = f"host={db['HOST'] or '127.0.0.1'} port={db['PORT'] or 5432} user={db['USER']} dbname=postgres"
    if db.get("PASSWORD"):
        server += f" password={db['PASSWORD']}"
    name = f"{THROWAWAY_DB}_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def compose_env(throwaway_database, erp_server):
    """The web service's environment as compose would give it, its neighbours pointed here."""
    shell = {"SECRET_KEY": secrets.token_urlsafe(50)}  # DEMO, DEBUG, HTTPS...: unset, so compose's defaults
    env = {name: interpolate(str(value), shell) for name, value in web_service()["environment"].items()}
    assert "DEMO" not in shell and env["DEMO"] == "0" and env["DEBUG"] == "false"
    broker = urlparse(os.environ["CELERY_BROKER_URL"])
    db = settings.DATABASES["default"]
    env["DATABASE_URL"] = local(env["DATABASE_URL"], host=db["HOST"] or "127.0.0.1", port=int(db["PORT"] or 5432),
                                path=f"/{throwaway_database}")
    env["CELERY_BROKER_URL"] = local(env["CELERY_BROKER_URL"], host=broker.hostname, port=broker.port or 6379,
                                     path=broker.path)
    env["CACHE_URL"] = local(env["CACHE_URL"], host=broker.hostname, port=broker.port or 6379, path=broker.path)
    env["ERP_URL"] = erp_server.url
    env["EMAIL_URL"] = local(env["EMAIL_URL"], host="127.0.0.1")
    port = free_port()
    env["BIND"] = f"127.0.0.1:{port}"
    process = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"),
               "LANG": "C.UTF-8"}
    return process | env, f"http://127.0.0.1:{port}"


def command() -> list[str]:
    words = web_service()["command"]
    return [interpolate(str(word), {}) for word in words]


def get(url: str, **headers):
    request = urllib.request.Request(url, headers=headers)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, dict(answer.headers), answer.read().decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_the_compose_web_command_serves_with_gunicorn_and_check_deploy_reports_nothing(compose_env, tmp_path):
    env, base = compose_env
    log = open(tmp_path / "web.log", "wb")
    proc = subprocess.Popen(command(), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        for _ in range(240):
            if proc.poll() is not None:
                pytest.fail("the web command stopped: " + (tmp_path / "web.log").read_text()[-3000:])
            try:
                status, headers, body = get(f"{base}/healthz")
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("gunicorn did not come up: " + (tmp_path / "web.log").read_text()[-3000:])
        assert (status, body.replace(" ", "")) == (200, '{"database":"ok","broker":"ok"}'), body
        assert headers["Server"].startswith("gunicorn")

        # Behind the TLS proxy compose expects (HTTPS=true by default): the sign-in page.
        status, headers, body = get(f"{base}/accounts/login/", **{"X-Forwarded-Proto": "https"})
        assert status == 200 and 'name="password"' in body, body[:500]
        assert "Secure" in headers.get("Set-Cookie", "Secure") and "max-age" in headers["Strict-Transport-Security"]
        # Straight over plain HTTP, it sends the browser to HTTPS.
        status, headers, _ = get(f"{base}/accounts/login/")
        assert status == 301 and headers["Location"].startswith("https://")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    log_text = (tmp_path / "web.log").read_text()
    assert "seed_demo" not in log_text and "created user" not in log_text

    with psycopg.connect(local(env["DATABASE_URL"], host="127.0.0.1").replace("postgres://", "postgresql://")) as db:
        users = [row[0] for row in db.execute("SELECT username FROM auth_user")]
    assert users == [], f"DEMO unset: no demo user, no admin without DJANGO_SUPERUSER_*; found {users}"

    check = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stderr == "" and check.stdout.strip() == "System check identified no issues (0 silenced).", \
        check.stdout + check.stderr
