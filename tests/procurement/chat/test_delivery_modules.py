"""The chat's deliveries and returns share what they share through public names: neither reaches
into the other for a private helper (a name starting with _), and every import is at the top of
its module, never inside a function."""
import ast
from pathlib import Path

import pytest

import procurement

CHAT = Path(procurement.__file__).resolve().parent / "chat"
MODULES = ("arrivals.py", "returns.py", "deliveries.py")


def tree(name: str) -> ast.Module:
    return ast.parse((CHAT / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", MODULES)
def test_no_private_name_is_imported_from_another_module(name):
    private = [f"{node.module}.{alias.name}" for node in ast.walk(tree(name))
               if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("procurement")
               for alias in node.names if alias.name.startswith("_")]
    assert not private, private


@pytest.mark.parametrize("name", MODULES)
def test_every_import_is_at_the_top_of_the_module(name):
    module = tree(name)
    nested = [node.lineno for node in ast.walk(module) if isinstance(node, (ast.Import, ast.ImportFrom))
              and node not in module.body]
    assert not nested, f"{name}: imports on lines {nested}"
