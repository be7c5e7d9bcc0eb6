"""Wrong answers that ``checks/ex26_biggest_saved.py`` must reject (lesson 15)."""

from __future__ import annotations

from .._torch import nodes_of
from ._registry import mistake


def _biggest(loss, *, size=None, attributes=None, catch=True, label=None, nodes=nodes_of):
    """The reference walk, with one thing done wrong (each mistake's keyword)."""
    import torch

    best = None
    for node in nodes(loss.grad_fn):
        for attribute in attributes or [a for a in dir(node) if a.startswith("_saved_")]:
            try:
                value = getattr(node, attribute, None)
            except RuntimeError:
                if not catch:
                    raise
                continue
            if isinstance(value, torch.Tensor):
                nbytes = (size or (lambda t: t.numel() * t.element_size()))(value)
                if best is None or nbytes > best[2]:
                    best = ((label or (lambda n: n.name()))(node), attribute, nbytes)
    return best


mistake("ex26", "biggest_saved", "counts elements, not bytes", "not elements")(
    lambda loss: _biggest(loss, size=lambda t: t.numel()))
mistake("ex26", "biggest_saved", "reads only _saved_self and _saved_other", "_saved_result")(
    lambda loss: _biggest(loss, attributes=["_saved_self", "_saved_other"]))
mistake("ex26", "biggest_saved", "does not catch the freed tensors' error", "RuntimeError")(
    lambda loss: _biggest(loss, catch=False))
mistake("ex26", "biggest_saved", "returns the Node, not its name", "name()")(
    lambda loss: _biggest(loss, label=lambda n: n))
mistake("ex26", "biggest_saved", "only the loss's own Node", "whole graph")(
    lambda loss: _biggest(loss, nodes=lambda root: [] if root is None else [root]))


@mistake("ex26", "biggest_saved", "drops the _saved_ prefix", "as dir() lists it")
def _no_prefix(loss):
    best = _biggest(loss)
    return None if best is None else (best[0], best[1].removeprefix("_saved_"), best[2])


@mistake("ex26", "biggest_saved", "walks the graph by recursion", "explicit stack")
def _recursive(loss):
    def nodes(root):
        out, seen = [], set()

        def visit(node):
            seen.add(node)
            out.append(node)
            for parent, _ in node.next_functions:
                if parent is not None and parent not in seen:
                    visit(parent)

        if root is not None:
            visit(root)
        return out

    return _biggest(loss, nodes=nodes)


@mistake("ex26", "biggest_saved", "assumes the loss has a graph", "return None")
def _no_graph(loss):
    def nodes(root):  # (loss.grad_fn taken as a Node, even when it is None)
        out, stack = [], [root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(p for p, _ in node.next_functions if p is not None and p not in out)
        return out

    return _biggest(loss, nodes=nodes)


@mistake("ex26", "biggest_saved", "kilobytes instead of bytes", "element_size")
def _kilobytes(loss):
    best = _biggest(loss)
    return None if best is None else (best[0], best[1], best[2] // 1024)
