"""The backward engine: the chain rule, applied edge by edge.

For a root ``L`` and every node ``v`` it depends on, backward computes
``v.grad = dL/dv`` by summing over the edges leaving ``v``:

    dL/dv = Σ over children c of v:  dL/dc · ∂c/∂v

Each op's rule computes one term, ``g · ∂c/∂v`` with ``g = dL/dc``; the engine
adds the terms up.  Keeping the ``+=`` here, and not in every op, is what lets
a recorder see each edge's contribution, and makes the accumulation for a
shared subexpression (``x*x``, a diamond) impossible to forget.

The steps:

1. seed ``dL/dL = 1`` (or the given upstream gradient);
2. order the graph (``topological_order``, iterative);
3. walk it from the root towards the leaves, calling each op's rules and
   adding their results into the parents, reduced by ``unbroadcast`` when
   numpy broadcasting made the parent look bigger in the forward pass;
4. release saved values unless ``retain_graph=True``.

Leaves accumulate across calls (PyTorch semantics: call ``zero_grad``).  Every
non-leaf's gradient is reset at the start of a pass, so nothing from an earlier
pass leaks in; after the pass it holds this pass's ``dL/dv`` so that the
renderers can show it.
"""

from __future__ import annotations

import math

import numpy as np

from .graph import topological_order
from .state import HOOKS, STATE

__all__ = ["backward", "unbroadcast", "GraphReleasedError"]


class GraphReleasedError(RuntimeError):
    """Backward reached a node whose saved values were already freed."""


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the backward of numpy broadcasting.

    If the forward pass broadcast an input of shape ``(3, 1)`` to ``(2, 3, 4)``,
    every input element was used 2·4 times, once per copy; its gradient is the
    sum of the gradients of its copies.  So we sum over the axes broadcasting
    added in front (here axis 0) and over the axes where the input had size 1
    (here axis 2, kept with size 1).
    """
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra < 0 or any(
        n != 1 and n != grad.shape[extra + i] for i, n in enumerate(shape)
    ):
        raise ValueError(
            f"unbroadcast: a gradient of shape {grad.shape} cannot come from "
            f"broadcasting shape {shape}"
        )
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    return summed.reshape(shape)


def _seed(root, gradient):
    """The starting gradient dL/dL, checked against the root's kind and shape."""
    data = root.data
    if isinstance(data, np.ndarray):
        if gradient is None:
            if data.size != 1:
                raise RuntimeError(
                    f"backward() on a non-scalar output of shape {data.shape} needs a "
                    f"gradient: pass backward(gradient) with an array of shape "
                    f"{data.shape} (d(something)/d(output)), or reduce the output to a "
                    f"scalar first, e.g. out.sum().backward()"
                )
            return np.ones_like(data)
        g = getattr(gradient, "data", gradient)
        g = np.asarray(g, dtype=data.dtype)
        if g.shape != data.shape:
            raise ValueError(
                f"backward(gradient): gradient has shape {g.shape} but the output "
                f"has shape {data.shape}; they must match"
            )
        return g
    if gradient is None:
        return 1.0
    g = getattr(gradient, "data", gradient)
    if isinstance(g, np.ndarray) and g.size == 1:
        g = g.item()
    if not isinstance(g, (int, float)) or isinstance(g, bool):
        raise TypeError(f"backward(gradient): expected a number, got {type(gradient).__name__}")
    return float(g)


def _released_error(node):
    label = f" '{node.label}'" if node.label else ""
    return GraphReleasedError(
        f"Trying to backward through the graph a second time: node #{node.id}{label} "
        f"({node.op.name}) has already released its saved values. Pass "
        f"retain_graph=True to the first backward() if you need to call it twice, "
        f"or recompute the forward pass. (In a training loop this usually means a "
        f"parameter was rebound outside no_grad, e.g. `w = w - lr * w.grad`, so it "
        f"became part of the previous step's graph: update it in place under "
        f"no_grad() instead.)"
    )


def _not_finite(x) -> bool:
    if isinstance(x, np.ndarray):
        return not np.isfinite(x).all()
    return not math.isfinite(x)


def backward(root, gradient=None, retain_graph: bool = False) -> None:
    """Compute d(root)/d(node) for every node ``root`` depends on (see module doc)."""
    if not root.requires_grad:
        raise RuntimeError(
            "backward(): this output does not require grad, so there is no graph to "
            "go back through. Create the inputs with requires_grad=True (and make "
            "sure grad mode was on, i.e. not inside no_grad())."
        )
    seed = _seed(root, gradient)
    if root.op is None:  # backward() on a leaf: dL/dL = 1 accumulates like any leaf
        root.grad = seed if root.grad is None else root.grad + seed
        return
    if root.saved is None:
        raise _released_error(root)
    order = topological_order(root, only_requiring_grad=True)
    if HOOKS[0] and (STATE.recorders or STATE.anomaly):
        with np.errstate(all="ignore"):
            _run_observed(root, seed, order, retain_graph, STATE.recorders, STATE.anomaly)
    elif isinstance(seed, np.ndarray):
        # Like PyTorch, backward produces inf/nan silently (d sqrt(x)/dx at 0 is inf);
        # detect_anomaly() is the tool that finds where they come from.
        with np.errstate(all="ignore"):
            _run_tensor(root, seed, order, retain_graph)
    else:
        _run_scalar(root, seed, order, retain_graph)


# The three loops below are the same algorithm.  ``pending`` maps a non-leaf's id
# to the gradient summed so far; it is complete when the walk reaches the node,
# because every node that uses it comes later in the graph and so earlier in the
# reversed order.  Leaves accumulate straight into ``.grad`` (across passes).


def _run_scalar(root, seed, order, retain_graph) -> None:
    """The chain rule on floats: the whole algorithm in a dozen lines."""
    pending = {root.id: seed}
    for node in reversed(order):
        op = node.op
        if op is None:
            continue
        saved = node.saved
        if saved is None:
            raise _released_error(node)
        node.grad = g = pending.pop(node.id)
        for parent, rule in zip(node.parents, op.grads):
            if parent.requires_grad:
                local = rule(g, *saved)
                if parent.op is None:
                    parent.grad = local if parent.grad is None else parent.grad + local
                else:
                    key = parent.id
                    pending[key] = pending[key] + local if key in pending else local
        if not retain_graph:
            node.saved = None


def _run_tensor(root, seed, order, retain_graph) -> None:
    """The same walk for arrays; accumulation also unbroadcasts (see ``_accumulate_array``)."""
    pending = {root.id: seed}
    owned = set()
    for node in reversed(order):
        op = node.op
        if op is None:
            continue
        saved = node.saved
        if saved is None:
            raise _released_error(node)
        node.grad = g = pending.pop(node.id)
        attrs = node.attrs
        for parent, rule in zip(node.parents, op.grads):
            if parent.requires_grad:
                local = rule(g, *saved, **attrs) if attrs else rule(g, *saved)
                if local is not None:
                    _accumulate_array(parent, local, g, owned, pending)
        if not retain_graph:
            node.saved = None


def _run_observed(root, seed, order, retain_graph, recorders, anomaly) -> None:
    """The general walk: announces every step to recorders and checks for NaN/Inf."""
    tensor = isinstance(seed, np.ndarray)
    pending = {root.id: seed}
    owned = set()
    for rec in recorders:
        rec.seeded(root, seed)
    for node in reversed(order):
        op = node.op
        if op is None:
            continue
        saved = node.saved
        if saved is None:
            raise _released_error(node)
        node.grad = g = pending.pop(node.id)
        attrs = node.attrs
        for rec in recorders:
            rec.visit(node, g)
        for slot, parent in enumerate(node.parents):
            if not parent.requires_grad:
                continue
            rule = op.grads[slot]
            local = rule(g, *saved, **attrs) if attrs else rule(g, *saved)
            if local is None:
                continue
            if anomaly and _not_finite(local):
                from .anomaly import anomaly_error

                raise anomaly_error(node, parent, slot, local)
            leaf = parent.op is None
            before = parent.grad if leaf else pending.get(parent.id)
            if tensor:
                _accumulate_array(parent, local, g, owned, pending)
            elif leaf:
                parent.grad = local if before is None else before + local
            else:
                pending[parent.id] = local if before is None else before + local
            after = parent.grad if leaf else pending[parent.id]
            for rec in recorders:
                rec.contribute(node, parent, slot, local, before, after)
        if not retain_graph:
            node.saved = None


def _accumulate_array(parent, local, g, owned, pending) -> None:
    """``parent.grad += local`` for arrays, without needless copies and without aliasing bugs.

    The first contribution is stored as is (no copy).  It may be shared with
    another node (``add`` passes ``g`` straight through), so the second
    contribution allocates a fresh sum; from the third on, the buffer is ours
    and we add in place.  A leaf's ``.grad`` belongs to the user, so it is never
    left as a view of another node's gradient.
    """
    shape = parent.data.shape
    if local.shape != shape:
        local = unbroadcast(local, shape)
    if local.dtype != parent.data.dtype:
        local = local.astype(parent.data.dtype)
    key = parent.id
    if parent.op is None:
        current = parent.grad
        if current is None:
            if local is g or local.base is not None or not local.flags.writeable:
                local = local.copy()
                owned.add(key)
            parent.grad = local
        elif key in owned:
            current += local
        else:
            parent.grad = np.asarray(current + local)  # 0-d + 0-d gives a numpy scalar
            owned.add(key)
        return
    current = pending.get(key)
    if current is None:
        pending[key] = local
    elif key in owned:
        current += local
    else:
        pending[key] = np.asarray(current + local)  # 0-d + 0-d gives a numpy scalar
        owned.add(key)
