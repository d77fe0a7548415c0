"""The HTTP side: one thread per request, faults applied around the protocol endpoints."""
import json
import socketserver
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .faults import FaultBoard
from .routes import Context, Request, answer, is_control_path
from .store import Store

# A client that gave up (timeout, closed socket) makes our reply fail; that is expected.
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class ErpHandler(BaseHTTPRequestHandler):
    server: "ErpServer"
    protocol_version = "HTTP/1.1"
    # A kept-alive connection answers at once: the headers and the body go out as two writes, and
    # with Nagle's algorithm the body waited for the client's delayed ACK (about 40 ms a call).
    disable_nagle_algorithm = True

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_DELETE(self):
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        try:
            request = self._parse(method)
        except ValueError:
            self.close_connection = True  # we cannot tell where this request's body ends
            self.send_error(400, "bad Content-Length")
            return
        if is_control_path(request.path):
            self._reply(request, *self._answer(request))
            return
        with self.server.counting:
            self.server.context.requests += 1
            self.server.context.seen.append({"method": method, "path": request.path,
                                             "idempotency_key": request.idempotency_key,
                                             "traceparent": request.traceparent})
        fault = self.server.faults.take(method, request.path)
        if fault is not None and fault.mode in ("error", "down"):
            detail = f"ERP unavailable (fault: {fault.mode})"
            self._reply(request, 503, {"detail": detail}, note=fault.mode)
            return
        if fault is not None and fault.mode == "slow":
            time.sleep(fault.delay)
        status, payload = self._answer(request)
        if fault is not None and fault.mode == "drop":
            # The work is committed; the caller just never hears about it.
            self.close_connection = True
            self._log(request, status, note="drop: response withheld")
            return
        note = f"slow {fault.delay:g}s" if fault is not None else None
        self._reply(request, status, payload, note=note)

    def _parse(self, method: str) -> Request:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        return Request(
            method=method,
            path=url.path,
            raw_body=self.rfile.read(length) if length else b"",
            query=parse_qs(url.query),
            idempotency_key=self.headers.get("Idempotency-Key"),
            traceparent=self.headers.get("traceparent"),
        )

    def _answer(self, request: Request) -> tuple[int, dict]:
        try:
            return answer(self.server.context, request)
        except Exception as exc:  # a bug in the simulator: say so rather than hang up
            traceback.print_exc(file=sys.stderr)
            return 500, {"detail": f"simulator error: {exc!r}"}

    def _reply(self, request: Request, status: int, payload: dict, note: str | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except CLIENT_GONE:
            self.close_connection = True
            note = "client gone before the answer"
        self._log(request, status, note)

    def _log(self, request: Request, status: int, note: str | None = None) -> None:
        if self.server.quiet:
            return
        suffix = f" ({note})" if note else ""
        sys.stderr.write(f"erpsim {request.method} {self.path} {status}{suffix}\n")

    def log_request(self, code="-", size="-"):
        pass  # _log writes our own one-line summary instead

    def log_message(self, format, *args):
        if not self.server.quiet:
            sys.stderr.write("erpsim " + (format % args) + "\n")


class ErpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, store: Store, *, quiet: bool = False):
        self.context = Context(store=store, faults=FaultBoard())
        self.counting = threading.Lock()
        self.quiet = quiet
        super().__init__((host, port), ErpHandler)

    @property
    def faults(self) -> FaultBoard:
        return self.context.faults

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def server_bind(self):
        # HTTPServer.server_bind resolves our own FQDN, which can stall on a machine with
        # slow DNS; the simulator never needs it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], CLIENT_GONE):
            return
        super().handle_error(request, client_address)
