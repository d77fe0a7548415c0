"""Print how many refusals are raised without a code: each `raise X(...)` of a DomainError subclass
(found by its bases, in every package) with no `said=` and no class `code`, in agentstate and
procurement (migrations left out). A refusal raised through a helper (`raise _invalid(...)`) is
not seen; `said(X(...))` (worded at the raise by gettext) counts as uncoded.

    python scripts/count_uncoded_refusals.py [root] [-v]"""
import ast
import sys
from pathlib import Path

PACKAGES = ("agentstate", "procurement")


def _name(node) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _trees(root: Path) -> dict[Path, ast.AST]:
    return {path: ast.parse(path.read_text(encoding="utf-8")) for package in PACKAGES
            for path in sorted((root / package).rglob("*.py")) if "migrations" not in path.parts}


def _refusal_classes(trees) -> tuple[set[str], set[str]]:
    """Every DomainError subclass by name, and those whose class gives a code."""
    classes, coded, grown = {"DomainError"}, set(), True
    while grown:
        grown = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in classes \
                        and {_name(base) for base in node.bases} & classes:
                    classes.add(node.name)
                    grown = True
                    if any(isinstance(s, ast.Assign) and any(_name(t) == "code" for t in s.targets)
                           and isinstance(s.value, ast.Constant) and s.value.value for s in node.body):
                        coded.add(node.name)
    return classes, coded


def uncoded(root: Path) -> list[tuple[str, int, str]]:
    """(path, line, class) of each refusal raised without a code."""
    trees = _trees(root)
    classes, coded = _refusal_classes(trees)
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            call = node.exc
            if _name(call.func) == "said" and call.args and isinstance(call.args[0], ast.Call):
                call = call.args[0]
            name = _name(call.func)
            if name in classes and name not in coded and not any(k.arg == "said" for k in call.keywords):
                found.append((str(path.relative_to(root)), node.lineno, name))
    return sorted(found)


def per_package(root: Path) -> dict[str, int]:
    counts = dict.fromkeys(PACKAGES, 0)
    for path, _line, _name_ in uncoded(root):
        counts[path.split("/")[0]] += 1
    return counts


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    where = Path(args[0] if args else Path(__file__).resolve().parent.parent)
    if "-v" in sys.argv:
        for row in uncoded(where):
            print(*row)
    for package, n in per_package(where).items():
        print(f"{package}: {n}")
