"""On PostgreSQL the database refuses a task change the engine did not make (DESIGN §15): a
deferred constraint trigger checks at commit that every new (task, version) has its event and
that a version only grows by one. The engine's own transitions pass untouched."""
import pytest
from django.db import IntegrityError, transaction
from django.db.models import F

from agentstate.machine import fire, task_create
from agentstate.models import Task, TaskEvent

from tests.agentstate.sample_kind import SAMPLE  # noqa: F401  (registers the kind)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def task(alice):
    return task_create(kind="sample", initiator=alice, tenant="T1")


def committed(work):
    with transaction.atomic():
        work()


def test_the_engines_transitions_commit(task, alice):
    committed(lambda: fire(task.pk, "submit", actor=alice))
    committed(lambda: fire(task.pk, "cancel", actor=alice, expected_version=2))
    task.refresh_from_db()
    assert (task.state, task.version) == ("cancelled", 3)
    assert list(task.events.values_list("version", flat=True)) == [1, 2, 3]


def test_a_state_change_without_a_new_version_is_refused_at_commit(task):
    with pytest.raises(IntegrityError, match="without a new version"):
        committed(lambda: Task.objects.filter(pk=task.pk).update(state="done"))
    task.refresh_from_db()
    assert (task.state, task.version) == ("draft", 1)


def test_a_new_version_without_its_event_is_refused_at_commit(task):
    with pytest.raises(IntegrityError, match="without a task event"):
        committed(lambda: Task.objects.filter(pk=task.pk).update(state="done", version=F("version") + 1))
    task.refresh_from_db()
    assert (task.state, task.version) == ("draft", 1)


def test_a_version_that_jumps_is_refused_even_with_an_event(task):
    def jump():
        Task.objects.filter(pk=task.pk).update(state="done", version=3)
        TaskEvent.objects.create(task=task, actor="intruder", event="finish", from_state="draft", to_state="done",
                                 version=3)
    with pytest.raises(IntegrityError, match="only grows by one"):
        committed(jump)
    assert not TaskEvent.objects.filter(actor="intruder").exists()


def test_a_task_inserted_without_its_first_event_is_refused(alice):
    with pytest.raises(IntegrityError, match="without a task event"):
        committed(lambda: Task.objects.create(kind="sample", initiator=alice, tenant="T1", state="done"))
    assert not Task.objects.exists()


def test_saving_other_fields_of_a_task_is_allowed(task):
    task.step = "something"
    committed(lambda: task.save())
    task.refresh_from_db()
    assert (task.step, task.version) == ("something", 1)
