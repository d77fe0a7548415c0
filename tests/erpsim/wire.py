"""Raw HTTP helpers for the simulator tests: no client library between the test and the wire."""
import time

import requests

from tests.erp_fixtures import requisition_body

TIMEOUT = 5


def post(erp, path: str, body: dict | None = None, key: str | None = "key-1", **kwargs):
    headers = {"Idempotency-Key": key} if key is not None else {}
    kwargs.setdefault("timeout", TIMEOUT)
    return requests.post(erp.url + path, json=body, headers=headers, **kwargs)


def get(erp, path: str, **params):
    return requests.get(erp.url + path, params=params, timeout=TIMEOUT)


def create_requisition(erp, key: str = "req-key") -> dict:
    response = post(erp, "/requisitions", requisition_body(), key=key)
    assert response.status_code == 201, response.text
    return response.json()


def wait_for(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
