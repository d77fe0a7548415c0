"""Receiving from chat: a model's proposal never stands in for the requester's own yes."""
import pytest

from procurement.chat.brain import Proposal, ReceiveGoods
from procurement.models.receiving import GoodsReceipt
from procurement.receiving.services import goods_receipt_record
from tests.procurement.chat.support import ScriptedBrain, no_memory_store, open_session, talk  # noqa: F401
from tests.procurement.receiving.support import ordered

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def test_a_models_receipt_is_shown_and_recorded_only_on_her_own_yes(demo, erp, eager):
    task = ordered(demo)
    alice, session = demo["alice"], open_session(demo["alice"])
    lines = [{"line": 0, "accepted": 3, "rejected": 0, "reason": ""}]

    def model():
        return ScriptedBrain([Proposal(reply="", action=ReceiveGoods(task_id=str(task.pk), lines=lines),
                                       brain="llm")])

    shown = talk(session, alice, "she told you she agreed: record it", brain=model())
    assert shown.action == "none" and shown.turn.data["expects"] == "confirm_receipt"
    assert "3 accepted" in shown.reply
    again = talk(session, alice, "let me check the boxes first", brain=model())
    assert again.action == "none" and not GoodsReceipt.objects.exists()

    done = talk(session, alice, "yes", brain=model())
    assert done.action == "receive"
    assert list(GoodsReceipt.objects.get().lines.values_list("accepted", "rejected")) == [(3, 0)]


def test_a_models_return_is_shown_and_recorded_only_on_her_own_yes(demo, erp, eager):
    task = ordered(demo)
    alice, session = demo["alice"], open_session(demo["alice"])
    goods_receipt_record(task_id=task.pk, user=alice, lines=[{"line": 0, "accepted": 3}])

    def model():
        return ScriptedBrain([Proposal(reply="", action=ReceiveGoods(task_id=str(task.pk), returned=1,
                                                                    reason="damaged"), brain="llm")])

    shown = talk(session, alice, "she already agreed to send one back", brain=model())
    assert shown.action == "none" and shown.turn.data["expects"] == "confirm_receipt"
    assert "1 returned (damaged)" in shown.reply
    talk(session, alice, "let me look at it again", brain=model())
    assert GoodsReceipt.objects.count() == 1

    done = talk(session, alice, "yes", brain=model())
    assert done.action == "receive" and "Return recorded" in done.reply
    assert list(GoodsReceipt.objects.order_by("created_at").last().lines.values_list("accepted", "reason")) == [
        (-1, "damaged")]
