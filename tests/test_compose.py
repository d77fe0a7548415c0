"""The production stack: docker-compose.yml and the Dockerfile agree with the settings (DESIGN §11).

There is no Docker engine in CI, so these read the files: every service the README promises is
there, waits for what it needs, and passes only variables procurement/settings.py reads.
"""
import ast
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
APP_SERVICES = ("web", "worker", "beat")
DESIGN_VARIABLES = {"DATABASE_URL", "CELERY_BROKER_URL", "ERP_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS",
                    "AGENT_LEASE_SECONDS", "APPROVAL_TTL_SECONDS"}
ENV_READERS = {"env_str", "env_int", "env_bool", "env_list"}


@pytest.fixture(scope="module")
def services():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


@pytest.fixture(scope="module")
def dockerfile():
    return (ROOT / "Dockerfile").read_text()


def settings_variables() -> set[str]:
    """Names settings.py reads through env_str/env_int/env_bool/env_list("NAME", ...)."""
    tree = ast.parse((ROOT / "procurement" / "settings.py").read_text())
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ENV_READERS
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)}


def command_words(service: dict) -> list[str]:
    command = service.get("command", [])
    return command.split() if isinstance(command, str) else [str(word) for word in command]


def environment(service: dict) -> dict:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the "NAME=value" form
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return env


def test_the_stack_has_every_service(services):
    assert {"postgres", "redis", "erp", "web", "worker", "beat"} <= set(services)


@pytest.mark.parametrize("name, probe", [("postgres", "pg_isready"), ("redis", "redis-cli ping"),
                                         ("erp", "8765"), ("web", "/healthz")])
def test_services_others_wait_for_have_healthchecks(services, name, probe):
    test = services[name].get("healthcheck", {}).get("test")
    assert test, f"{name} has no healthcheck"
    assert probe in (test if isinstance(test, str) else " ".join(test))


@pytest.mark.parametrize("name", ["worker", "beat"])
def test_worker_and_beat_run_the_celery_app(services, name):
    assert command_words(services[name])[:4] == ["celery", "-A", "procurement", name]


def test_erp_runs_the_bundled_simulator_where_erp_url_points(services):
    words = command_words(services["erp"])
    assert words[:3] == ["python", "-m", "erpsim"]
    assert words[words.index("--host") + 1] == "0.0.0.0"
    erp_url = urlparse(environment(services["web"])["ERP_URL"])
    assert (erp_url.hostname, str(erp_url.port)) == ("erp", words[words.index("--port") + 1])


def test_web_migrates_then_serves_with_gunicorn(services):
    command = " ".join(command_words(services["web"]))
    assert command.index("migrate") < command.index("first_admin") < command.index("exec gunicorn")
    assert "runserver" not in command


def test_demo_users_and_requests_are_seeded_only_when_demo_is_1_once_the_erp_is_up(services):
    """With DEMO=1 a try-out shows requests at every stage after the PO, not only the people: they are
    made through the ERP simulator, so web starts only once that answers its health check."""
    command = " ".join(command_words(services["web"]))
    assert re.search(r'if \[ "\$\$DEMO" = 1 \]; then python manage.py seed_demo --requests; fi', command)
    assert command.index("migrate") < command.index("seed_demo") < command.index("exec gunicorn")
    assert environment(services["web"])["DEMO"] == "${DEMO:-0}"
    assert services["web"]["depends_on"]["erp"] == {"condition": "service_healthy"}


def test_the_image_serves_with_gunicorn_and_runtime_packages_only(dockerfile):
    assert re.search(r'^CMD \["gunicorn"\]', dockerfile, re.M)
    assert "requirements-test.lock" not in dockerfile and "requirements-bench.lock" not in dockerfile
    assert "collectstatic" in dockerfile
    runtime = (ROOT / "requirements.lock").read_text().lower()
    # (PyYAML stays: drf-spectacular needs it at run time to serve the schema.)
    for test_only in ("pytest", "playwright", "hypothesis", "schemathesis"):
        assert not re.search(rf"^{test_only}==", runtime, re.M), f"{test_only} is in the runtime lock"


# Read by the web service's command, createsuperuser (first_admin) and gunicorn.conf.py, not settings.py.
WEB_ONLY_VARIABLES = {"DEMO", "DJANGO_SUPERUSER_USERNAME", "DJANGO_SUPERUSER_EMAIL", "DJANGO_SUPERUSER_PASSWORD",
                      "WEB_WORKERS", "WEB_THREADS", "FORWARDED_ALLOW_IPS"}


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_pass_only_variables_settings_reads(services, name):
    read = settings_variables()
    assert DESIGN_VARIABLES <= read, f"settings.py no longer reads {sorted(DESIGN_VARIABLES - read)}"
    passed = set(environment(services[name])) - (WEB_ONLY_VARIABLES if name == "web" else set())
    assert passed <= read, f"{name} sets variables nothing reads: {sorted(passed - read)}"
    assert DESIGN_VARIABLES <= passed, f"{name} is missing {sorted(DESIGN_VARIABLES - passed)}"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_reach_postgres_and_redis_by_service_name(services, name):
    env = environment(services[name])
    database, broker = urlparse(env["DATABASE_URL"]), urlparse(env["CELERY_BROKER_URL"])
    assert (database.scheme, database.hostname, database.port) == ("postgres", "postgres", 5432)
    assert database.password == environment(services["postgres"])["POSTGRES_PASSWORD"]
    assert (broker.scheme, broker.hostname) == ("redis", "redis")
    assert environment(services[name])["DEBUG"].lower() == "false"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_start_only_once_postgres_and_redis_are_healthy(services, name):
    depends = services[name].get("depends_on")
    assert isinstance(depends, dict), f"{name}: depends_on needs conditions, not a bare list"
    for needed in ("postgres", "redis"):
        assert depends[needed]["condition"] == "service_healthy"


def test_worker_can_be_scaled(services):
    worker = services["worker"]
    assert "container_name" not in worker
    assert not worker.get("ports"), "fixed host ports would clash under --scale worker=N"


def test_dockerfile_installs_the_lock_file_on_python_312(dockerfile):
    assert re.search(r"^FROM python:3\.12-slim\b", dockerfile, re.M)
    assert re.search(r"^RUN pip install\b.*-r requirements\.lock", dockerfile, re.M)


def test_dockerfile_copies_every_package_the_services_run(dockerfile):
    copied = set()
    for line in re.findall(r"^COPY (.+)$", dockerfile, re.M):
        copied |= {source.rstrip("/") for source in line.split()[:-1] if not source.startswith("--")}
    if "." in copied:
        return
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    missing = sorted((packages | {"manage.py", "templates", "static"}) - copied)
    assert not missing, f"Dockerfile does not copy {missing}"
