"""Line budgets, like tinygrad's: no module over ``BUDGET`` code lines, and the
afternoon's core (``minigrad/core``) within ``CORE_BUDGET`` code lines, explained at
least line for line, importing nothing from the rest of minigrad.

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
#: the whole of ``minigrad/core``, the engine a newcomer reads in an afternoon
CORE_BUDGET = 1000
#: lines of explanation (docstrings, comments) per code line in ``minigrad/core``
CORE_EXPLANATION = 1.0
CORE = ROOT / "minigrad" / "core"

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


def explanation_lines(source: str) -> int:
    """How many lines of ``source`` explain: docstring lines and lines holding a comment."""
    lines = set(docstring_lines(source))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            lines.add(token.start[0])
    return len(lines)


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


def test_the_core_reads_in_an_afternoon():
    sources = [path.read_text(encoding="utf-8") for path in sorted(CORE.glob("*.py"))]
    code = sum(code_lines(s) for s in sources)
    explained = sum(explanation_lines(s) for s in sources)
    print(f"minigrad/core: {code} code lines, {explained} lines of explanation "
          f"({explained / code:.2f} per code line)")
    assert code <= CORE_BUDGET, (f"minigrad/core has {code} code lines, over its budget of "
                                 f"{CORE_BUDGET}: move what is not the afternoon's read out")
    assert explained >= CORE_EXPLANATION * code, (
        f"minigrad/core explains {explained} lines for {code} code lines "
        f"({explained / code:.2f}); the core explains itself at least line for line")


def test_the_core_imports_nothing_from_the_rest_of_minigrad():
    """``minigrad/core`` is read on its own: numpy and the standard library only."""
    outside = []
    for path in sorted(CORE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level >= 2 or (node.level == 0 and module.split(".")[0] in
                                       ("minigrad", "viz")):
                    outside.append(f"{path.name}:{node.lineno} from {'.' * node.level}{module}")
            elif isinstance(node, ast.Import):
                outside += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names
                            if a.name.split(".")[0] in ("minigrad", "viz")]
    assert not outside, "minigrad/core imports from outside itself:\n" + "\n".join(outside)


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


@pytest.mark.parametrize("source, expected", [
    ("x = 1\n\n# a comment\ny = 2  # trailing\n", 2),
    ('"""Module docstring\n\nspanning lines."""\nx = 1\n', 3),
    ('def f():\n    return 1\n', 0),
])
def test_what_counts_as_explanation(source, expected):
    assert explanation_lines(source) == expected
