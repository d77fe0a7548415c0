""""Continue my last request" in a new session attaches to the caller's open task instead of
starting one; with two candidates the agent lists them and asks which."""
import pytest

from agentstate.models import Task
from tests.procurement.chat.support import no_memory_store, open_session, talk  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_memory_store")]


def test_one_open_task__continue_attaches_to_it(demo, erp, eager):
    alice = demo["alice"]
    first = open_session(alice)
    talk(first, alice, "2 laptops for QA", "yes")
    second = open_session(alice)
    result = talk(second, alice, "剛才那件事繼續做")
    second.refresh_from_db()
    assert result.action == "attach" and second.task_id == first.task_id
    assert "接續您先前的申請" in result.reply and "等待核准" in result.reply
    assert Task.objects.count() == 1, "no new task was started"


def test_two_open_tasks__the_agent_lists_them_and_asks_which(demo):
    alice = demo["alice"]
    talk(open_session(alice), alice, "I need 2 laptops")
    talk(open_session(alice), alice, "I need 3 monitors for the lab")
    monitors, laptops = Task.objects.order_by("-created_at")
    session = open_session(alice)
    asked = talk(session, alice, "continue my last request")
    assert asked.action == "ask" and asked.task is None
    assert "You have 2 open requests" in asked.reply
    assert "1. Monitor × 3" in asked.reply and "2. Laptop × 2" in asked.reply
    assert asked.turn.data["choices"] == [str(monitors.pk), str(laptops.pk)]
    picked = talk(session, alice, "2")
    session.refresh_from_db()
    assert picked.action == "attach" and session.task_id == laptops.pk
    assert "What are they for?" in picked.reply  # the laptops draft's missing field


def test_two_open_tasks__picked_by_the_item_named(demo):
    alice = demo["alice"]
    talk(open_session(alice), alice, "I need 2 laptops")
    talk(open_session(alice), alice, "我要三台螢幕")
    session = open_session(alice)
    talk(session, alice, "continue")
    result = talk(session, alice, "the laptops")
    assert result.action == "attach" and result.task.data["draft"]["lines"][0]["description"] == "Laptop"


def test_nothing_open__the_agent_says_so_and_starts_nothing(demo):
    session = open_session(demo["alice"])
    result = talk(session, demo["alice"], "continue my last request")
    assert result.action == "none" and "no open request" in result.reply and not Task.objects.exists()


def test_only_the_callers_own_tasks_are_candidates(demo):
    talk(open_session(demo["erin"]), demo["erin"], "I need 2 laptops")
    result = talk(open_session(demo["alice"]), demo["alice"], "continue")
    assert result.action == "none" and "no open request" in result.reply


def test_finished_tasks_are_not_continued(demo):
    alice = demo["alice"]
    session = open_session(alice)
    talk(session, alice, "I need 2 laptops", "cancel")
    assert Task.objects.get().state == "cancelled"
    assert talk(open_session(alice), alice, "continue").action == "none"
