"""What the benchmarks share: their own PostgreSQL databases, and percentiles."""
import math
import os
import sys
from urllib.parse import quote, unquote, urlsplit


def server_params(script: str) -> dict:
    """Host, port, user, password of the PostgreSQL server to use (never its database name)."""
    url = os.environ.get("DATABASE_URL", "")
    if url and not url.startswith(("postgres://", "postgresql://")):
        sys.exit(f"bench/{script} measures PostgreSQL; DATABASE_URL points at {url.split(':', 1)[0]}. "
                 "Set DATABASE_URL=postgres://... (or unset it to use postgres@127.0.0.1:5432).")
    parts = urlsplit(url or "postgres://postgres@127.0.0.1:5432/")
    return {"host": parts.hostname or "127.0.0.1", "port": parts.port or 5432,
            "user": unquote(parts.username or "postgres"), "password": unquote(parts.password or "")}


def database_url(params: dict, name: str) -> str:
    auth = quote(params["user"], safe="") + (f":{quote(params['password'], safe='')}" if params["password"] else "")
    return f"postgres://{auth}@{params['host']}:{params['port']}/{name}"


def admin_sql(params: dict, *statements: str):
    import psycopg

    with psycopg.connect(**{k: v for k, v in params.items() if v != ""}, dbname="postgres",
                         autocommit=True) as admin:
        for statement in statements:
            admin.execute(statement)


def recreate_database(params: dict, name: str):
    """A fresh, empty database `name` for one benchmark (any earlier one dropped first)."""
    admin_sql(params, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')


def teardown_database(params: dict, name: str, *, keep: bool) -> str:
    """A benchmark's end: close this process's Django connections, then drop its database
    unless `keep`. Returns what became of the database, for the closing line."""
    try:
        from django.db import connections

        connections.close_all()
    except Exception:  # noqa: BLE001 - Django may not have started
        pass
    if keep:
        return f"database {name} kept"
    admin_sql(params, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return f"database {name} dropped"


def ensure_database(announce: bool = False):
    """Create the database Django is configured with, if it does not exist yet (connecting to `postgres`)."""
    import psycopg
    from django.db import connection

    params = {k: v for k, v in connection.get_connection_params().items() if k not in ("cursor_factory", "context")}
    name = params.pop("dbname")
    with psycopg.connect(**params, dbname="postgres", autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            admin.execute(f'CREATE DATABASE "{name}"')
            if announce:
                print(f"created database {name}")


def pct(values, p) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]
