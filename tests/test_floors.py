"""The house in floors (issue: one way to change a task; DESIGN §2): no import cycle among the
modules of procurement, and no import placed inside a function except where pyproject.toml's
import contracts name it (the app's ready() and telemetry's optional exporters)."""
import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
# The only places that import at use: Django's ready() runs once the models are loaded, and the
# OpenTelemetry exporters load only when an endpoint is configured.
IMPORTS_AT_USE = {"procurement/apps.py", "procurement/infra/telemetry.py"}


def _modules():
    for path in sorted((ROOT / "procurement").rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def _imports_inside_functions(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines += [sub.lineno for sub in ast.walk(node) if isinstance(sub, (ast.Import, ast.ImportFrom))]
    return lines


def test_no_module_imports_inside_a_function_outside_the_named_places():
    found = {str(path.relative_to(ROOT)): lines for path in _modules()
             if (lines := _imports_inside_functions(path)) and str(path.relative_to(ROOT)) not in IMPORTS_AT_USE}
    assert found == {}, f"imports inside functions (hoist them, or break the cycle they dodge): {found}"


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]; counter[0] += 1; stack.append(child); on.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & modules))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop(); on.discard(member); component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("procurement", "agentstate", "erpsim")


def _app(graph) -> set[str]:
    return {m for m in graph.modules if m.startswith("procurement") and ".migrations" not in m}


def test_no_import_cycle_among_the_modules(graph):
    modules = _app(graph)
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.build_graph("procurement")
    graph.add_import(importer="procurement.models", imported="procurement.pages.tasks")
    assert any("procurement.models" in c and "procurement.pages.tasks" in c for c in _cycles(graph, _app(graph)))
