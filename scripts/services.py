"""Print shell exports pointing the tests at PostgreSQL and Redis when they are reachable.

`make test` evaluates this. Variables already set win; unreachable services are named on
stderr, and the PostgreSQL-only tests then skip with that reason (CI fails on any skip).
"""
import os
import shlex
import socket
import sys

SERVICES = [
    ("DATABASE_URL", "PostgreSQL", 5432, "postgres://postgres@127.0.0.1:5432/procurement"),
    ("CELERY_BROKER_URL", "Redis", 6379, "redis://127.0.0.1:6379/0"),
]


def reachable(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


for variable, name, port, url in SERVICES:
    if os.environ.get(variable):
        continue
    if reachable(port):
        print(f"export {variable}={shlex.quote(url)}")
    else:
        print(f"{name} is not reachable on 127.0.0.1:{port}; its tests will be skipped.", file=sys.stderr)
