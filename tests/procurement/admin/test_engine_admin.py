"""The engine's tables in the Django admin (DESIGN §15): everything shown, nothing changed; a
task changes only through an action that fires a transition and records who and why."""
import pytest
from django.test import Client
from django.urls import reverse

from agentstate.models import Approval, Checkpoint, Receipt, Task, TaskEvent
from procurement.purchase import services

from tests.procurement.page_text import state_codes, visible_text

pytestmark = pytest.mark.django_db
ENGINE = [Task, TaskEvent, Checkpoint, Receipt, Approval]


@pytest.fixture
def task(demo):
    return services.request_submit(requester=demo["alice"], department="ENG", justification="new hires",
                                   lines=[{"description": "Monitor", "quantity": 2}])


@pytest.fixture
def carol(demo):
    client = Client()
    client.force_login(demo["carol"])
    return client


@pytest.mark.parametrize("model", ENGINE, ids=lambda m: m.__name__)
def test_engine_tables_are_listed_but_cannot_be_added_to(carol, task, model):
    meta = model._meta
    assert carol.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")).status_code == 200
    assert carol.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code == 403


def test_a_task_page_shows_every_field_and_its_events_without_a_save_button(carol, task):
    page = carol.get(reverse("admin:agentstate_task_change", args=[task.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    for field in ("state", "version", "data", "lease_token"):
        assert f"field-{field}" in html
    assert 'name="state"' not in html and 'name="_save"' not in html
    assert "Received" in html and "Started" in html  # the state and the first event, in words


def test_a_task_page_in_chinese_says_its_state_and_events_in_words_not_codes(carol, task):
    carol.cookies["django_language"] = "zh-hant"
    text = visible_text(carol.get(reverse("admin:agentstate_task_change", args=[task.pk])).content.decode())
    assert f"{task.pk} · 已收到 · v{task.version}" in text and "狀態： 已收到" in text, text
    assert "建立" in text and not state_codes(text) and "received" not in text, text
    assert "object (" not in text, text


def test_carol_cannot_change_a_tasks_state_from_the_admin(carol, task):
    before = task.version
    url = reverse("admin:agentstate_task_change", args=[task.pk])
    response = carol.post(url, {"state": "externally_confirmed", "version": 99, "data": "{}", "lease_token": 7})
    assert response.status_code == 403
    task.refresh_from_db()
    assert (task.state, task.version) == ("received", before)


def test_carol_cannot_change_an_approvals_status_or_delete_engine_rows(carol, task):
    delete = carol.post(reverse("admin:agentstate_task_delete", args=[task.pk]), {"post": "yes"})
    assert delete.status_code == 403
    bulk = carol.post(reverse("admin:agentstate_task_changelist"),
                      {"action": "delete_selected", "_selected_action": [task.pk], "post": "yes"})
    assert Task.objects.filter(pk=task.pk).exists() and bulk.status_code in (200, 302)


def test_cancelling_from_the_admin_asks_why_then_fires_the_transition(carol, task, demo):
    before = task.version
    url = reverse("admin:agentstate_task_changelist")
    chosen = {"action": "cancel_with_compensation", "_selected_action": [task.pk]}
    asked = carol.post(url, chosen)
    assert asked.status_code == 200 and "Compensation runs next" in asked.content.decode()
    # The page lists each task at the version it will cancel, in words, and posts that version back.
    assert f'name="version-{task.pk}" value="{before}"' in asked.content.decode()
    assert f"Received · version {before}" in asked.content.decode()
    assert Task.objects.get(pk=task.pk).state == "received"
    carol.post(url, chosen | {"apply": "1", "reason": "duplicate of REQ-1", f"version-{task.pk}": str(before)})
    task.refresh_from_db()
    assert task.state == "cancelled" and task.version == before + 1
    event = task.events.get(version=before + 1)
    assert (event.actor, event.event, event.reason) == ("carol", "cancel", "duplicate of REQ-1")


@pytest.mark.parametrize("language, words", [("en", "the confirmation page did not say which version you saw"),
                                             ("zh-hant", "確認頁沒有帶出您看到的版本")])
def test_an_admin_cancel_without_the_version_it_showed_cancels_nothing(carol, task, language, words):
    carol.cookies["django_language"] = language
    done = carol.post(reverse("admin:agentstate_task_changelist"),
                      {"action": "cancel_with_compensation", "_selected_action": [task.pk], "apply": "1",
                       "reason": "duplicate"})
    assert Task.objects.get(pk=task.pk).state == "received"
    shown = [str(m) for m in done.wsgi_request._messages]
    assert len(shown) == 1 and words in shown[0], shown


def test_an_admin_cancel_of_a_task_that_moved_since_the_page_is_refused(carol, task, demo):
    seen = task.version
    services.request_cancel(task_id=task.pk, user=demo["alice"], reason="changed my mind")
    moved = Task.objects.get(pk=task.pk)
    done = carol.post(reverse("admin:agentstate_task_changelist"),
                      {"action": "cancel_with_compensation", "_selected_action": [task.pk], "apply": "1",
                       "reason": "duplicate", f"version-{task.pk}": str(seen)})
    assert Task.objects.get(pk=task.pk).version == moved.version
    assert not TaskEvent.objects.filter(task_id=task.pk, actor="carol").exists()
    shown = [str(m) for m in done.wsgi_request._messages]
    assert len(shown) == 1 and str(task.pk) in shown[0] and "changed since you looked" in shown[0], shown
    assert "it is now “Cancelled”" in shown[0], shown  # in words, not the state's code


def test_staff_without_superuser_cannot_cancel_from_the_admin(task, demo, django_user_model):
    staff = django_user_model.objects.create_user("sam", password="x", is_staff=True)
    from django.contrib.auth.models import Permission
    staff.user_permissions.add(Permission.objects.get(codename="view_task"))
    client = Client()
    client.force_login(staff)
    client.post(reverse("admin:agentstate_task_changelist"),
                {"action": "cancel_with_compensation", "_selected_action": [task.pk], "apply": "1", "reason": "x"})
    assert Task.objects.get(pk=task.pk).state == "received"
