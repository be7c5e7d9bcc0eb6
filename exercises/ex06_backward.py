"""Exercise 06 · the backward pass: a chain-rule loop (lesson 2).

Write ``backward(root, gradient=1.0)``: afterwards every node that ``root``
depends on and that requires grad holds ``node.grad = d root / d node`` (times
``gradient``, the seed ``d L / d root``; for a loss it is 1).

What you have (all on minigrad nodes, see ``minigrad/core/node.py``):

* ``minigrad.topological_order(root)``: every node, parents before children
  (or your own from exercise 05).  Reversed, a node comes after all its users.
* ``node.op``: the op that made the node (``None`` for a leaf).  It has one
  gradient rule per parent in ``node.op.grads``, each called as
  ``rule(g, *node.saved)`` with ``g = node.grad``; it returns that parent's
  share ``g · ∂node/∂parent`` (the rules you wrote in exercises 02 to 04).
* ``parent.requires_grad``: ``False`` for constants; skip those.

The chain rule says ``dL/dv = Σ over the edges v → c of dL/dc · ∂c/∂v``: a node
used twice (``x * x``, or ``a`` in ``a*b + a``) gets one term per edge, so add
the terms up instead of overwriting.  Every ``.grad`` is ``None`` at the start
(a fresh graph).  Do not call minigrad's own ``backward``: this *is* it.

Check it:  python -m exercises ex06   (in a notebook: ``check("ex06")``)
"""

__all__ = ["backward"]


def backward(root, gradient: float = 1.0) -> None:
    """Fill ``.grad`` of every node ``root`` depends on (that requires grad)."""
    raise NotImplementedError
