"""Indexing, ``x[index]``: ints, slices, ``None``, ``...``, integer arrays, boolean masks.

The backward scatters the upstream gradient into a zero array of x's shape at
the same positions.  With integer arrays an element may be picked more than
once (``x[[0, 0, 1]]``): then each pick contributes, so the scatter must *add*
(``np.add.at``); plain assignment would keep only the last one.

Both ops are linear in their one array input (the index is a setting, not an
input), so forward mode runs them on the tangent (``linear=True``).
"""

from __future__ import annotations

import numpy as np

from ...batching import BatchedArray
from ...core.op import define_op
from ._base import uniform


def is_advanced(index) -> bool:
    """True if the index contains an array or list (numpy's "advanced" indexing)."""
    return any(isinstance(i, (np.ndarray, list, BatchedArray)) for i in index)


def _scatter_add_forward(g, shape=(), index=()):
    out = np.zeros_like(g, shape=shape)  # (like g: a batch of zeros when g is one, in vmap)
    if is_advanced(index) and not _is_mask(index):
        np.add.at(out, index, g)
    else:
        out[index] = g
    return out, ()


def _getitem_grad(g, in_shape, index=()):
    return SCATTER_ADD(g, shape=in_shape, index=index)


def _is_mask(index) -> bool:
    """A single boolean mask picks each element at most once: assignment suffices."""
    arrays = [i for i in index if isinstance(i, (np.ndarray, BatchedArray))]
    return len(arrays) == 1 and arrays[0].dtype == bool


def format_index(index) -> str:
    """``[0, 1:3, ::2]``-style text for a node label (arrays shown by shape)."""
    parts = []
    for i in index:
        if isinstance(i, slice):
            text = ("" if i.start is None else str(i.start)) + ":" + (
                "" if i.stop is None else str(i.stop))
            if i.step is not None:
                text += f":{i.step}"
            parts.append(text)
        elif i is None:
            parts.append("None")
        elif i is Ellipsis:
            parts.append("...")
        elif isinstance(i, np.ndarray):
            kind = "mask" if i.dtype == bool else "idx"
            parts.append(f"{kind}{list(i.shape)}")
        else:
            parts.append(str(i))
    return "[" + ", ".join(parts) + "]"


def _getitem_cases(rng):
    x = lambda *s: uniform(rng, s)
    return [
        ((x(4, 5),), {"index": (1,)}),
        ((x(4, 5),), {"index": (slice(1, 3), -1)}),
        ((x(4, 5),), {"index": (slice(None, None, -2), slice(1, None))}),
        ((x(4, 5),), {"index": (np.array([0, 2, 0, 3]),)}),  # repeated rows accumulate
        ((x(6),), {"index": (np.array([[1, 1], [5, 1]]),)}),
        ((x(4, 5),), {"index": (np.array([0, 1, 1]), np.array([2, 2, 2]))}),
        ((x(3, 4),), {"index": (rng.random((3, 4)) > 0.5,)}),
        ((x(3, 4),), {"index": (Ellipsis, None, 2)}),
        ((x(2, 3, 4),), {"index": (slice(None), np.array([2, 0, 2]))}),
    ]


def _scatter_cases(rng):
    cases = []
    for (x,), attrs in _getitem_cases(rng):
        picked = x[attrs["index"]]
        cases.append(((uniform(rng, np.shape(picked)),), {"shape": x.shape, **attrs}))
    return cases


# x[index]'s backward, and an op of its own so that it is differentiable too: its
# gradient is the upstream gradient picked at the same positions, x[index] again.
SCATTER_ADD = define_op(
    name="scatter_add", engine="tensor", symbol="[]+=",
    forward=_scatter_add_forward, grads=(lambda g, shape=(), index=(): g[index],),
    linear=True,  # ṫ = zeros(shape) with ṫv added at index
    formulas=("∂/∂v = the gradient picked at the same positions, g[index]",),
    cases=_scatter_cases, label=lambda a: "+=" + format_index(a.get("index", ())),
    doc="zeros(shape) with v added at index (repeated positions add up): the backward "
        "of x[index].")
GETITEM = define_op(
    name="getitem", engine="tensor", symbol="[]",
    forward=lambda x, index=(): (x[index], (x.shape,)), grads=(_getitem_grad,),
    linear=True,  # ṫ = ṫx[index]
    formulas=("∂/∂x = the gradient scattered (added) back at the picked positions",),
    cases=_getitem_cases, label=lambda a: format_index(a.get("index", ())))
