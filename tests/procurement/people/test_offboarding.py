"""A person leaves: account off, sessions for admins only, their memory unused and queued for
review, open tasks cancelled; erasing them deletes their memory and redacts their words."""
import pytest
from rest_framework.test import APIClient

from agentstate.errors import NotFound, NotPermitted
from agentstate.memory.models import MemoryEntry, MemoryEvent
from agentstate.memory.retrieval import memory_retrieve
from agentstate.memory.services import memory_confirm, memory_propose
from agentstate.models import Session, Task, TaskEvent, Turn
from procurement.purchase import services
from procurement.selectors import session_for
from procurement.people.offboarding import REDACTED, user_erase, user_offboard
from tests.agentstate.memory_support import where_text_is
from tests.engine_support import task_in_state

from tests.procurement.page_text import visible_text


pytestmark = pytest.mark.django_db
SAID = "qx9 please always ship to the Hsinchu office"


@pytest.fixture
def alices_world(demo):
    alice, carol = demo["alice"], demo["carol"]
    session = Session.objects.create(owner=alice, title="Monitors", summary="Alice wants monitors")
    turn = Turn.objects.create(session=session, seq=1, role="user", text=SAID)
    Turn.objects.create(session=session, seq=2, role="agent", text=f"Noted: {SAID}")
    own = memory_propose(turn=turn, scope="user", subject="alice", kind="preference", content="qx9 ship to Hsinchu")
    memory_confirm(entry=own, by=alice)
    team = memory_propose(turn=turn, scope="department", subject="ENG", kind="fact", content="ENG ships to Hsinchu")
    memory_confirm(entry=team, by=demo["bob"])
    open_task = services.request_submit(requester=alice, department="ENG", justification="new hires",
                                        lines=[{"description": "Monitor", "quantity": 2}])
    sent = task_in_state(kind="purchase", initiator=alice, tenant="ENG", state="submitted")
    return {"session": session, "own": own, "team": team, "open": open_task, "sent": sent, "carol": carol}


def test_offboarding_deactivates_locks_flags_and_cancels(alices_world, demo):
    alice, carol = demo["alice"], demo["carol"]
    report = user_offboard(user=alice, by=carol)
    alice.refresh_from_db()
    assert not alice.is_active
    assert report.sessions_locked == 1 and Session.objects.get(pk=alices_world["session"].pk).locked
    assert report.tasks_cancelled == [str(alices_world["open"].pk)]
    assert Task.objects.get(pk=alices_world["open"].pk).state == "cancelled"
    cancel = TaskEvent.objects.filter(task=alices_world["open"], event="cancel").get()
    assert cancel.actor == "carol" and "alice left" in cancel.reason
    assert "cannot be cancelled" in report.tasks_left[str(alices_world["sent"].pk)]
    own = MemoryEntry.objects.get(pk=alices_world["own"].pk)
    assert (own.status, own.flag_reason, report.memory_flagged) == ("active", "subject_left", 1)
    assert MemoryEvent.objects.filter(entry=own, action="review_flag", actor=carol).exists()


def test_a_departed_users_memory_is_not_used_in_context(alices_world, demo):
    user_offboard(user=demo["alice"], by=demo["carol"])
    alice = type(demo["alice"]).objects.get(pk=demo["alice"].pk)
    task = alices_world["open"]
    assert "qx9 ship to Hsinchu" not in [e.content for e in memory_retrieve(alice, task=task)]
    # Department knowledge that came from her turn stays in use for her colleagues.
    assert "ENG ships to Hsinchu" in [e.content for e in memory_retrieve(demo["bob"])]


def test_a_departed_users_sessions_and_memory_are_readable_by_admins_only(alices_world, demo):
    user_offboard(user=demo["alice"], by=demo["carol"])
    session_id, own = alices_world["session"].pk, alices_world["own"]
    assert session_for(demo["carol"], session_id).pk == session_id
    for reader in ("alice", "bob"):
        with pytest.raises(NotFound):
            session_for(demo[reader], session_id)
    url = f"/api/v1/memory/{own.pk}/"
    bob, carol = APIClient(), APIClient()
    bob.force_authenticate(demo["bob"])
    carol.force_authenticate(demo["carol"])
    assert bob.get(url).status_code == 404
    assert carol.get(url).json()["content"] == "qx9 ship to Hsinchu"


def test_only_an_admin_offboards_and_a_refusal_changes_nothing(alices_world, demo):
    with pytest.raises(NotPermitted):
        user_offboard(user=demo["alice"], by=demo["bob"])
    assert type(demo["alice"]).objects.get(pk=demo["alice"].pk).is_active
    assert not Session.objects.filter(locked=True).exists()


def test_offboarding_twice_is_safe(alices_world, demo):
    user_offboard(user=demo["alice"], by=demo["carol"])
    again = user_offboard(user=demo["alice"], by=demo["carol"])
    assert (again.sessions_locked, again.memory_flagged, again.tasks_cancelled) == (0, 0, [])
    assert MemoryEvent.objects.filter(action="review_flag").count() == 1


def test_erasing_deletes_their_memory_and_redacts_their_turns(alices_world, demo):
    assert where_text_is("qx9")
    report = user_erase(user=demo["alice"], by=demo["carol"])
    assert report.offboarded is not None and report.memory_deleted == 1 and report.turns_redacted == 2
    assert where_text_is("qx9") == []
    assert set(Turn.objects.filter(session__owner=demo["alice"]).values_list("text", flat=True)) == {REDACTED}
    tomb = MemoryEntry.objects.get(pk=alices_world["own"].pk)
    assert (tomb.status, tomb.deleted_by) == ("deleted", demo["carol"])
    assert MemoryEntry.objects.get(pk=alices_world["team"].pk).status == "active"
    assert Session.objects.get(pk=alices_world["session"].pk).summary == ""


def test_only_an_admin_erases(alices_world, demo):
    with pytest.raises(NotPermitted):
        user_erase(user=demo["alice"], by=demo["alice"])
    assert Turn.objects.filter(text=SAID).exists()


def test_an_unknown_task_policy_is_refused_before_anything_changes(alices_world, demo):
    from agentstate.errors import DomainError

    with pytest.raises(DomainError) as refused:
        user_offboard(user=demo["alice"], by=demo["carol"], policy="reassign")
    assert "policy" in refused.value.extra["errors"]
    assert type(demo["alice"]).objects.get(pk=demo["alice"].pk).is_active
    assert not Session.objects.filter(locked=True).exists()


def test_the_offboard_command_offboards_and_says_what_it_did(alices_world, demo):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("offboard", "alice", "--by", "carol", stdout=out)
    demo["alice"].refresh_from_db()
    assert not demo["alice"].is_active and "alice offboarded" in out.getvalue()


def test_the_erase_command_redacts_their_turns(alices_world, demo):
    from django.core.management import call_command

    call_command("offboard", "alice", "--by", "carol", "--erase", stdout=io_sink())
    assert set(Turn.objects.filter(session__owner=demo["alice"]).values_list("text", flat=True)) == {REDACTED}
    assert where_text_is("qx9") == []


def test_the_admin_erases_a_person_after_a_confirmation_page(alices_world, demo):
    from django.test import Client

    client = Client()
    client.force_login(demo["carol"])
    chosen = {"action": "erase", "_selected_action": [demo["alice"].pk]}
    asked = client.post("/admin/auth/user/", chosen)
    assert asked.status_code == 200 and "cannot be undone" in asked.content.decode()
    assert "Confirm: Erase" in asked.content.decode()
    in_chinese = client.post("/admin/auth/user/", chosen, HTTP_ACCEPT_LANGUAGE="zh-hant").content.decode()
    assert "確認：抹除" in in_chinese and "erase" not in visible_text(in_chinese)
    assert Turn.objects.filter(text=SAID).exists()
    client.post("/admin/auth/user/", chosen | {"apply": "1"})
    assert where_text_is("qx9") == []


def io_sink():
    import io

    return io.StringIO()


def test_erasing_deletes_their_notices_and_blanks_their_mail_but_not_anyone_elses(alices_world, demo):
    from procurement.models import Notice, Notification
    from procurement.infra.outbox import notification_queue

    task = alices_world["open"]
    for person in ("alice", "bob"):
        Notice.objects.create(recipient=demo[person], kind="rejected", task=task, key=f"k:{person}",
                              text=f"Your request for qx9 monitors was rejected ({person})", url="https://x/")
    sent = notification_queue(task_id=task.pk, to=demo["alice"].email, subject="Rejected: qx9 monitors",
                              body="qx9 monitors were rejected", key="mail:sent")
    Notification.objects.filter(pk=sent.pk).update(status=Notification.Status.SENT)
    notification_queue(task_id=task.pk, to=demo["alice"].email, subject="PO issued: qx9", body="qx9", key="mail:q")
    notification_queue(task_id=task.pk, to=demo["bob"].email, subject="New approval: qx9", body="qx9", key="mail:b")

    report = user_erase(user=demo["alice"], by=demo["carol"])

    assert (report.notices_deleted, report.mail_redacted) == (1, 2)
    assert not Notice.objects.filter(recipient=demo["alice"]).exists()
    assert Notice.objects.filter(recipient=demo["bob"]).count() == 1
    mail_to_alice = Notification.objects.filter(to=demo["alice"].email)
    assert list(mail_to_alice.values_list("message_id", "status", "subject", "body")) == [
        (sent.message_id, "sent", REDACTED, REDACTED)], "the sent one is kept, blank; the queued one never goes"
    assert Notification.objects.get(to=demo["bob"].email).body == "qx9"


def test_a_person_who_left_gets_no_new_notice_or_mail(alices_world, demo):
    from procurement.models import Notice, Notification
    from procurement.notices.derive import notices_for_task

    user_erase(user=demo["alice"], by=demo["carol"])
    task = alices_world["open"]
    assert Task.objects.get(pk=task.pk).state == "cancelled"
    notices_for_task(task.pk)  # the cancel, turned into notices after the erasure (a worker may be late)
    assert not Notice.objects.filter(recipient=demo["alice"]).exists()
    assert not Notification.objects.filter(to=demo["alice"].email).exists()
