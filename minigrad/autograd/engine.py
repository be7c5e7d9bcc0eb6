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
2. order the non-leaves (``topological_order``, iterative; leaves run no rule);
3. walk it from the root towards the leaves, calling each op's rules and
   adding their results into the parents, reduced by ``unbroadcast`` when
   numpy broadcasting made the parent look bigger in the forward pass (a
   node that ``fits``, an elementwise op that broadcast nothing, skips the
   check: see ``_run_tensor``);
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
from .registry import passthrough
from .state import HOOKS, MODIFIED, STATE

__all__ = ["backward", "unbroadcast", "unbroadcastable", "check_unmodified",
           "GraphReleasedError"]


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
    if extra == 1 and grad.shape[1:] == shape:  # the common case: a bias added to rows
        # (asarray: summing a 1-D gradient for a 0-d input gives a numpy scalar, which
        # the engine could not add into in place)
        return np.asarray(grad.sum(axis=0))
    if not unbroadcastable(grad.shape, shape):
        raise ValueError(
            f"unbroadcast: a gradient of shape {grad.shape} cannot come from "
            f"broadcasting shape {shape}"
        )
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    return summed.reshape(shape)


def unbroadcastable(big: tuple, shape: tuple) -> bool:
    """Whether broadcasting can make ``shape`` into ``big``, so that ``unbroadcast``
    can sum a gradient of shape ``big`` back down to ``shape``."""
    extra = len(big) - len(shape)
    return extra >= 0 and all(n == 1 or n == big[extra + i] for i, n in enumerate(shape))


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
        g = np.asarray(_raw(gradient), dtype=data.dtype)
        if g.shape != data.shape:
            raise ValueError(
                f"backward(gradient): gradient has shape {g.shape} but the output "
                f"has shape {data.shape}; they must match"
            )
        return g
    if gradient is None:
        return 1.0
    g = _raw(gradient)
    if isinstance(g, (np.ndarray, np.generic)) and np.size(g) == 1:
        g = g.item()
    if not isinstance(g, (int, float)) or isinstance(g, bool):
        raise TypeError(f"backward(gradient): expected a number, got {type(gradient).__name__}")
    return float(g)


def _raw(gradient):
    """A node's data, anything else as given (a numpy array's or number's ``.data`` is
    its raw memory, not a value)."""
    if isinstance(gradient, (np.ndarray, np.generic)):
        return gradient
    return getattr(gradient, "data", gradient)


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


def check_unmodified(order) -> None:
    """Refuse a graph whose saved arrays were changed in place after they were saved.

    ``y = x * w`` saves ``w`` for ``dy/dx = w``; an optimizer step or ``w -= ...``
    under ``no_grad()`` before ``y.backward()`` would make that gradient use the
    new ``w`` silently.  PyTorch raises here too ("modified by an inplace
    operation").  A change stamps the tensor (``node.mark_modified``) with a
    value of the counter that numbers nodes; a node made before the stamp is
    stale if one of its saved arrays shares memory with the changed data, which
    also catches what an op saved through a view (``x @ w.T``, ``w[0]``,
    ``w.detach()``).

    It is conservative: ops keep all their inputs (``mul`` saves both), so a
    changed saved input is refused even if only the gradient that does not use
    it is needed.  PyTorch saves per requested gradient and refuses a bit less.
    """
    from .node import changed_since  # (node imports this module)

    changed = changed_since(order[0].id)
    if not changed:
        return
    for node in order:
        saved = node.saved
        if not saved:
            continue
        arrays = [s for s in saved if isinstance(s, np.ndarray)]
        for tensor, stamp in changed:
            if stamp > node.id and _overlaps(arrays, tensor.data):
                label = f" '{tensor.label}'" if tensor.label else ""
                direct = any(p is tensor for p in node.parents)
                raise RuntimeError(
                    f"backward(): tensor #{tensor.id}{label} of shape {tensor.data.shape} was "
                    f"changed in place (by an optimizer step, load_state_dict or a `+=`-style "
                    f"update under no_grad()) after op '{node.op.name}' (node #{node.id}) "
                    f"saved {'it' if direct else 'a view of it'} for backward: the gradients "
                    f"would silently mix the old forward pass with the new values. Call "
                    f"backward() before updating, or recompute the forward pass after it.")


def _overlaps(arrays, data) -> bool:
    """Whether any of ``arrays`` shares memory with ``data`` (exactly, within reason)."""
    for a in arrays:
        if np.may_share_memory(a, data):  # cheap bounds test first
            try:
                if np.shares_memory(a, data, max_work=10_000):
                    return True
            except np.exceptions.TooHardError:
                return True
    return False


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
        if root.grad is not None:
            root.grad = root.grad + seed
        else:  # the leaf's .grad is its own, not the caller's gradient array
            given = gradient is not None and isinstance(seed, np.ndarray)
            root.grad = seed.copy() if given else seed
        return
    if root.saved is None:
        raise _released_error(root)
    # Only nodes made by an op have a rule to run; leaves just receive.
    order = topological_order(root, leaves=False)
    if MODIFIED[0] > order[0].id:  # something changed in place since this graph began
        check_unmodified(order)
    for node in order:
        # Refuse before anything is added anywhere: finding a released node halfway
        # would leave the leaves' .grad half-updated.
        if node.saved is None:
            raise _released_error(node)
        node.grad = None  # a non-leaf's .grad holds this pass's sum only
    root.grad = seed
    if HOOKS[0] and (STATE.recorders or STATE.anomaly):
        with np.errstate(all="ignore"):
            _run_observed(root, seed, order, retain_graph, STATE.recorders, STATE.anomaly)
    elif isinstance(seed, np.ndarray):
        # Like PyTorch, backward produces inf/nan silently (d sqrt(x)/dx at 0 is inf);
        # detect_anomaly() is the tool that finds where they come from.
        with np.errstate(all="ignore"):
            _run_tensor(order, retain_graph)
    else:
        _run_scalar(order, retain_graph)


# The three loops below are the same algorithm.  ``order`` holds the non-leaves,
# parents first, so walking it reversed reaches a node only after every node that
# uses it: its ``.grad``, summed in place as contributions arrive, is complete by
# then.  Leaves accumulate into ``.grad`` the same way, but across passes too.


def _run_scalar(order, retain_graph) -> None:
    """The chain rule on floats: the whole algorithm in a dozen lines."""
    for node in reversed(order):
        g = node.grad
        if g is not None:  # None: nothing that needs a gradient depends on this node
            saved = node.saved
            for parent, rule in zip(node.parents, node.op.grads):
                if parent.requires_grad:
                    local = rule(g, *saved)
                    grad = parent.grad
                    parent.grad = local if grad is None else grad + local
        if not retain_graph:
            node.saved = None


def _run_tensor(order, retain_graph) -> None:
    """The same walk for arrays, written for speed (see ``_accumulate_array`` for the rules).

    Three shortcuts keep a 4x4 op cheap without giving up a check:

    * rules are called with the saved values spelled out (``rule(g, a, b)``): a
      call with ``*saved`` costs about a microsecond more;
    * a ``passthrough`` rule (``a + b``) is not called at all: its result is ``g``;
    * a node that ``fits`` (an elementwise op that broadcast and promoted
      nothing) gets gradients already in each input's shape and dtype, so they
      go straight into ``.grad``, and a leaf copies only the ``g`` that ``add``
      passes through.  Any other node has each result checked and fitted by
      ``_accumulate_array``.
    """
    owned = set()
    for node in reversed(order):  # (backward checked that nothing here is released)
        saved = node.saved
        g = node.grad
        if g is not None:  # None: every path from the root here was non-differentiable
            attrs = node.attrs
            fits = node.fits
            n = len(saved)
            if n == 1:
                s0, = saved
            elif n == 2:
                s0, s1 = saved
            for parent, rule in zip(node.parents, node.op.grads):
                if not parent.requires_grad:
                    continue
                if rule is passthrough:  # ∂out/∂input = 1: no call needed
                    local = g
                elif attrs:
                    local = rule(g, *saved, **attrs)
                elif n == 1:
                    local = rule(g, s0)
                elif n == 2:
                    local = rule(g, s0, s1)
                elif n == 0:
                    local = rule(g)
                else:
                    local = rule(g, *saved)
                if local is None:
                    continue
                if fits:  # already in the parent's shape and dtype
                    if parent.grad is not None:
                        _accumulate_array(parent, local, g, owned)
                    elif local is g and parent.op is None:
                        # A leaf must not share the g that add passed through.
                        parent.grad = local.copy()
                        owned.add(parent.id)
                    else:
                        parent.grad = local
                    continue
                _accumulate_array(parent, local, g, owned)
        if not retain_graph:
            node.saved = None


def _run_observed(root, seed, order, retain_graph, recorders, anomaly) -> None:
    """The general walk: announces every step to recorders and checks for NaN/Inf."""
    tensor = isinstance(seed, np.ndarray)
    owned = set()
    for rec in recorders:
        rec.seeded(root, seed)
    for node in reversed(order):  # (backward checked that nothing here is released)
        saved = node.saved
        g = node.grad
        if g is not None:
            for rec in recorders:
                rec.visit(node, g)
            for slot, parent in enumerate(node.parents):
                if parent.requires_grad:
                    _observe_edge(node, slot, parent, g, saved, tensor, owned, recorders, anomaly)
        if not retain_graph:
            node.saved = None


def _observe_edge(node, slot, parent, g, saved, tensor, owned, recorders, anomaly) -> None:
    """One edge of ``_run_observed``: compute, check, accumulate, announce."""
    attrs = node.attrs
    rule = node.op.grads[slot]
    local = rule(g, *saved, **attrs) if attrs else rule(g, *saved)
    if local is None:
        return
    if anomaly and _not_finite(local):
        from .anomaly import anomaly_error

        raise anomaly_error(node, parent, slot, local)
    before = parent.grad
    if tensor:
        _accumulate_array(parent, local, g, owned)
    else:
        parent.grad = local if before is None else before + local
    for rec in recorders:
        rec.contribute(node, parent, slot, local, before, parent.grad)


def _accumulate_array(parent, local, g, owned) -> None:
    """``parent.grad += local`` for arrays, without needless copies and without aliasing bugs.

    ``local`` comes in the shape the op's output had; numpy broadcasting in the
    forward pass may have made the parent look bigger, so it is summed back down
    (``unbroadcast``) and cast to the parent's dtype.  Then:

    * the first contribution to a non-leaf is stored as is (no copy).  It may be
      shared with another node (``add`` passes ``g`` straight through), so
    * the second contribution allocates a fresh sum, which is ours: ``owned``;
    * from the third on we add into that buffer in place.

    A leaf's ``.grad`` belongs to the user and outlives the pass, so it is never
    left as a view of another node's gradient (a shared first contribution is
    copied), and a gradient left from an earlier pass is replaced by a fresh sum,
    not modified under the user's feet.
    """
    data = parent.data
    if local.shape != data.shape:
        local = unbroadcast(local, data.shape)
    if local.dtype is not data.dtype and local.dtype != data.dtype:
        local = local.astype(data.dtype)
    current = parent.grad
    if current is None:
        if parent.op is None and (
            local is g or local.base is not None or not local.flags.writeable
        ):
            local = local.copy()
            owned.add(parent.id)
        parent.grad = local
    elif parent.id in owned:
        current += local
    else:
        parent.grad = np.asarray(current + local)  # 0-d + 0-d gives a numpy scalar
        owned.add(parent.id)
