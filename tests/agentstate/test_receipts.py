import pytest

from agentstate.actors import Actor
from agentstate.errors import Conflict
from agentstate.external import Indeterminate, Outcome
from agentstate.machine import fire
from agentstate.models import Receipt, Task
from agentstate.receipts import receipt_perform, receipt_plan


class RecordingClient:
    """Another system with its own memory of keys, and scripted failures."""

    def __init__(self, send_fails=0, lookup_fails=0, commit_before_failing=True):
        self.store = {}
        self.sends = 0
        self.lookups = 0
        self.send_fails = send_fails
        self.lookup_fails = lookup_fails
        self.commit_before_failing = commit_before_failing

    def send(self, operation, key, request):
        self.sends += 1
        if self.send_fails:
            self.send_fails -= 1
            if self.commit_before_failing:
                self.store.setdefault(key, f"EXT-{len(self.store) + 1}")
            raise Indeterminate("connection dropped")
        self.store.setdefault(key, f"EXT-{len(self.store) + 1}")
        return Outcome(ok=True, external_id=self.store[key], response={"id": self.store[key]})

    def lookup(self, operation, key, request):
        self.lookups += 1
        if self.lookup_fails:
            self.lookup_fails -= 1
            raise Indeterminate("service unavailable")
        if key in self.store:
            return Outcome(ok=True, external_id=self.store[key], response={"id": self.store[key]})
        return None


def finish_on_confirm(receipt):
    fire(receipt.task_id, "finish", actor=Actor.runtime(), data={"result": receipt.external_id},
         refs=[{"receipt": str(receipt.pk), "external_id": receipt.external_id}])


@pytest.fixture
def planned(make_task):
    task = make_task("working")
    return receipt_plan(task=task, operation="other.create", scope="v1", request={"amount": "10.00"})


@pytest.mark.django_db
def test_planned_sent_confirmed_and_the_transition_fires_with_it(planned):
    client = RecordingClient()
    receipt = receipt_perform(receipt=planned, client=client, on_outcome=finish_on_confirm)
    assert (receipt.status, receipt.external_id, receipt.attempts) == ("confirmed", "EXT-1", 1)
    task = Task.objects.get(pk=planned.task_id)
    assert (task.state, task.data["result"]) == ("done", "EXT-1")


@pytest.mark.django_db
def test_planning_twice_reuses_the_key_and_a_changed_request_is_refused(planned):
    again = receipt_plan(task=planned.task, operation="other.create", scope="v1", request={"amount": "10.00"})
    assert again.pk == planned.pk and Receipt.objects.count() == 1
    with pytest.raises(Conflict, match="different request"):
        receipt_plan(task=planned.task, operation="other.create", scope="v1", request={"amount": "99.00"})


@pytest.mark.django_db
def test_a_lost_answer_is_resolved_by_lookup_without_a_second_call(planned):
    client = RecordingClient(send_fails=1, commit_before_failing=True)
    receipt = receipt_perform(receipt=planned, client=client, on_outcome=finish_on_confirm)
    assert receipt.status == "confirmed" and receipt.external_id == "EXT-1"
    assert (client.sends, client.lookups, len(client.store)) == (1, 1, 1)
    assert Task.objects.get(pk=planned.task_id).state == "done"


@pytest.mark.django_db
def test_a_call_that_never_arrived_is_resent_with_the_same_key(planned):
    client = RecordingClient(send_fails=1, commit_before_failing=False)
    receipt = receipt_perform(receipt=planned, client=client)
    assert receipt.status == "confirmed" and (client.sends, len(client.store)) == (2, 1)


@pytest.mark.django_db
def test_an_undecidable_outcome_ends_unknown_and_flags_the_task(planned):
    client = RecordingClient(send_fails=1, lookup_fails=1)
    receipt = receipt_perform(receipt=planned, client=client, on_outcome=finish_on_confirm)
    assert receipt.status == "unknown" and "could not verify" in receipt.error
    task = Task.objects.get(pk=planned.task_id)
    assert task.state == "needs_review"
    assert "result pending verification" in task.events.last().reason


@pytest.mark.django_db
def test_running_a_confirmed_receipt_again_calls_nothing(planned):
    client = RecordingClient()
    receipt_perform(receipt=planned, client=client)
    receipt_perform(receipt=Receipt.objects.get(pk=planned.pk), client=client)
    assert (client.sends, client.lookups) == (1, 0)


@pytest.mark.django_db
def test_a_receipt_left_sent_by_a_crash_is_looked_up_before_any_resend(planned):
    client = RecordingClient()
    client.store[planned.idempotency_key] = "EXT-9"  # the other side did it; we died before recording
    Receipt.objects.filter(pk=planned.pk).update(status="sent", attempts=1)
    receipt = receipt_perform(receipt=Receipt.objects.get(pk=planned.pk), client=client)
    assert (receipt.status, receipt.external_id, client.sends) == ("confirmed", "EXT-9", 0)


@pytest.mark.django_db
def test_a_refusal_is_recorded_as_failed_with_the_reason(planned):
    class Refusing(RecordingClient):
        def send(self, operation, key, request):
            self.sends += 1
            return Outcome(ok=False, reason="supplier blocked")

    receipt = receipt_perform(receipt=planned, client=Refusing())
    assert (receipt.status, receipt.error) == ("failed", "supplier blocked")
