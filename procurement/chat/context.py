"""The context a brain gets for one turn, bounded whatever the session's length (DESIGN §2):
the last turns and a running summary (Session), the task's stage, open question, receipts
and approvals (State), and the memory entries in scope, each with its id (Memory)."""
from dataclasses import dataclass

from django.utils import timezone

from agentstate.models import Task, Turn

from procurement import workflow
from procurement.models import Membership
from procurement.purchase.requests import lines_now
from procurement.chat import draft as drafts
from procurement.chat import facts, lexicon, memory_seam, vocabulary
from procurement.chat.brain import Context, MemoryView, TaskView

RECENT_TURNS = 12        # enough to follow a question and its answer; older talk lives in the summary
TURN_CHARS = 500         # a long message is cut in the context, never in the stored turn
SUMMARY_CHARS = 1000
MEMORY_ENTRIES = 20
MEMORY_CHARS = 300
CANDIDATES = 5           # open tasks offered to "continue"


def recent_turns(session, *, before=None) -> list[Turn]:
    """The session's last RECENT_TURNS turns (before seq `before`, if given), oldest first."""
    turns = session.turns.filter(seq__lt=before) if before is not None else session.turns.all()
    return list(turns.order_by("-seq")[:RECENT_TURNS])[::-1]


@dataclass(frozen=True)
class TurnReads:
    """What a turn knows of her requests, read once (turn_reads)."""
    task: Task | None      # the conversation's request
    requests: tuple        # her recent requests (TaskView), newest first
    candidates: tuple      # her open ones this conversation may continue (none while it has an open one)


def turn_reads(session, user) -> TurnReads:
    """The conversation's request, read afresh (a Session object held by the caller may cache an
    old copy of its task), her recent requests and her open ones, in one read."""
    task, requests, still_open = facts.conversation_reads(user, session.task_id, open_limit=CANDIDATES)
    # Only a conversation without an open request may attach to another one.
    attachable = task is None or task.state in workflow.AGENT_DONE
    return TurnReads(task, tuple(requests), tuple(still_open) if attachable else ())


def build_context(*, session, user, message: str, user_turn: Turn, recent: list[Turn] | None = None,
                  reads: TurnReads | None = None) -> Context:
    """`recent` (the turns before hers) and `reads` (turn_reads) when the caller read them already."""
    recent = recent if recent is not None else recent_turns(session, before=user_turn.seq)
    last_agent = next((t.data for t in reversed(recent) if t.role == Turn.Role.AGENT), {}) or {}
    reads = reads or turn_reads(session, user)
    task = reads.task
    heard = catalogue(user)  # the catalogue's words, the departments, and which of them are hers
    return Context(
        message=message, lang=lexicon.language(message, last_agent.get("lang", "")), username=user.get_username(),
        departments=heard.member_of, catalogue=heard,
        turns=tuple((t.role, t.text[:TURN_CHARS]) for t in recent), summary=session.summary[:SUMMARY_CHARS],
        task=facts.task_view(task) if task else None,  # read with all it shows (turn_reads)
        expects=last_agent.get("expects", ""), confirming=last_agent.get("confirming"),
        choices=tuple(last_agent.get("choices", ())),
        candidates=reads.candidates,
        memory=tuple(MemoryView(e["id"], e["version"], e["scope"], e["kind"], e["content"][:MEMORY_CHARS])
                     for e in memory_seam.retrieve(user, task=task, turn=user_turn)[:MEMORY_ENTRIES]),
        requests=reads.requests, about=last_agent.get("about") or "")


def departments_of(user) -> tuple:
    """From Membership, the authority on who files for which department; never from memory."""
    codes = Membership.objects.filter(user=user, department__isnull=False).values_list("department__code", flat=True)
    return tuple(sorted(set(codes)))


def catalogue(member=None) -> vocabulary.Catalogue:
    """The items quoted today, with the words the catalogue is heard by, and the departments
    (`member`'s own among them) in one query."""
    return vocabulary.catalogue(timezone.localdate(), member)


def task_view(task: Task) -> TaskView:
    """The request as State has it now (one read with its lines, receipts and approvals)."""
    return facts.view_of(task.pk) if task.state != workflow.DRAFT else facts.task_view(task)


def summarize(previous: str, task: Task | None, *, seq: int, action: str, outcome: str, catalogue=(),
              lines: list | None = None) -> str:
    """The running summary: one line on the task as stored, then the decisions taken, oldest
    dropped first to stay within SUMMARY_CHARS. Deterministic; no memory text is copied in.
    `catalogue`: the turn's (it names the departments). `lines`: the request's, when the turn
    wrote them (a submit), so they are not read back."""
    if task is None:
        head = "No request yet."
    else:
        draft = task.data.get("draft") or {}
        # Its lines as it stands now (a draft's as drafted: nothing is submitted or awarded yet).
        if task.state == workflow.DRAFT:
            lines = draft.get("lines") or []
        elif lines is None:
            lines = [{"description": line.description, "quantity": line.quantity} for line in lines_now(task)]
        lines = [{"description": line.get("description") or "", "quantity": line.get("quantity")} for line in lines]
        fields = {**draft, "lines": lines}
        head = f"Request {str(task.pk)[:8]}: {task.state} v{task.version}; {drafts.describe(fields, 'en', catalogue)}"
    decisions = previous.splitlines()[1:]
    if action not in ("none", "status", "ask") or outcome != "done":
        decisions.append(f"turn {seq}: {action} {outcome}")
    head = head[:SUMMARY_CHARS // 2]
    while decisions and len("\n".join([head, *decisions])) > SUMMARY_CHARS:
        decisions.pop(0)
    return "\n".join([head, *decisions])[:SUMMARY_CHARS]
