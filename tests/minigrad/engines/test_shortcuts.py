"""The fast loops' shortcuts are data (``engines.shortcuts.SHORTCUTS``): each cites the tests
that pin what it relies on, and every cited test must exist, so that a renamed or
deleted test cannot leave a shortcut unproven without this failing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from minigrad.engines.shortcuts import SHORTCUTS

ROOT = Path(__file__).resolve().parents[3]


def _defined(path: Path) -> set[str]:
    """``name`` for each test function and ``Class::name`` for each test method in a file."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(f"{node.name}::{item.name}" for item in node.body
                         if isinstance(item, ast.FunctionDef))
    return names


CITED = sorted({test for shortcut in SHORTCUTS for test in shortcut.tests})


def test_every_shortcut_cites_a_test():
    assert SHORTCUTS
    for shortcut in SHORTCUTS:
        assert shortcut.tests, f"{shortcut.name}: cites no test"
        assert shortcut.what.strip(), f"{shortcut.name}: says nothing about what it skips"


@pytest.mark.parametrize("cited", CITED)
def test_each_cited_test_exists(cited):
    path, _, name = cited.partition("::")
    file = ROOT / path
    assert file.is_file(), f"{cited}: no file {path}"
    assert name in _defined(file), f"{cited}: {path} defines no test {name}"


def test_a_missing_test_is_caught(tmp_path):
    """The check itself bites: a file that lacks the cited name is reported."""
    fake = tmp_path / "test_x.py"
    fake.write_text("def test_a():\n    pass\n\n"
                    "class TestB:\n    def test_c(self):\n        pass\n")
    assert _defined(fake) == {"test_a", "TestB::test_c"}
    assert "test_gone" not in _defined(fake)
