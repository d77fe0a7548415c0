"""The simulator's goods receipts and closing a purchase order (DESIGN §16), over a real socket."""
from tests.erpsim.wire import create_requisition, get, post


def issued_order(erp) -> dict:
    requisition = create_requisition(erp)
    response = post(erp, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "task-1"},
                    key="po-key")
    assert response.status_code == 201, response.text
    return response.json()


def receipt_body(order, **overrides) -> dict:
    body = {"purchase_order_id": order["id"], "external_ref": "gr-1",
            "lines": [{"description": "Monitor", "accepted": 2, "rejected": 1}]}
    return body | overrides


def test_same_key_twice_posts_one_goods_receipt_and_the_key_finds_it(erp_server):
    order = issued_order(erp_server)
    first = post(erp_server, "/goods-receipts", receipt_body(order), key="gr-key")
    second = post(erp_server, "/goods-receipts", receipt_body(order), key="gr-key")
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"] and first.json()["status"] == "posted"
    assert [r["id"] for r in get(erp_server, "/goods-receipts", idempotency_key="gr-key").json()["results"]] == [
        first.json()["id"]]
    assert get(erp_server, "/goods-receipts", idempotency_key="other").json()["results"] == []


def test_the_same_key_with_another_body_is_refused(erp_server):
    order = issued_order(erp_server)
    post(erp_server, "/goods-receipts", receipt_body(order), key="gr-key")
    other = receipt_body(order, lines=[{"description": "Monitor", "accepted": 3, "rejected": 0}])
    assert post(erp_server, "/goods-receipts", other, key="gr-key").status_code == 409
    assert len(erp_server.goods_receipts()) == 1


def test_a_receipt_for_an_unknown_order_or_a_negative_rejection_is_refused(erp_server):
    order = issued_order(erp_server)
    assert post(erp_server, "/goods-receipts", receipt_body({"id": "PO-999999"})).status_code == 404
    bad = receipt_body(order, lines=[{"description": "Monitor", "accepted": 1, "rejected": -1}])
    assert post(erp_server, "/goods-receipts", bad).status_code == 400
    assert erp_server.goods_receipts() == []


def test_closing_an_order_twice_closes_it_once(erp_server):
    order = issued_order(erp_server)
    path = f"/purchase-orders/{order['id']}/close"
    first = post(erp_server, path, {"reason": "supplier out of stock"}, key="close-key")
    second = post(erp_server, path, {"reason": "supplier out of stock"}, key="close-key")
    assert (first.status_code, second.status_code) == (200, 200)
    assert first.json()["status"] == second.json()["status"] == "closed"
    assert get(erp_server, f"/purchase-orders/{order['id']}").json()["status"] == "closed"
    assert erp_server.stats()["writes"] == 3  # requisition, order, one close
    assert post(erp_server, "/purchase-orders/PO-999999/close", {"reason": "x"}).status_code == 404
