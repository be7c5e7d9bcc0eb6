"""No method is assigned onto ``Tensor`` or ``Value`` from outside their own package
(DESIGN.md): every method is found by reading the class's package.

Walks every module under ``minigrad/`` with ``ast`` and fails on ``Tensor.<name> = ...``
(also ``+=``, annotated, and inside a tuple target), ``setattr(Tensor, ...)`` and
``delattr(Tensor, ...)``, and the same for ``Value``, anywhere but the class's own package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: each class, and the paths (relative to the repository) of its own package or module
HOMES = {"Tensor": ("minigrad/tensor/",), "Value": ("minigrad/value.py", "minigrad/value/")}


def patches(source: str) -> list[tuple[int, str]]:
    """``(line, class name)`` of each assignment onto ``Tensor``/``Value`` in ``source``."""
    found = []

    def target(node):
        if isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                target(elt)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id in HOMES):
            found.append((node.lineno, node.value.id))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            target(node.target)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("setattr", "delattr") and node.args
              and isinstance(node.args[0], ast.Name) and node.args[0].id in HOMES):
            found.append((node.lineno, node.args[0].id))
    return found


def test_no_method_is_assigned_onto_tensor_or_value_from_outside_its_package():
    problems = []
    for path in sorted((ROOT / "minigrad").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, cls in patches(path.read_text(encoding="utf-8")):
            if not rel.startswith(HOMES[cls]):
                problems.append(f"{rel}:{line}: assigns onto {cls} from outside its package")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source, expected", [
    ("Tensor.split = split\n", [(1, "Tensor")]),
    ("setattr(Tensor, name, guard(f))\n", [(1, "Tensor")]),
    ("x = 1\nValue.relu += 1\n", [(2, "Value")]),
    ("Tensor.a, Value.b = f, g\n", [(1, "Tensor"), (1, "Value")]),
    ("def f():\n    delattr(Tensor, 'max')\n", [(2, "Tensor")]),
    ("t.split = split\nx = Tensor.split\nsetattr(t, 'a', 1)\n", []),
])
def test_what_counts_as_an_assignment_onto_the_class(source, expected):
    assert patches(source) == expected
