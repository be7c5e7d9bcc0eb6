"""What changes when backward builds a graph (``create_graph=True``).

A backward pass is itself a computation: ``dL/dx = g · ∂y/∂x`` multiplies and
adds numbers.  Run it on the engine's own values instead of raw numbers and
every multiplication and addition is recorded like any forward op; the
gradient then has a graph of its own, which can be differentiated again
(second derivatives, Hessian-vector products, gradient penalties).

The engine's loop does not change (``core.backward.run_reference``); only its
steps do (``GraphSteps``).  Three things change:

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
import threading

import numpy as np

from ..core.accumulate import vjp_results
from ..core.backward import Steps, seed_gradient
from ..core.modes import DESCRIBE, set_grad_mode, unwatch, watch
from ..core.node import origin_of
from ..core.standin import ARRAYS, StandIn
from .output_grads import OutputGrads

__all__ = ["differentiating", "saved_as_nodes", "as_node", "derivative_order", "building_order",
           "making", "GraphSteps", "seed_node", "NotTwiceDifferentiableError"]


class _Building(threading.local):
    #: inside a ``create_graph`` pass: the derivative order its new nodes get (0 outside)
    order = 0
    #: the (node id, slot) of the edge whose rule is running, or ``None``
    making: tuple | None = None


_BUILDING = _Building()


def building_order() -> int:
    """The derivative order of the ``create_graph`` pass running in this thread (0: none).

    While it is nonzero, reading a value that requires grad into Python (``float(v)``)
    would cut the gradient's graph, so those readers refuse."""
    return _BUILDING.order


class NotTwiceDifferentiableError(RuntimeError):
    """A ``create_graph`` backward reached an op whose gradient cannot be recorded."""


def derivative_order(nodes) -> int:
    """The order a backward pass through ``nodes`` builds: one more than the highest
    order among them (a first ``create_graph`` pass builds order 1)."""
    return 1 + max((n.order for n in nodes), default=0)


def _tag(node) -> None:
    """The watcher of a ``create_graph`` pass: each new node learns its order and edge."""
    origin = origin_of(node)
    origin.order = _BUILDING.order
    origin.made_by = _BUILDING.making


@contextlib.contextmanager
def differentiating(order: int):
    """Grad mode on, and new nodes tagged with ``order``, for one ``create_graph`` pass."""
    prev_mode = set_grad_mode(True)
    prev = (_BUILDING.order, _BUILDING.making)
    _BUILDING.order, _BUILDING.making = order, None
    entry = watch(DESCRIBE, _tag)
    try:
        yield
    finally:
        unwatch(entry)
        _BUILDING.order, _BUILDING.making = prev
        set_grad_mode(prev_mode)


def making(node_id: int, slot) -> None:
    """Name the edge whose rule runs next: the nodes it builds record it in ``origin``."""
    _BUILDING.making = (node_id, slot)


def seed_node(root, gradient):
    """The starting gradient of a ``create_graph`` pass, as a node: a constant, or the
    ``gradient`` node given (which may itself require grad: a vector-Jacobian product
    of a gradient)."""
    if isinstance(gradient, root.engine_class) and gradient.requires_grad:
        seed_gradient(root, gradient.data)  # (the same checks, on its value)
        return gradient
    return root.engine_class.constant(seed_gradient(root, gradient))


class GraphSteps(Steps):
    """The reference loop's steps when the backward pass builds a graph: the rules run
    on nodes (``graph_rules``), each edge names itself before its nodes are made, and
    gradient hooks run as in any announced pass (``hooked``, or ``None``)."""

    def __init__(self, hooked=None):
        self.hooked = hooked
        if hooked is not None:
            self.leaf_done = hooked.leaf_done

    def complete(self, node, g):
        return g if self.hooked is None else self.hooked.complete(node, g)

    def rules(self, node, g) -> list:
        return graph_rules(node, g)

    def before_add(self, node, parent, slot) -> None:
        if self.hooked is not None and parent.op is None:
            self.hooked.receiving(parent)
        making(node.id, slot)  # (the sum is built by this edge too)

    def finish(self) -> None:
        if self.hooked is not None:
            self.hooked.finish()


def graph_rules(node, g) -> list:
    """``core.backward.local_gradients`` on nodes: the rules get the saved values as the
    nodes they are, and what they return is a node (or ``None``)."""
    op = node.op
    attrs = node.attrs or {}
    saved = saved_as_nodes(node)
    if op.grads:
        out = []
        for slot, (parent, rule) in enumerate(zip(node.parents, op.grads)):
            if not parent.requires_grad:
                out.append(None)
                continue
            making(node.id, slot)
            local = rule(g, *saved, **attrs)
            out.append(None if local is None else as_node(parent, local))
        return out
    making(node.id, None)
    grads = op.vjp(g, *saved, **attrs)
    # (an output's share of a multi-output record, ``OutputGrads``, is no node: the
    # record adds it up slot by slot; see ``autograd/outputs.py``)
    return [None if grad is None or not parent.requires_grad
            else grad if grad.__class__ is OutputGrads else as_node(parent, grad)
            for parent, grad in zip(node.parents, vjp_results(node, grads))]


def as_node(like, x):
    """``x`` as a node of ``like``'s engine: nodes as they are, raw numbers and arrays
    as constants (a rule may return a plain ``0.0`` where the derivative vanishes)."""
    cls = like.engine_class
    if isinstance(x, cls):
        return x
    if isinstance(x, StandIn):  # (a batch, inside vmap: an array already)
        x = x.astype(like.data.dtype, copy=False)
    elif isinstance(like.data, ARRAYS):
        x = np.asarray(x, dtype=like.data.dtype)
    else:
        x = float(x)
    return cls.constant(x)


def _is_float(x) -> bool:
    if isinstance(x, ARRAYS):
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
    as_nodes = getattr(saved, "as_nodes", None)
    if as_nodes is not None:  # saved_tensors_hooks: unpack, and find the nodes by role
        out, derived = as_nodes(node)
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
