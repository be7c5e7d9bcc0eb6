"""viz's modules import one way (no circles, function-level imports included) and stay small."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import viz

VIZ = Path(viz.__file__).parent
BUDGET = 400  # code lines per module (not blank, not comments, not docstrings)


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("viz."):
            out.add(node.module.split(".")[1])
    return out


def test_no_import_circles_in_viz():
    graph = {p.stem: _imports(p) for p in VIZ.glob("*.py") if p.stem != "__init__"}
    done, active = set(), []

    def visit(mod):
        if mod in active:
            raise AssertionError("import circle: " + " -> ".join(active[active.index(mod):]
                                                                  + [mod]))
        if mod in done or mod not in graph:
            return
        active.append(mod)
        for dep in sorted(graph[mod]):
            visit(dep)
        active.pop()
        done.add(mod)

    for mod in sorted(graph):
        visit(mod)


def _code_lines(path: Path) -> int:
    src = path.read_text(encoding="utf-8")
    docs = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                docs.update(range(first.lineno, first.end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER)
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in skip:
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return len(lines)


def test_every_viz_module_fits_the_budget():
    sizes = {p.name: _code_lines(p) for p in VIZ.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > BUDGET} == {}
