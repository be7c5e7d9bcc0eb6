"""Name scopes: which module (layer) created which graph node.

A renderer wants to draw ``fc1`` as one collapsible box instead of five loose
nodes.  For that it needs, for every node, the qualified name of the module
whose ``forward`` was running when the node was made: ``"fc1"``, or
``"net.0"`` for the first layer of a ``Sequential`` stored as ``net``.

How it works:

* a per-thread **stack of qualified names**; ``scope("block")`` pushes
  ``"block"`` (or ``"outer.block"`` inside ``scope("outer")``) for the
  duration of a ``with`` block, and ``current_scope()`` reads the top;
* ``Module.__call__`` pushes the module's name around ``forward``: its path
  inside the module that called it (``"fc1"``, ``"layers.0.neurons.1"``: the
  path through the module tree, so containers that are never called, like a
  ``ModuleList``, still appear), or for a top-level call the attribute name
  its parent stored it under (none for the root model).  This happens only
  while a ``ScopeMap`` is listening, so ordinary training pays one integer
  check per module call and nothing per node;
* a ``ScopeMap`` is a trace recorder: its ``created(node)`` stores
  ``current_scope()`` under ``node.id``.  Nothing is written into the nodes
  themselves, so the scalar and tensor engines are treated alike.

Usage (what a renderer does)::

    with minigrad.record() as tape, minigrad.nn.record_scopes() as scopes:
        loss = loss_fn(model(x), y)
    scopes.get(node)        # "fc1", "net.0" or None (created outside any module)
    scopes.clusters()       # {"fc1": [node ids...], "net.0": [...]}, creation order
    scopes.modules["fc1"]   # ScopeInfo(kind="Linear", detail="in_features=784, ...")

Parameters are created long before the forward pass, so they get no scope at
creation; instead each module call reports its own parameters, and
``scopes.get(W)`` is the scope of the module that owns ``W`` (the first one to
use it) and ``scopes.param_names[W.id]`` its full name, e.g. ``"fc1.weight"``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..autograd.tape import record
from ..core.modes import STATE

__all__ = ["scope", "current_scope", "ScopeMap", "ScopeInfo", "record_scopes"]


class _Stack(threading.local):
    frames: list | None = None  # (qualified name, module or None for an explicit scope())


_LOCAL = _Stack()


def _frames() -> list:
    frames = _LOCAL.frames
    if frames is None:
        frames = _LOCAL.frames = []
    return frames


def current_scope() -> str | None:
    """The innermost qualified scope name of this thread, or ``None`` outside any scope."""
    frames = _LOCAL.frames
    return (frames[-1][0] or None) if frames else None


def push(name: str, module=None) -> str:
    """Enter scope ``name`` (relative to the current one); returns the qualified name."""
    frames = _frames()
    outer = frames[-1][0] if frames else ""
    qualified = f"{outer}.{name}" if outer and name else (name or outer)
    frames.append((qualified, module))
    return qualified


def pop() -> None:
    _frames().pop()


def calling_module():
    """The innermost module whose forward is running (while scopes are recorded), or None."""
    for _, module in reversed(_LOCAL.frames or ()):
        if module is not None:
            return module
    return None


class scope:
    """``with scope("encoder"):`` tags every node created inside with ``"encoder"``.

    Nested scopes join with dots.  Works for any code, not only modules: use it
    to group a hand-written block of ops into one box in a drawing.
    """

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise ValueError(f"scope name must be a non-empty str, got {name!r}")
        self.name = name

    def __enter__(self) -> str:
        return push(self.name)

    def __exit__(self, *exc):
        pop()
        return False


@dataclass(frozen=True)
class ScopeInfo:
    """What a renderer needs to title a module's box."""

    name: str    # qualified name, e.g. "net.0"
    kind: str    # the module's class name, e.g. "Linear"
    detail: str  # its extra_repr(), e.g. "in_features=784, out_features=256, bias=True"

    @property
    def title(self) -> str:
        return f"{self.name}: {self.kind}" if self.name else self.kind


class ScopeMap:
    """A trace recorder that remembers the scope each node was created in (see module doc)."""

    def __init__(self):
        self.scopes: dict[int, str] = {}        # node id -> qualified scope
        self.modules: dict[str, ScopeInfo] = {}  # qualified scope -> module description
        self.param_names: dict[int, str] = {}   # parameter node id -> "fc1.weight"
        self._paths: dict[int, dict[int, str]] = {}  # id(module) -> {id(descendant): path}

    # --- recorder protocol ----------------------------------------------------------
    def created(self, node) -> None:
        frames = _LOCAL.frames
        if frames and frames[-1][0]:
            self.scopes[node.id] = frames[-1][0]

    def seeded(self, node, grad) -> None:
        pass

    def visit(self, node, upstream) -> None:
        pass

    def contribute(self, node, parent, slot, local_grad, before, after) -> None:
        pass

    def relative_name(self, ancestor, module) -> str | None:
        """``module``'s dotted path inside ``ancestor`` ("layers.0.neurons.1"), or None."""
        paths = self._paths.get(id(ancestor))
        if paths is None:
            paths = self._paths[id(ancestor)] = {
                id(m): name for name, m in ancestor.named_modules() if name}
        return paths.get(id(module))

    def entered(self, module, qualified: str) -> None:
        """Called by ``Module.__call__`` when a module's forward starts."""
        if qualified not in self.modules:
            self.modules[qualified] = ScopeInfo(qualified, type(module).__name__,
                                                module.extra_repr())
        for name, p in module._parameters.items():
            if p is not None and p.id not in self.param_names:
                self.param_names[p.id] = f"{qualified}.{name}" if qualified else name
                if qualified:
                    self.scopes[p.id] = qualified

    # --- queries ----------------------------------------------------------------------
    def get(self, node, default=None):
        """The qualified scope of ``node`` (a node or a node id), or ``default``."""
        return self.scopes.get(getattr(node, "id", node), default)

    def __getitem__(self, node) -> str:
        return self.scopes[getattr(node, "id", node)]

    def __contains__(self, node) -> bool:
        return getattr(node, "id", node) in self.scopes

    def __len__(self) -> int:
        return len(self.scopes)

    def clusters(self) -> dict[str, list[int]]:
        """Node ids per innermost scope, scopes in order of first use, ids ascending.

        For nested boxes, a scope's ancestors are its dotted prefixes
        (``"net.0"`` sits inside ``"net"``); see ``parents_of``.
        """
        out: dict[str, list[int]] = {}
        for node_id in sorted(self.scopes):
            out.setdefault(self.scopes[node_id], []).append(node_id)
        return out

    @staticmethod
    def parents_of(qualified: str) -> list[str]:
        """``"a.b.c" -> ["a", "a.b"]``: the enclosing scopes, outermost first."""
        parts = qualified.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts))]

    def __repr__(self) -> str:
        return f"<ScopeMap {len(self.scopes)} nodes in {len(set(self.scopes.values()))} scopes>"


def record_scopes(scope_map: ScopeMap | None = None):
    """``with record_scopes() as scopes:`` — a ``ScopeMap`` listening for new nodes."""
    if scope_map is not None and not isinstance(scope_map, ScopeMap):
        raise TypeError(
            f"record_scopes() takes an optional ScopeMap to add to, not a "
            f"{type(scope_map).__name__}: write `with record_scopes() as scopes:` and call "
            f"the model inside the block")
    return record(scope_map if scope_map is not None else ScopeMap())


def listening_scope_maps() -> tuple:
    """The ScopeMaps of this thread's active recorders (for ``Module.__call__``)."""
    return tuple(r for r in STATE.recorders if hasattr(r, "entered"))
