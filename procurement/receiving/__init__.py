"""Receiving (驗收, DESIGN §16): what arrived against the purchase order, per PO line, posted to the
ERP once; returns (退貨); closing the rest short; and where a request stands after its PO
(ordered / received / invoiced, and the state in words). Invoices live in `procurement.invoicing`.

- `models`: goods receipts and their lines; `access`: who may receive or close (read layer);
- `progress`: per line ordered / accepted / rejected, and the words for where it stands;
- `services`: `goods_receipt_record`, `goods_receipt_post`, `purchase_order_close_short`.
"""
