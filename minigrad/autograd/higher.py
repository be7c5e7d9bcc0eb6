"""What changes when backward builds a graph (``create_graph=True``).

A backward pass is itself a computation: ``dL/dx = g · ∂y/∂x`` multiplies and
adds numbers.  Run it on the engine's own values instead of raw numbers and
every multiplication and addition is recorded like any forward op; the
gradient then has a graph of its own, which can be differentiated again
(second derivatives, Hessian-vector products, gradient penalties).

The engine's loop does not change (``engine.run_reference``).  Three things do:

1. the upstream gradient ``g`` is a node, and so is everything a rule returns;
2. the values an op saved for backward are handed to its rules **as the nodes
   they are** (``saved_as_nodes``): ``tanh`` saved its output, so its rule gets
   the output node, and ``g · (1 − out²)`` is recorded as a function of ``x``.
   A saved value that is neither an input nor the output (the softmax inside a
   fused cross-entropy) is recomputed by running the op's forward on the input
   nodes, which records it too;
3. every node the pass creates is tagged with its derivative order and the
   edge whose rule made it (``node.origin``), which the renderers colour by.

An op's rules are written once, against numpy (or Python floats).  They run on
nodes because ``Tensor`` speaks numpy's protocols (``np.exp(t)`` is ``t.exp()``)
and ``Value`` has the operators and methods its rules use.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .saved import Packed
from .state import STATE, set_grad_mode, set_order

__all__ = ["differentiating", "saved_as_nodes", "as_node", "derivative_order",
           "making", "NotTwiceDifferentiableError"]


class NotTwiceDifferentiableError(RuntimeError):
    """A ``create_graph`` backward reached an op whose gradient cannot be recorded."""


def derivative_order(nodes) -> int:
    """The order a backward pass through ``nodes`` builds: one more than the highest
    order among them (a first ``create_graph`` pass builds order 1)."""
    return 1 + max((n.order for n in nodes), default=0)


@contextlib.contextmanager
def differentiating(order: int):
    """Grad mode on, and new nodes tagged with ``order``, for one ``create_graph`` pass.

    (Tagging happens where nodes are announced, so the pass also counts as a hook:
    ``HOOKS`` makes every op take the announcing path while it runs.)
    """
    prev_mode = set_grad_mode(True)
    prev = set_order(order, None)
    try:
        yield
    finally:
        set_order(*prev)
        set_grad_mode(prev_mode)


def making(node_id: int, slot) -> None:
    """Name the edge whose rule runs next: the nodes it builds record it in ``origin``."""
    STATE.making = (node_id, slot)


def as_node(like, x):
    """``x`` as a node of ``like``'s engine: nodes as they are, raw numbers and arrays
    as constants (a rule may return a plain ``0.0`` where the derivative vanishes)."""
    cls = like.engine_class
    if isinstance(x, cls):
        return x
    if isinstance(like.data, np.ndarray):
        x = np.asarray(x, dtype=like.data.dtype)
    else:
        x = float(x)
    return cls.constant(x)


def _is_float(x) -> bool:
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc"
    return isinstance(x, float)


def saved_as_nodes(node) -> tuple:
    """``node.saved`` with each saved value replaced by the node it is.

    * the op's output (``tanh``, ``exp`` save it): ``node`` itself;
    * one of its inputs (``mul`` saves both): that parent;
    * anything that is not a float (a boolean mask, integer indices, a shape),
      or a float the op declares constant (``constant_saves``: the weights of
      tied maxima): kept as it is, since its derivative is zero;
    * a float computed from the inputs (the softmax a fused cross-entropy keeps):
      recomputed by running the op's forward on the parent nodes, so that it
      is a node too.  An op whose forward cannot run on nodes is not twice
      differentiable, and says so.
    """
    op = node.op
    if not op.twice_differentiable:
        raise NotTwiceDifferentiableError(
            f"{op.name}: its gradient rules cannot run on graph nodes yet, so a backward "
            f"pass through it cannot build a graph (create_graph=True); differentiate it "
            f"once, or write the function from ops that are twice differentiable")
    saved = node.saved
    if not saved:
        return saved
    if saved.__class__ is Packed:  # saved_tensors_hooks: unpack, and find the nodes by role
        out, derived = saved.as_nodes(node)
        return _recomputed(node) if derived and not op.constant_saves else tuple(out)
    parents = node.parents
    out = []
    derived = False
    for s in saved:
        if not _is_float(s):
            out.append(s)  # (a bool parent, a where's condition, stays an array)
            continue
        if s is node.data:
            out.append(node)
            continue
        for p in parents:
            if s is p.data:
                out.append(p)
                break
        else:
            derived = derived or not op.constant_saves
            out.append(s)
    if not derived:
        return tuple(out)
    return _recomputed(node)


def _recomputed(node) -> tuple:
    """The op's saved values, recomputed from the parent nodes (recording every step)."""
    op = node.op
    if op.function is not None:  # a custom Function: its forward is the user's, run once
        raise NotTwiceDifferentiableError(
            f"{op.name}: a create_graph backward pass needs what its forward saved as graph "
            f"nodes, but it saved a value computed from its inputs; save only the inputs "
            f"and the output (recompute the rest in backward with Tensor ops), or mark "
            f"backward @once_differentiable")
    try:
        _, saved = op.forward(*node.parents, **(node.attrs or {}))
    except (TypeError, ValueError) as err:
        raise NotTwiceDifferentiableError(
            f"{op.name}: cannot build the graph of its gradient (create_graph=True): it "
            f"saves a value computed from its inputs, and its forward does not run on "
            f"graph nodes ({err})") from None
    for s in saved:
        if _is_float(s):
            raise NotTwiceDifferentiableError(
                f"{op.name}: cannot build the graph of its gradient (create_graph=True): "
                f"its forward, run on graph nodes, still saves a plain "
                f"{type(s).__name__} computed from its inputs")
    return tuple(saved)
