"""Faults switched on over HTTP: what the caller sees and what the ERP actually stored."""
import time

import pytest
import requests

from tests.erp_fixtures import requisition_body
from tests.erpsim.wire import get, post, wait_for


def test_drop_commits_the_write_but_the_caller_gets_no_answer(erp_server):
    erp_server.fault(mode="drop", path="/requisitions", method="POST", times=1)

    with pytest.raises(requests.ConnectionError):
        post(erp_server, "/requisitions", requisition_body(), key="dropped")

    [found] = get(erp_server, "/requisitions", idempotency_key="dropped").json()["results"]
    retry = post(erp_server, "/requisitions", requisition_body(), key="dropped")
    assert retry.status_code == 200
    assert retry.json()["id"] == found["id"]
    assert erp_server.stats()["requisitions"] == 1


def test_error_answers_503_and_writes_nothing(erp_server):
    erp_server.fault(mode="error", times=1)

    response = post(erp_server, "/requisitions", requisition_body())

    assert response.status_code == 503
    assert "detail" in response.json()
    assert stored(erp_server) == {"requisitions": 0, "purchase_orders": 0, "supplier_invoices": 0, "goods_receipts": 0, "writes": 0}


def test_error_runs_out_after_its_times(erp_server):
    erp_server.fault(mode="error", times=1)

    refused = post(erp_server, "/requisitions", requisition_body())
    accepted = post(erp_server, "/requisitions", requisition_body())

    assert (refused.status_code, accepted.status_code) == (503, 201)


def test_down_stays_until_cleared(erp_server):
    erp_server.fault(mode="down")

    statuses = [post(erp_server, "/requisitions", requisition_body()).status_code for _ in range(3)]
    lookup = get(erp_server, "/requisitions", idempotency_key="key-1")
    erp_server.clear_faults()
    after = post(erp_server, "/requisitions", requisition_body())

    assert statuses == [503, 503, 503]
    assert lookup.status_code == 503
    assert after.status_code == 201


def test_slow_lets_the_write_land_after_the_caller_gave_up(erp_server):
    erp_server.fault(mode="slow", delay=1.0, times=1)

    with pytest.raises(requests.Timeout):
        post(erp_server, "/requisitions", requisition_body(), key="slow", timeout=0.3)

    assert erp_server.stats()["requisitions"] == 0  # the ERP is still sleeping on it
    assert wait_for(lambda: erp_server.stats()["requisitions"] == 1)
    assert erp_server.requisitions()[0]["idempotency_key"] == "slow"


def test_slow_answers_normally_to_a_patient_caller(erp_server):
    erp_server.fault(mode="slow", delay=0.3)

    started = time.monotonic()
    response = post(erp_server, "/requisitions", requisition_body())

    assert response.status_code == 201
    assert time.monotonic() - started >= 0.3


def test_fault_on_one_path_and_method_leaves_the_rest_alone(erp_server):
    erp_server.fault(mode="error", path="/purchase-orders", method="POST")

    created = post(erp_server, "/requisitions", requisition_body())
    listed = get(erp_server, "/purchase-orders")
    issued = post(erp_server, "/purchase-orders", {"requisition_id": created.json()["id"], "external_ref": "t"})

    assert (created.status_code, listed.status_code, issued.status_code) == (201, 200, 503)


def test_control_endpoints_ignore_faults(erp_server):
    erp_server.fault(mode="down")

    assert erp_server.stats()["requisitions"] == 0
    assert requests.get(erp_server.url + "/_faults", timeout=5).json()["faults"][0]["mode"] == "down"


@pytest.mark.parametrize(
    "fault",
    [{"mode": "explode"}, {"mode": "error", "times": 0}, {"mode": "slow", "delay": -1},
     {"mode": "error", "method": "PUT"}, {"mode": "drop", "path": "requisitions"}],
)
def test_invalid_fault_is_refused(erp_server, fault):
    response = requests.post(erp_server.url + "/_faults", json=fault, timeout=5)

    assert response.status_code == 400
    assert requests.get(erp_server.url + "/_faults", timeout=5).json() == {"faults": []}


def test_reset_wipes_data_and_faults(erp_server):
    post(erp_server, "/requisitions", requisition_body())
    erp_server.fault(mode="down")

    erp_server.reset()

    assert stored(erp_server) == {"requisitions": 0, "purchase_orders": 0, "supplier_invoices": 0, "goods_receipts": 0, "writes": 0}
    assert post(erp_server, "/requisitions", requisition_body()).json()["id"] == "REQ-000001"


def test_a_fault_with_a_rate_hits_about_that_share_of_requests(erp_server):
    erp_server.fault(mode="error", path="/requisitions", method="GET", rate=0.2)

    answers = [get(erp_server, "/requisitions").status_code for _ in range(200)]

    assert 10 <= answers.count(503) <= 70 and answers.count(200) == 200 - answers.count(503)


def test_a_rate_outside_zero_to_one_is_refused(erp_server):
    response = requests.post(erp_server.url + "/_faults", json={"mode": "error", "rate": 1.5}, timeout=5)

    assert response.status_code == 400 and "rate" in response.json()["detail"]


def stored(erp_server) -> dict:
    """What the simulator holds (/_stats without its count of requests received, which runs on)."""
    return {k: v for k, v in erp_server.stats().items() if k != "requests"}
