"""The ERP client: the wire protocol of DESIGN §10, with every failure classified.

A clear answer is either the object (2xx) or a refusal (`ErpRefused`, a 4xx). Anything
that leaves us unable to tell whether the ERP acted - timeout, refused or dropped
connection, 5xx - raises `Indeterminate`, so the receipt protocol looks the key up
instead of resending blindly.
"""
import threading
from urllib.parse import quote

import requests

from agentstate import trace
from agentstate.external import Indeterminate, Outcome, refuse_if_dry_run
from django.conf import settings

CREATE_REQUISITION = "erp.requisition.create"
CANCEL_REQUISITION = "erp.requisition.cancel"
ISSUE_PURCHASE_ORDER = "erp.purchase_order.issue"
POST_SUPPLIER_INVOICE = "erp.supplier_invoice.post"
# After the PO (DESIGN §16): a goods receipt (or a return) posted, the rest of the order closed short.
POST_GOODS_RECEIPT = "erp.goods_receipt.post"
CLOSE_PURCHASE_ORDER = "erp.purchase_order.close"

# One HTTP session per thread, so a step's calls (and the next step's) reuse a kept-alive connection
# instead of opening one per call; requests' sessions are not shared across threads.
_SESSIONS = threading.local()

# 4xx answers that mean "not now" rather than "no": the request may be retried, so
# treating them as a final refusal would fail a receipt that could still succeed.
TRANSIENT_4XX = {408, 425, 429}


class ErpRefused(Exception):
    """The ERP understood the request and said no (4xx); nothing was done."""

    def __init__(self, status: int, detail: str, body: dict | None = None):
        super().__init__(f"ERP refused ({status}): {detail}")
        self.status = status
        self.detail = detail
        self.body = body if body is not None else {"detail": detail}


class ErpClient:
    def __init__(self, base_url: str | None = None, timeout: float | None = None):
        if base_url is None or timeout is None:
            base_url = base_url if base_url is not None else settings.ERP_URL
            timeout = timeout if timeout is not None else settings.ERP_TIMEOUT_SECONDS
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)

    # -- the protocol -------------------------------------------------------------

    def create_requisition(self, key: str, body: dict) -> dict:
        return self._call("POST", "/requisitions", key=key, body=body)

    def cancel_requisition(self, key: str, requisition_id: str) -> dict:
        return self._call("POST", f"/requisitions/{quote(requisition_id, safe='')}/cancel", key=key)

    def get_requisition(self, requisition_id: str) -> dict | None:
        try:
            return self._call("GET", f"/requisitions/{quote(requisition_id, safe='')}")
        except ErpRefused as refusal:
            if refusal.status == 404:
                return None
            raise

    def find_requisition(self, key: str) -> dict | None:
        return self._find("/requisitions", key)

    def list_requisitions(self) -> list[dict]:
        return self._call("GET", "/requisitions")["results"]

    def issue_purchase_order(self, key: str, body: dict) -> dict:
        return self._call("POST", "/purchase-orders", key=key, body=body)

    def find_purchase_order(self, key: str) -> dict | None:
        return self._find("/purchase-orders", key)

    def list_purchase_orders(self) -> list[dict]:
        return self._call("GET", "/purchase-orders")["results"]

    def get_purchase_order(self, purchase_order_id: str) -> dict | None:
        try:
            return self._call("GET", f"/purchase-orders/{quote(purchase_order_id, safe='')}")
        except ErpRefused as refusal:
            if refusal.status == 404:
                return None
            raise

    def post_supplier_invoice(self, key: str, body: dict) -> dict:
        return self._call("POST", "/supplier-invoices", key=key, body=body)

    def find_supplier_invoice(self, key: str) -> dict | None:
        return self._find("/supplier-invoices", key)

    def list_supplier_invoices(self) -> list[dict]:
        return self._call("GET", "/supplier-invoices")["results"]
    def close_purchase_order(self, key: str, order_id: str, reason: str) -> dict:
        return self._call("POST", f"/purchase-orders/{quote(order_id, safe='')}/close", key=key,
                          body={"reason": reason})

    def post_goods_receipt(self, key: str, body: dict) -> dict:
        return self._call("POST", "/goods-receipts", key=key, body=body)

    def find_goods_receipt(self, key: str) -> dict | None:
        return self._find("/goods-receipts", key)

    # -- agentstate.external.ExternalClient ---------------------------------------

    def send(self, operation: str, key: str, request: dict) -> Outcome:
        """Do `operation` under `key`. A refusal is an Outcome; Indeterminate propagates."""
        try:
            if operation == CREATE_REQUISITION:
                obj = self.create_requisition(key, request)
            elif operation == CANCEL_REQUISITION:
                obj = self.cancel_requisition(key, request["requisition_id"])
            elif operation == ISSUE_PURCHASE_ORDER:
                obj = self.issue_purchase_order(key, request)
            elif operation == POST_SUPPLIER_INVOICE:
                obj = self.post_supplier_invoice(key, request)
            elif operation == POST_GOODS_RECEIPT:
                obj = self.post_goods_receipt(key, request)
            elif operation == CLOSE_PURCHASE_ORDER:
                obj = self.close_purchase_order(key, request["purchase_order_id"], request["reason"])
            else:
                raise ValueError(f"unknown ERP operation {operation!r}")
        except ErpRefused as refusal:
            return Outcome(ok=False, reason=refusal.detail, response=refusal.body)
        return _done(obj)

    def lookup(self, operation: str, key: str, request: dict) -> Outcome | None:
        """What `key` did: an ok Outcome, or None when the ERP confirms it did nothing."""
        try:
            if operation == CREATE_REQUISITION:
                found = self.find_requisition(key)
            elif operation == ISSUE_PURCHASE_ORDER:
                found = self.find_purchase_order(key)
            elif operation == POST_SUPPLIER_INVOICE:
                found = self.find_supplier_invoice(key)
            elif operation == CANCEL_REQUISITION:
                # Cancels are idempotent by state, not stored by key: the requisition
                # being cancelled is the evidence that the cancel took effect.
                found = self.get_requisition(request["requisition_id"])
                if found is not None and found.get("status") != "cancelled":
                    found = None
            elif operation == POST_GOODS_RECEIPT:
                found = self.find_goods_receipt(key)
            elif operation == CLOSE_PURCHASE_ORDER:
                # Like a cancel: the order being closed is the evidence that the close took effect.
                found = self.get_purchase_order(request["purchase_order_id"])
                if found is not None and found.get("status") != "closed":
                    found = None
            else:
                raise ValueError(f"unknown ERP operation {operation!r}")
        except ErpRefused as refusal:
            # A lookup the ERP will not answer tells us nothing about the write.
            raise Indeterminate(f"ERP lookup refused: {refusal.detail}") from refusal
        return None if found is None else _done(found)

    # -- transport ----------------------------------------------------------------

    def _find(self, path: str, key: str) -> dict | None:
        results = self._call("GET", path, params={"idempotency_key": key})["results"]
        if len(results) > 1:
            raise Indeterminate(f"ERP returned {len(results)} objects for one key at {path}")
        return results[0] if results else None

    def _call(self, method: str, path: str, *, key: str | None = None, body: dict | None = None,
              params: dict | None = None) -> dict:
        headers = {"Accept": "application/json"}
        # The call is part of its task's trace (W3C trace context; OpenTelemetry, when it instruments
        # requests, writes the same trace id with its own span id).
        parent = trace.traceparent()
        if parent:
            headers["traceparent"] = parent
        if method == "POST":
            if not key:
                raise ValueError("every ERP write needs an idempotency key")
            headers["Idempotency-Key"] = key
        where = f"{method} {path}"
        refuse_if_dry_run(f"ERP {where}")
        try:
            response = _session().request(
                method, self.base_url + path, json=body, params=params, headers=headers,
                timeout=(self.timeout, self.timeout), allow_redirects=False,
            )
        except requests.RequestException as exc:
            raise Indeterminate(f"ERP {where}: no answer ({type(exc).__name__}: {exc})") from exc
        payload = _json_or_none(response)
        status = response.status_code
        if 400 <= status < 500 and status not in TRANSIENT_4XX:
            detail = _detail(payload) or response.reason or "refused"
            raise ErpRefused(status, detail, payload if isinstance(payload, dict) else None)
        if not 200 <= status < 300:
            raise Indeterminate(f"ERP {where}: HTTP {status} {_detail(payload) or response.reason}")
        if not isinstance(payload, dict):
            # It said yes but we cannot read what it made, so we cannot record it.
            raise Indeterminate(f"ERP {where}: HTTP {status} with an unreadable body")
        return payload


def _session() -> requests.Session:
    session = getattr(_SESSIONS, "session", None)
    if session is None:
        session = _SESSIONS.session = requests.Session()
    return session


def _done(obj: dict) -> Outcome:
    if not obj.get("id"):
        raise Indeterminate("ERP answered without the id of what it made")
    return Outcome(ok=True, external_id=str(obj["id"]), response=obj)


def _json_or_none(response: requests.Response):
    try:
        return response.json()
    except ValueError:
        return None


def _detail(payload) -> str:
    if isinstance(payload, dict) and payload.get("detail"):
        return str(payload["detail"])
    return ""
