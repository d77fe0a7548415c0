"""Checking request bodies and fingerprinting them, so a replayed key can be compared."""
import json
from decimal import Decimal, InvalidOperation

from .errors import Invalid

REQUISITION_FIELDS = ("external_ref", "department", "requester", "supplier", "currency", "total", "lines")
PURCHASE_ORDER_FIELDS = ("requisition_id", "external_ref")
LINE_FIELDS = ("description", "quantity", "unit_price")
SUPPLIER_INVOICE_FIELDS = ("purchase_order_id", "external_ref", "number", "date", "seller_tax_id", "subtotal", "tax",
                           "total", "lines")
GOODS_RECEIPT_FIELDS = ("purchase_order_id", "external_ref", "lines")


def fingerprint(body: dict) -> str:
    """Canonical JSON: the same body always gives the same string, whatever the key order."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_requisition(body: dict) -> None:
    _require(body, REQUISITION_FIELDS, where="")
    _check_amount(body["total"], "total")
    _check_lines(body["lines"], required=True)


def check_purchase_order(body: dict) -> None:
    _require(body, PURCHASE_ORDER_FIELDS, where="")
    if "total" in body:
        _check_amount(body["total"], "total")
    if "lines" in body:
        _check_lines(body["lines"], required=False)


def check_supplier_invoice(body: dict) -> None:
    _require(body, SUPPLIER_INVOICE_FIELDS, where="")
    for name in ("subtotal", "tax", "total"):
        _check_amount(body[name], name)
    _check_lines(body["lines"], required=True)
def check_goods_receipt(body: dict) -> None:
    """Per line what was accepted (negative: a return) and rejected (never negative)."""
    _require(body, GOODS_RECEIPT_FIELDS, where="")
    if not isinstance(body["lines"], list):
        raise Invalid("lines must be a non-empty list")
    for index, line in enumerate(body["lines"]):
        if not isinstance(line, dict) or not line.get("description"):
            raise Invalid(f"lines[{index}].description is required")
        for name in ("accepted", "rejected"):
            if isinstance(line.get(name), bool) or not isinstance(line.get(name), int):
                raise Invalid(f"lines[{index}].{name} must be a whole number")
        if line["rejected"] < 0:
            raise Invalid(f"lines[{index}].rejected must not be negative")


def check_purchase_order_close(body: dict) -> None:
    _require(body, ("reason",), where="")


def _require(body: dict, names: tuple[str, ...], *, where: str) -> None:
    for name in names:
        value = body.get(name)
        if value is None or value == "" or value == []:
            raise Invalid(f"{where}{name} is required")


def _check_lines(lines, *, required: bool) -> None:
    if not isinstance(lines, list) or (required and not lines):
        raise Invalid("lines must be a non-empty list")
    for index, line in enumerate(lines):
        where = f"lines[{index}]."
        if not isinstance(line, dict):
            raise Invalid(f"lines[{index}] must be an object")
        _require(line, LINE_FIELDS, where=where)
        _check_amount(line["quantity"], where + "quantity")
        _check_amount(line["unit_price"], where + "unit_price")


def _check_amount(value, name: str) -> None:
    # Money travels as a decimal string ("36750.00"); plain numbers are accepted too.
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise Invalid(f"{name} must be a number or a decimal string")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise Invalid(f"{name} must be a number or a decimal string") from None
    if not amount.is_finite() or amount < 0:
        raise Invalid(f"{name} must be a finite, non-negative amount")
