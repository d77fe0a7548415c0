"""Only the engine (agentstate) changes a task's state, tenant, data, events or turns (DESIGN §4):
nothing in `procurement` writes those tables itself. The scan reads the source as Python, so a
write split over several lines is found as well as one on a single line."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3] / "procurement"
ENGINE_TABLES = {"Task", "TaskEvent", "Turn", "Checkpoint"}
WRITES = {"create", "bulk_create", "get_or_create", "update_or_create", "update", "bulk_update", "delete"}


def _root_name(node) -> str:
    """The name a chain such as `Task.objects.filter(...).update` starts from."""
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return node.id if isinstance(node, ast.Name) else ""


def _chain_has_objects(node) -> bool:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


def direct_writes(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ENGINE_TABLES - {"Task"}:
            found.append((node.lineno, f"{func.id}(...)"))  # a row built by hand, to be saved
        if not isinstance(func, ast.Attribute):
            continue
        root = _root_name(func)
        if func.attr in WRITES and root in ENGINE_TABLES and _chain_has_objects(func):
            found.append((node.lineno, f"{root}.objects….{func.attr}()"))
        receiver = ast.unparse(func.value)
        if func.attr in {"save", "delete", "refresh_from_db"} - {"refresh_from_db"} and (
                receiver == "task" or receiver.endswith((".task", "_task")) or receiver.startswith("task.")):
            found.append((node.lineno, f"{receiver}.{func.attr}()"))
    return found


def sources():
    return sorted(p for p in ROOT.rglob("*.py") if "migrations" not in p.parts)


def test_nothing_in_procurement_writes_the_engines_tables_itself():
    offences = [f"{path.relative_to(ROOT.parent)}:{line}: {what}"
                for path in sources() for line, what in direct_writes(path.read_text())]
    assert offences == [], "write these through agentstate (fire, task_note, task_retag, turn_append):\n" + \
        "\n".join(offences)


@pytest.mark.parametrize("source", [
    "TaskEvent.objects.create(task_id=t, event='x')",
    "Task.objects.filter(pk=t.pk,\n    version=v).update(tenant='OPS')",
    "Turn.objects.create(session_id=s, seq=1)",
    "task.save(update_fields=['data'])",
    "request.task.save()",
    "TaskEvent(task=t).save()",
])
def test_the_scan_finds_each_kind_of_direct_write(source):
    assert direct_writes(source), source


def test_the_scan_leaves_reads_and_other_tables_alone():
    assert direct_writes("Task.objects.filter(pk=1).values('state')\nSession.objects.filter(pk=1).update(x=1)\n"
                         "request.save()\nReceipt.objects.create(task=t)") == []
