"""`make run` (scripts/run.py) stops everything it started: after SIGTERM to it, no process of
the ERP simulator, the Celery worker (main and pool), beat or the web server remains."""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from scripts.run import wait_http

ROOT = Path(__file__).resolve().parent.parent
def free_ports(n: int) -> list[int]:
    """Ports nothing listens on now (all held at once, so they differ): the test must not meet
    another checkout's server on fixed ports."""
    probes = [socket.socket() for _ in range(n)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


PORT, ERP_PORT = free_ports(2)


def processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, process group) for every process on the machine."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry.name)] = (int(fields[1]), int(fields[2]))
    return found


def descendants(root: int) -> set[int]:
    table, found, frontier = processes(), set(), {root}
    while frontier:
        frontier = {pid for pid, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def test_sigterm_to_make_run_stops_every_child(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "ERP_URL", "SITE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update(VAR_DIR=str(tmp_path), PORT=str(PORT), ERP_PORT=str(ERP_PORT), HOST="127.0.0.1",
               RUN_STOP_SECONDS="5")
    run = subprocess.Popen([sys.executable, "scripts/run.py"], cwd=ROOT, env=env, start_new_session=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    started = set()
    try:
        came_up = wait_http(f"http://127.0.0.1:{PORT}/healthz", 240)
        assert came_up, run.stdout.read1().decode() if run.poll() else "no web"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the worker's two pool processes too
            started = descendants(run.pid)
            if len(started) >= 6:
                break
            time.sleep(0.5)
        assert len(started) >= 6, started  # erp, worker + 2 pool processes, beat, web
        os.killpg(run.pid, signal.SIGTERM)  # what stopping `make run` does to its process group;
        time.sleep(0.05)  # and make, on its own SIGTERM, passes one more to its child while it stops
        os.killpg(run.pid, signal.SIGTERM)
        assert run.wait(60) == 0
        groups = {processes().get(pid, (0, 0))[1] for pid in started} - {0}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (started & processes().keys()):
            time.sleep(0.2)  # reaped by init once orphaned
        left = {pid: state for pid, state in processes().items() if pid in started or state[1] in groups}
        assert not left, left
    finally:
        for pid in started & processes().keys():
            os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
            run.wait()
        run.stdout.close()
