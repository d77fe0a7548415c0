"""The simulator's own storage: requisitions and purchase orders in one SQLite file.

Each call opens its own connection, and every write runs under `BEGIN IMMEDIATE`, so
concurrent requests with the same key are serialised by SQLite itself; the UNIQUE
constraint on each table's idempotency key is the backstop if that ever changes.
"""
import json
import sqlite3
from contextlib import closing, contextmanager
from datetime import datetime, timezone
from pathlib import Path

from .errors import Conflict, NotFound
from .payloads import (
    check_goods_receipt,
    check_purchase_order,
    check_purchase_order_close,
    check_requisition,
    check_supplier_invoice,
    fingerprint,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS requisitions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    cancelled_at TEXT
);
CREATE TABLE IF NOT EXISTS purchase_orders (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    requisition_id TEXT NOT NULL UNIQUE REFERENCES requisitions (id),
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS supplier_invoices (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    purchase_order_id TEXT NOT NULL REFERENCES purchase_orders (id),
    seller_tax_id TEXT NOT NULL,
    number TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (seller_tax_id, number)
);
CREATE TABLE IF NOT EXISTS goods_receipts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    idempotency_key TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    purchase_order_id TEXT NOT NULL REFERENCES purchase_orders (id),
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS writes (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    object_id TEXT NOT NULL
);
"""

# A purchase order copies these from its requisition unless the request says otherwise.
INHERITED_BY_PURCHASE_ORDER = ("supplier", "currency", "total", "lines", "department")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN ourselves, so a write's lock is explicit.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        return db

    @contextmanager
    def _reading(self):
        with closing(self._connect()) as db:
            yield db

    @contextmanager
    def _writing(self):
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # -- requisitions -------------------------------------------------------------

    def create_requisition(self, key: str, body: dict) -> tuple[dict, bool]:
        """Returns (requisition, created). A replayed key gives back the first object."""
        check_requisition(body)
        body_print = fingerprint(body)
        with self._writing() as db:
            existing = _one(db, "SELECT * FROM requisitions WHERE idempotency_key = ?", key)
            if existing is not None:
                return _replayed(existing, body_print, key, _requisition), False
            requisition_id = f"REQ-{_next_seq(db, 'requisitions'):06d}"
            db.execute(
                "INSERT INTO requisitions (id, idempotency_key, fingerprint, status, data, created_at)"
                " VALUES (?, ?, ?, 'pending_approval', ?, ?)",
                (requisition_id, key, body_print, json.dumps(body), _now()),
            )
            _log_write(db, "requisition.create", requisition_id)
            row = _one(db, "SELECT * FROM requisitions WHERE id = ?", requisition_id)
        return _requisition(row), True

    def cancel_requisition(self, requisition_id: str) -> tuple[dict, bool]:
        """Returns (requisition, changed). Cancelling twice is not an error."""
        with self._writing() as db:
            row = _one(db, "SELECT * FROM requisitions WHERE id = ?", requisition_id)
            if row is None:
                raise NotFound(f"requisition {requisition_id} does not exist")
            if row["status"] == "cancelled":
                return _requisition(row), False
            order = _one(db, "SELECT id FROM purchase_orders WHERE requisition_id = ?", requisition_id)
            if order is not None:
                raise Conflict(
                    f"requisition {requisition_id} already has purchase order {order['id']};"
                    " it can no longer be cancelled"
                )
            db.execute(
                "UPDATE requisitions SET status = 'cancelled', cancelled_at = ? WHERE id = ?",
                (_now(), requisition_id),
            )
            _log_write(db, "requisition.cancel", requisition_id)
            row = _one(db, "SELECT * FROM requisitions WHERE id = ?", requisition_id)
        return _requisition(row), True

    def get_requisition(self, requisition_id: str) -> dict | None:
        with self._reading() as db:
            row = _one(db, "SELECT * FROM requisitions WHERE id = ?", requisition_id)
        return None if row is None else _requisition(row)

    def find_requisitions(self, key: str | None = None) -> list[dict]:
        return [_requisition(row) for row in self._rows("requisitions", key)]

    # -- purchase orders ----------------------------------------------------------

    def issue_purchase_order(self, key: str, body: dict) -> tuple[dict, bool]:
        """Returns (purchase order, created). Same key rule as requisitions."""
        check_purchase_order(body)
        body_print = fingerprint(body)
        requisition_id = body["requisition_id"]
        with self._writing() as db:
            existing = _one(db, "SELECT * FROM purchase_orders WHERE idempotency_key = ?", key)
            if existing is not None:
                return _replayed(existing, body_print, key, _purchase_order), False
            requisition = _one(db, "SELECT * FROM requisitions WHERE id = ?", requisition_id)
            if requisition is None:
                raise NotFound(f"requisition {requisition_id} does not exist")
            if requisition["status"] == "cancelled":
                raise Conflict(f"requisition {requisition_id} is cancelled")
            other = _one(db, "SELECT id FROM purchase_orders WHERE requisition_id = ?", requisition_id)
            if other is not None:
                raise Conflict(f"requisition {requisition_id} already has purchase order {other['id']}")
            inherited = json.loads(requisition["data"])
            data = {name: inherited[name] for name in INHERITED_BY_PURCHASE_ORDER if name in inherited}
            data.update(body)
            order_id = f"PO-{_next_seq(db, 'purchase_orders'):06d}"
            db.execute(
                "INSERT INTO purchase_orders"
                " (id, idempotency_key, fingerprint, requisition_id, status, data, created_at)"
                " VALUES (?, ?, ?, ?, 'issued', ?, ?)",
                (order_id, key, body_print, requisition_id, json.dumps(data), _now()),
            )
            # The requisition is now ordered, as a real ERP shows it (no longer waiting for approval).
            db.execute("UPDATE requisitions SET status = 'ordered' WHERE id = ?", (requisition_id,))
            _log_write(db, "purchase_order.issue", order_id)
            row = _one(db, "SELECT * FROM purchase_orders WHERE id = ?", order_id)
        return _purchase_order(row), True

    def find_purchase_orders(self, key: str | None = None) -> list[dict]:
        return [_purchase_order(row) for row in self._rows("purchase_orders", key)]

    def close_purchase_order(self, order_id: str, body: dict) -> tuple[dict, bool]:
        """Close what is left of the order (the supplier cannot deliver it). Returns (order,
        changed); closing twice is not an error."""
        check_purchase_order_close(body)
        with self._writing() as db:
            row = _one(db, "SELECT * FROM purchase_orders WHERE id = ?", order_id)
            if row is None:
                raise NotFound(f"purchase order {order_id} does not exist")
            if row["status"] == "closed":
                return _purchase_order(row), False
            data = {**json.loads(row["data"]), "close_reason": body["reason"], "closed_at": _now()}
            db.execute("UPDATE purchase_orders SET status = 'closed', data = ? WHERE id = ?",
                       (json.dumps(data), order_id))
            _log_write(db, "purchase_order.close", order_id)
            row = _one(db, "SELECT * FROM purchase_orders WHERE id = ?", order_id)
        return _purchase_order(row), True

    def get_purchase_order(self, order_id: str) -> dict | None:
        with self._reading() as db:
            row = _one(db, "SELECT * FROM purchase_orders WHERE id = ?", order_id)
        return None if row is None else _purchase_order(row)

    # -- supplier invoices --------------------------------------------------------

    def post_supplier_invoice(self, key: str, body: dict) -> tuple[dict, bool]:
        """Returns (invoice, created). Same key rule; the same seller and number under another key is refused."""
        check_supplier_invoice(body)
        body_print = fingerprint(body)
        seller, number, order_id = str(body["seller_tax_id"]), str(body["number"]), str(body["purchase_order_id"])
        with self._writing() as db:
            existing = _one(db, "SELECT * FROM supplier_invoices WHERE idempotency_key = ?", key)
            if existing is not None:
                return _replayed(existing, body_print, key, _supplier_invoice), False
            if _one(db, "SELECT id FROM purchase_orders WHERE id = ?", order_id) is None:
                raise NotFound(f"purchase order {order_id} does not exist")
            other = _one(db, "SELECT id FROM supplier_invoices WHERE seller_tax_id = ? AND number = ?", seller, number)
            if other is not None:
                raise Conflict(f"invoice {number} from {seller} is already posted as {other['id']}")
            invoice_id = f"SI-{_next_seq(db, 'supplier_invoices'):06d}"
            db.execute(
                "INSERT INTO supplier_invoices (id, idempotency_key, fingerprint, purchase_order_id, seller_tax_id,"
                " number, status, data, created_at) VALUES (?, ?, ?, ?, ?, ?, 'posted', ?, ?)",
                (invoice_id, key, body_print, order_id, seller, number, json.dumps(body), _now()),
            )
            _log_write(db, "supplier_invoice.post", invoice_id)
            row = _one(db, "SELECT * FROM supplier_invoices WHERE id = ?", invoice_id)
        return _supplier_invoice(row), True

    def find_supplier_invoices(self, key: str | None = None) -> list[dict]:
        return [_supplier_invoice(row) for row in self._rows("supplier_invoices", key)]
    # -- goods receipts -----------------------------------------------------------

    def post_goods_receipt(self, key: str, body: dict) -> tuple[dict, bool]:
        """Returns (goods receipt, created). Same key rule as requisitions."""
        check_goods_receipt(body)
        body_print = fingerprint(body)
        order_id = body["purchase_order_id"]
        with self._writing() as db:
            existing = _one(db, "SELECT * FROM goods_receipts WHERE idempotency_key = ?", key)
            if existing is not None:
                return _replayed(existing, body_print, key, _goods_receipt), False
            order = _one(db, "SELECT id FROM purchase_orders WHERE id = ?", order_id)
            if order is None:
                raise NotFound(f"purchase order {order_id} does not exist")
            receipt_id = f"GR-{_next_seq(db, 'goods_receipts'):06d}"
            db.execute(
                "INSERT INTO goods_receipts (id, idempotency_key, fingerprint, purchase_order_id, status, data,"
                " created_at) VALUES (?, ?, ?, ?, 'posted', ?, ?)",
                (receipt_id, key, body_print, order_id, json.dumps(body), _now()),
            )
            _log_write(db, "goods_receipt.post", receipt_id)
            row = _one(db, "SELECT * FROM goods_receipts WHERE id = ?", receipt_id)
        return _goods_receipt(row), True

    def find_goods_receipts(self, key: str | None = None) -> list[dict]:
        return [_goods_receipt(row) for row in self._rows("goods_receipts", key)]

    # -- housekeeping -------------------------------------------------------------

    def _rows(self, table: str, key: str | None) -> list[sqlite3.Row]:
        with self._reading() as db:
            if key is None:
                return db.execute(f"SELECT * FROM {table} ORDER BY seq").fetchall()
            return db.execute(f"SELECT * FROM {table} WHERE idempotency_key = ?", (key,)).fetchall()

    def stats(self) -> dict:
        with self._reading() as db:
            count = lambda table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: E731
            return {
                "requisitions": count("requisitions"),
                "purchase_orders": count("purchase_orders"),
                "supplier_invoices": count("supplier_invoices"),
                "goods_receipts": count("goods_receipts"),
                "writes": count("writes"),
            }

    def reset(self) -> None:
        with self._writing() as db:
            for table in ("writes", "supplier_invoices", "goods_receipts", "purchase_orders", "requisitions"):
                db.execute(f"DELETE FROM {table}")


def _one(db: sqlite3.Connection, sql: str, *params) -> sqlite3.Row | None:
    return db.execute(sql, params).fetchone()


def _next_seq(db: sqlite3.Connection, table: str) -> int:
    return db.execute(f"SELECT COALESCE(MAX(seq), 0) + 1 FROM {table}").fetchone()[0]


def _log_write(db: sqlite3.Connection, kind: str, object_id: str) -> None:
    db.execute("INSERT INTO writes (at, kind, object_id) VALUES (?, ?, ?)", (_now(), kind, object_id))


def _replayed(row: sqlite3.Row, body_print: str, key: str, to_object) -> dict:
    if row["fingerprint"] != body_print:
        raise Conflict(f"Idempotency-Key {key!r} was already used with a different body")
    return to_object(row)


def _requisition(row: sqlite3.Row) -> dict:
    extra = {"cancelled_at": row["cancelled_at"]} if row["cancelled_at"] else {}
    return _object(row, **extra)


def _purchase_order(row: sqlite3.Row) -> dict:
    return _object(row, requisition_id=row["requisition_id"])


def _supplier_invoice(row: sqlite3.Row) -> dict:
    return _object(row, purchase_order_id=row["purchase_order_id"])


def _goods_receipt(row: sqlite3.Row) -> dict:
    return _object(row, purchase_order_id=row["purchase_order_id"])


def _object(row: sqlite3.Row, **columns) -> dict:
    # The stored body cannot override what the ERP itself decides (id, status, ...).
    obj = {"id": row["id"], "status": row["status"]}
    obj.update(json.loads(row["data"]))
    obj.update(id=row["id"], status=row["status"], idempotency_key=row["idempotency_key"])
    obj.update(created_at=row["created_at"], **columns)
    return obj
