"""REST API v1 shapes (DESIGN §10). Inputs are checked here before any service runs; outputs
read the records: money as 2-place decimal strings, ids as UUIDs, times with their offset."""
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agentstate.approvals import DECISIONS
from agentstate.models import Approval, Receipt, Session, Task, TaskEvent, Turn

from procurement.words import labels
from procurement import selectors
from procurement.infra.limits import (MAX_DESCRIPTION_CHARS, MAX_JUSTIFICATION_CHARS, MAX_LINES, MAX_QUANTITY, MONEY_DECIMAL_PLACES,
                      MONEY_MAX_DIGITS)
from procurement.purchase.requests import AGENT, ALL, ANSWER, APPROVAL, CONFIRMATION, ERP, FINISHED, OPEN, REVIEW, RequestNow, request_now
from procurement.purchase.progress import progress_of
from procurement.policy.chain import chain_view
from procurement.policy.chain import policy_version

MONEY = {"max_digits": MONEY_MAX_DIGITS, "decimal_places": MONEY_DECIMAL_PLACES}
NULLABLE_STRING = {"type": "string", "nullable": True}


def money(value) -> str | None:
    return None if value in (None, "") else f"{Decimal(value):.2f}"


class StrictIntegerField(serializers.IntegerField):
    """A JSON whole number: "2", 1.5 and true are refused rather than coerced."""

    default_error_messages = {"invalid": "A whole number is required."}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


# -- input -------------------------------------------------------------------------

class LineInputSerializer(serializers.Serializer):
    description = serializers.CharField(max_length=MAX_DESCRIPTION_CHARS)
    quantity = StrictIntegerField(min_value=1, max_value=MAX_QUANTITY)
    unit_price = serializers.DecimalField(**MONEY, min_value=Decimal("0"), required=False, allow_null=True)


def lines_field(**kwargs):
    return LineInputSerializer(many=True, allow_empty=False, max_length=MAX_LINES, **kwargs)


def budget_field():
    return serializers.DecimalField(**MONEY, required=False, allow_null=True,
                                    help_text="The requester's own cap, tax-inclusive.")


def check_budget(value):
    if value is not None and value <= 0:
        raise serializers.ValidationError("A budget must be greater than zero.")
    return value


class TaskCreateSerializer(serializers.Serializer):
    department = serializers.CharField(max_length=20, help_text='Department code, e.g. "ENG".')
    lines = lines_field()
    justification = serializers.CharField(max_length=MAX_JUSTIFICATION_CHARS)
    budget = budget_field()
    session = serializers.UUIDField(required=False, allow_null=True, help_text="One of your own chat sessions.")

    def validate_budget(self, value):
        return check_budget(value)

    def validate_session(self, value):
        if value is None:
            return None
        session = selectors.own_open_session(self.context["request"].user, value)
        if session is None:
            raise serializers.ValidationError("No such session of yours.")
        return session


class TaskAmendSerializer(serializers.Serializer):
    lines = lines_field(required=False)
    justification = serializers.CharField(max_length=MAX_JUSTIFICATION_CHARS, required=False)
    budget = budget_field()
    answer = serializers.CharField(max_length=MAX_JUSTIFICATION_CHARS, required=False,
                                   help_text="Her reply to the open question (awaiting_input); the next approver reads it.")
    version = StrictIntegerField(min_value=1, required=False, help_text="The version you saw; 409 if it moved.")

    def validate_budget(self, value):
        return check_budget(value)

    def validate(self, attrs):
        if not attrs.keys() & {"lines", "justification", "budget", "answer"}:
            raise serializers.ValidationError("Change at least one of: lines, justification, budget, or answer.")
        return attrs


class CancelSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class DecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=list(DECISIONS))
    state_version = StrictIntegerField(min_value=1, help_text="The task version the approval page showed.")
    scope_hash = serializers.CharField(max_length=64, required=False)
    comment = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="",
                                    help_text="Required to reject or return.")
    other_request = serializers.ChoiceField(choices=["cancel", "keep"], required=False, allow_blank=True, default="",
                                            help_text="To approve while a fork of the same request is open: "
                                                      "cancel the others, or keep both.")


class RequestFilterSerializer(serializers.Serializer):
    show = serializers.ChoiceField(choices=[OPEN, FINISHED, ALL], required=False, default=ALL,
                                   help_text="open: not yet finished; finished: ordered, rejected, cancelled or expired.")


class ApprovalFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Approval.Status.choices, required=False)


# -- output ------------------------------------------------------------------------

class ReceiptSerializer(serializers.ModelSerializer):
    # A plain string in the schema: an enum also named "status" would collide with the approval's.
    status = serializers.CharField(read_only=True, help_text=", ".join(Receipt.Status.values))

    class Meta:
        model = Receipt
        fields = ["operation", "idempotency_key", "status", "external_id"]


class TaskApprovalSerializer(serializers.ModelSerializer):
    class Meta:
        model = Approval
        fields = ["id", "status", "state_version"]


class EventSerializer(serializers.ModelSerializer):
    class Meta:
        model = TaskEvent
        fields = ["at", "actor", "event", "from_state", "to_state", "version"]


class LineOutputSerializer(serializers.Serializer):
    description = serializers.CharField()
    quantity = serializers.IntegerField(allow_null=True, help_text="Null only in a draft still being asked for.")
    unit_price = serializers.DecimalField(**MONEY, allow_null=True)
    amount = serializers.DecimalField(**MONEY, allow_null=True)


class LineProgressSerializer(LineOutputSerializer):
    received = serializers.IntegerField(help_text="Accepted so far, net of returns.")
    rejected = serializers.IntegerField()
    invoiced = serializers.IntegerField()


def lines_with_progress(task, lines) -> list[dict]:
    """The task body's lines, each with `received`, `rejected` and `invoiced` (0 before the PO)."""
    progress = {line.line: line for line in progress_of(task).lines}
    return [{"description": line.description, "quantity": line.quantity, "unit_price": line.unit_price,
             "amount": line.amount, "received": progress[n].received if n in progress else 0,
             "rejected": progress[n].rejected if n in progress else 0,
             "invoiced": progress[n].invoiced if n in progress else 0} for n, line in enumerate(lines)]


class WaitingOnSerializer(serializers.Serializer):
    # A plain string in the schema: an enum also named "kind" would collide with memory's.
    kind = serializers.CharField(help_text="What the request waits for: " +
                                 ", ".join([APPROVAL, ANSWER, CONFIRMATION, AGENT, ERP, REVIEW]))
    people = serializers.ListField(child=serializers.CharField(), help_text="On whom (usernames); empty for the "
                                   "agent, the ERP or whoever reviews it.")
    since = serializers.DateTimeField()
    text = serializers.CharField(help_text="The same in words, in the caller's language.")


def now_of(task) -> RequestNow:
    """request_now, read once per task however many fields ask."""
    if "_request_now" not in task.__dict__:
        task.__dict__["_request_now"] = request_now(task, task.__dict__.get("_stand_ins"))
    return task.__dict__["_request_now"]


class TaskSummarySerializer(serializers.ModelSerializer):
    department = serializers.CharField(source="tenant", read_only=True)
    requester = serializers.CharField(source="initiator.username", read_only=True)
    number = serializers.SerializerMethodField(help_text='"REQ-2026-00042"; null for a chat draft not yet confirmed.')
    supplier = serializers.SerializerMethodField()
    total = serializers.SerializerMethodField()

    class Meta:
        model = Task
        fields = ["id", "number", "state", "version", "step", "department", "requester", "supplier", "total",
                  "created_at", "updated_at"]
        read_only_fields = fields

    @extend_schema_field(NULLABLE_STRING)
    def get_number(self, task) -> str | None:
        return now_of(task).number

    @extend_schema_field(NULLABLE_STRING)
    def get_supplier(self, task) -> str | None:
        return now_of(task).supplier

    @extend_schema_field(serializers.DecimalField(**MONEY, allow_null=True))
    def get_total(self, task):
        return money(now_of(task).total)


class TaskDetailSerializer(TaskSummarySerializer):
    """The task body of `GET /api/v1/tasks/{id}/`, also answered by create, amend and cancel."""

    lines = serializers.SerializerMethodField()
    subtotal = serializers.SerializerMethodField()
    tax = serializers.SerializerMethodField()
    receipts = ReceiptSerializer(many=True, read_only=True)
    approvals = TaskApprovalSerializer(many=True, read_only=True)
    events = EventSerializer(many=True, read_only=True)
    question = serializers.SerializerMethodField()
    justification = serializers.SerializerMethodField()
    po_number = serializers.SerializerMethodField(help_text="The ERP purchase order's id, once issued.")
    waiting_on = serializers.SerializerMethodField()
    trace_id = serializers.CharField(read_only=True, help_text="The W3C trace id (32 hex) of everything done for it.")
    receipt_status = serializers.SerializerMethodField(help_text="none, partial or full (goods accepted).")
    billing_status = serializers.SerializerMethodField(help_text="none, partial, full or exception.")

    class Meta(TaskSummarySerializer.Meta):
        fields = ["id", "number", "state", "version", "step", "department", "requester", "supplier", "lines",
                  "subtotal", "tax", "total", "receipts", "approvals", "events", "question", "justification",
                  "po_number", "waiting_on", "trace_id", "receipt_status", "billing_status", "created_at",
                  "updated_at"]
        read_only_fields = fields

    @extend_schema_field(LineProgressSerializer(many=True))
    def get_lines(self, task) -> list:
        """Priced by the award once there is one; until then as asked for, without prices."""
        return LineProgressSerializer(lines_with_progress(task, now_of(task).lines), many=True).data

    def get_receipt_status(self, task) -> str:
        return progress_of(task).receipt_status

    def get_billing_status(self, task) -> str:
        return progress_of(task).billing_status

    @extend_schema_field(serializers.DecimalField(**MONEY, allow_null=True))
    def get_subtotal(self, task):
        return money(now_of(task).subtotal)

    @extend_schema_field(serializers.DecimalField(**MONEY, allow_null=True))
    def get_tax(self, task):
        return money(now_of(task).tax)

    @extend_schema_field(NULLABLE_STRING)
    def get_question(self, task) -> str | None:
        question = now_of(task).question
        return question.text if question else None

    def get_justification(self, task) -> str:
        return now_of(task).justification

    @extend_schema_field(NULLABLE_STRING)
    def get_po_number(self, task) -> str | None:
        return now_of(task).po_number

    @extend_schema_field(WaitingOnSerializer(allow_null=True))
    def get_waiting_on(self, task) -> dict | None:
        return waiting_on_json(now_of(task), self.context.get("request"))


def waiting_on_json(now: RequestNow, request) -> dict | None:
    viewer = getattr(request, "user", None)
    return now.waiting_on.as_json(viewer) if now.waiting_on else None


class RequestSerializer(serializers.Serializer):
    """One row of the requester's home (`GET /api/v1/requests/`), read from request_now."""

    id = serializers.UUIDField()
    number = serializers.CharField(allow_null=True, help_text='"REQ-2026-00042"; null for a chat draft.')
    summary = serializers.CharField(help_text='Items and quantities, e.g. "2 × Laptop".')
    total = serializers.DecimalField(**MONEY, allow_null=True, help_text="Tax-inclusive (含稅), once awarded.")
    state = serializers.CharField()
    state_label = serializers.CharField(help_text="The state in the caller's language.")
    waiting_on = serializers.SerializerMethodField()
    po_number = serializers.CharField(allow_null=True)

    @extend_schema_field(WaitingOnSerializer(allow_null=True))
    def get_waiting_on(self, now) -> dict | None:
        return waiting_on_json(now, self.context.get("request"))


class ChainDecisionSerializer(serializers.Serializer):
    decided_by = serializers.CharField()
    on_behalf_of = serializers.CharField(allow_null=True, source="on_behalf_of_or_none")
    decision = serializers.CharField()
    at = serializers.DateTimeField()


class ChainStepSerializer(serializers.Serializer):
    step = serializers.IntegerField(source="number")
    role = serializers.CharField(allow_null=True, source="role_or_none", help_text="manager, director, finance; "
                                 "null when the step names a person")
    user = serializers.CharField(allow_null=True, source="user_or_none", help_text="the person the step names")
    mode = serializers.CharField(help_text="any (any one of them decides) or all (each of them)")
    status = serializers.CharField(help_text="approved, pending (waiting now), waiting (to come), rejected, "
                                   "returned, superseded, expired, not_reached")
    people = serializers.ListField(child=serializers.CharField(), help_text="who may decide it (usernames)")
    offered_to = serializers.ListField(child=serializers.CharField(), source="offered",
                                       help_text="backups it was offered to after waiting too long")
    decided_by = serializers.CharField(allow_null=True, source="decided_by_or_none")
    on_behalf_of = serializers.CharField(allow_null=True, source="on_behalf_of_or_none")
    decided_at = serializers.DateTimeField(allow_null=True)
    decisions = ChainDecisionSerializer(many=True)


class ApprovalSerializer(serializers.ModelSerializer):
    task = serializers.UUIDField(source="task_id", read_only=True)
    decided_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    on_behalf_of = serializers.SlugRelatedField(slug_field="username", read_only=True,
                                                help_text="Whom the person who decided stood in for (a delegate).")
    chain = serializers.SerializerMethodField()
    policy_version = serializers.SerializerMethodField()
    kind = serializers.SerializerMethodField(help_text="purchase, or invoice_exception for an invoice's match exception.")

    class Meta:
        model = Approval
        fields = ["id", "kind", "task", "state_version", "status", "scope", "scope_hash", "expires_at", "created_at",
                  "rule", "decided_by", "on_behalf_of", "decided_at", "comment", "policy_version", "chain"]

    def get_kind(self, approval) -> str:
        return (approval.scope or {}).get("kind") or "purchase"

    @extend_schema_field(ChainStepSerializer(many=True))
    def get_chain(self, approval) -> list:
        return ChainStepSerializer(chain_view(approval), many=True).data

    def get_policy_version(self, approval) -> int | None:
        return policy_version(approval)


class TurnSerializer(serializers.ModelSerializer):
    class Meta:
        model = Turn
        fields = ["seq", "role", "text", "created_at"]


class SessionSerializer(serializers.ModelSerializer):
    task = serializers.UUIDField(source="task_id", read_only=True, allow_null=True)
    turns = TurnSerializer(many=True, read_only=True)
    status = serializers.CharField(read_only=True, help_text="active, idle, closed or expired")
    status_label = serializers.SerializerMethodField(help_text="the status in the caller's language")

    class Meta:
        model = Session
        fields = ["id", "created_at", "task", "status", "status_label", "turns"]

    def get_status_label(self, session) -> str:
        return labels.label(labels.SESSION_LABELS, session.status)
