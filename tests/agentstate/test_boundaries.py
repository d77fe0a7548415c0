import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "agentstate"


def test_agentstate_imports_nothing_from_procurement():
    offenders = []
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names if n.split(".")[0] == "procurement"]
    assert list(ENGINE.rglob("*.py")), "the engine's sources were not found"
    assert offenders == []
