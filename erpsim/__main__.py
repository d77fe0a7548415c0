"""`python -m erpsim --host 127.0.0.1 --port 8765 --db var/erp.sqlite3 [--quiet]`

Prints one line, "ERP simulator listening on http://HOST:PORT", once it accepts
connections; with --port 0 the line carries the port the system picked.
"""
import argparse
import signal
import sys

from .server import ErpServer
from .store import Store


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m erpsim", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--db", default="var/erp.sqlite3", help="SQLite file (created if missing)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    args = parser.parse_args(argv)

    server = ErpServer(args.host, args.port, Store(args.db), quiet=args.quiet)
    # SIGTERM ends serve_forever like Ctrl-C does, so the socket is closed cleanly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"ERP simulator listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
