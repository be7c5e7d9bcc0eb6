"""Helpers shared by the tensor op tables: gradient masks, test inputs, labels.

Every tensor op is one ``define_op(engine="tensor", ...)`` call.  Its
``forward(*xs, **attrs)`` works on raw numpy arrays and returns
``(out, saved)``; each gradient rule ``rule(g, *saved, **attrs)`` returns
``g · ∂out/∂input`` for one input, possibly still in the broadcast (output)
shape: the engine's ``unbroadcast`` sums it down to the input's shape.

The engine passes a node's ``attrs``, the op's own settings (``axis``,
``keepdims`` ...), to the rules as keyword arguments; an op without settings
(``a + b``, ``x.tanh()``) records ``attrs=None`` and its rules get no
keywords, which keeps the hot path of tiny ops lean.  Whatever else a rule
needs, the forward saves: the input itself (``mul``), its output (``tanh``),
or only its shape (``sum``, ``reshape``), a lesson in what backward must keep.

``cases(rng)`` returns ``[(inputs, attrs), ...]``: concrete float64 inputs (or
non-differentiable arrays such as boolean masks) chosen where the op is smooth,
for the registry-wide gradient test.
"""

from __future__ import annotations

import numpy as np

from ...batching.array import BatchedArray

#: shape pairs every broadcasting binary op is checked on
BROADCAST_PAIRS = (
    ((2, 3), (2, 3)),
    ((3, 1), (1, 4)),
    ((5, 3), (3,)),
    ((3,), (5, 3)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((), ()),
    ((2, 1, 4), (3, 1)),
)


_ndarray = np.ndarray
_asarray = np.asarray


def nd(x):
    """``x`` as an ndarray: numpy returns scalars for 0-d inputs.  A graph node (a rule
    running in a ``create_graph`` pass, on Tensors) is returned as it is, since
    ``np.asarray`` would cut it out of the graph; nor is a batch (inside ``vmap``)."""
    if x.__class__ is _ndarray:
        return x
    return x if hasattr(x, "engine_class") or x.__class__ is BatchedArray else _asarray(x)


def masked(g, mask):
    """``g`` where ``mask`` is non-zero (times the mask's weight), exactly 0 elsewhere.

    Rules that let the gradient through only somewhere (relu, clip, a maximum)
    must give 0 where it is blocked even when ``g`` is inf or NaN there, as
    PyTorch does: ``g * mask`` would give inf·0 = NaN.  ``np.where`` gets that
    right but is about ten times slower than the product on float32, so the
    product is kept and patched, only when it holds a NaN (found by ``min``, which
    propagates NaN: one pass, no temporary array).

    That check needs values, so a ``jit`` kernel, whose ops run on symbols (``Sym``),
    records the whole function as one step of its expression and calls it as it is.
    """
    if type(g) is not _ndarray or type(mask) is not _ndarray:  # (a Sym poses as an array)
        for x in (g, mask):
            step = getattr(type(x), "masked_expression", None)
            if step is not None:
                return step(g, mask)
    r = g * mask
    if r.__class__ is BatchedArray:  # (inside vmap: no one answer to "any NaN?")
        return np.where(mask, r, 0)
    if r.size and np.isnan(r.min()):
        r = np.where(mask, r, 0)
    return nd(r)



# --- test inputs ------------------------------------------------------------------
def uniform(rng, shape, lo=-2.0, hi=2.0):
    return np.asarray(rng.uniform(lo, hi, size=shape))


def away_from_zero(rng, shape, lo=0.3, hi=2.0):
    """Values with |x| in [lo, hi] and random signs: keeps kinks (|x|, relu) out of reach."""
    return np.asarray(rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape))


def distinct(rng, shape, spread=1.0):
    """Values at least ``spread`` apart from each other (no ties for max/min/sort)."""
    n = int(np.prod(shape, dtype=np.int64))
    vals = rng.permutation(n) * spread + rng.uniform(0, 0.1 * spread, size=n)
    return np.asarray((vals - vals.mean() if n else vals).reshape(shape) / max(n, 1))


def fmt_axis(attrs) -> str:
    """``(axis=1)``-style suffix for reduction labels; empty for a full reduction."""
    axis = attrs.get("axis")
    parts = []
    if axis is not None:
        parts.append(f"axis={axis}")
    if attrs.get("keepdims"):
        parts.append("keepdims")
    return f"({', '.join(parts)})" if parts else ""
