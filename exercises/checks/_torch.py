"""PyTorch for the exercises that read its graph (ex25, ex26): optional, as everywhere.

torch is not a dependency of the kit (``pip install "minigrad-kit[torch]"`` adds it;
``make lab`` does not, ``make test`` does).  Without it those exercises cannot be
checked, so their checks *skip*, with a message that says how to get it, instead of
failing: under pytest the task is reported as skipped, and the meta-tests that run
those checks skip with it.  Nothing here imports torch at import time.
"""

from __future__ import annotations

import importlib

__all__ = ["INSTALL", "chain", "nodes_of", "require_torch"]

INSTALL = 'pip install "minigrad-kit[torch]"  (PyTorch 2.13.0; `make test` installs it)'


def require_torch(exercise: str):
    """``torch``, or a skip (``pytest.skip``) saying that ``exercise`` needs it."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        pass
    message = (f"{exercise} reads PyTorch's graph and needs PyTorch, which is not installed: "
               f"{INSTALL}")
    try:
        import pytest
    except ImportError:  # no pytest either: a plain error that says the same
        raise ModuleNotFoundError(message, name="torch") from None
    pytest.skip(message)


def nodes_of(root) -> list:
    """Every autograd Node behind ``root`` (a Node; ``None``: none), each once, iteratively."""
    if root is None:
        return []
    seen, stack, out = {root}, [root], []
    while stack:
        node = stack.pop()
        out.append(node)
        for parent, _ in node.next_functions:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return out


def chain(depth: int, start):
    """``start`` through ``depth`` tanh Nodes: a graph deeper than Python's recursion limit."""
    h = start
    for _ in range(depth):
        h = h.tanh()
    return h
