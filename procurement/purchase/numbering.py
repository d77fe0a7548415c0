"""Request numbers people can say aloud: REQ-<year>-<five digits>, counted per year (Asia/Taipei).

The year segment keeps them apart from the ERP's own requisition ids (REQ-000042). A number is
given when a request is confirmed (`services.request_submit`, which chat and API both call) and
never reused; a request abandoned as a chat draft never takes one."""
from django.db import connection
from django.utils import timezone

from procurement.models import RequestCounter

# One statement on PostgreSQL and SQLite (3.35+): the row lock it takes is held until commit,
# so two confirmations in the same year are numbered one after the other, never alike.
_NEXT = (f"INSERT INTO {RequestCounter._meta.db_table} (year, last) VALUES (%s, 1) "
         f"ON CONFLICT (year) DO UPDATE SET last = {RequestCounter._meta.db_table}.last + 1 RETURNING last")


def format_number(year: int, seq: int) -> str:
    return f"REQ-{year}-{seq:05d}"


def request_number_next(now=None) -> str:
    """The next number; call it inside the transaction that creates the request."""
    year = timezone.localtime(now).year
    with connection.cursor() as cursor:
        cursor.execute(_NEXT, [year])
        (seq,) = cursor.fetchone()
    return format_number(year, seq)
