"""Wrong answers that ``checks/ex06_backward.py`` must reject (lesson 2)."""

from __future__ import annotations

from minigrad import topological_order

from ._registry import mistake


def _engine(accumulate=True, seed=True, forward=False, skip_constants=True):
    def backward(root, gradient=1.0):
        root.grad = gradient if seed else 1.0
        order = topological_order(root)
        for node in order if forward else reversed(order):
            if node.op is None or node.grad is None:
                continue
            for parent, rule in zip(node.parents, node.op.grads, strict=True):
                if parent.requires_grad or not skip_constants:
                    local = rule(node.grad, *node.saved)
                    if accumulate and parent.grad is not None:
                        local = parent.grad + local
                    parent.grad = local

    return backward


mistake("ex06", "backward", "overwrites instead of adding", "+=")(_engine(accumulate=False))
mistake("ex06", "backward", "ignores the seed", "seed the root")(_engine(seed=False))
mistake("ex06", "backward", "walks parents first", "no gradient reached")(_engine(forward=True))
mistake("ex06", "backward", "gives constants a gradient", "if parent.requires_grad")(
    _engine(skip_constants=False))
mistake("ex06", "backward", "calls minigrad's backward", "yourself")(
    lambda root, gradient=1.0: root.backward(gradient))


@mistake("ex06", "backward", "adds into a .grad that is still None", "None until a gradient")
def _adds_into_none(root, gradient=1.0):
    root.grad = gradient
    for node in reversed(topological_order(root)):
        if node.op is None:
            continue
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                parent.grad += rule(node.grad, *node.saved)
