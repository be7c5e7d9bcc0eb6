"""The transforms' inputs and results as nodes: differentiable copies, constants, stacks."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..autograd import forward_ad
from ..autograd.forward_ad import tangent_of
from ..batching import BatchedArray
from ..tensor import Tensor
from ..tensor.combining import stack
from ..value import Value

__all__ = ["lift_inputs", "constant_like", "live_result", "stack_rows", "is_live", "inside",
           "in_transform"]


#: how many transforms are running their function right now (``inside``)
_DEPTH = [0]


def is_live(x) -> bool:
    """Whether ``x`` takes part in an outer differentiation: it carries a forward-mode
    tangent (an outer ``jvp``), or it requires grad *and* an outer transform is running
    (an outer ``grad`` made it).  A node the user made with ``requires_grad=True`` is
    not live at the top level: the transforms differentiate through each other, not
    through the caller's own graph, and hand back constants there."""
    return _tangent(x) is not None or (bool(x.requires_grad) and _DEPTH[0] > 0)


def in_transform() -> bool:
    """Whether some transform's function is running (this call is nested in it)."""
    return _DEPTH[0] > 0


@contextmanager
def inside():
    """Run the transformed function: nodes that require grad are now an outer
    transform's, so the transforms called inside keep their results differentiable."""
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1


def lift_inputs(xs):
    """Nodes to run ``f`` on, the nodes to differentiate with respect to, and whether
    the result must stay differentiable.

    A plain input becomes a fresh leaf on the same data that requires grad (the
    caller's node is not touched).  A *live* input (see ``is_live``) is kept
    with its connection: itself if it requires grad, or a fresh leaf carrying
    its tangent; then every transform builds its result as a graph
    (``create_graph=True``) for the outer transform to differentiate.
    """
    live = any(is_live(x) for x in xs)
    feed, wrt = [], []
    for x in xs:
        if x.requires_grad and live:
            feed.append(x)
            wrt.append(x)
            continue
        leaf = (Value(x.data, requires_grad=True) if isinstance(x, Value)
                else Tensor(x.data, requires_grad=True))
        tangent = _tangent(x)
        # (a dual of the leaf: its make_dual node passes gradients through to the leaf)
        feed.append(leaf if tangent is None else forward_ad.make_dual(leaf, tangent))
        wrt.append(leaf)
    return feed, wrt, live


def constant_like(x, data):
    """A constant node like ``x`` (engine, shape, dtype) holding ``data`` (0.0: zeros)."""
    if isinstance(x, Value):
        return Value(float(data), requires_grad=False)
    if isinstance(data, float) and data == 0.0:
        data = np.zeros(x.data.shape, dtype=x.data.dtype)
    if isinstance(data, BatchedArray):  # (inside vmap: a batch of results)
        return Tensor(data.astype(x.data.dtype, copy=False))
    return Tensor(np.asarray(data, dtype=x.data.dtype))


def live_result(out, live):
    """The function's output to hand back: the node itself inside an outer transform,
    else a constant with its data (no graph kept alive through the result)."""
    if live or not (isinstance(out, Value) or isinstance(out, Tensor)):
        return out
    if isinstance(out, Value):
        return Value(out.data, requires_grad=False)
    return Tensor(out.data)


def stack_rows(parts, out_shape, in_shape, live, axis):
    """Assemble a Jacobian ``out_shape + in_shape`` from its rows (``axis=0``: one per
    output element, each ``in_shape``) or columns (``axis=-1``: one per input element,
    each ``out_shape``)."""
    if parts and isinstance(parts[0], Value):
        return parts[0]
    shape = tuple(out_shape) + tuple(in_shape)
    if live:
        return stack(parts, axis=axis).reshape(shape)
    return Tensor(np.stack([p.data for p in parts], axis=axis).reshape(shape))


def _tangent(x):
    """The forward-mode tangent ``x`` carries (inside an outer ``jvp``), if any."""
    return tangent_of(x)
