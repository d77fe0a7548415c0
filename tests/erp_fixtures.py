"""A real ERP simulator process for tests: `erp_server` starts `python -m erpsim` on a free
port with its own SQLite file, and stops it afterwards. Registered as a pytest plugin.
"""
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

REPO_ROOT = Path(__file__).resolve().parents[1]
READY_PREFIX = "ERP simulator listening on "
START_TIMEOUT_SECONDS = 15


def requisition_body(**overrides) -> dict:
    """A valid `POST /requisitions` body: one laptop for ENG, tax-inclusive total."""
    body = {
        "external_ref": "task-1",
        "department": "ENG",
        "requester": "alice",
        "supplier": "Acme Computers",
        "currency": "TWD",
        "total": "36750.00",
        "lines": [{"description": "Laptop", "quantity": 1, "unit_price": "35000.00"}],
    }
    body.update(overrides)
    return body


class ErpProcess:
    """The running simulator, with shortcuts to its control endpoints."""

    def __init__(self, process: subprocess.Popen, url: str, log_path: Path):
        self.process = process
        self.url = url
        self.log_path = log_path

    def fault(self, **fault) -> list[dict]:
        """Switch on a fault: mode=slow|error|drop|down, path=, method=, times=, delay=."""
        return self._control("POST", "/_faults", json=fault)["faults"]

    def clear_faults(self) -> None:
        self._control("DELETE", "/_faults")

    def reset(self) -> None:
        self._control("POST", "/_reset")

    def stats(self) -> dict:
        return self._control("GET", "/_stats")

    def requests_seen(self) -> list[dict]:
        """The latest protocol requests as the simulator saw them (method, path, key, traceparent)."""
        return self._control("GET", "/_requests")["results"]

    def requisitions(self) -> list[dict]:
        return self._control("GET", "/requisitions")["results"]

    def purchase_orders(self) -> list[dict]:
        return self._control("GET", "/purchase-orders")["results"]

    def goods_receipts(self) -> list[dict]:
        return self._control("GET", "/goods-receipts")["results"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()

    def _control(self, method: str, path: str, json: dict | None = None) -> dict:
        # Control calls go straight to the simulator and never carry faults.
        response = requests.request(method, self.url + path, json=json, timeout=5)
        response.raise_for_status()
        return response.json()


def start_erp(db_path: Path, log_path: Path) -> ErpProcess:
    log = open(log_path, "wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "erpsim", "--host", "127.0.0.1", "--port", "0",
         "--db", str(db_path), "--quiet"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
    )
    log.close()  # the child holds its own handle
    line = _first_line(process, START_TIMEOUT_SECONDS)
    if not line.startswith(READY_PREFIX):
        process.kill()
        process.wait()
        raise RuntimeError(f"ERP simulator did not start: {line!r}\n{log_path.read_text()}")
    server = ErpProcess(process, line[len(READY_PREFIX):].strip(), log_path)
    _wait_until_answering(server)
    return server


def _first_line(process: subprocess.Popen, timeout: float) -> str:
    # readline() blocks; a reader thread lets a hung start fail the test instead.
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return lines[0] if lines else ""


def _wait_until_answering(server: ErpProcess) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while True:
        try:
            server.stats()
            return
        except requests.RequestException:
            if time.monotonic() > deadline:
                server.stop()
                raise
            time.sleep(0.05)


@pytest.fixture
def erp_server(tmp_path):
    server = start_erp(tmp_path / "erp.sqlite3", tmp_path / "erp.log")
    try:
        yield server
    finally:
        server.stop()
