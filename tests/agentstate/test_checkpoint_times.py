"""A checkpoint's time is comparable with the ORM's aware times whatever the database gives the raw
cursor: SQLite hands back a naive UTC time or its text (the rewind's effects list compared them)."""
import datetime

from agentstate.sql import _aware

UTC = datetime.timezone.utc


def test_a_naive_time_from_sqlite_is_read_as_utc():
    assert _aware(datetime.datetime(2026, 11, 30, 8, 0)) == datetime.datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def test_text_from_sqlite_is_read_as_utc():
    assert _aware("2026-11-30 08:00:00.123456") == datetime.datetime(2026, 11, 30, 8, 0, 0, 123456, tzinfo=UTC)


def test_an_aware_time_from_postgresql_is_kept():
    taipei = datetime.timezone(datetime.timedelta(hours=8))
    value = datetime.datetime(2026, 11, 30, 16, 0, tzinfo=taipei)
    assert _aware(value) is value
