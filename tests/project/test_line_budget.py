"""A line budget, like tinygrad's: no module over ``BUDGET`` code lines.

A code line is a line that holds part of a Python token other than a comment:
blank lines, comment-only lines and docstrings are free (prose that explains
*why* is welcome; the budget is on code).  Docstrings are found with ``ast``
(the first statement of a module, class or function, when it is a string),
the rest with ``tokenize``, so a ``#`` or a blank line inside a string counts
as the code it is.

``PENDING`` holds today's offenders, each with its count, while someone splits
them.  It must end empty: the test fails when a pending module grows, and when
it is back within budget (remove its entry), so the list only ever shrinks.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("minigrad", "viz", "exercises", "scripts")
BUDGET = 500

PENDING: dict[str, int] = {}

_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER, tokenize.ENCODING}


def docstring_lines(source: str) -> set[int]:
    """Line numbers covered by the docstrings of the module, its classes and functions."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """How many lines of ``source`` hold code (not blank, not only a comment, not a docstring)."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstring_lines(source))


def counts() -> dict[str, int]:
    """``{path relative to the repository: code lines}`` for every module in ``FOLDERS``."""
    return {path.relative_to(ROOT).as_posix(): code_lines(path.read_text(encoding="utf-8"))
            for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))}


def test_no_module_over_the_line_budget():
    found = counts()
    over = {path: n for path, n in found.items() if n > BUDGET}
    for path, n in sorted(over.items(), key=lambda item: -item[1]):
        print(f"{path}: {n} code lines (budget {BUDGET})"
              + (f", pending at {PENDING[path]}" if path in PENDING else ""))
    problems = [f"{path}: {n} code lines, over the budget of {BUDGET}: split it"
                for path, n in over.items() if path not in PENDING]
    for path, was in PENDING.items():
        now = found.get(path)
        if now is None:
            problems.append(f"{path}: in PENDING but gone: remove its entry")
        elif now <= BUDGET:
            problems.append(f"{path}: {now} code lines, within budget now: remove it from PENDING")
        elif now > was:
            problems.append(f"{path}: grew from {was} to {now} code lines while pending a split")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source, expected", [
    ("x = 1\n\n# a comment\ny = 2  # trailing\n", 2),
    ('"""Module docstring\n\nspanning lines."""\nx = 1\n', 1),
    ('def f():\n    """Doc."""\n    return 1\n', 2),
    ('class A:\n    """Doc\n    more."""\n\n    def g(self):\n        return 2\n', 3),
    ('s = """not a docstring\n\n# still the string\n"""\n', 4),
    ("x = (1,\n     # a comment inside brackets\n     2)\n", 2),
])
def test_what_counts_as_a_code_line(source, expected):
    assert code_lines(source) == expected
