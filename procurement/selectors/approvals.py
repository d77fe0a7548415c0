"""Which approvals a person may see, and who may decide them (DESIGN §7, §9).

`may_decide` re-checks at the click who may decide an approval (the route itself is
procurement.policy.routing's); the rest answers "which approvals may this person read" for the
inbox, the approval page and the API. Not visible: 404."""
from decimal import Decimal

from django.db import connection
from django.db.models import Exists, F, Max, OuterRef, Q
from django.utils.translation import pgettext_lazy

from agentstate.errors import NotFound, NotPermitted
from agentstate.ids import is_uuid
from agentstate.models import Approval, Task, TaskEvent
from agentstate.said import Said, say

from procurement.words import labels
from procurement.models import Department, Membership
from procurement.policy.chain import CHAIN_PREFETCH
from procurement.policy.routing import role_holders
from procurement.selectors.grants import DECIDE_APPROVAL, approval_grants
from procurement.selectors.roles import DIRECTOR, MANAGER, deciding_memberships
from procurement.models.policy import Delegation
from procurement.selectors.delegations import stands_in_for
from procurement.policy.deciding import may_decide_step
from django.contrib.auth import get_user_model
from agentstate.models import ApprovalDecision


class Probe(Exists):
    """EXISTS asked of each row as written. `OFFSET 0` keeps PostgreSQL from rewriting it into a
    join or into a hashed set of every matching id, which it chose for the inbox's pending tab at
    1,000,000 approvals (bench/scale.py): all 20,345 of bob's approver rows read into a hash before
    the page's 20 pending rows were walked, where each of those rows is one probe of a unique index.
    `ordered_by`: the subquery keeps that order, so it walks an index in that order and stops at its
    first row (SQLite reads the same SQL)."""

    template = "EXISTS(%(subquery)s OFFSET 0)"

    def __init__(self, queryset, ordered_by=(), **kwargs):
        super().__init__(queryset, **kwargs)
        if ordered_by:
            self.query.add_ordering(*ordered_by)


def routed_to(user):
    """Ids of the approvals whose waiting step names `user`, or someone `user` stands in for today
    (a delegate's delegate gets nothing: only direct delegations count)."""
    return Approval.approvers.through.objects.filter(user__in=_standing_for(user)).values("approval_id")


def _standing_for(user):
    """`user` and the people `user` stands in for today, as ids."""

    # `user_id IN (user UNION ALL their delegators)`, read by the approvers' user index; an OR of the
    # two scanned every approver row.
    return get_user_model().objects.filter(pk=user.pk).values("pk").union(
        Delegation.objects.active().filter(delegate=user).values("delegator"), all=True)


def _standing_ids(user) -> list[int]:
    """`user` and the people `user` stands in for today, as ids (today's delegations, read once per
    request): a list the planner counts, where `user_id IN (a union)` it could not."""
    return [user.pk, *(row.delegator_id for row in stands_in_for(user))]


def decided_by(user):
    """Ids of the approvals `user` decided, or decided a step of (in person or for someone)."""
    # Two index reads put together, not one OR (which the planner may answer by scanning every decision).
    return ApprovalDecision.objects.filter(decided_by=user).values("approval_id").union(
        ApprovalDecision.objects.filter(on_behalf_of=user).values("approval_id"), all=True)


# -- who may decide (the approval policy) --------------------------------------------------

def may_decide(user, approval) -> Said | None:
    """Re-checked at the click: still a manager or director of that department with the limit."""
    department = Department.objects.get(code=approval.task.tenant)
    total = Decimal(approval.scope["total"])
    if not user.is_active:
        return say("account_inactive")
    for role in (MANAGER, DIRECTOR):
        if role_holders(department, role).filter(user=user, approval_limit__gte=total).exists():
            return None
    return say("limit_too_low", total=str(total), department=department.code)


# -- who may read -------------------------------------------------------------------

def approvals_pending_for(user):
    """Pending approvals whose waiting step `user` may decide (in person, standing in for someone,
    or by a grant that is still live), oldest first (the longest waiting)."""
    # The pending approvals are walked oldest first (approval_pending_created_idx) and each is asked
    # whether it reaches `user` (an index probe, EXISTS); sets of ids (IN) made PostgreSQL read every
    # approver row of `user`, decided ones too, or walk every approval by date for the few pending.
    routed = Approval.approvers.through.objects.filter(approval=OuterRef("pk"), user__in=_standing_ids(user))
    granted = approval_grants(user, DECIDE_APPROVAL).filter(content_object=OuterRef("pk"))
    # A requester standing in for someone on her own request's chain still may not decide it.
    return (Approval.objects.filter(Probe(routed) | Probe(granted), status=Approval.Status.PENDING)
            .exclude(task__initiator=user).select_related("task__initiator").order_by("created_at"))


EVERY_DEPARTMENT = object()


def _departments_decided_by(user):
    """The codes of the departments `user` decides for as a manager or director (a list, one
    query), or EVERY_DEPARTMENT for an admin or a director without a department. A list, so that
    each approval's department is one probe of its task, not a look at the memberships too."""
    if user.is_superuser:
        return EVERY_DEPARTMENT
    codes = list(deciding_memberships(user).values_list("department__code", flat=True))
    return EVERY_DEPARTMENT if None in codes else codes


def approvals_visible_to(user):
    """Approvals `user` may read: those granted to them (routed, or delegated for its dates), and,
    for a manager or director, those of the departments they decide for (all departments for a
    director without one, or an admin)."""
    if not user.is_authenticated or not user.is_active:
        return Approval.objects.none()
    codes = _departments_decided_by(user)
    if codes is EVERY_DEPARTMENT:
        return Approval.objects.all()
    # The department asked of each approval's task (a probe of its key), not joined: counting the
    # first 1,001 of bob's "all" tab at 1,000,000 approvals hashed every task first (15 of its 30 ms).
    in_department = Probe(Task.objects.filter(pk=OuterRef("task_id"), tenant__in=codes))
    return Approval.objects.filter(in_department | _reaches(user))


def _reaches(user) -> Q:
    """The ways an approval reaches `user` in person: routed to them (or to someone they stand in
    for today), decided by them (in person or for someone), or granted to them. Each way is asked of
    the row, an index probe (EXISTS), so the inbox's newest page walks a few rows of the approvals by
    date and one approval's page reads its own row. Sets of ids (IN) made PostgreSQL collect every id
    of every way first. At 100,000 tasks (bench/growth.py) bob's "all" tab page went from 108 to
    0.5 ms and one approval from 5.7 to 0.1 ms; counting the tab walks the approvals either way."""
    approvers = Approval.approvers.through.objects.filter(approval=OuterRef("pk"), user__in=_standing_ids(user))
    return (Q(decided_by=user)
            | Probe(approvers)
            | Probe(ApprovalDecision.objects.filter(approval=OuterRef("pk"), decided_by=user))
            | Probe(ApprovalDecision.objects.filter(approval=OuterRef("pk"), on_behalf_of=user))
            | Probe(approval_grants(user).filter(content_object=OuterRef("pk"))))


INBOX_TABS = ("pending", "decided", "all")


def inbox_approvals(user, *, tab: str = "pending", department: str = "", search: str = "", first: int | None = None):
    """The inbox list: one tab, narrowed by department code and a search on the request number
    (REQ-…), the PO number or the requester. Rows carry everything a row shows, in one query.
    `first`: only the first so many rows will be read (the pages count 1,001 at most, an export
    10,000), which the "decided by me" tab reads by date and stops at."""

    def narrow(rows):
        if department:
            rows = rows.filter(task__tenant=department)
        if search.strip():
            rows = rows.filter(_search(search.strip()))
        return rows

    if tab == "decided":
        # Those still waiting (decided a step of) first on SQLite too, as PostgreSQL sorts NULLs in DESC.
        rows = _decided_newest(user, narrow, first).order_by(F("decided_at").desc(nulls_first=True), "-created_at")
    elif tab == "all":
        rows = narrow(approvals_visible_to(user).order_by("-created_at"))
    else:
        rows = narrow(approvals_pending_for(user))
    return rows.select_related(*INBOX_ROW_READS)


INBOX_ROW_READS = ("task__initiator", "task__purchase_request__department", "decided_by")


def inbox_rows_by_id(ids):
    """The rows of a page of the inbox whose ids `inbox_approvals` just gave, with what a row shows.
    By id alone: asked through the tab again, the "decided by me" tab's sets were read once more."""
    return Approval.objects.filter(pk__in=list(ids)).select_related(*INBOX_ROW_READS)


def _decided_newest(user, narrow, first: int | None):
    """The approvals `user` decided or decided a step of (in person or for someone), or that name
    `user` as their decider, read so that the newest
    `first` cost `first` rows: those the approval names `user` as its decider are walked newest first
    by approval_decider_dates_idx and stop at `first`; those `user` decided a step of and someone
    else (or no one yet) decided are few and taken whole (their ids from the decisions' index, less
    those the first way has). Asked as one set of ids sorted by date, bob's 19,844 decisions at
    1,000,000 approvals (bench/scale.py) had each approval's dates read before the sort."""
    own = narrow(Approval.objects.filter(decided_by=user)).order_by("-decided_at", "-created_at").values("pk")
    own_ids = Approval.objects.filter(decided_by=user).values("pk")
    steps = ApprovalDecision.objects.exclude(approval__in=own_ids)
    others = narrow(Approval.objects.filter(pk__in=steps.filter(decided_by=user).values("approval_id").union(
        steps.filter(on_behalf_of=user).values("approval_id"), all=True))).values("pk")
    if first is None or not connection.features.supports_slicing_ordering_in_compound:
        return Approval.objects.filter(pk__in=own.order_by().union(others, all=True))
    return Approval.objects.filter(pk__in=own[:first].union(others, all=True))


def _search(text: str) -> Q:
    return (Q(task__purchase_request__number__icontains=text) | Q(task__initiator__username__icontains=text)
            | Q(task__data__purchase_order__id__icontains=text)
            | Q(task__data_overlay__purchase_order__id__icontains=text))


def inbox_departments(user):
    """Departments the filter offers: those of the approvals that reach `user` (the same ways as
    approvals_visible_to) and the departments they decide for (every department for an admin or a
    director without one), whether or not one has an approval today."""
    if not user.is_authenticated or not user.is_active:
        return Department.objects.none()
    codes = _departments_decided_by(user)
    if codes is EVERY_DEPARTMENT:
        return Department.objects.order_by("code")
    return Department.objects.filter(Q(code__in=codes) | _reached_in(user, OuterRef("code"))).order_by("code")


def _reached_in(user, tenant) -> Q:
    """Some approval of `tenant` reaches `user` (the same ways as _reaches), each way read from
    `user`'s own rows (their approver rows, decisions, grants) and stopping at the first: asked of
    every approval of the department instead, it read the tasks by tenant (a sequential scan)."""

    # `user` and whom they stand in for as ids (today's delegations, read once per request): as
    # `user_id IN (a union)` the planner could not tell how many approver rows that is and scanned
    # them all for someone with none.
    standing = _standing_ids(user)
    # Walked in (user, approval id) order (approval_approvers_user_approval_idx), a person's approver
    # rows come in no order of department; in the order they were written, bob's 10,451 rows of his
    # own department came before his first of another (bench/scale.py at 100,000 tasks: 100 ms).
    return (Probe(Approval.approvers.through.objects.filter(user__in=standing, approval__task__tenant=tenant),
                  ordered_by=("user_id", "approval_id"))
            | Exists(ApprovalDecision.objects.filter(decided_by=user, approval__task__tenant=tenant))
            | Exists(ApprovalDecision.objects.filter(on_behalf_of=user, approval__task__tenant=tenant))
            | Exists(Approval.objects.filter(decided_by=user, task__tenant=tenant))
            | Exists(approval_grants(user).filter(content_object__task__tenant=tenant)))


def approval_for_decider(user, approval_id) -> Approval:
    """The approval, if `user` may read it (on its route, or deciding for its department);
    404 otherwise, so ids cannot be probed."""
    approval = (approvals_visible_to(user).filter(pk=approval_id)
                .select_related("task__initiator", "task__purchase_request__department", "decided_by",
                                "on_behalf_of").prefetch_related(*CHAIN_PREFETCH).first()
                if is_uuid(approval_id) else None)
    if approval is None:
        raise NotFound(said=say("no_such", thing="approval"))
    return approval


def approval_route_reason(approval: Approval, limits: dict | None = None) -> dict:
    """Why the approval came to its approvers, from the rule frozen on it: `rule` ("manager" or
    "director"), the department manager's limit the total was measured against, the total.
    Approvals opened before limits were frozen read today's limits from `limits` (see
    `manager_limits`)."""
    rule = approval.rule or {}
    limit = rule.get("manager_limit")
    if limit is None and limits is not None:
        limit = limits.get(approval.task.tenant)
    return {"rule": rule.get("rule", ""), "manager_limit": Decimal(limit) if limit is not None else None,
            "director_limit": Decimal(rule["director_limit"]) if rule.get("director_limit") else None,
            "total": Decimal(approval.scope.get("total") or rule.get("total") or 0),
            "amounts": rule.get("policy_amounts"),
            "roles": [step.get("role") or step.get("user", "") for step in approval.chain or []],
            # Above every limit, the admin who named the approver from the work queue, and why.
            "chosen_by": rule.get("chosen_by", ""), "chosen_reason": rule.get("chosen_reason", "")}


def manager_limits(approvals) -> dict:
    """Today's highest manager limit per department, for approvals whose rule has none (one query)."""
    codes = {a.task.tenant for a in approvals if "manager_limit" not in (a.rule or {})}
    if not codes:
        return {}
    rows = (Membership.objects.filter(role=Membership.Role.MANAGER, department__code__in=codes)
            .values("department__code").annotate(limit=Max("approval_limit")))
    return {row["department__code"]: row["limit"] for row in rows}


def previous_scope(approval: Approval) -> dict | None:
    """The scope of the approval this one replaced, to show what changed: the one before it of
    the same kind (an invoice exception is never compared with the purchase it followed). The
    kind is told apart in Python, as SQLite has no JSON containment."""
    kind = (approval.scope or {}).get("kind")
    earlier = next((row for row in Approval.objects.filter(task_id=approval.task_id, created_at__lt=approval.created_at)
                    .order_by("-created_at").values("scope", "state_version", "status", "decided_by__username")
                    if (row["scope"] or {}).get("kind") == kind), None)
    if earlier is None:
        return None
    return {"scope": earlier["scope"], "state_version": earlier["state_version"],
            "returned_by": earlier["decided_by__username"] if earlier["status"] == Approval.Status.RETURNED else ""}


def said_since(approval: Approval, since_version: int | None, *, purpose: bool = True) -> dict:
    """What the requester said between the approval before this one (or the start, version 0: her
    answer to the agent's question before any approval) and this one: her replies to the open
    question (`replies`: each question, who asked it, her answer) and, with `purpose`, the purpose
    as it was and became (`purpose`, or None when unchanged), read from the moves' events. And
    `purpose_then`: the purpose as it stood at the approval's own version (purpose_at), read from
    the same events in the same query."""
    events = [(version, actor, data if isinstance(data, dict) else {}) for version, actor, data in TaskEvent.objects
              .filter(task_id=approval.task_id, event__in=("answer", "amend"))
              .order_by("version").values_list("version", "actor", "data")]
    then = purpose_at(approval, [(version, data) for version, _, data in events])
    if since_version is None:
        return {"replies": [], "purpose": None, "purpose_then": then}
    replies, changed = [], None
    for version, actor, data in events:
        if not since_version < version <= approval.state_version:
            continue
        if data.get("answer"):
            replies.append({"question": data.get("asked") or data.get("question", ""), "answer": data["answer"],
                            "by": actor})
        if data.get("purpose"):
            changed = {"before": (changed or data["purpose"])["before"], "after": data["purpose"]["after"]}
    if not purpose or (changed and changed["before"] == changed["after"]):
        changed = None
    return {"replies": replies, "purpose": changed, "purpose_then": then}


def purpose_at(approval: Approval, moves: list[tuple[int, dict]]) -> str:
    """The purpose as it stood at the approval's own version (a superseded approval was asked about
    what the request said then, not what it says today), from the moves (version, event data) that
    may have changed it: the last change at or before that version; else the first change after
    it, as it was before; never changed: the request's purpose now."""
    changes = [(version, data["purpose"]) for version, data in moves if isinstance(data.get("purpose"), dict)]
    upto = [change for version, change in changes if version <= approval.state_version]
    if upto:
        return upto[-1].get("after", "")
    if changes:
        return changes[0][1].get("before", "")
    purchase = getattr(approval.task, "purchase_request", None)
    return purchase.justification if purchase else ""


# What an approver weighs. The ERP requisition is new after every revision (the old one is
# cancelled), so it is not listed as a change: the scope still binds it, and the page names it.
SCOPE_FIELDS = (("supplier", pgettext_lazy("scope change", "Supplier"), "supplier"),
                ("total", pgettext_lazy("scope change", "Total (incl. tax)"), "money"),
                ("lines", pgettext_lazy("scope change", "Lines"), "lines"),
                ("cost_centre", pgettext_lazy("scope change", "Cost centre"), "text"))


def scope_changes(old: dict | None, new: dict) -> list[dict]:
    """What differs between two scopes, structured so a page or a mail renders the label and the
    money in its reader's language: each `{"field", "label", "kind", "before", "after"}`, where
    `kind` is "money" (a decimal string), "supplier" (its name), "lines" (a list of
    "quantity × description") or "text"."""
    if old is None:
        return []
    changes = []
    for key, label, kind in SCOPE_FIELDS:
        before, after = old.get(key), new.get(key)
        if before != after:
            changes.append({"field": key, "label": label, "kind": kind,
                            "before": _plain(before, kind), "after": _plain(after, kind)})
    return changes


def changes_since(approval: Approval) -> dict:
    """For a refused stale click: what happened to the task after the version the approver saw,
    and the approval now open for it, if any."""
    return {
        "events_since": list(TaskEvent.objects.filter(task_id=approval.task_id, version__gt=approval.state_version)
                             .order_by("id")),
        "current_approval": current_approval(approval),
    }


def current_approval(approval: Approval) -> Approval | None:
    """The approval now open for the same task, if it is another one."""
    return (Approval.objects.filter(task_id=approval.task_id, status=Approval.Status.PENDING)
            .exclude(pk=approval.pk).first())


def approvals_for(user, status: str | None = None):
    """The API's list, newest first: the approvals whose waiting step `user` may decide (in person
    or as a delegate), and those they decided a step of. Pending means "waiting for me"."""
    if status == Approval.Status.PENDING:
        approvals = Approval.objects.filter(pk__in=routed_to(user)).exclude(task__initiator=user)
    else:
        approvals = Approval.objects.filter(Q(pk__in=routed_to(user)) | Q(pk__in=decided_by(user))
                                            | Q(decided_by=user))
    approvals = (approvals.select_related("decided_by", "on_behalf_of").prefetch_related(*CHAIN_PREFETCH)
                 .order_by("-created_at", "-pk"))
    return approvals.filter(status=status) if status else approvals


def approval_for(user, approval_id) -> Approval:
    """An approval through the API: whoever may read it on the pages (its approvers, delegates
    standing in for them, whoever decided a step, the department's deciders, admins); anyone else
    gets 404, so ids cannot be probed. Deciding it is checked again by the service (403)."""
    approvals = approvals_visible_to(user).select_related("decided_by", "on_behalf_of").prefetch_related(
        *CHAIN_PREFETCH)
    approval = approvals.filter(pk=approval_id).first() if is_uuid(approval_id) else None
    if approval is None:
        raise NotFound(said=say("no_such", thing="approval"))
    return approval


def decide_refusal(user, approval: Approval) -> Said | None:
    """Why `user`, who may read the approval, may not decide it: "" when its waiting step names
    them (in person or as a delegate for today), a live grant lets them, or they decided a step of
    it (a second click then hears 409). Limits, their own request and the version are re-checked
    at the click."""
    mine = (Q(pk__in=routed_to(user)) | Q(pk__in=approval_grants(user, DECIDE_APPROVAL))
            | Q(pk__in=decided_by(user)) | Q(decided_by=user))
    if Approval.objects.filter(mine, pk=approval.pk).exists():
        return None
    return say("not_on_route")


def approval_to_decide(user, approval_id) -> Approval:
    """An approval the caller may decide: 404 if she may not read it, 403 with the reason if she
    may read it but it was not routed to her."""
    approval = approval_for(user, approval_id)
    refused = decide_refusal(user, approval)
    if refused:
        raise NotPermitted(said=refused)
    return approval


def on_route(user, approval: Approval) -> bool:
    """`user` may decide the step the approval waits on now (in person or standing in for someone
    on it), and it still waits for them."""
    if approval.chain:
        return may_decide_step(user, approval)
    return approval.status == Approval.Status.PENDING and approval.approvers.filter(pk=user.pk).exists()


def _plain(value, kind: str):
    if kind == "supplier" and isinstance(value, dict):
        return value.get("name") or ""
    if kind == "lines" and isinstance(value, list):
        return [labels.line_words(line) for line in value]
    return "" if value is None else str(value)
