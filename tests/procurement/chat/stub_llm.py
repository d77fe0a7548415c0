"""A small OpenAI-compatible chat-completions server on loopback that replays recorded
responses (tests/procurement/chat/recorded/), so the LLM brain is driven across a real
socket. Each POST takes the next answer: a recorded file name, an HTTP status to fail
with, or ("sleep", seconds) to outwait the client's timeout. Every request body is kept."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.procurement.chat.support import RECORDED


class StubModel:
    def __init__(self):
        self.answers, self.requests = [], []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "StubModel":
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def queue(self, *answers):
        self.answers.extend(answers)

    def tools(self, n: int = -1) -> list[str]:
        return [tool["function"]["name"] for tool in self.requests[n].get("tools", [])]

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                stub.requests.append(body)
                answer = stub.answers.pop(0) if stub.answers else 500
                if isinstance(answer, tuple) and answer[0] == "sleep":
                    time.sleep(answer[1])
                    answer = "reply_only.json"
                if isinstance(answer, int):
                    return self._send(answer, {"error": {"message": "model server error"}})
                self._send(200, json.loads((RECORDED / answer).read_text(encoding="utf-8")))

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        return Handler
