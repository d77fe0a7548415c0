"""The ERP simulator over a real socket: the idempotency rules of DESIGN §10."""
import threading

import pytest

from tests.erp_fixtures import requisition_body, start_erp
from tests.erpsim.wire import create_requisition, get, post

# -- requisitions ---------------------------------------------------------------


def test_same_key_twice_creates_one_requisition(erp_server):
    first = post(erp_server, "/requisitions", requisition_body())
    second = post(erp_server, "/requisitions", requisition_body())

    assert first.status_code == 201
    assert second.status_code == 200
    assert first.json()["id"] == second.json()["id"] == "REQ-000001"
    assert first.json()["status"] == "pending_approval"
    assert second.json() == first.json()
    assert stored(erp_server) == {"requisitions": 1, "purchase_orders": 0, "supplier_invoices": 0, "goods_receipts": 0, "writes": 1}


def test_created_requisition_echoes_the_request_with_key_and_time(erp_server):
    created = post(erp_server, "/requisitions", requisition_body(), key="abc").json()

    assert {k: created[k] for k in requisition_body()} == requisition_body()
    assert created["idempotency_key"] == "abc"
    assert created["created_at"].endswith("+00:00")


def test_same_body_in_another_key_order_is_the_same_request(erp_server):
    body = requisition_body()
    post(erp_server, "/requisitions", body)

    replay = post(erp_server, "/requisitions", dict(reversed(list(body.items()))))

    assert replay.status_code == 200
    assert len(erp_server.requisitions()) == 1


def test_same_key_with_a_different_body_is_refused_and_changes_nothing(erp_server):
    post(erp_server, "/requisitions", requisition_body(supplier="Acme Computers"))

    response = post(erp_server, "/requisitions", requisition_body(supplier="Other Ltd"))

    assert response.status_code == 409
    assert "different body" in response.json()["detail"]
    [only] = erp_server.requisitions()
    assert only["supplier"] == "Acme Computers"


@pytest.mark.parametrize("path", ["/requisitions", "/purchase-orders", "/requisitions/REQ-000001/cancel"])
def test_write_without_idempotency_key_is_refused(erp_server, path):
    create_requisition(erp_server)

    response = post(erp_server, path, requisition_body(requisition_id="REQ-000001"), key=None)

    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]
    assert erp_server.stats()["writes"] == 1


@pytest.mark.parametrize("field", ["external_ref", "supplier", "total", "lines"])
def test_missing_field_is_refused_naming_the_field(erp_server, field):
    body = requisition_body()
    del body[field]

    response = post(erp_server, "/requisitions", body)

    assert response.status_code == 400
    assert field in response.json()["detail"]
    assert erp_server.requisitions() == []


def test_line_without_unit_price_is_refused_naming_the_line(erp_server):
    response = post(erp_server, "/requisitions", requisition_body(lines=[{"description": "Dock", "quantity": 2}]))

    assert response.status_code == 400
    assert response.json()["detail"] == "lines[0].unit_price is required"


def test_lookup_by_key_finds_zero_or_one(erp_server):
    created = create_requisition(erp_server, key="known")
    create_requisition(erp_server, key="another")

    assert get(erp_server, "/requisitions", idempotency_key="unknown").json() == {"results": []}
    assert get(erp_server, "/requisitions", idempotency_key="known").json() == {"results": [created]}
    assert len(get(erp_server, "/requisitions").json()["results"]) == 2


def test_unknown_filter_is_refused_rather_than_listing_everything(erp_server):
    create_requisition(erp_server)

    response = get(erp_server, "/requisitions", idempotency_kee="typo")

    assert response.status_code == 400


def test_requisition_can_be_read_by_id(erp_server):
    created = create_requisition(erp_server)

    assert get(erp_server, f"/requisitions/{created['id']}").json() == created
    assert get(erp_server, "/requisitions/REQ-999999").status_code == 404


# -- cancel ---------------------------------------------------------------------


def test_cancel_twice_answers_cancelled_both_times_with_one_write(erp_server):
    requisition = create_requisition(erp_server)
    path = f"/requisitions/{requisition['id']}/cancel"

    first = post(erp_server, path, key="cancel-1")
    second = post(erp_server, path, key="cancel-1")

    assert first.status_code == second.status_code == 200
    assert first.json()["status"] == second.json()["status"] == "cancelled"
    assert first.json()["id"] == requisition["id"]
    assert erp_server.stats()["writes"] == 2  # the create and one cancel


def test_cancel_of_unknown_requisition_is_404(erp_server):
    response = post(erp_server, "/requisitions/REQ-000042/cancel", key="cancel-1")

    assert response.status_code == 404
    assert "REQ-000042" in response.json()["detail"]


def test_requisition_with_a_purchase_order_cannot_be_cancelled(erp_server):
    requisition = create_requisition(erp_server)
    post(erp_server, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "task-1"}, key="po")

    response = post(erp_server, f"/requisitions/{requisition['id']}/cancel", key="cancel-1")

    assert response.status_code == 409
    assert erp_server.requisitions()[0]["status"] == "ordered"


def test_a_requisition_reads_ordered_once_its_purchase_order_is_issued(erp_server):
    requisition = create_requisition(erp_server)
    assert get(erp_server, f"/requisitions/{requisition['id']}").json()["status"] == "pending_approval"
    order = post(erp_server, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "task-1"},
                 key="po")
    assert order.status_code == 201 and order.json()["status"] == "issued"

    assert get(erp_server, f"/requisitions/{requisition['id']}").json()["status"] == "ordered"
    [found] = get(erp_server, "/requisitions", idempotency_key="req-key").json()["results"]
    assert found["status"] == "ordered"
    again = post(erp_server, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "task-1"},
                 key="po")
    assert again.status_code == 200 and again.json()["id"] == order.json()["id"], "the same key still replays"


# -- purchase orders ------------------------------------------------------------


def test_purchase_order_same_key_twice_issues_one_order(erp_server):
    requisition = create_requisition(erp_server)
    body = {"requisition_id": requisition["id"], "external_ref": "task-1"}

    first = post(erp_server, "/purchase-orders", body, key="po-1")
    second = post(erp_server, "/purchase-orders", body, key="po-1")

    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json() == second.json()
    assert first.json()["id"] == "PO-000001"
    assert first.json()["status"] == "issued"
    assert first.json()["supplier"] == "Acme Computers"  # taken from the requisition
    assert len(erp_server.purchase_orders()) == 1


def test_purchase_order_same_key_different_body_is_409(erp_server):
    requisition = create_requisition(erp_server)
    post(erp_server, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "a"}, key="po-1")

    other_body = {"requisition_id": requisition["id"], "external_ref": "b"}
    response = post(erp_server, "/purchase-orders", other_body, key="po-1")

    assert response.status_code == 409
    assert len(erp_server.purchase_orders()) == 1


def test_purchase_order_needs_an_existing_requisition(erp_server):
    response = post(erp_server, "/purchase-orders", {"requisition_id": "REQ-000007", "external_ref": "t"}, key="po")

    assert response.status_code == 404
    assert erp_server.purchase_orders() == []


def test_purchase_order_for_a_cancelled_requisition_is_refused(erp_server):
    requisition = create_requisition(erp_server)
    post(erp_server, f"/requisitions/{requisition['id']}/cancel", key="cancel")

    body = {"requisition_id": requisition["id"], "external_ref": "t"}
    response = post(erp_server, "/purchase-orders", body, key="po")

    assert response.status_code == 409
    assert "cancelled" in response.json()["detail"]
    assert erp_server.purchase_orders() == []


def test_second_purchase_order_for_one_requisition_is_refused(erp_server):
    requisition = create_requisition(erp_server)
    body = {"requisition_id": requisition["id"], "external_ref": "task-1"}
    post(erp_server, "/purchase-orders", body, key="po-1")

    response = post(erp_server, "/purchase-orders", body, key="po-2")

    assert response.status_code == 409
    assert len(erp_server.purchase_orders()) == 1


def test_purchase_order_lookup_by_key(erp_server):
    requisition = create_requisition(erp_server)
    body = {"requisition_id": requisition["id"], "external_ref": "t"}
    issued = post(erp_server, "/purchase-orders", body, key="po").json()

    assert get(erp_server, "/purchase-orders", idempotency_key="po").json() == {"results": [issued]}
    assert get(erp_server, "/purchase-orders", idempotency_key="nope").json() == {"results": []}


# -- concurrency and storage ------------------------------------------------------


def test_concurrent_creates_with_one_key_make_exactly_one_requisition(erp_server):
    start = threading.Barrier(8)
    answers = []

    def create():
        start.wait()
        answers.append(post(erp_server, "/requisitions", requisition_body(), key="same-key", timeout=30))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(a.status_code for a in answers) == [200] * 7 + [201]
    assert {a.json()["id"] for a in answers} == {"REQ-000001"}
    assert stored(erp_server) == {"requisitions": 1, "purchase_orders": 0, "supplier_invoices": 0, "goods_receipts": 0, "writes": 1}


def test_data_survives_a_restart_of_the_simulator(tmp_path):
    first = start_erp(tmp_path / "erp.sqlite3", tmp_path / "first.log")
    try:
        created = create_requisition(first, key="k")
    finally:
        first.stop()
    second = start_erp(tmp_path / "erp.sqlite3", tmp_path / "second.log")
    try:
        replay = post(second, "/requisitions", requisition_body(), key="k")
    finally:
        second.stop()

    assert replay.status_code == 200
    assert replay.json()["id"] == created["id"]


def stored(erp_server) -> dict:
    """What the simulator holds (/_stats without its count of requests received, which runs on)."""
    return {k: v for k, v in erp_server.stats().items() if k != "requests"}


def test_the_simulator_records_the_traceparent_each_request_came_with(erp_server):
    import json
    import urllib.request

    # urllib, not requests: OpenTelemetry's requests instrumentation writes a traceparent of its own.
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    body = json.dumps(requisition_body()).encode()
    urllib.request.urlopen(urllib.request.Request(
        erp_server.url + "/requisitions", data=body, method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": "traced", "traceparent": parent}), timeout=5)
    urllib.request.urlopen(erp_server.url + "/requisitions?idempotency_key=traced", timeout=5)
    seen = erp_server.requests_seen()[-2:]
    assert [(r["method"], r["path"], r["traceparent"]) for r in seen] == [
        ("POST", "/requisitions", parent), ("GET", "/requisitions", None)]
    assert seen[0]["idempotency_key"] == "traced"
