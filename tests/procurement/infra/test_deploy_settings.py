"""Deployment settings (DESIGN §11, §15): production settings pass `check --deploy` with nothing
to say, no server starts on the embedded key, pages run under a nonce-based CSP, and static files
come from whitenoise."""
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION = {"SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "false", "HTTPS": "true",
              "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto", "EMAIL_URL": "smtp://mail.example.com:25",
              "ALLOWED_HOSTS": "procurement.example.com"}


# Set by the browser tests' conftest for their live server; a production process never has it.
TEST_ONLY = {"DJANGO_ALLOW_ASYNC_UNSAFE"}


def run(code_or_args, env: dict) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if k not in PRODUCTION and k not in TEST_ONLY and not k.startswith(("SECURE_", "HTTPS"))}
    base["DJANGO_SETTINGS_MODULE"] = "procurement.settings"
    return subprocess.run([sys.executable, *code_or_args], cwd=ROOT, env=base | env, capture_output=True, text=True,
                          timeout=120)


def test_check_deploy_is_silent_with_production_settings():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_names_what_is_missing_without_them():
    result = run(["manage.py", "check", "--deploy"], {"DEBUG": "false"})
    for missing in ("procurement.E001", "security.W004", "security.W012", "security.W016"):
        assert missing in result.stderr + result.stdout


def test_the_server_refuses_to_start_without_a_secret_key():
    result = run(["-c", "import procurement.wsgi"], {"DEBUG": "false"})
    assert result.returncode != 0 and "SECRET_KEY is not set" in result.stderr


def test_the_server_starts_with_a_secret_key_and_debug_runs_without_one():
    assert run(["-c", "import procurement.wsgi"], {"DEBUG": "false", "SECRET_KEY": "k" * 60}).returncode == 0
    assert run(["-c", "import procurement.wsgi"], {"DEBUG": "true"}).returncode == 0


def test_https_settings_make_cookies_secure_and_send_hsts():
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, "
            "s.SECURE_PROXY_SSL_HEADER)")
    result = run(["-c", code], PRODUCTION | {"SECURE_HSTS_SECONDS": "600"})
    assert result.stdout.split() == ["True", "True", "True", "600", "('HTTP_X_FORWARDED_PROTO',", "'https')"]


@pytest.mark.django_db
def test_pages_carry_a_csp_without_unsafe_inline_scripts_and_no_inline_handlers(demo):
    client = Client()
    client.force_login(demo["alice"])
    response = client.get("/chat/")
    policy = response["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]*)", policy).group(1)
    assert "'self'" in script_src and "unsafe-inline" not in script_src and "unsafe-eval" not in script_src
    assert "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy, "no inline script or style, attribute or element"
    html = response.content.decode()
    assert not re.search(r"\son[a-z]+=|hx-on|javascript:|\sstyle=", html)
    assert '"includeIndicatorStyles": false' in html and "js/app.js" in html


@pytest.mark.django_db
def test_static_files_are_served_by_whitenoise():
    response = Client().get("/static/js/app.js")
    assert response.status_code == 200
    assert b"data-autosubmit" in b"".join(response.streaming_content)


def test_no_template_carries_an_inline_style_the_csp_would_refuse():
    inline = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "templates").rglob("*.html"))
              for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\sstyle=|<style", line)]
    assert inline == [], "move these to static/css/app.css: " + ", ".join(inline)


def test_make_run_on_the_embedded_sqlite_prints_no_warning_about_covering_indexes(tmp_path):
    """SQLite ignores an index's INCLUDE columns (models.W040): harmless there, and `make run` used to
    print the same nine warnings twice before anything else."""
    env = {"DEBUG": "true", "SQLITE_PATH": str(tmp_path / "db.sqlite3"), "DATABASE_URL": ""}
    result = run(["manage.py", "check"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "W040" not in result.stdout + result.stderr
    assert "no issues" in result.stdout
