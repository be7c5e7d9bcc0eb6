"""Wrong answers that ``checks/ex13_graph_memory.py`` must reject (lesson 7)."""

from __future__ import annotations

import numpy as np

import minigrad
from minigrad import topological_order

from ._registry import mistake


def _saved_bytes(dedup=True, bases=True, skip_released=True, one_level=False):
    def saved_bytes(root):
        total, buffers = 0, {}
        for node in topological_order(root):
            saved = node.saved
            if saved is None and not skip_released:
                saved = node.parents  # the mistake: counts what the parents hold instead
                saved = [p.data for p in saved]
            for item in saved or ():
                if isinstance(item, np.ndarray):
                    base = item
                    while bases and isinstance(base.base, np.ndarray):
                        base = base.base
                        if one_level:
                            break
                    total += base.nbytes
                    buffers[id(base)] = base.nbytes
        return sum(buffers.values()) if dedup else total

    return saved_bytes


mistake("ex13", "saved_bytes", "counts shared buffers twice", "count each buffer once")(
    _saved_bytes(dedup=False))
mistake("ex13", "saved_bytes", "counts a view's own nbytes", "base")(_saved_bytes(bases=False))
mistake("ex13", "saved_bytes", "follows .base only one level", "while it is an ndarray")(
    _saved_bytes(one_level=True))
mistake("ex13", "saved_bytes", "still counts released nodes", "released")(
    _saved_bytes(skip_released=False))


@mistake("ex13", "saved_bytes", "calls .nbytes on a saved shape", "only np.ndarray items")
def _saved_bytes_of_everything(root):
    buffers = {}
    for node in topological_order(root):
        for item in node.saved or ():
            buffers[id(item)] = item.nbytes  # a shape (a tuple) has no nbytes
    return sum(buffers.values())


@mistake("ex13", "saved_bytes", "starts the total at 0.0", "returned 376.0 (float); "
         "expected 376 (int)")
def _saved_bytes_float(root):
    return float(_saved_bytes()(root))  # the mistake: the byte count comes back a float


def _evaluate(no_grad=True, as_float=True, leave_off=False, force_on=False):
    def evaluate(model, loss_fn, batches):
        if force_on:
            minigrad.set_grad_enabled(False)
            losses = [float(loss_fn(model(x), y).item()) for x, y in batches]
            minigrad.set_grad_enabled(True)
            return losses
        if leave_off:
            minigrad.set_grad_enabled(False)
            return [float(loss_fn(model(x), y).item()) for x, y in batches]
        if no_grad:
            with minigrad.no_grad():
                losses = [loss_fn(model(x), y) for x, y in batches]
        else:
            losses = [loss_fn(model(x), y).detach() for x, y in batches]
        return [float(v.item()) if as_float else v for v in losses]

    return evaluate


mistake("ex13", "evaluate", "detach after the fact", "recorded")(_evaluate(no_grad=False))
mistake("ex13", "evaluate", "returns tensors", "Python floats")(_evaluate(as_float=False))
mistake("ex13", "evaluate", "switches grad mode off for good", "left grad mode off")(
    _evaluate(leave_off=True))
mistake("ex13", "evaluate", "ends with set_grad_enabled(True)", "as you found it")(
    _evaluate(force_on=True))
