"""Exercise 07 · fix an engine that forgets to accumulate (lesson 3).

``broken_grad`` below is a complete little engine in the style of
``torch.autograd.grad``: it returns ``d root / d x`` for each ``x`` in
``inputs`` and leaves every ``.grad`` alone, keeping the gradients in a dict
of its own.  It even looks right, and on ``tanh(a * b)`` it *is* right.  Try it
on ``x * x`` at ``x = 3``: it says 3, not 6.

Find the bug, then write ``grad(root, inputs)``: the same engine, fixed.
Hint: draw ``x * x`` (one node, two edges) and follow the loop by hand, or
print ``grads`` after each step.  Lesson 3 explains why the fix is a ``+=``
and why minigrad keeps that ``+=`` in the engine and not in each op.

Your ``grad`` must, like ``broken_grad``: return floats (``0.0`` for an input
``root`` does not depend on), not touch any node's ``.grad``, and give the same
answer when called twice.

Check it:  python -m exercises ex07   (in a notebook: ``check("ex07")``)
"""

from minigrad import topological_order

__all__ = ["grad"]


def broken_grad(root, inputs) -> list[float]:
    """d root / d x for each x in ``inputs``: almost right (this is the bug hunt)."""
    grads = {root: 1.0}  # node -> d root / d node, filled in as backward reaches it
    for node in reversed(topological_order(root)):
        if node.op is None or node not in grads:
            continue
        g = grads[node]
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                grads[parent] = rule(g, *node.saved)
    return [grads.get(x, 0.0) for x in inputs]


def grad(root, inputs) -> list[float]:
    """d root / d x for each x in ``inputs``, without touching any ``.grad``."""
    raise NotImplementedError
