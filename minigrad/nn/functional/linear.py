"""``linear`` (a fully connected layer) and ``dropout`` as fused registry ops.

``linear(x, W, b) = x @ Wᵀ + b`` with ``W`` of shape ``(out_features,
in_features)``, PyTorch's layout.  As one node it costs one matrix product
forward and two backward, the same as hand-written numpy:

    ∂L/∂x = g @ W,     ∂L/∂W = gᵀ @ x,     ∂L/∂b = Σ_rows g

(for inputs with more than two axes, all leading axes are flattened into rows).

Forward mode: the product is bilinear, so each input's share of the tangent is
the product with the other held fixed, ``ṫ = ṫx·Wᵀ + x·ṫWᵀ + ṫb``.  Dropout is
linear in x for its node's mask: ``ṫ = m·ṫx``, with the mask the node saved.
"""

from __future__ import annotations

import numpy as np

from ...batching.randomness import draw_per_example
from ...core.op import define_op

__all__ = ["LINEAR", "LINEAR_NO_BIAS", "DROPOUT", "dropout_mask"]


def _linear_forward(x, w, b=None):
    out = x @ w.T
    if b is not None:
        out += b  # in place: `out` is fresh, so no second output-sized allocation
    return out, (x, w)


def _rows(a):
    return a.reshape(-1, a.shape[-1])


def _linear_grad_x(g, x, w):
    return g @ w


def _linear_grad_w(g, x, w):
    if g.ndim == 2:
        return g.T @ x
    return _rows(g).T @ _rows(x)


def _linear_grad_b(g, x, w):
    return g.sum(axis=0) if g.ndim == 2 else _rows(g).sum(axis=0)


def _linear_jvp_x(t, x, w):
    """ṫ = ṫx·Wᵀ"""
    return t @ w.T


def _linear_jvp_w(t, x, w):
    """ṫ = x·ṫWᵀ"""
    return x @ t.T


def _linear_jvp_b(t, x, w):
    """ṫ = ṫb, the same for every row"""
    return t


def _linear_cases(with_bias):
    def cases(rng):
        out = []
        for lead, i, o in (((4,), 3, 2), ((1,), 5, 1), ((2, 3), 4, 3), ((), 3, 2)):
            xs = [rng.normal(0, 1, lead + (i,)), rng.normal(0, 1, (o, i))]
            if with_bias:
                xs.append(rng.normal(0, 1, (o,)))
            out.append((tuple(xs), {}))
        return out

    return cases


# out = x Wᵀ + b; one formula per input, in the order x, W, b
_LINEAR_FORMULAS = ("∂/∂x = g·W", "∂/∂W = gᵀ·x", "∂/∂b = Σ g over the rows")

LINEAR = define_op(
    name="linear", engine="tensor", symbol="linear", forward=_linear_forward,
    grads=(_linear_grad_x, _linear_grad_w, _linear_grad_b), formulas=_LINEAR_FORMULAS,
    jvps=(_linear_jvp_x, _linear_jvp_w, _linear_jvp_b),  # ṫ = ṫx·Wᵀ + x·ṫWᵀ + ṫb
    cases=_linear_cases(True), doc="A fully connected layer, x @ W.T + b, as one node.")
LINEAR_NO_BIAS = define_op(
    name="linear_no_bias", engine="tensor", symbol="linear",
    forward=lambda x, w, **_: _linear_forward(x, w), grads=(_linear_grad_x, _linear_grad_w),
    jvps=(_linear_jvp_x, _linear_jvp_w),  # ṫ = ṫx·Wᵀ + x·ṫWᵀ
    formulas=_LINEAR_FORMULAS[:2], cases=_linear_cases(False),
    doc="linear without a bias term.")


# --- dropout -----------------------------------------------------------------------------
def dropout_mask(shape, p: float, seed: int, dtype) -> np.ndarray:
    """Keep each unit with probability 1 − p, scaled by 1/(1 − p) so E[out] = x.

    The mask is a pure function of ``seed``: the node's attrs say everything about
    it, so a replay (or gradcheck) of the same node draws the same mask.
    """
    keep = np.random.default_rng(seed).random(shape, dtype=np.float32) >= p
    return keep.astype(dtype) * dtype.type(1.0 / (1.0 - p) if p < 1 else 0.0)


def _dropout_forward(x, p=0.5, seed=0, per_example=(), **_):
    """``per_example``: ``(level, batch size)`` of each vmap with ``randomness="different"``
    (outermost first): the mask gets their batch axes, one mask per example at each."""
    if per_example:
        mask = draw_per_example(lambda size: dropout_mask(size, p, seed, x.dtype), x.shape,
                                per_example)
    else:
        mask = dropout_mask(x.shape, p, seed, x.dtype)
    return x * mask, (mask,)


def _times_mask(g, mask, **_):
    """``g·m``: the gradient, and the tangent, through the node's mask.

    Dropout is elementwise, so its Jacobian (the diagonal mask) is symmetric: the
    backward rule, given a tangent, is the forward rule, ṫ = m·ṫx.  ``linear=True``
    would rerun the forward instead, drawing the mask again (the same one, since
    it is a function of the node's seed, but a redraw per tangent for nothing).
    """
    return g * mask


DROPOUT = define_op(
    name="dropout", engine="tensor", symbol="dropout", forward=_dropout_forward,
    constant_saves=True,
    grads=(_times_mask,), jvps=(_times_mask,),  # ṫ = m·ṫx
    formulas=("∂/∂x = m/(1−p) (m: the node's keep mask, each unit kept with probability 1−p)",),
    cases=lambda rng: [((rng.normal(0, 1, s),), {"p": p, "seed": k})
                       for k, (s, p) in enumerate((((10,), 0.5), ((3, 4), 0.2),
                                                   ((2, 3, 4), 0.7)))],
    label=lambda attrs: f"dropout(p={attrs.get('p', 0.5):g})",
    doc="Inverted dropout with a mask drawn from the node's own seed.")
