"""The layers of DESIGN.md, checked on every import in minigrad/, viz/ and exercises/.

Every ``import``/``from ... import`` statement counts, at module level or inside a
function (a function-level import is still a dependency, only a later one);
relative imports are resolved to module names.  Imports made with ``importlib``
(``viz/__init__.py``'s lazy names, the exercise runner) are not seen.

* ``minigrad`` never imports ``viz``, ``exercises`` or ``notebooks``;
* no import cycle between modules;
* imports point down the layers of DESIGN.md (``LAYERS`` below, bottom first);
* no private name (``_x``) is imported or used from another module, except from
  a package's own private helper module (``ops/tensor/_base.py`` for modules
  inside ``minigrad/ops/tensor``).

The ``PENDING_*`` allowlists hold today's violations whose fix is in files being
rewritten elsewhere (the core engines; the viz rework).  They must end empty: a
test fails when an entry is fixed (remove it) as well as when a new violation appears.
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("minigrad", "viz", "exercises")

# Bottom first; a module may import from its own layer and the layers below it.
# Patterns are fnmatch patterns over module names; a new module must be placed here.
LAYERS = [
    ("core", ["minigrad.core", "minigrad.core.*"]),
    ("batching", ["minigrad.batching", "minigrad.batching.*"]),  # vmap's batches: arrays
    ("engines", ["minigrad.engines", "minigrad.engines.*"]),
    ("autograd", ["minigrad.autograd", "minigrad.autograd.*", "minigrad.formatting",
                  "minigrad.files"]),
    ("ops", ["minigrad.ops", "minigrad.ops.*"]),  # the op table: below the node classes
    ("Value and Tensor", ["minigrad.random", "minigrad.value", "minigrad.tensor",
                          "minigrad.tensor.*", "minigrad.custom_function", "minigrad.memory",
                          "minigrad.utils", "minigrad.utils.*"]),
    ("functional", ["minigrad.nn.functional", "minigrad.nn.functional.*"]),
    ("nn/optim/data", ["minigrad.nn", "minigrad.nn.*", "minigrad.optim", "minigrad.optim.*",
                       "minigrad.data", "minigrad.data.*"]),
    ("interop", ["minigrad.interop", "minigrad.interop.*"]),  # torch <-> nn, imported lazily
    ("func", ["minigrad.func", "minigrad.func.*"]),
    ("jit", ["minigrad.jit", "minigrad.jit.*"]),
    ("training and CLI", ["minigrad.fitting", "minigrad.train"]),
    ("minigrad's public API", ["minigrad"]),  # the package __init__ re-exports all of the above
    ("viz", ["viz", "viz.*"]),
    ("exercises", ["exercises", "exercises.*"]),
]

# Import cycles, each as its set of modules.
PENDING_CYCLES: list[set[str]] = []

# Private names used across modules, as "importer -> module.name".
PENDING_PRIVATE: set[str] = set()

# Imports pointing up the layers, as "importer -> imported".
PENDING_UPWARD: set[str] = set()


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    path: str  # its file, relative to the repository
    line: int
    module: str  # the imported module (absolute)
    name: str | None = None  # the name taken from it (``from module import name``), if not a module

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def sources() -> dict[str, Path]:
    """``{module name: file}`` for every module of minigrad, viz and exercises."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _absolute(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module a ``from`` import names, with a relative import resolved."""
    if node.level == 0:
        return node.module
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports_of(module: str, path: Path) -> tuple[list[Import], list[Import]]:
    """(imports, private attribute uses ``mod._x`` on an imported module) of one file."""
    mods = sources()
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    found, bound = [], {}  # bound: local name -> module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, rel, node.lineno, alias.name))
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    bound[head] = head
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, path.name == "__init__.py", node)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in mods:  # ``from . import engine``: the submodule itself
                    found.append(Import(module, rel, node.lineno, sub))
                    bound[alias.asname or alias.name] = sub
                else:
                    found.append(Import(module, rel, node.lineno, source, alias.name))
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = bound.get(node.value.id)
            if target is not None and target in mods:
                uses.append(Import(module, rel, node.lineno, target, node.attr))
    return found, uses


@cache
def all_imports() -> tuple[list[Import], list[Import]]:
    imports, uses = [], []
    for module, path in sources().items():
        i, u = _imports_of(module, path)
        imports += i
        uses += u
    return imports, uses


def internal(imp: Import) -> bool:
    return imp.module in sources()


def layer_of(module: str) -> int | None:
    for rank, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(module, p) for p in patterns):
            return rank
    return None


def _stale(pending, current, what) -> list[str]:
    return [f"stale PENDING entry (no such {what} any more, or it changed: remove or update "
            f"it): {entry}" for entry in pending if entry not in current]


# --- (a) minigrad is the bottom: it never imports what is built on it --------------------
def test_minigrad_never_imports_viz_exercises_or_notebooks():
    imports, _ = all_imports()
    bad = [f"{i.where()}: {i.importer} imports {i.module}" for i in imports
           if i.importer.split(".")[0] == "minigrad"
           and i.module.split(".")[0] in ("viz", "exercises", "notebooks")]
    assert not bad, "minigrad must not import viz, exercises or notebooks:\n" + "\n".join(bad)


# --- (b) no cycles -------------------------------------------------------------------------
def _graph() -> dict[str, set[str]]:
    imports, _ = all_imports()
    graph = {m: set() for m in sources()}
    for i in imports:
        if internal(i) and i.module != i.importer:
            graph[i.importer].add(i.module)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import each other (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def _describe_cycle(group: set[str]) -> str:
    imports, _ = all_imports()
    lines = [f"  {i.where()}: {i.importer} imports {i.module}" for i in imports
             if i.importer in group and i.module in group and i.importer != i.module]
    return "cycle between " + ", ".join(sorted(group)) + ":\n" + "\n".join(sorted(set(lines)))


def test_no_import_cycles():
    cycles = strongly_connected(_graph())
    new = [_describe_cycle(c) for c in cycles if c not in PENDING_CYCLES]
    stale = _stale([sorted(c) for c in PENDING_CYCLES], [sorted(c) for c in cycles], "cycle")
    assert not new + stale, "\n".join(new + stale)


def test_the_cycle_finder_finds_a_cycle_and_only_it():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [{"a", "b", "c"}]


# --- (c) imports point down the layers -----------------------------------------------------
def test_every_module_has_a_layer():
    missing = [f"{path.relative_to(ROOT)} ({m})" for m, path in sources().items()
               if layer_of(m) is None]
    assert not missing, "place these modules in LAYERS:\n" + "\n".join(missing)


def test_imports_point_down_the_layers():
    imports, _ = all_imports()
    found, messages = set(), []
    for i in imports:
        if not internal(i):
            continue
        low, high = layer_of(i.module), layer_of(i.importer)
        if low is None or high is None or low <= high:
            continue
        key = f"{i.importer} -> {i.module}"
        found.add(key)
        if key not in PENDING_UPWARD:
            messages.append(f"{i.where()}: {i.importer} ({LAYERS[high][0]}) imports "
                            f"{i.module} ({LAYERS[low][0]}), a layer above it")
    messages += _stale(PENDING_UPWARD, found, "upward import")
    assert not messages, "\n".join(messages)


def test_functional_does_not_import_nn():
    """``F`` (``minigrad.nn.functional``) is the layers' math: the layers use it, never
    the other way round."""
    imports, _ = all_imports()
    bad = [f"{i.where()}: imports {i.module}" for i in imports
           if fnmatch.fnmatchcase(i.importer, "minigrad.nn.functional*")
           and fnmatch.fnmatchcase(i.module, "minigrad.nn*")
           and not fnmatch.fnmatchcase(i.module, "minigrad.nn.functional*")]
    assert not bad, "\n".join(bad)


# --- (d) private names stay in their module ------------------------------------------------
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_violation(imp: Import) -> str | None:
    """``"importer -> module.name"`` when ``imp`` reaches a private name of another module.

    A private module (``pkg/_helpers.py``) may be used by any module inside ``pkg``, and
    the private names it defines with it; nothing else private crosses a module boundary.
    """
    parts = imp.module.split(".")
    for k, part in enumerate(parts):
        if _private(part):
            owner = ".".join(parts[:k])
            if imp.importer != owner and not imp.importer.startswith(owner + "."):
                return f"{imp.importer} -> {'.'.join(parts[:k + 1])}"
            if imp.name is not None and _private(imp.name) and k != len(parts) - 1:
                return f"{imp.importer} -> {imp.module}.{imp.name}"
            return None
    if imp.name is not None and _private(imp.name) and imp.module != imp.importer:
        return f"{imp.importer} -> {imp.module}.{imp.name}"
    return None


def test_no_private_name_crosses_a_module():
    imports, uses = all_imports()
    found, messages = set(), []
    for i in imports + uses:
        if not internal(i):
            continue
        key = private_violation(i)
        if key is None:
            continue
        found.add(key)
        if key not in PENDING_PRIVATE:
            name = f"{i.module}.{i.name}" if i.name else i.module
            messages.append(f"{i.where()}: {i.importer} uses the private {name}")
    messages += _stale(PENDING_PRIVATE, found, "private name used across modules")
    assert not messages, "\n".join(messages)


def test_the_private_rule():
    def check(importer, module, name=None):
        return private_violation(Import(importer, "x.py", 1, module, name))

    assert check("m.ops.tensor.shape", "m.ops.tensor._base", "nd") is None
    assert check("m.ops.tensor.shape", "m.ops.tensor._base", "_helper") is None
    assert check("m.tensor", "m.ops.tensor._base") == "m.tensor -> m.ops.tensor._base"
    assert check("m.function", "m.tensor", "_leaf") == "m.function -> m.tensor._leaf"
    assert check("m.function", "m.tensor", "leaf") is None
    assert check("m.function", "m.tensor", "__version__") is None
    assert check("exercises.checks._support", "exercises._runner") is None
    assert check("m.functional", "m.functional._util", "pair") is None  # the package itself
    assert check("m.nn.layers", "m.functional._util", "pair") == "m.nn.layers -> m.functional._util"
