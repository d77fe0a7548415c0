"""The simulator's supplier invoices and PO reads (DESIGN §16) over a real socket."""
from tests.erpsim.wire import create_requisition, get, post


def purchase_order(erp) -> dict:
    requisition = create_requisition(erp)
    return post(erp, "/purchase-orders", {"requisition_id": requisition["id"], "external_ref": "t-1"},
                key="po-key").json()


def invoice_body(order_id, **overrides) -> dict:
    return {"purchase_order_id": order_id, "external_ref": "inv-1", "number": "AB12345678", "date": "2026-03-15",
            "seller_tax_id": "62140097", "subtotal": "19200.00", "tax": "960.00", "total": "20160.00",
            "lines": [{"line": 0, "description": "Monitor", "quantity": 3, "unit_price": "6400.00"}]} | overrides


def test_get_purchase_order_by_id_and_404_for_an_unknown_one(erp_server):
    order = purchase_order(erp_server)
    assert get(erp_server, f"/purchase-orders/{order['id']}").json()["id"] == order["id"]
    assert get(erp_server, "/purchase-orders/PO-999999").status_code == 404


def test_same_key_twice_posts_one_invoice_and_it_can_be_found_by_key(erp_server):
    order = purchase_order(erp_server)
    first = post(erp_server, "/supplier-invoices", invoice_body(order["id"]), key="inv-key")
    second = post(erp_server, "/supplier-invoices", invoice_body(order["id"]), key="inv-key")

    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["status"] == "posted" and second.json()["id"] == first.json()["id"]
    assert [i["id"] for i in get(erp_server, "/supplier-invoices", idempotency_key="inv-key").json()["results"]] == [
        first.json()["id"]]
    assert erp_server.stats()["supplier_invoices"] == 1


def test_the_same_seller_and_number_under_another_key_is_409(erp_server):
    order = purchase_order(erp_server)
    post(erp_server, "/supplier-invoices", invoice_body(order["id"]), key="inv-key")
    again = post(erp_server, "/supplier-invoices", invoice_body(order["id"], external_ref="inv-2"), key="other")

    assert again.status_code == 409 and "AB12345678" in again.json()["detail"]
    assert erp_server.stats()["supplier_invoices"] == 1


def test_a_key_with_a_different_body_or_an_unknown_po_is_refused(erp_server):
    order = purchase_order(erp_server)
    post(erp_server, "/supplier-invoices", invoice_body(order["id"]), key="inv-key")

    changed = invoice_body(order["id"], total="1.00")
    assert post(erp_server, "/supplier-invoices", changed, key="inv-key").status_code == 409
    assert post(erp_server, "/supplier-invoices", invoice_body("PO-999999", number="AB00000001"),
                key="k3").status_code == 404
    assert post(erp_server, "/supplier-invoices", invoice_body(order["id"], number=""), key="k4").status_code == 400
