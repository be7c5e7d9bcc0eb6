"""Ops with several outputs: split, unbind, max/min along a dim with their indices, topk.

Each forward returns ``Outputs`` (the tuple of its results); the engine makes one
record node for the call and one node per output (``autograd/outputs.py``).  Each
backward is a ``vjp`` that receives one gradient per output, zeros for the outputs
nobody used (``multi_vjp``), and returns the input's gradient.

The rules are written with registered ops (``CAT``, ``STACK``, ``SCATTER_ADD``), so in
a ``create_graph`` pass they are recorded and can be differentiated again:

* ``split``: the outputs are consecutive pieces of x, so x's gradient is the pieces'
  gradients put back side by side, ``cat(g₀, g₁, …)``;
* ``unbind``: the outputs are x's slices along an axis: ``stack(g₀, g₁, …)``;
* ``max_dim``/``min_dim``/``topk``: the values are x picked at the returned indices,
  so x's gradient is zero except at those positions, where the values' gradient
  goes (``scatter_add``, the backward of indexing).  Ties go to the one index
  returned, as in PyTorch (``max(axis=)``, the reduction, shares them instead).
  The indices are integers: they need no gradient and get no output node.
"""

from __future__ import annotations

import numpy as np

from ...autograd.outputs import OUTPUT, multi_vjp
from ...core.op import OpExample, define_op, op_example
from ...engines.output_grads import Outputs
from ._base import distinct, uniform
from .indexing import SCATTER_ADD
from .shape import CAT, STACK


def _axis(axis, ndim, op):
    if not -ndim <= axis < max(ndim, 1) or ndim == 0:
        raise ValueError(f"{op}: dim {axis} is out of range for a tensor with {ndim} "
                         f"dimension{'s' * (ndim != 1)}")
    return axis % ndim


# --- split ----------------------------------------------------------------------------------
def _split_forward(x, sections=(), axis=0):
    ax = _axis(axis, x.ndim, "split")
    if sum(sections) != x.shape[ax] or any(n < 0 for n in sections):
        raise ValueError(f"split: sections {tuple(sections)} must be sizes >= 0 that add up "
                         f"to the length of dim {axis}, {x.shape[ax]} (shape {x.shape})")
    bounds = np.cumsum(sections)[:-1]
    return Outputs(np.split(x, bounds, axis=ax)), ()


def _split_rule(grads, axis=0, **_):
    """x's gradient: the pieces' gradients put back side by side."""
    return (CAT(*grads, axis=axis),)


SPLIT = define_op(
    name="split", engine="tensor", symbol="split", forward=_split_forward,
    vjp=multi_vjp(_split_rule), linear=True,  # ṫₖ = split(ṫ)ₖ
    formulas=("∂/∂x = cat(g₀, g₁, …): each piece's gradient where the piece was",),
    label=lambda a: f"split{list(a['sections'])}" + (f"(axis={a['axis']})" if a.get("axis")
                                                      else ""),
    cases=lambda rng: [((uniform(rng, (5, 3)),), {"sections": (2, 2, 1), "axis": 0}),
                       ((uniform(rng, (2, 6)),), {"sections": (3, 3), "axis": -1}),
                       ((uniform(rng, (2, 4, 3)),), {"sections": (1, 0, 3), "axis": 1}),
                       ((uniform(rng, (4,)),), {"sections": (4,), "axis": 0})])


# --- unbind ---------------------------------------------------------------------------------
def _unbind_forward(x, axis=0):
    ax = _axis(axis, x.ndim, "unbind")
    before = (slice(None),) * ax
    # (the Ellipsis keeps a 1-D x's elements 0-d arrays, views, not numpy scalars)
    return Outputs(x[before + (k, Ellipsis)] for k in range(x.shape[ax])), ()


def _unbind_rule(grads, axis=0):
    """x's gradient: the slices' gradients stacked back along the axis."""
    return (STACK(*grads, axis=axis),)


UNBIND = define_op(
    name="unbind", engine="tensor", symbol="unbind", forward=_unbind_forward,
    vjp=multi_vjp(_unbind_rule), linear=True,  # ṫₖ = unbind(ṫ)ₖ
    formulas=("∂/∂x = stack(g₀, g₁, …) along the unbound axis",),
    label=lambda a: f"unbind(axis={a['axis']})" if a.get("axis") else "unbind",
    cases=lambda rng: [((uniform(rng, (3, 2)),), {"axis": 0}),
                       ((uniform(rng, (2, 3, 2)),), {"axis": -2}),
                       ((uniform(rng, (4,)),), {"axis": 0})])


# --- values and indices: max, min, topk -----------------------------------------------------
def along(idx, axis):
    """The full advanced index that picks ``idx`` (positions along ``axis``) in every
    slice: ``x[along(idx, axis)]`` is ``np.take_along_axis(x, idx, axis)``."""
    ndim = idx.ndim
    return tuple(idx if d == axis else
                 np.arange(idx.shape[d]).reshape([-1 if i == d else 1 for i in range(ndim)])
                 for d in range(ndim))


def _picked_rule(grads, shape, index, axis=0, keepdims=True, **_):
    """x's gradient: the values' gradient added back at the picked positions."""
    g = grads[0]
    if not keepdims:  # the picks were taken with the axis kept (size 1): put it back
        g = g.reshape(np.broadcast_shapes(*(i.shape for i in index)))
    return (SCATTER_ADD(g, shape=shape, index=index),)


def _picked_jvp(tangents, shape, index, axis=0, keepdims=True, **_):
    """The values' tangent is x's tangent at the picked positions, ``ṫ[index]``; the
    integer indices have none."""
    picked = tangents[0][index]
    if not keepdims:
        picked = picked.reshape(np.delete(picked.shape, axis % picked.ndim))
    return Outputs((picked, None))


def _extreme_forward(arg, name):
    def forward(x, axis=0, keepdims=False):
        ax = _axis(axis, x.ndim, name)
        if x.shape[ax] == 0:
            raise ValueError(f"{name}: dim {axis} of shape {x.shape} is empty: it has no "
                             f"{'largest' if name == 'max' else 'smallest'} value")
        idx = np.expand_dims(arg(x, axis=ax), ax)  # the first one on a tie, or a NaN
        index = along(idx, ax)
        values = x[index]
        if not keepdims:
            values, idx = values.squeeze(ax), idx.squeeze(ax)
        return Outputs((values, idx)), (x.shape, index)

    return forward


def _extreme_op(name, arg):
    return define_op(
        name=f"{name}_dim", engine="tensor", symbol=name, forward=_extreme_forward(arg, name),
        vjp=multi_vjp(_picked_rule), jvp=_picked_jvp,
        formulas=(f"∂/∂x = the values' gradient at the {name}'s index, 0 elsewhere",),
        label=lambda a: f"{name}(dim={a['axis']})",
        cases=lambda rng: [((distinct(rng, (3, 4)),), {"axis": 1, "keepdims": False}),
                           ((distinct(rng, (3, 4)),), {"axis": 0, "keepdims": True}),
                           ((distinct(rng, (2, 3, 2)),), {"axis": -2, "keepdims": False}),
                           ((distinct(rng, (5,)),), {"axis": 0, "keepdims": False})])


MAX_DIM = _extreme_op("max", np.argmax)
MIN_DIM = _extreme_op("min", np.argmin)


def _topk_forward(x, k=1, axis=-1, largest=True, sorted=True):
    ax = _axis(axis, x.ndim, "topk")
    n = x.shape[ax]
    if not 0 <= k <= n:
        raise ValueError(f"topk: k={k} is out of range for dim {axis} of shape {x.shape} "
                         f"(0 <= k <= {n})")
    # a stable sort: ties keep their order, so the picks repeat run after run
    order = np.argsort(-x if largest else x, axis=ax, kind="stable")
    idx = np.take(order, np.arange(k), axis=ax)
    index = along(idx, ax)
    return Outputs((x[index], idx)), (x.shape, index)


TOPK = define_op(
    name="topk", engine="tensor", symbol="topk", forward=_topk_forward,
    vjp=multi_vjp(_picked_rule), jvp=_picked_jvp,
    formulas=("∂/∂x = the values' gradient at the k picked indices, 0 elsewhere",),
    label=lambda a: f"topk(k={a['k']})" if a.get("largest", True) else
    f"topk(k={a['k']}, smallest)",
    cases=lambda rng: [((distinct(rng, (3, 5)),), {"k": 2, "axis": -1}),
                       ((distinct(rng, (4, 3)),), {"k": 3, "axis": 0, "largest": False}),
                       ((distinct(rng, (6,)),), {"k": 1, "axis": 0}),
                       ((distinct(rng, (2, 3)),), {"k": 0, "axis": 1})])


@op_example("output")
def _output_examples() -> list:
    """The table tests' inputs for the internal ``OUTPUT`` op: the second piece of a
    ``split`` (so the first piece's slot is filled with zeros in backward)."""
    return [OpExample(
        op=OUTPUT,
        cases=lambda rng: [((uniform(rng, (3, 4)),), {}), ((uniform(rng, (3,)),), {})],
        call=lambda x: SPLIT(x, sections=(1, 2), axis=0)[1],
        plain=lambda x: x.data[1:])]
