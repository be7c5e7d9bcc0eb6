"""Batch and layer normalisation as fused registry ops.

Both normalise ``x`` to zero mean and unit variance over some axes, then scale
and shift with learned ``weight`` (γ) and ``bias`` (β):

    x̂ = (x − μ) / √(σ² + ε),    out = γ·x̂ + β

Batch norm averages over the batch (and spatial) axes, one μ, σ² per channel;
layer norm over the trailing features, one μ, σ² per sample.  As a chain of
small ops the backward would take a dozen nodes; fused, it is the closed form
(M = number of values averaged together, means over the same axes):

    ∂L/∂x = (1/√(σ² + ε)) · (ĝ − mean(ĝ) − x̂ · mean(ĝ·x̂)),   ĝ = γ · g

which says: the gradient of a normalised value loses its component along the
mean (shifting x does not change x̂) and along x̂ itself (scaling x does not).

**Forward mode.**  That map, ``ĝ ↦ ∂L/∂x``, is the normalisation's Jacobian
(1/√(σ²+ε))·(I − 11ᵀ/M − x̂x̂ᵀ/M) for each group, which is symmetric; so the same
closed form applied to a tangent is the tangent of x̂, and the output's is

    ṫ = γ·(ṫx − mean ṫx − x̂·mean(x̂·ṫx))/√(σ²+ε) + x̂·ṫγ + ṫβ.

In eval mode the statistics are the running ones, inputs of their own: the
output is affine in x, ṫ = γ·ṫx/√(σ²+ε) + …, one term per input.
"""

from __future__ import annotations

import numpy as np

from ...core.op import define_op

__all__ = ["BATCH_NORM", "BATCH_NORM_EVAL", "LAYER_NORM", "channel_axes"]


def channel_axes(ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Batch-norm reduction axes and the broadcast shape of a per-channel vector (C at axis 1)."""
    axes = (0,) + tuple(range(2, ndim))
    return axes, (1, -1) + (1,) * (ndim - 2)


def _normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + x.dtype.type(eps))
    return xc * inv, inv


def _normalize_grad(g_hat, xhat, inv, axes):
    """∂L/∂x from ĝ = ∂L/∂x̂ (the closed form in the module docstring)."""
    return inv * (g_hat - g_hat.mean(axis=axes, keepdims=True)
                  - xhat * (g_hat * xhat).mean(axis=axes, keepdims=True))


# --- batch norm, training mode: statistics of this batch ------------------------------------
def _bn_forward(x, w, b, eps=1e-5, **_):
    axes, bshape = channel_axes(x.ndim)
    xhat, inv = _normalize(x, axes, eps)
    w_b = w.reshape(bshape)
    return xhat * w_b + b.reshape(bshape), (xhat, inv, w_b, axes)


def _bn_grad_x(g, xhat, inv, w_b, axes, **_):
    return _normalize_grad(g * w_b, xhat, inv, axes)


def _bn_grad_w(g, xhat, inv, w_b, axes, **_):
    return (g * xhat).sum(axis=axes)


def _bn_grad_b(g, xhat, inv, w_b, axes, **_):
    return g.sum(axis=axes)


def _bn_jvp_x(t, xhat, inv, w_b, axes, **_):
    """ṫ = γ·(ṫx − mean ṫx − x̂·mean(x̂·ṫx))/√(σ²+ε): the backward's closed form (a
    symmetric Jacobian) applied to the tangent, scaled by γ."""
    return w_b * _normalize_grad(t, xhat, inv, axes)


def _bn_jvp_w(t, xhat, inv, w_b, axes, **_):
    """ṫ = x̂·ṫγ (ṫγ per channel)"""
    return xhat * t.reshape(w_b.shape)


def _bn_jvp_b(t, xhat, inv, w_b, axes, **_):
    """ṫ = ṫβ (per channel, broadcast)"""
    return t.reshape(w_b.shape)


def _bn_cases(rng):
    out = []
    for shape in ((6, 3), (4, 2, 3), (3, 2, 3, 2)):
        c = shape[1]
        out.append(((rng.normal(0, 1, shape), rng.uniform(0.5, 1.5, c), rng.normal(0, 1, c)),
                    {"eps": 1e-5}))
    return out


# x̂ = (x − μ)/√(σ² + ε), out = γ·x̂ + β; one formula per input, in the order x, γ, β
# (sums and means over the axes that share a μ and σ², as in the module docstring)
_NORM_FORMULAS = ("∂/∂x = (ĝ − mean ĝ − x̂·mean(ĝ·x̂))/√(σ²+ε) with ĝ = γ·g",
                  "∂/∂γ = Σ g·x̂", "∂/∂β = Σ g")

BATCH_NORM = define_op(
    name="batch_norm", engine="tensor", symbol="BatchNorm", forward=_bn_forward,
    grads=(_bn_grad_x, _bn_grad_w, _bn_grad_b), formulas=_NORM_FORMULAS, cases=_bn_cases,
    # ṫ = γ·(ṫx − mean ṫx − x̂·mean(x̂·ṫx))/√(σ²+ε) + x̂·ṫγ + ṫβ
    jvps=(_bn_jvp_x, _bn_jvp_w, _bn_jvp_b),
    label=lambda attrs: "BatchNorm",
    doc="Batch normalisation with this batch's statistics (training mode).")


# --- batch norm, eval mode: running statistics (an affine map per channel) ------------------
def _bn_eval_forward(x, w, b, mean, var, eps=1e-5, **_):
    axes, bshape = channel_axes(x.ndim)
    inv = 1 / np.sqrt(var + var.dtype.type(eps))
    scale = (w * inv).reshape(bshape)
    xc = x - mean.reshape(bshape)
    return xc * scale + b.reshape(bshape), (xc, scale, inv, w, axes, bshape)


def _bn_eval_grad_x(g, xc, scale, inv, w, axes, bshape, **_):
    return g * scale


def _bn_eval_grad_w(g, xc, scale, inv, w, axes, bshape, **_):
    return (g * xc).sum(axis=axes) * inv


def _bn_eval_grad_b(g, xc, scale, inv, w, axes, bshape, **_):
    return g.sum(axis=axes)


def _bn_eval_grad_mean(g, xc, scale, inv, w, axes, bshape, **_):
    return -g.sum(axis=axes) * w * inv


def _bn_eval_grad_var(g, xc, scale, inv, w, axes, bshape, **_):
    return (g * xc).sum(axis=axes) * w * (-0.5 * inv**3)


def _bn_eval_jvp_x(t, xc, scale, inv, w, axes, bshape, **_):
    """ṫ = γ·ṫx/√(σ²+ε)"""
    return t * scale


def _bn_eval_jvp_w(t, xc, scale, inv, w, axes, bshape, **_):
    """ṫ = (x − μ)·ṫγ/√(σ²+ε)"""
    return xc * (t * inv).reshape(bshape)


def _bn_eval_jvp_b(t, xc, scale, inv, w, axes, bshape, **_):
    """ṫ = ṫβ"""
    return t.reshape(bshape)


def _bn_eval_jvp_mean(t, xc, scale, inv, w, axes, bshape, **_):
    """ṫ = −γ·ṫμ/√(σ²+ε)"""
    return -(t * w * inv).reshape(bshape)


def _bn_eval_jvp_var(t, xc, scale, inv, w, axes, bshape, **_):
    """ṫ = −½·γ(x − μ)·ṫσ²/(σ²+ε)^(3/2)"""
    return xc * (t * w * (-0.5 * inv**3)).reshape(bshape)


def _bn_eval_cases(rng):
    return [(xs + (rng.normal(0, 0.3, xs[1].shape), rng.uniform(0.5, 2.0, xs[1].shape)), attrs)
            for xs, attrs in _bn_cases(rng)]


# out = γ(x − μ)/√(σ² + ε) + β with the running μ, σ²: inputs x, γ, β, μ, σ²
BATCH_NORM_EVAL = define_op(
    name="batch_norm_eval", engine="tensor", symbol="BatchNorm", forward=_bn_eval_forward,
    grads=(_bn_eval_grad_x, _bn_eval_grad_w, _bn_eval_grad_b, _bn_eval_grad_mean,
           _bn_eval_grad_var),
    # ṫ = (γ·(ṫx − ṫμ) + (x−μ)·ṫγ)/√(σ²+ε) − ½·γ(x−μ)·ṫσ²/(σ²+ε)^(3/2) + ṫβ
    jvps=(_bn_eval_jvp_x, _bn_eval_jvp_w, _bn_eval_jvp_b, _bn_eval_jvp_mean,
          _bn_eval_jvp_var),
    formulas=("∂/∂x = γ/√(σ²+ε)", "∂/∂γ = Σ g·(x−μ)/√(σ²+ε)", "∂/∂β = Σ g",
              "∂/∂μ = −Σ g·γ/√(σ²+ε)", "∂/∂σ² = −½·Σ g·γ(x−μ)/(σ²+ε)^(3/2)"),
    cases=_bn_eval_cases, label=lambda attrs: "BatchNorm(eval)",
    doc="Batch normalisation with running statistics (eval mode): a per-channel affine map.")


# --- layer norm: statistics of each sample's trailing features -----------------------------
def _ln_forward(x, w, b, eps=1e-5, ndim=1, **_):
    axes = tuple(range(x.ndim - ndim, x.ndim))
    xhat, inv = _normalize(x, axes, eps)
    return xhat * w + b, (xhat, inv, w, axes)


def _ln_grad_x(g, xhat, inv, w, axes, **_):
    return _normalize_grad(g * w, xhat, inv, axes)


def _ln_grad_w(g, xhat, inv, w, axes, **_):
    lead = tuple(range(g.ndim - len(axes)))
    return (g * xhat).sum(axis=lead) if lead else g * xhat


def _ln_grad_b(g, xhat, inv, w, axes, **_):
    lead = tuple(range(g.ndim - len(axes)))
    return g.sum(axis=lead) if lead else g


def _ln_jvp_x(t, xhat, inv, w, axes, **_):
    """ṫ = γ·(ṫx − mean ṫx − x̂·mean(x̂·ṫx))/√(σ²+ε), as in batch norm"""
    return w * _normalize_grad(t, xhat, inv, axes)


def _ln_jvp_w(t, xhat, inv, w, axes, **_):
    """ṫ = x̂·ṫγ"""
    return xhat * t


def _ln_jvp_b(t, xhat, inv, w, axes, **_):
    """ṫ = ṫβ (broadcast over the leading axes)"""
    return t


def _ln_cases(rng):
    out = []
    for shape, k in (((4, 5), 1), ((2, 3, 4), 1), ((2, 3, 4), 2), ((6,), 1)):
        ns = shape[len(shape) - k:]
        out.append(((rng.normal(0, 1, shape), rng.uniform(0.5, 1.5, ns), rng.normal(0, 1, ns)),
                    {"eps": 1e-5, "ndim": k}))
    return out


LAYER_NORM = define_op(
    name="layer_norm", engine="tensor", symbol="LayerNorm", forward=_ln_forward,
    grads=(_ln_grad_x, _ln_grad_w, _ln_grad_b), formulas=_NORM_FORMULAS, cases=_ln_cases,
    # ṫ = γ·(ṫx − mean ṫx − x̂·mean(x̂·ṫx))/√(σ²+ε) + x̂·ṫγ + ṫβ
    jvps=(_ln_jvp_x, _ln_jvp_w, _ln_jvp_b),
    label=lambda attrs: "LayerNorm",
    doc="Layer normalisation over the trailing `ndim` axes of each sample.")
