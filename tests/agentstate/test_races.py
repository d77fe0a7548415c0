"""Real threads on PostgreSQL: one winner, and the loser writes nothing."""
import threading

import pytest
from django.db import connection

from agentstate.actors import Actor
from agentstate.errors import LeaseLost, StaleVersion
from agentstate.leases import lease_claim
from agentstate.machine import fire
from agentstate.models import Task, TaskEvent

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_together(n, work):
    barrier = threading.Barrier(n)
    results = [None] * n

    def target(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # the outcome under test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_two_threads_fire_the_same_event_on_the_same_version_and_one_wins(make_task):
    task = make_task("queued")
    events_before = TaskEvent.objects.filter(task=task).count()
    results = run_together(2, lambda i: fire(task.pk, "start", actor=Actor.runtime(f"w{i}"), expected_version=1))
    winners = [r for r in results if isinstance(r, Task)]
    losers = [r for r in results if isinstance(r, StaleVersion)]
    assert len(winners) == 1 and len(losers) == 1, results
    assert Task.objects.get(pk=task.pk).version == 2
    assert TaskEvent.objects.filter(task=task).count() == events_before + 1


def test_eight_threads_without_an_expected_version_still_move_once(make_task):
    task = make_task("queued")
    results = run_together(8, lambda i: fire(task.pk, "start", actor=Actor.runtime(f"w{i}")))
    assert sum(isinstance(r, Task) for r in results) == 1
    assert Task.objects.get(pk=task.pk).version == 2
    assert TaskEvent.objects.filter(task=task, event="start").count() == 1


def test_two_workers_claim_one_lease_and_one_gets_it(make_task):
    task = make_task("queued")
    results = run_together(2, lambda i: lease_claim(task_id=task.pk, worker=f"w{i}", seconds=60))
    claimed = [r for r in results if r is not None and not isinstance(r, Exception)]
    assert len(claimed) == 1, results
    row = Task.objects.get(pk=task.pk)
    assert row.leased_by == claimed[0].worker and row.lease_token == claimed[0].token
    assert row.version == 1, "claiming a lease must not bump the version"


def test_a_worker_whose_lease_was_reclaimed_cannot_write_its_late_result(make_task):
    task = make_task("queued")
    slow = lease_claim(task_id=task.pk, worker="slow", seconds=60)
    Task.objects.filter(pk=task.pk).update(lease_until=slow.until.replace(year=2000))  # the lease ran out
    fast = lease_claim(task_id=task.pk, worker="fast", seconds=60)
    assert fast is not None and fast.token == slow.token + 1
    with pytest.raises(LeaseLost, match="no longer valid"):
        fire(task.pk, "start", actor=Actor.runtime("slow"), lease_token=slow.token, data={"result": "late"})
    fire(task.pk, "start", actor=Actor.runtime("fast"), lease_token=fast.token, data={"result": "fresh"})
    row = Task.objects.get(pk=task.pk)
    assert (row.state, row.version, row.data["result"]) == ("working", 2, "fresh")


def test_a_fenced_writer_that_read_before_the_reclaim_is_still_refused(make_task):
    """The token check is in the UPDATE itself, not only in the read before it."""
    from agentstate import sql

    task = make_task("queued")
    slow = lease_claim(task_id=task.pk, worker="slow", seconds=60)
    real_apply = sql.apply_move

    def reclaim_then_apply(move):
        Task.objects.filter(pk=task.pk).update(lease_token=slow.token + 1, leased_by="other")
        return real_apply(move)

    sql.apply_move = reclaim_then_apply
    try:
        with pytest.raises(LeaseLost, match="fenced off"):
            fire(task.pk, "start", actor=Actor.runtime("slow"), lease_token=slow.token)
    finally:
        sql.apply_move = real_apply
    assert Task.objects.get(pk=task.pk).state == "queued"
