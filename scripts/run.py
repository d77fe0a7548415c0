"""`make run`: the whole product on one machine, on its embedded default or on the services
named by DATABASE_URL / CELERY_BROKER_URL.

1. Migrate; start the ERP simulator; seed the demo data with its requests past the PO (idempotent).
2. Start a Celery worker, beat and the web server as child processes.
3. Print the URL and the logins; Ctrl-C stops everything.
"""
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("VAR_DIR", ROOT / "var"))
HOST = os.environ.get("HOST", "127.0.0.1")
PORT = os.environ.get("PORT", "8000")
ERP_PORT = os.environ.get("ERP_PORT", "8765")
PY = sys.executable
LOGINS = [("alice", "requester, ENG"), ("erin", "requester, OPS"), ("bob", "manager, ENG (limit NT$100,000)"),
          ("dave", "manager, OPS (limit NT$100,000)"), ("frank", "director (limit NT$5,000,000)"),
          ("carol", "admin, finance, accounts payable")]


def manage(*args):
    subprocess.run([PY, "manage.py", *args], cwd=ROOT, check=True)


def wait_http(url: str, seconds: float = 30) -> bool:
    """True once `url` answers with a success, False after `seconds` (tests/test_make_run.py waits
    with it too: importing this module must start nothing, main() runs only as a script)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return True
        except Exception:
            time.sleep(0.3)
    return False


STOP_SECONDS = float(os.environ.get("RUN_STOP_SECONDS", "10"))


class Stop(BaseException):
    """SIGTERM, SIGINT or SIGHUP reached this process."""


def _stop(signum, frame):
    raise Stop(signum)


def stop_children(children: dict, seconds: float = STOP_SECONDS) -> None:
    """Every child runs in its own process group (its own session); each group gets SIGTERM, then,
    after `seconds` for all of them together, SIGKILL: a Celery worker whose main process lingers
    after its warm shutdown and ignores a second SIGTERM still goes. Further signals are ignored
    meanwhile, so a second Ctrl-C or SIGTERM cannot cut the clean-up short and strand a child."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)

    def signal_group(child, sig):
        try:
            os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    for child in children.values():
        signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    for child in children.values():
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for child in children.values():
        # The group too, even when its leader has exited: a pool process may outlive it.
        signal_group(child, signal.SIGKILL)
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            pass


def main():
    # SIGTERM (from a supervisor or `timeout`), SIGHUP (a closed terminal) and Ctrl-C stop the children too.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)
    children = {}
    try:
        return run(children)
    except (Stop, KeyboardInterrupt):
        return 0
    finally:
        stop_children(children)


def start(children: dict, logs: Path, name: str, command: list[str]) -> None:
    with open(logs / f"{name}.log", "ab") as log:
        children[name] = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                          start_new_session=True)


def run(children: dict) -> int:
    VAR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("ERP_URL", f"http://127.0.0.1:{ERP_PORT}")
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("SITE_URL", f"http://{HOST}:{PORT}")  # links in mail point at this server
    manage("migrate", "--no-input", "-v", "0")
    logs = VAR / "logs"
    logs.mkdir(exist_ok=True)
    # The ERP simulator first: the demo's requests past the PO are made through it, as people would.
    start(children, logs, "erp", [PY, "-m", "erpsim", "--host", "127.0.0.1", "--port", ERP_PORT,
                                  "--db", str(VAR / "erp.sqlite3")])
    if not wait_http(f"{os.environ['ERP_URL']}/_stats"):
        print(f"The ERP simulator did not come up; see {logs}/erp.log", file=sys.stderr)
        return 1
    manage("seed_demo", "--requests")
    commands = {
        "worker": [PY, "-m", "celery", "-A", "procurement", "worker", "-l", "info", "--concurrency", "2"],
        "beat": [PY, "-m", "celery", "-A", "procurement", "beat", "-l", "info",
                 "--schedule", str(VAR / "celerybeat-schedule")],
        "web": [PY, "manage.py", "runserver", f"{HOST}:{PORT}", "--noreload"],
    }
    for name, command in commands.items():
        start(children, logs, name, command)
    if not wait_http(f"http://{HOST}:{PORT}/healthz"):
        print(f"The web server did not come up; see {logs}/web.log", file=sys.stderr)
        return 1
    print(f"\nProcurement agent running at http://{HOST}:{PORT}/")
    print(f"  API: http://{HOST}:{PORT}/api/v1/   schema: http://{HOST}:{PORT}/api/v1/schema/")
    print(f"  ERP simulator: {os.environ['ERP_URL']}   logs: {logs}/")
    print("  Logins (password 'demo'):")
    for user, role in LOGINS:
        print(f"    {user:<6} {role}")
    print("Ctrl-C stops everything.\n", flush=True)
    while True:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited ({child.returncode}); see {logs}/{name}.log", file=sys.stderr)
                return 1
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main())
