"""Reductions (sum, mean, max, min, var, logsumexp) and softmax / log_softmax.

A reduction's backward first puts the reduced axes back (size 1) so the
upstream gradient lines up with the input, then broadcasts it: every input
element that fed the reduction receives its share.  ``axis`` and ``keepdims``
use numpy's names; ``axis`` may be None (everything), an int or a tuple.

Forward mode goes the other way and needs no axes put back: ``sum`` and
``mean`` are linear (their tangent is the same reduction of the input's
tangent); the others weigh the tangent by their local derivative and sum it
over the reduced axes, ṫ = Σᵢ (∂out/∂xᵢ)·ṫᵢ, with the weights backward uses.
"""

from __future__ import annotations

import math

import numpy as np

from ...batching import BatchedArray
from ...core.op import define_op
from ._base import distinct, fmt_axis, masked, nd, uniform


def norm_axes(axis, ndim):
    """``axis`` (None, int, tuple; negatives allowed) as a sorted tuple of axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of bounds for a tensor with {ndim} dimensions")
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis}")
    return tuple(sorted(out))


def keep(g, in_shape, axis, keepdims):
    """Reshape an upstream gradient to the reduction's keepdims shape (size-1 axes back)."""
    if keepdims:
        return g
    shape = list(in_shape)
    for a in norm_axes(axis, len(in_shape)):
        shape[a] = 1
    return g.reshape(shape)


def reduced_shape(shape, axis):
    """The output shape of a reduction over ``axis`` without keepdims."""
    axes = norm_axes(axis, len(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _count(shape, axis):
    n = 1
    for a in norm_axes(axis, len(shape)):
        n *= shape[a]
    return n


def _reduction_cases(vals):
    """Every axis form, with and without keepdims."""

    def cases(rng):
        out = [((vals(rng, ()),), {}), ((vals(rng, (5,)),), {"axis": 0})]
        for axis in (None, 0, 1, -1, (0, 2), (-1, 0, 1), ()):
            for keepdims in (False, True):
                out.append(((vals(rng, (2, 3, 4)),), {"axis": axis, "keepdims": keepdims}))
        return out

    return cases


# sum and mean keep only the input's shape for backward: their local derivative
# is a constant, so no input value is needed.
def _sum_grad(g, shape, axis=None, keepdims=False):
    if axis is None:  # a total: g is 0-d (or all size-1 axes) and broadcasts as it is
        return np.broadcast_to(g, shape)
    return np.broadcast_to(keep(g, shape, axis, keepdims), shape)


SUM = define_op(
    name="sum", engine="tensor", symbol="Σ",
    forward=lambda x, axis=None, keepdims=False: (nd(x.sum(axis, keepdims=keepdims)),
                                                  (x.shape,)),
    grads=(_sum_grad,), linear=True,  # ṫ = Σ ṫx
    formulas=("∂/∂xᵢ = 1 (each summed element gets the upstream gradient)",),
    cases=_reduction_cases(uniform), label=lambda a: "Σ" + fmt_axis(a))


def _mean_forward(x, axis=None, keepdims=False):
    return nd(x.mean(axis, keepdims=keepdims)), (x.shape,)


def _mean_grad(g, shape, axis=None, keepdims=False):
    return np.broadcast_to(keep(g, shape, axis, keepdims) / _count(shape, axis), shape)


MEAN = define_op(
    name="mean", engine="tensor", symbol="mean", forward=_mean_forward, grads=(_mean_grad,),
    linear=True,  # ṫ = mean(ṫx)
    formulas=("∂/∂xᵢ = 1/n  (n = number of elements averaged)",),
    cases=_reduction_cases(uniform), label=lambda a: "mean" + fmt_axis(a), float_only=True)


def _extreme_forward(reduce):
    def forward(x, axis=None, keepdims=False):
        if x.size == 0 and _count(x.shape, axis) == 0:  # an empty slice has no extreme
            raise ValueError("an empty slice has no maximum or minimum")
        m = reduce(x, axis=axis, keepdims=True)
        hit = x == m
        missed = np.isnan(m)  # a NaN is the extreme of its slice, and x == NaN is never true
        # (PyTorch: the NaNs share the gradient, as tied maxima do; a batch: patched always)
        if missed.__class__ is BatchedArray or missed.any():
            hit |= missed & np.isnan(x)
        # Ties share the gradient equally, so its total is conserved.
        share = hit / hit.sum(axis=axis, keepdims=True, dtype=x.dtype)
        out = m if keepdims else m.reshape(reduced_shape(x.shape, axis))
        return nd(out), (share.astype(x.dtype, copy=False),)

    return forward


def _extreme_grad(g, share, axis=None, keepdims=False):
    return masked(keep(g, share.shape, axis, keepdims), share)


def _extreme_jvp(t, share, axis=None, keepdims=False):
    """ṫ = Σᵢ shareᵢ·ṫᵢ: the selected element's tangent (the mean over a k-way tie)."""
    return nd(masked(t, share).sum(axis=axis, keepdims=keepdims))


MAX = define_op(
    name="max", engine="tensor", symbol="max", forward=_extreme_forward(np.max),
    grads=(_extreme_grad,), jvps=(_extreme_jvp,),
    formulas=("∂/∂xᵢ = 1 where xᵢ is the maximum (1/k each for a k-way tie), else 0",),
    cases=_reduction_cases(distinct), label=lambda a: "max" + fmt_axis(a),
    constant_saves=True)
MIN = define_op(
    name="min", engine="tensor", symbol="min", forward=_extreme_forward(np.min),
    grads=(_extreme_grad,), jvps=(_extreme_jvp,),
    formulas=("∂/∂xᵢ = 1 where xᵢ is the minimum (1/k each for a k-way tie), else 0",),
    cases=_reduction_cases(distinct), label=lambda a: "min" + fmt_axis(a),
    constant_saves=True)


def _var_forward(x, axis=None, keepdims=False, ddof=0):
    centred = x - x.mean(axis, keepdims=True)
    return nd(x.var(axis, keepdims=keepdims, ddof=ddof)), (centred,)


def _var_grad(g, centred, axis=None, keepdims=False, ddof=0):
    n = _count(centred.shape, axis) - ddof
    # n <= 0 (one element with ddof=1): the variance is nan, and so is its gradient,
    # as in PyTorch.  A Python float keeps float32 float32.
    scale = 2 / n if n > 0 else math.nan
    return nd(keep(g, centred.shape, axis, keepdims) * centred * scale)


def _var_jvp(t, centred, axis=None, keepdims=False, ddof=0):
    """ṫ = 2·Σᵢ (xᵢ − mean)·ṫᵢ / (n − ddof)  (the tangent of the mean drops out, as
    Σᵢ (xᵢ − mean) = 0)."""
    n = _count(centred.shape, axis) - ddof
    scale = 2 / n if n > 0 else math.nan
    return nd((centred * t).sum(axis=axis, keepdims=keepdims) * scale)


def _var_cases(rng):
    cases = _reduction_cases(uniform)(rng)[1:]  # a 0-d variance is constant
    cases = [c for c in cases if c[1].get("axis") != ()]
    return cases + [((uniform(rng, (3, 4)),), {"axis": 1, "ddof": 1})]


VAR = define_op(
    name="var", engine="tensor", symbol="var", forward=_var_forward, grads=(_var_grad,),
    jvps=(_var_jvp,),
    formulas=("∂/∂xᵢ = 2·(xᵢ − mean)/(n − ddof)",), cases=_var_cases,
    label=lambda a: "var" + fmt_axis(a), float_only=True)


def _logsumexp_forward(x, axis=None, keepdims=False):
    # log Σ e^x = m + log Σ e^(x−m) with m = max x: no overflow; an all −inf slice
    # (or ±inf max) uses m = 0 so that inf − inf never appears; so does an empty
    # slice, whose sum is 0 and logsumexp −inf.
    if x.size == 0:  # (np.max of an empty slice would raise)
        kept = [1 if i in norm_axes(axis, x.ndim) else n for i, n in enumerate(x.shape)]
        m = np.zeros(kept, dtype=x.dtype)
    else:
        m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # an all −inf slice: log 0 = −inf
        out_keep = np.log(s) + m
        p = e / s  # softmax: the gradient of logsumexp
    out = out_keep if keepdims else out_keep.reshape(reduced_shape(x.shape, axis))
    return nd(out), (p,)


def _logsumexp_jvp(t, p, axis=None, keepdims=False):
    """ṫ = Σᵢ softmax(x)ᵢ·ṫᵢ"""
    return nd((p * t).sum(axis=axis, keepdims=keepdims))


LOGSUMEXP = define_op(
    name="logsumexp", engine="tensor", symbol="logΣexp", forward=_logsumexp_forward,
    grads=(lambda g, p, axis=None, keepdims=False: nd(keep(g, p.shape, axis, keepdims) * p),),
    jvps=(_logsumexp_jvp,),
    formulas=("∂/∂xᵢ = softmax(x)ᵢ = e^xᵢ / Σⱼ e^xⱼ",), cases=_reduction_cases(uniform),
    label=lambda a: "logsumexp" + fmt_axis(a), float_only=True)


def _softmax_forward(x, axis=-1):
    if x.size == 0:  # nothing to normalise (np.max of an empty slice would raise)
        return x.copy(), (x.copy(),)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    out = e / e.sum(axis=axis, keepdims=True)
    return out, (out,)


def _softmax_grad(g, out, axis=-1, **_):
    # Jacobian-vector product without the n×n Jacobian: ∂yᵢ/∂xⱼ = yᵢ(δᵢⱼ − yⱼ),
    # so (gᵀJ)ⱼ = yⱼ·(gⱼ − Σᵢ gᵢyᵢ).
    return nd(out * (g - (g * out).sum(axis=axis, keepdims=True)))  # (0-d: an array)


def _log_softmax_forward(x, axis=-1):
    if x.size == 0:
        return x.copy(), (x.copy(),)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return out, (out,)


def _log_softmax_grad(g, out, axis=-1, **_):
    # out = x − logsumexp(x):  (gᵀJ)ⱼ = gⱼ − softmax(x)ⱼ·Σᵢ gᵢ, and softmax = e^out.
    return nd(g - np.exp(out) * g.sum(axis=axis, keepdims=True))


def _log_softmax_jvp(t, out, axis=-1, **_):
    """ṫ = ṫx − Σⱼ softmax(x)ⱼ·ṫxⱼ  (J = I − 1·softmaxᵀ is not symmetric: not the
    backward rule, which gives g − softmax·Σ g)."""
    return nd(t - (np.exp(out) * t).sum(axis=axis, keepdims=True))


def _softmax_cases(rng):
    return [((uniform(rng, s),), {"axis": a})
            for s, a in (((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1))]


SOFTMAX = define_op(
    name="softmax", engine="tensor", symbol="softmax", forward=_softmax_forward,
    grads=(_softmax_grad,), formulas=("∂yᵢ/∂xⱼ = yᵢ·(δᵢⱼ − yⱼ)",), cases=_softmax_cases,
    # ṫ = y ⊙ (ṫx − Σ y⊙ṫx): the Jacobian diag(y) − y·yᵀ is symmetric, so the
    # backward rule applied to a tangent is the forward rule (derived, not rewritten)
    jvps=(_softmax_grad,),
    label=lambda a: f"softmax(axis={a.get('axis', -1)})", float_only=True)
LOG_SOFTMAX = define_op(
    name="log_softmax", engine="tensor", symbol="log_softmax", forward=_log_softmax_forward,
    grads=(_log_softmax_grad,), formulas=("∂yᵢ/∂xⱼ = δᵢⱼ − softmax(x)ⱼ",), cases=_softmax_cases,
    jvps=(_log_softmax_jvp,),
    label=lambda a: f"log_softmax(axis={a.get('axis', -1)})", float_only=True)
