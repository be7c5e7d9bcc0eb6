"""Matrix multiplication, ``a @ b``, with numpy's rules for 1-D and batched operands.

For 2-D operands, out = a·b and with upstream gradient g:

    ∂L/∂a = g·bᵀ        ∂L/∂b = aᵀ·g

A 1-D ``a`` acts as a row vector (its axis is dropped from the result), a
1-D ``b`` as a column vector; leading (batch) axes broadcast, and the engine's
``unbroadcast`` sums the gradient over batch axes an input did not have.

Forward mode is the product rule, ṫ = ṫa·b + a·ṫb: each tangent takes its
input's place in the same ``matmul``, so 1-D operands and batch axes need no
special case (unlike backward, which must transpose and undo broadcasting).
"""

from __future__ import annotations

import numpy as np

from ...core.op import define_op
from ._base import nd, uniform


def _matmul_forward(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul needs operands with at least one dimension (use * for scalars)")
    return nd(np.matmul(a, b)), (a, b)


def _grad_a(g, a, b):
    if b.ndim == 1:
        if a.ndim == 1:  # dot product: out = Σ aᵢbᵢ
            return nd(g * b)
        return g[..., None] * b  # (..., n) x (k,) -> (..., n, k)
    if a.ndim == 1:  # (k,) @ (..., k, m): a row vector; sum over batch axes later
        return np.matmul(b, g[..., None])[..., 0]
    return g @ (b.T if b.ndim == 2 else b.swapaxes(-1, -2))


def _grad_b(g, a, b):
    if a.ndim == 1:
        if b.ndim == 1:
            return nd(g * a)
        return a[:, None] * g[..., None, :]  # (k,) x (..., m) -> (..., k, m)
    if b.ndim == 1:  # (..., n, k) @ (k,): sum over every axis but the last
        # (the row count spelled out: reshape(-1, 0) of an empty array is ambiguous)
        rows = g.size
        return np.matmul(g.reshape(rows), a.reshape(rows, a.shape[-1]))
    return (a.T if a.ndim == 2 else a.swapaxes(-1, -2)) @ g


def _jvp_a(t, a, b):
    """ṫ = ṫa·b"""
    return nd(t @ b)


def _jvp_b(t, a, b):
    """ṫ = a·ṫb"""
    return nd(a @ t)


def _matmul_cases(rng):
    pairs = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
             ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
             ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((1, 3, 4), (2, 4, 2))]
    return [((uniform(rng, sa), uniform(rng, sb)), {}) for sa, sb in pairs]


MATMUL = define_op(
    name="matmul", engine="tensor", symbol="@", infix=True, forward=_matmul_forward,
    grads=(_grad_a, _grad_b), formulas=("∂/∂a = g·bᵀ", "∂/∂b = aᵀ·g"), jvps=(_jvp_a, _jvp_b),
    cases=_matmul_cases, promote=True,
    doc="Matrix product with numpy's matmul rules (1-D operands, broadcast batch axes).")
