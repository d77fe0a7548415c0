"""Invoicing after the purchase order (DESIGN §16): the 統一編號 check, the 營業稅 on a subtotal,
the e-invoice QR code, supplier invoices (進項發票) and the PO as a printable document.

Goods receipts and the post-PO states of the workflow live elsewhere; this package reads them."""
