"""Notices: what each person (and the supplier) is told when a request moves, by mail through
the outbox and in the page header, once each, in the recipient's language (DESIGN §14)."""
