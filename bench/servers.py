"""A PostgreSQL cluster and a Redis server of the benchmark's own, on loopback, to restart at will.

bench/chaos.py restarts the database and the broker in the middle of its run. Doing that to the
machine's shared servers would drop every other client too (a test run, another benchmark), so
it starts its own, from the machine's own binaries (Debian's postgresql and redis-server
packages), in a temporary folder, and removes them at the end. Nothing is downloaded.

PostgreSQL runs as the `postgres` system user when this script runs as root (initdb refuses
root), with `fsync=on` and `synchronous_commit=on`, as in production.
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def available() -> str:
    """'' when both servers can be started here, else what is missing."""
    missing = [name for name, path in (("initdb", _pg_bin("initdb")), ("pg_ctl", _pg_bin("pg_ctl")),
                                       ("redis-server", shutil.which("redis-server"))) if not path]
    return ", ".join(missing)


class PrivatePostgres:
    """A cluster in a temporary folder of its own (the `postgres` user's when run as root)."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="bench-pg-"))
        self.dir, self.port, self.log = self.root / "pg", free_port(), self.root / "pg.log"
        self._as = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run(_pg_bin("initdb"), "-D", str(self.dir), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8",
                  "--locale=C.UTF-8")

    def _run(self, *argv, check=True):
        done = subprocess.run([*self._as, *argv], capture_output=True, text=True, timeout=120)
        if check and done.returncode:
            raise RuntimeError(f"{Path(argv[0]).name} failed ({done.returncode}): {done.stderr or done.stdout}")
        return done

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def start(self):
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -k {self.dir} -c fsync=on "
                   "-c synchronous_commit=on -c max_connections=100 -c shared_buffers=128MB")
        self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def restart_fast(self) -> float:
        """`pg_ctl restart -m fast`: every connection is dropped. Returns the seconds it took."""
        started = time.monotonic()
        # -l again: without it the new server would write to this call's pipes and keep them open.
        self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-l", str(self.log), "-m", "fast", "-w", "-t", "60",
                  "restart")
        return time.monotonic() - started

    def stop(self, remove: bool = True):
        if (self.dir / "postmaster.pid").exists():
            self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-m", "immediate", "-w", "stop", check=False)
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)


class PrivateRedis:
    def __init__(self, root: Path):
        self.port, self.dir = free_port(), root
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        import redis

        for _ in range(100):
            try:
                if redis.Redis(port=self.port).ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        raise RuntimeError("the benchmark's Redis did not start")

    def flush_and_restart(self) -> float:
        """FLUSHALL, then stop without saving and start again: every queued message is lost."""
        import redis

        started = time.monotonic()
        client = redis.Redis(port=self.port)
        client.flushall()
        try:
            client.shutdown(nosave=True)
        except redis.RedisError:
            pass  # the server closes the connection as it goes
        if self.proc is not None:
            self.proc.wait(30)
        self.start()
        return time.monotonic() - started

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
