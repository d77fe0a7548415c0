"""Queueing has one home (procurement.infra.queueing): nothing but the app's wiring imports the Celery
tasks module, so no import cycle runs between steps, services and tasks."""
import ast
from pathlib import Path

from procurement.infra import queueing

APP = Path(__file__).resolve().parents[3] / "procurement"
WIRING = {"apps.py", "tasks.py"}


def _imports_tasks(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            names = [alias.name for alias in node.names]
            if module == "procurement.tasks" or (module == "procurement" and "tasks" in names):
                found.append(f"{path.relative_to(APP)}:{node.lineno}")
        elif isinstance(node, ast.Import):
            found += [f"{path.relative_to(APP)}:{node.lineno}" for a in node.names if a.name == "procurement.tasks"]
    return found


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = ["procurement", *path.parent.relative_to(APP).parts]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def test_only_the_app_wiring_imports_the_celery_tasks_module():
    sources = [p for p in APP.rglob("*.py") if p.name not in WIRING or p.parent != APP]
    assert any(p.name == "steps.py" for p in sources), "the app's sources were not found"
    assert [hit for p in sources for hit in _imports_tasks(p)] == []


def test_queueing_names_the_registered_celery_tasks():
    assert queueing._task(queueing.ADVANCE).name == queueing.ADVANCE
    assert queueing._task(queueing.DISPATCH_OUTBOX).name == queueing.DISPATCH_OUTBOX
