"""An approval's chain as people read it (the page, the API, the timeline): each step with who
may decide it, its status, and who decided it, when, and for whom. Two queries per approval."""
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Prefetch
from agentstate.models import ApprovalDecision

DONE = "approved"
CURRENT = "pending"
TO_COME = "waiting"
NOT_REACHED = "not_reached"


@dataclass
class Decision:
    decided_by: str
    on_behalf_of: str
    decision: str
    at: datetime
    comment: str = ""

    @property
    def on_behalf_of_or_none(self):
        return self.on_behalf_of or None


@dataclass
class StepView:
    number: int
    role: str
    user: str
    mode: str
    status: str  # approved, pending, waiting, rejected, returned, superseded, expired, not_reached
    people: list[str] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    escalate_after_seconds: int | None = None
    backup_role: str = ""
    handed_to: str = ""  # the role deciding in place of `role`, which only the requester held

    @property
    def role_or_none(self):
        return self.role or None

    @property
    def user_or_none(self):
        return self.user or None

    @property
    def decided_by_or_none(self):
        return self.decided_by or None

    @property
    def on_behalf_of_or_none(self):
        return self.on_behalf_of or None

    @property
    def decided_by(self) -> str:
        return self.decisions[-1].decided_by if self.decisions else ""

    @property
    def on_behalf_of(self) -> str:
        return self.decisions[-1].on_behalf_of if self.decisions else ""

    @property
    def decided_at(self):
        return self.decisions[-1].at if self.decisions else None


def withdrawn(approval) -> bool:
    """Superseded because the request was cancelled, not by a newer version: nothing replaced it."""
    return approval.status == "superseded" and approval.task.state == "cancelled"


def chain_view(approval) -> list[StepView]:
    if not approval.chain:
        return _single_step(approval)
    # With CHAIN_PREFETCH, a list costs no query per row.
    decisions = sorted(approval.decisions.all(), key=lambda d: d.pk)
    names = {pk: name for step in approval.chain for pk, name in zip(step.get("user_ids", []),
                                                                       step.get("usernames", []))}
    for d in decisions:
        names[d.decided_by_id] = d.decided_by.get_username()
        if d.on_behalf_of_id:
            names[d.on_behalf_of_id] = d.on_behalf_of.get_username()
    names |= _names({pk for step in approval.chain for pk in step.get("offered_ids", [])} - set(names))
    views = []
    for index, step in enumerate(approval.chain):
        mine = [Decision(names.get(d.decided_by_id, "?"), names.get(d.on_behalf_of_id, ""), d.decision, d.at,
                         d.comment) for d in decisions if d.step == index]
        views.append(StepView(
            number=index + 1, role=step.get("role", ""), user=step.get("user", ""), mode=step.get("mode", "any"),
            status=_status(approval, index, mine), people=[names.get(pk, "?") for pk in step.get("user_ids", [])],
            offered=[names.get(pk, "?") for pk in step.get("offered_ids", [])], decisions=mine,
            escalate_after_seconds=step.get("escalate_after_seconds"), backup_role=step.get("backup_role", "")))
    return views


def _status(approval, index: int, decisions: list[Decision]) -> str:
    final = [d for d in decisions if d.decision != "approve"]
    if final:
        return {"reject": "rejected", "return": "returned"}[final[-1].decision]
    if index < approval.step or (approval.status == "approved" and index == approval.step):
        return DONE
    if index > approval.step:
        return TO_COME if approval.status == "pending" else NOT_REACHED
    return CURRENT if approval.status == "pending" else approval.status


def _single_step(approval) -> list[StepView]:
    """An approval opened before chains: one step, any one of its approvers."""
    rule = approval.rule or {}
    decisions = []
    if approval.decided_by_id:
        decision = {"approved": "approve", "rejected": "reject", "returned": "return"}.get(approval.status, "")
        decisions = [Decision(approval.decided_by.get_username(),
                              approval.on_behalf_of.get_username() if approval.on_behalf_of_id else "",
                              decision, approval.decided_at, approval.comment)]
    status = {"approved": DONE, "pending": CURRENT}.get(approval.status, approval.status)
    role = rule.get("rule") if rule.get("rule") in ("manager", "director") else ""
    return [StepView(number=1, role=role or "", user="", mode="any", status=status,
                     people=list(rule.get("usernames", [])), decisions=decisions)]


def _names(ids: set) -> dict:
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username")) if ids else {}


def _decisions():

    return Prefetch("decisions", queryset=ApprovalDecision.objects.select_related("decided_by", "on_behalf_of"))


CHAIN_PREFETCH = (_decisions(),)


def policy_version(approval) -> int | None:
    return (approval.rule or {}).get("policy_version")
