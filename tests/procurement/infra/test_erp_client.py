"""The ERP client against the real simulator: clear answers become Outcomes, everything
the client cannot be sure about becomes Indeterminate (DESIGN §6, §10)."""
import socket
import time

import pytest

from agentstate.external import Indeterminate, Outcome
from procurement.infra.erp import (
    CANCEL_REQUISITION,
    CREATE_REQUISITION,
    ISSUE_PURCHASE_ORDER,
    ErpClient,
    ErpRefused,
)
from tests.erp_fixtures import requisition_body


@pytest.fixture
def client(erp_server):
    return ErpClient(base_url=erp_server.url, timeout=2)


@pytest.fixture
def requisition(client):
    return client.create_requisition("req-key", requisition_body())


def eventually(probe, seconds: float = 5.0):
    deadline = time.monotonic() + seconds
    while (found := probe()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


# -- send: clear answers ----------------------------------------------------------


def test_send_create_answers_ok_with_the_requisition_id(client, erp_server):
    outcome = client.send(CREATE_REQUISITION, "k1", requisition_body())

    assert outcome.ok
    assert outcome.external_id == "REQ-000001"
    assert outcome.response["status"] == "pending_approval"
    assert outcome.response["idempotency_key"] == "k1"


def test_send_create_twice_with_one_key_gives_the_same_requisition(client, erp_server):
    first = client.send(CREATE_REQUISITION, "k1", requisition_body())
    second = client.send(CREATE_REQUISITION, "k1", requisition_body())

    assert second == first
    assert len(erp_server.requisitions()) == 1


def test_send_create_with_reused_key_and_other_body_is_a_refusal(client):
    client.send(CREATE_REQUISITION, "k1", requisition_body())

    outcome = client.send(CREATE_REQUISITION, "k1", requisition_body(total="99.00"))

    assert outcome.ok is False
    assert "different body" in outcome.reason
    assert outcome.response == {"detail": outcome.reason}


def test_send_create_with_missing_field_is_a_refusal_naming_it(client, erp_server):
    outcome = client.send(CREATE_REQUISITION, "k1", requisition_body(supplier=""))

    assert outcome == Outcome(ok=False, reason="supplier is required", response={"detail": "supplier is required"})
    assert erp_server.requisitions() == []


def test_send_cancel_answers_ok_and_cancels(client, requisition, erp_server):
    outcome = client.send(CANCEL_REQUISITION, "cancel-1", {"requisition_id": requisition["id"]})

    assert outcome.ok
    assert outcome.external_id == requisition["id"]
    assert erp_server.requisitions()[0]["status"] == "cancelled"


def test_send_cancel_of_unknown_requisition_is_a_refusal(client):
    outcome = client.send(CANCEL_REQUISITION, "cancel-1", {"requisition_id": "REQ-000404"})

    assert outcome.ok is False
    assert "REQ-000404" in outcome.reason


def test_send_issue_purchase_order_answers_ok_with_the_order_id(client, requisition, erp_server):
    body = {"requisition_id": requisition["id"], "external_ref": "task-1"}

    outcome = client.send(ISSUE_PURCHASE_ORDER, "po-1", body)

    assert outcome.ok
    assert outcome.external_id == "PO-000001"
    assert outcome.response["requisition_id"] == requisition["id"]
    assert erp_server.purchase_orders()[0]["status"] == "issued"


def test_send_issue_purchase_order_for_cancelled_requisition_is_a_refusal(client, requisition, erp_server):
    client.cancel_requisition("cancel-1", requisition["id"])

    outcome = client.send(ISSUE_PURCHASE_ORDER, "po-1", {"requisition_id": requisition["id"], "external_ref": "t"})

    assert outcome.ok is False
    assert "cancelled" in outcome.reason
    assert erp_server.purchase_orders() == []


def test_direct_call_raises_erp_refused_with_status_and_detail(client, requisition):
    with pytest.raises(ErpRefused) as refused:
        client.create_requisition("req-key", requisition_body(total="1.00"))

    assert refused.value.status == 409
    assert "different body" in refused.value.detail


# -- lookup -----------------------------------------------------------------------


def test_lookup_create_is_none_before_and_the_requisition_after(client):
    assert client.lookup(CREATE_REQUISITION, "k1", requisition_body()) is None

    sent = client.send(CREATE_REQUISITION, "k1", requisition_body())

    assert client.lookup(CREATE_REQUISITION, "k1", requisition_body()) == sent


def test_lookup_purchase_order_is_none_before_and_the_order_after(client, requisition):
    body = {"requisition_id": requisition["id"], "external_ref": "task-1"}
    assert client.lookup(ISSUE_PURCHASE_ORDER, "po-1", body) is None

    sent = client.send(ISSUE_PURCHASE_ORDER, "po-1", body)

    assert client.lookup(ISSUE_PURCHASE_ORDER, "po-1", body) == sent


def test_lookup_cancel_is_none_while_pending_and_ok_once_cancelled(client, requisition):
    request = {"requisition_id": requisition["id"]}
    assert client.lookup(CANCEL_REQUISITION, "cancel-1", request) is None

    client.send(CANCEL_REQUISITION, "cancel-1", request)
    found = client.lookup(CANCEL_REQUISITION, "cancel-1", request)

    assert found.ok
    assert found.external_id == requisition["id"]
    assert found.response["status"] == "cancelled"


def test_lookup_cancel_of_unknown_requisition_is_none(client):
    assert client.lookup(CANCEL_REQUISITION, "cancel-1", {"requisition_id": "REQ-000404"}) is None


def test_reads_return_what_the_erp_holds(client, requisition):
    assert client.get_requisition(requisition["id"]) == requisition
    assert client.get_requisition("REQ-000404") is None
    assert client.find_requisition("req-key") == requisition
    assert client.find_requisition("other") is None
    assert client.list_requisitions() == [requisition]
    assert client.list_purchase_orders() == []


# -- indeterminate ----------------------------------------------------------------


def test_dropped_answer_is_indeterminate_and_lookup_finds_the_write(client, erp_server):
    erp_server.fault(mode="drop", path="/requisitions", method="POST", times=1)

    with pytest.raises(Indeterminate):
        client.send(CREATE_REQUISITION, "k1", requisition_body())

    found = client.lookup(CREATE_REQUISITION, "k1", requisition_body())
    assert found.ok
    assert found.external_id == erp_server.requisitions()[0]["id"]


def test_dropped_purchase_order_answer_is_indeterminate_and_lookup_finds_it(client, requisition, erp_server):
    erp_server.fault(mode="drop", path="/purchase-orders", method="POST", times=1)
    body = {"requisition_id": requisition["id"], "external_ref": "task-1"}

    with pytest.raises(Indeterminate):
        client.send(ISSUE_PURCHASE_ORDER, "po-1", body)

    assert client.lookup(ISSUE_PURCHASE_ORDER, "po-1", body).external_id == "PO-000001"


def test_5xx_is_indeterminate_and_lookup_confirms_nothing_was_done(client, erp_server):
    erp_server.fault(mode="error", times=1)

    with pytest.raises(Indeterminate):
        client.send(CREATE_REQUISITION, "k1", requisition_body())

    assert client.lookup(CREATE_REQUISITION, "k1", requisition_body()) is None


def test_timeout_is_indeterminate_and_the_slow_write_is_found_later(erp_server):
    client = ErpClient(base_url=erp_server.url, timeout=0.3)
    erp_server.fault(mode="slow", delay=1.0, method="POST", times=1)

    with pytest.raises(Indeterminate):
        client.send(CREATE_REQUISITION, "k1", requisition_body())

    found = eventually(lambda: client.lookup(CREATE_REQUISITION, "k1", requisition_body()))
    assert found is not None and found.ok


def test_erp_down_makes_send_and_lookup_indeterminate(client, erp_server):
    erp_server.fault(mode="down")

    with pytest.raises(Indeterminate):
        client.send(CREATE_REQUISITION, "k1", requisition_body())
    with pytest.raises(Indeterminate):
        client.lookup(CREATE_REQUISITION, "k1", requisition_body())
    assert erp_server.stats()["writes"] == 0


def test_stopped_erp_makes_send_and_lookup_indeterminate(client, erp_server):
    erp_server.stop()

    with pytest.raises(Indeterminate):
        client.send(CREATE_REQUISITION, "k1", requisition_body())
    with pytest.raises(Indeterminate):
        client.lookup(CANCEL_REQUISITION, "c1", {"requisition_id": "REQ-000001"})


def test_nothing_listening_on_the_port_is_indeterminate():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    client = ErpClient(base_url=f"http://127.0.0.1:{closed_port}", timeout=1)

    with pytest.raises(Indeterminate):
        client.send(ISSUE_PURCHASE_ORDER, "po-1", {"requisition_id": "REQ-000001", "external_ref": "t"})


# -- configuration ----------------------------------------------------------------


def test_url_and_timeout_come_from_settings_when_not_given(erp_server):
    from django.test import override_settings

    with override_settings(ERP_URL=erp_server.url, ERP_TIMEOUT_SECONDS=0.5):
        client = ErpClient()

    assert client.timeout == 0.5
    assert client.send(CREATE_REQUISITION, "k1", requisition_body()).external_id == "REQ-000001"


def test_write_without_a_key_is_refused_before_anything_is_sent(client, erp_server):
    with pytest.raises(ValueError):
        client.create_requisition("", requisition_body())

    assert erp_server.stats()["writes"] == 0
