"""The file broker of `make run` delivers whole messages: one being written is invisible to a
worker polling the folder (a half-written file once killed the worker)."""
from queue import Empty

import pytest
from kombu import Connection

from procurement.infra import broker


@pytest.fixture
def channel(tmp_path):
    folder = str(tmp_path)
    options = {"data_folder_in": folder, "data_folder_out": folder, "store_processed": False}
    with Connection("filesystem://", transport="procurement.infra.broker:Transport", transport_options=options) as conn:
        yield conn.default_channel


def test_a_message_being_written_is_not_visible_to_a_reader(channel, monkeypatch):
    seen_while_writing = []
    real = broker.str_to_bytes

    def write_and_peek(text):
        try:
            seen_while_writing.append(channel._get("agent"))
        except Empty:
            seen_while_writing.append(None)
        return real(text)

    monkeypatch.setattr(broker, "str_to_bytes", write_and_peek)
    channel._put("agent", {"body": "step"})

    assert seen_while_writing == [None]
    assert channel._get("agent") == {"body": "step"}


def test_nothing_half_written_is_left_behind(channel, tmp_path):
    channel._put("agent", {"body": "step"})
    assert [p.name.endswith(".agent.msg") for p in tmp_path.iterdir()] == [True]
