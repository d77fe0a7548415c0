"""The endpoints: each takes a parsed request and answers (status, JSON payload).

Protocol endpoints follow DESIGN §10. Endpoints under `/_` are the simulator's own
controls (faults, reset, stats) and never have faults applied to them.
"""
import json
import re
from collections import deque
from dataclasses import dataclass, field

from .errors import ErpError, Invalid, NotFound
from .faults import FaultBoard, parse_fault
from .store import Store

Answer = tuple[int, dict]


@dataclass
class Request:
    method: str
    path: str
    raw_body: bytes = b""
    query: dict[str, list[str]] = field(default_factory=dict)
    idempotency_key: str | None = None
    traceparent: str | None = None  # the W3C trace context the caller sent, kept as it came

    def json(self) -> dict:
        try:
            body = json.loads(self.raw_body or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise Invalid("body is not valid JSON") from None
        if not isinstance(body, dict):
            raise Invalid("body must be a JSON object")
        return body

    def require_key(self) -> str:
        if not self.idempotency_key:
            raise Invalid("Idempotency-Key header is required on every write")
        return self.idempotency_key

    def key_filter(self) -> str | None:
        """The optional `?idempotency_key=K`; any other filter is refused, not ignored."""
        unknown = set(self.query) - {"idempotency_key"}
        if unknown:
            raise Invalid(f"unknown filter: {', '.join(sorted(unknown))}")
        values = self.query.get("idempotency_key")
        return values[-1] if values else None


@dataclass
class Context:
    store: Store
    faults: FaultBoard
    # Every protocol request that reached the simulator (control paths not counted), so a test can
    # show that a dry run sent nothing at all, reads included.
    requests: int = 0
    # The latest protocol requests as they arrived (method, path, key, traceparent), for `/_requests`.
    seen: deque = field(default_factory=lambda: deque(maxlen=1000))


def _created_or_replayed(result: tuple[dict, bool]) -> Answer:
    obj, created = result
    return (201 if created else 200), obj


# -- protocol -------------------------------------------------------------------


def create_requisition(ctx: Context, request: Request) -> Answer:
    key = request.require_key()
    return _created_or_replayed(ctx.store.create_requisition(key, request.json()))


def list_requisitions(ctx: Context, request: Request) -> Answer:
    return 200, {"results": ctx.store.find_requisitions(request.key_filter())}


def get_requisition(ctx: Context, request: Request, requisition_id: str) -> Answer:
    requisition = ctx.store.get_requisition(requisition_id)
    if requisition is None:
        raise NotFound(f"requisition {requisition_id} does not exist")
    return 200, requisition


def cancel_requisition(ctx: Context, request: Request, requisition_id: str) -> Answer:
    request.require_key()
    requisition, _changed = ctx.store.cancel_requisition(requisition_id)
    return 200, requisition


def issue_purchase_order(ctx: Context, request: Request) -> Answer:
    key = request.require_key()
    return _created_or_replayed(ctx.store.issue_purchase_order(key, request.json()))


def list_purchase_orders(ctx: Context, request: Request) -> Answer:
    return 200, {"results": ctx.store.find_purchase_orders(request.key_filter())}


def get_purchase_order(ctx: Context, request: Request, order_id: str) -> Answer:
    order = ctx.store.get_purchase_order(order_id)
    if order is None:
        raise NotFound(f"purchase order {order_id} does not exist")
    return 200, order


def post_supplier_invoice(ctx: Context, request: Request) -> Answer:
    key = request.require_key()
    return _created_or_replayed(ctx.store.post_supplier_invoice(key, request.json()))


def list_supplier_invoices(ctx: Context, request: Request) -> Answer:
    return 200, {"results": ctx.store.find_supplier_invoices(request.key_filter())}
def close_purchase_order(ctx: Context, request: Request, order_id: str) -> Answer:
    request.require_key()
    order, _changed = ctx.store.close_purchase_order(order_id, request.json())
    return 200, order


def post_goods_receipt(ctx: Context, request: Request) -> Answer:
    key = request.require_key()
    return _created_or_replayed(ctx.store.post_goods_receipt(key, request.json()))


def list_goods_receipts(ctx: Context, request: Request) -> Answer:
    return 200, {"results": ctx.store.find_goods_receipts(request.key_filter())}


# -- simulator controls ---------------------------------------------------------


def show_faults(ctx: Context, request: Request) -> Answer:
    return 200, {"faults": ctx.faults.describe()}


def add_fault(ctx: Context, request: Request) -> Answer:
    ctx.faults.add(parse_fault(request.json()))
    return 201, {"faults": ctx.faults.describe()}


def clear_faults(ctx: Context, request: Request) -> Answer:
    ctx.faults.clear()
    return 200, {"faults": []}


def reset(ctx: Context, request: Request) -> Answer:
    ctx.faults.clear()
    ctx.store.reset()
    ctx.seen.clear()
    return 200, ctx.store.stats()


def requests_seen(ctx: Context, request: Request) -> Answer:
    """The latest protocol requests, oldest first, with the `traceparent` header each carried."""
    return 200, {"results": list(ctx.seen)}


def stats(ctx: Context, request: Request) -> Answer:
    return 200, {**ctx.store.stats(), "requests": ctx.requests}


ROUTES = [
    ("POST", r"/requisitions", create_requisition),
    ("GET", r"/requisitions", list_requisitions),
    ("GET", r"/requisitions/(?P<requisition_id>[^/]+)", get_requisition),
    ("POST", r"/requisitions/(?P<requisition_id>[^/]+)/cancel", cancel_requisition),
    ("POST", r"/purchase-orders", issue_purchase_order),
    ("GET", r"/purchase-orders", list_purchase_orders),
    ("GET", r"/purchase-orders/(?P<order_id>[^/]+)", get_purchase_order),
    ("POST", r"/supplier-invoices", post_supplier_invoice),
    ("GET", r"/supplier-invoices", list_supplier_invoices),
    ("POST", r"/purchase-orders/(?P<order_id>[^/]+)/close", close_purchase_order),
    ("POST", r"/goods-receipts", post_goods_receipt),
    ("GET", r"/goods-receipts", list_goods_receipts),
    ("GET", r"/_faults", show_faults),
    ("POST", r"/_faults", add_fault),
    ("DELETE", r"/_faults", clear_faults),
    ("POST", r"/_reset", reset),
    ("GET", r"/_stats", stats),
    ("GET", r"/_requests", requests_seen),
]
_COMPILED = [(method, re.compile(pattern + r"/?"), endpoint) for method, pattern, endpoint in ROUTES]


def is_control_path(path: str) -> bool:
    return path.startswith("/_")


def answer(ctx: Context, request: Request) -> Answer:
    """Route the request; a refusal becomes `{"detail": ...}` with its status."""
    path_known = False
    for method, pattern, endpoint in _COMPILED:
        match = pattern.fullmatch(request.path)
        if match is None:
            continue
        path_known = True
        if method == request.method:
            try:
                return endpoint(ctx, request, **match.groupdict())
            except ErpError as refusal:
                return refusal.status, {"detail": refusal.detail}
    if path_known:
        return 405, {"detail": f"{request.method} is not allowed on {request.path}"}
    return 404, {"detail": f"no endpoint at {request.path}"}
