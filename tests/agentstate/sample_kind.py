"""A small task kind for testing the engine without any app."""
from agentstate.kinds import APPROVER, INITIATOR, RUNTIME, TaskKind, Transition, register


def has_result(task, actor):
    return None if task.data.get("result") else "There is no result to finish with yet."


RECOVERED = []  # task ids recovery handed back


class Clients:
    client = None


SAMPLE = register(TaskKind(
    name="sample",
    initial="draft",
    transitions=[
        Transition("draft", "submit", "queued", (INITIATOR,)),
        Transition("draft", "cancel", "cancelled", (INITIATOR,)),
        Transition("queued", "start", "working", (RUNTIME,)),
        Transition("queued", "cancel", "cancelled", (INITIATOR,)),
        Transition("working", "finish", "done", (RUNTIME,), guard=has_result),
        Transition("working", "ask", "waiting", (RUNTIME,), checkpoint=False),
        Transition("working", "request_approval", "awaiting_approval", (RUNTIME,)),
        Transition("working", "outcome_unknown", "needs_review", (RUNTIME,)),
        Transition("waiting", "answer", "working", (INITIATOR,)),
        Transition("awaiting_approval", "approve", "approved", (APPROVER,)),
        Transition("awaiting_approval", "reject", "rejected", (APPROVER,)),
        Transition("awaiting_approval", "return", "waiting", (APPROVER,)),
        Transition("awaiting_approval", "expire", "expired", (RUNTIME,)),
        Transition("needs_review", "retry", "working", ("agentstate.change_task",)),
        Transition("queued", "checkpoint_refused", "needs_review", (RUNTIME,)),
        Transition("working", "checkpoint_refused", "needs_review", (RUNTIME,)),
    ],
    terminal=frozenset({"done", "cancelled", "rejected", "expired", "approved"}),
    runnable=frozenset({"queued", "working"}),
    unknown_outcome_event="outcome_unknown",
    approval_expired_event="expire",
    checkpoint_refused_event="checkpoint_refused",
    on_runnable=RECOVERED.append,
    client_for=lambda operation: Clients.client,
))


def actor_for(event: str, task, *, approver=None):
    """Someone who may fire `event` on `task` under SAMPLE's table."""
    from agentstate.actors import Actor
    from django.contrib.auth.models import Permission

    allowed = SAMPLE.transition(task.state, event).allowed
    if RUNTIME in allowed:
        return Actor.runtime("test-worker")
    if INITIATOR in allowed:
        return task.initiator
    if APPROVER in allowed:
        return Actor(user=approver, roles=frozenset({APPROVER}))
    approver.user_permissions.add(Permission.objects.get(codename="change_task"))
    return type(approver).objects.get(pk=approver.pk)
