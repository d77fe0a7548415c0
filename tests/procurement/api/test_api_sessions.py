"""`/api/v1/sessions/`: a chat session is readable by its owner (and admins), never by others."""
import uuid

import pytest
from rest_framework.test import APIClient

from agentstate.models import Session, Task, Turn

SESSIONS = "/api/v1/sessions/"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def alices_session(demo):
    session = Session.objects.create(owner=demo["alice"])
    Turn.objects.create(session=session, seq=1, role="user", text="I need two laptops")
    Turn.objects.create(session=session, seq=2, role="agent", text="For which department?")
    return session


@pytest.mark.django_db
def test_opening_a_session_answers_201_with_an_empty_conversation(demo):
    response = client_for(demo["alice"]).post(SESSIONS)
    assert response.status_code == 201
    body = response.json()
    assert body.keys() == {"id", "created_at", "task", "status", "status_label", "turns"}
    assert (body["task"], body["turns"]) == (None, []) and body["created_at"].endswith("+08:00")
    assert Session.objects.get(pk=body["id"]).owner == demo["alice"]


@pytest.mark.django_db
def test_the_owner_reads_the_turns_in_order(alices_session, demo):
    body = client_for(demo["alice"]).get(f"{SESSIONS}{alices_session.pk}/").json()
    assert body["id"] == str(alices_session.pk) and body["task"] is None
    assert [(t["seq"], t["role"], t["text"]) for t in body["turns"]] == [
        (1, "user", "I need two laptops"), (2, "agent", "For which department?")]


@pytest.mark.django_db
def test_nobody_else_can_read_a_session_not_even_the_owners_manager(alices_session, demo):
    for name in ("erin", "bob", "frank"):
        response = client_for(demo[name]).get(f"{SESSIONS}{alices_session.pk}/")
        assert response.status_code == 404 and response.json() == {"detail": "No such session."}
    assert client_for(demo["alice"]).get(f"{SESSIONS}{uuid.uuid4()}/").status_code == 404
    assert client_for(demo["alice"]).get(f"{SESSIONS}not-an-id/").status_code == 404


@pytest.mark.django_db
def test_a_locked_session_is_readable_by_admins_only(alices_session, demo):
    Session.objects.filter(pk=alices_session.pk).update(locked=True)
    assert client_for(demo["alice"]).get(f"{SESSIONS}{alices_session.pk}/").status_code == 404
    response = client_for(demo["carol"]).get(f"{SESSIONS}{alices_session.pk}/")
    assert response.status_code == 200 and len(response.json()["turns"]) == 2


@pytest.mark.django_db
def test_without_credentials_sessions_answer_401(alices_session):
    assert APIClient().post(SESSIONS).status_code == 401
    assert APIClient().get(f"{SESSIONS}{alices_session.pk}/").status_code == 401


@pytest.mark.django_db
def test_a_task_cannot_be_linked_to_someone_elses_session(demo):
    erins = Session.objects.create(owner=demo["erin"])
    response = client_for(demo["alice"]).post("/api/v1/tasks/", {
        "department": "ENG", "lines": [{"description": "Laptop", "quantity": 1}], "justification": "new hire",
        "session": str(erins.pk)}, format="json")
    assert response.status_code == 400 and response.json()["errors"]["session"]
    assert Task.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_task_submitted_from_a_session_shows_in_that_session(demo, erp, eager):
    alice = client_for(demo["alice"])
    session_id = alice.post(SESSIONS).json()["id"]
    task = alice.post("/api/v1/tasks/", {"department": "ENG", "lines": [{"description": "Laptop", "quantity": 1}],
                                         "justification": "new hire", "session": session_id}, format="json")
    assert task.status_code == 201, task.json()
    assert alice.get(f"{SESSIONS}{session_id}/").json()["task"] == task.json()["id"]
