"""Loss functions as fused registry ops: one node, a stable forward, an exact gradient.

Why fused?  Written as a chain of small ops, cross-entropy would be
``exp → sum → log → sub → index → mean``: six nodes, and an ``exp`` that
overflows at logits of ~90 in float32.  Fused, it is one node whose forward
subtracts each row's maximum first (the log-sum-exp trick, so the largest
exponent is e⁰ = 1) and whose gradient is the famous one-liner

    ∂L/∂logits = (softmax(logits) − onehot(targets)) / N.

Integer class targets are an input of the op (so renderers show them as a
parent) with a gradient rule that returns ``None``: no gradient flows to them.

**Forward mode.**  A loss's tangent is the per-sample derivative dotted with the
inputs' tangents, then the same reduction (a sum, or a mean) as the forward:

    cross_entropy  ṫ = Σ_c (softmax(z) − onehot(t))·ṫz      nll_loss  ṫ = −ṫlogp[t]
    mse_loss, binary_cross_entropy(_with_logits): elementwise before the reduction,
                   ṫ = reduce(∂ℓ/∂xᵢ ⊙ ṫᵢ), with ∂ℓ/∂xᵢ ⊙ ṫᵢ the backward rule at
                   reduction="none" given ṫᵢ (a diagonal Jacobian is its own transpose)

Class targets have no tangent (their forward rule, like their backward one, is
``no_gradient``).
"""

from __future__ import annotations

import numpy as np

from ...batching import BatchedArray
from ...core.op import define_op, no_gradient
from ...ops.tensor import SCATTER_ADD, nd

__all__ = ["CROSS_ENTROPY", "NLL_LOSS", "MSE_LOSS", "BCE", "BCE_WITH_LOGITS",
           "check_class_targets"]

# PyTorch clamps log(p) at -100 in binary_cross_entropy so that p = 0 or 1 gives a
# large finite loss instead of inf.  We do the same.
_LOG_FLOOR = -100.0


def _scale(reduction, n):
    return 1.0 / n if reduction == "mean" else 1.0


def _reduce(losses, reduction, dtype):
    # (written for arrays and for Tensors alike: a create_graph pass reruns the
    # forward on Tensors to rebuild what it saved, see engines/higher_order.py)
    if reduction != "none":
        total = losses.sum()
        if reduction == "mean" and losses.size:
            total = total / losses.size  # (ndarray.mean() is a slow Python wrapper)
        losses = nd(total)
    return losses if losses.dtype == dtype else losses.astype(dtype)


def _upstream(g, reduction, like):
    """The upstream gradient, in the dtype of ``like`` (0-d unless reduction='none')."""
    return g if g.dtype == like.dtype else g.astype(like.dtype)


# --- cross-entropy on logits -------------------------------------------------------------
def _cross_entropy_forward(logits, targets, reduction="mean", **_):
    # (no in-place steps: a create_graph pass reruns this on Tensors to rebuild the
    # softmax it saves, see engines/higher_order.py)
    shifted = logits - logits.max(axis=1, keepdims=True)  # largest entry is 0: exp cannot overflow
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    picked = shifted[np.arange(len(targets)), targets]
    # −log softmax at the target = log Σ e − shifted[target], summed or per sample
    if reduction == "none":
        loss = np.log(total[:, 0]) - picked
    else:
        loss = np.log(total).sum() - picked.sum()
        if reduction == "mean" and len(targets):
            loss = loss / len(targets)
    loss = nd(loss)
    return (loss if loss.dtype == logits.dtype else loss.astype(logits.dtype)), (e / total,
                                                                               targets)


def _cross_entropy_grad(g, probs, targets, reduction="mean", **_):
    # (softmax − onehot)·scale.  In a create_graph pass (probs a graph node) the onehot
    # part is scattered in by an op (see nll_loss), so that it is recorded too.
    n = len(targets)
    if reduction == "none":
        scale = g.reshape(n, 1)
        picked = g
    else:
        scale = picked = g * _scale(reduction, n)
    if probs.__class__ is np.ndarray and g.__class__ is np.ndarray:
        # On arrays the product is new, so the onehot part is subtracted in place: the
        # same bits as the op below (x − 0 = x exactly), with one pass fewer.
        d = probs * scale
        d[np.arange(n), targets] -= np.asarray(picked, probs.dtype)
        return d
    if reduction != "none":
        picked = np.broadcast_to(picked, (n,))
    return probs * scale - SCATTER_ADD(picked.astype(probs.dtype), shape=probs.shape,
                                       index=(np.arange(n), targets))


def _cross_entropy_jvp(t, probs, targets, reduction="mean", **_):
    """ṫ = Σ_c (softmax(z) − onehot(t))·ṫz for each sample, then the reduction."""
    per_sample = (probs * t).sum(axis=1) - t[np.arange(len(targets)), targets]
    return _reduce(per_sample, reduction, per_sample.dtype)


def _elementwise_jvp(grad):
    """The forward rule of an elementwise loss, derived from its backward rule ``grad``.

    Before its reduction the loss is elementwise, ℓⱼ = f(xⱼ, yⱼ), so at
    reduction="none" ``grad(ṫ)`` returns ∂ℓ/∂x ⊙ ṫ: the tangent of the losses.
    The reduction is linear, so the output's tangent is that, reduced.
    """
    def rule(t, *saved, reduction="mean", **attrs):
        part = nd(grad(t, *saved, reduction="none", **attrs))
        return _reduce(part, reduction, part.dtype)

    rule.__name__ = rule.__qualname__ = grad.__name__.replace("_grad", "_jvp")
    return rule


def _class_cases(rng, reduction="mean", scale=1.0):
    out = []
    for n, c in ((5, 3), (1, 4), (8, 10)):
        out.append(((rng.normal(0, scale, (n, c)), rng.integers(0, c, n)),
                    {"reduction": reduction}))
    return out


def _class_cases_every_reduction(rng):
    return _class_cases(rng) + _class_cases(rng, "sum") + _class_cases(rng, "none")[:1]


def _loss_label(name):
    return lambda attrs: name if attrs.get("reduction", "mean") == "mean" else (
        f"{name}({attrs['reduction']})")


# The formulas of the losses are for reduction="mean" (N: the number of losses averaged);
# with "sum" or "none" there is no 1/N.
CROSS_ENTROPY = define_op(
    name="cross_entropy", engine="tensor", symbol="CE", forward=_cross_entropy_forward,
    grads=(_cross_entropy_grad, no_gradient),
    jvps=(_cross_entropy_jvp, no_gradient),  # ṫ = Σ_c (softmax(z) − onehot(t))·ṫz
    formulas=("∂/∂z = (softmax(z) − onehot(t)) / N",
              "∂/∂t = none (integer class targets have no gradient)"),
    cases=_class_cases_every_reduction,
    label=_loss_label("cross_entropy"),
    doc="Softmax cross-entropy of logits (N, C) against integer targets (N,), fused and stable.")


# --- negative log-likelihood on log-probabilities ----------------------------------------
def _nll_forward(logp, targets, reduction="mean", **_):
    picked = logp[np.arange(len(targets)), targets]
    return _reduce(-picked, reduction, logp.dtype), (logp.shape, logp.dtype, targets)


def _nll_grad(g, shape, dtype, targets, reduction="mean", **_):
    # −g (scaled) at each row's target, 0 elsewhere: a scatter, which is an op of its
    # own (SCATTER_ADD), so that this rule also builds a graph under create_graph
    n = len(targets)
    picked = -g if reduction == "none" else np.broadcast_to(-g * _scale(reduction, n), (n,))
    return SCATTER_ADD(picked.astype(dtype), shape=shape, index=(np.arange(n), targets))


def _nll_jvp(t, shape, dtype, targets, reduction="mean", **_):
    """ṫ = −ṫlogp at each row's target, then the reduction."""
    picked = -t[np.arange(len(targets)), targets]
    return _reduce(picked, reduction, picked.dtype)


NLL_LOSS = define_op(
    name="nll_loss", engine="tensor", symbol="NLL", forward=_nll_forward,
    grads=(_nll_grad, no_gradient),
    jvps=(_nll_jvp, no_gradient),  # ṫ = −ṫlogp[t]
    formulas=("∂/∂logp = −onehot(t) / N",
              "∂/∂t = none (integer class targets have no gradient)"),
    cases=_class_cases_every_reduction,
    label=_loss_label("nll_loss"),
    doc="Negative log-likelihood of log-probabilities (N, C) at integer targets (N,).")


# --- mean squared error -------------------------------------------------------------------
def _mse_forward(pred, target, reduction="mean", **_):
    diff = pred - target
    return _reduce(diff * diff, reduction, diff.dtype), (diff,)


def _mse_grad_pred(g, diff, reduction="mean", **_):
    return diff * (2 * g * _scale(reduction, diff.size)).astype(diff.dtype)


def _mse_grad_target(g, diff, reduction="mean", **_):
    return diff * (-2 * g * _scale(reduction, diff.size)).astype(diff.dtype)


def _pair_cases(a, b):
    def cases(rng):
        return [((a(rng, s), b(rng, s)), {"reduction": r})
                for s, r in (((5,), "mean"), ((3, 4), "mean"), ((2, 3), "sum"), ((4,), "none"))]

    return cases


def _normal(rng, shape):
    return rng.normal(0, 1, shape)


def _prob(rng, shape):
    return rng.uniform(0.1, 0.9, shape)


MSE_LOSS = define_op(
    name="mse_loss", engine="tensor", symbol="MSE", forward=_mse_forward,
    grads=(_mse_grad_pred, _mse_grad_target),
    # ṫ = reduce(2(ŷ − y)·(ṫŷ − ṫy))
    jvps=(_elementwise_jvp(_mse_grad_pred), _elementwise_jvp(_mse_grad_target)),
    formulas=("∂/∂ŷ = 2(ŷ − y)/N", "∂/∂y = −2(ŷ − y)/N"),
    cases=_pair_cases(_normal, _normal), label=_loss_label("mse_loss"))


# --- binary cross-entropy on probabilities ---------------------------------------------------
def _clamped_log(p):
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(p), _LOG_FLOOR)


def _bce_forward(p, y, reduction="mean", **_):
    log_p, log_q = _clamped_log(p), _clamped_log(1 - p)
    losses = -(y * log_p + (1 - y) * log_q)
    # (a float64 target that requires grad promotes a float32 p, as in Tensor arithmetic)
    return _reduce(losses, reduction, np.result_type(p, y)), (p, y, log_p, log_q)


def _bce_grad_p(g, p, y, log_p, log_q, reduction="mean", **_):
    # ∂/∂p [−y log p − (1−y) log(1−p)] = (p − y) / (p (1 − p)), with the denominator
    # kept away from 0 (PyTorch uses the same 1e-12 floor).
    denom = np.maximum(p * (1 - p), 1e-12)
    return (p - y) / denom * _upstream(g, reduction, p) * _scale(reduction, p.size)


def _bce_grad_y(g, p, y, log_p, log_q, reduction="mean", **_):
    return (log_q - log_p) * _upstream(g, reduction, p) * _scale(reduction, p.size)


BCE = define_op(
    name="binary_cross_entropy", engine="tensor", symbol="BCE", forward=_bce_forward,
    grads=(_bce_grad_p, _bce_grad_y),
    # ṫ = reduce((p − y)/(p(1−p))·ṫp + (log(1−p) − log p)·ṫy)
    jvps=(_elementwise_jvp(_bce_grad_p), _elementwise_jvp(_bce_grad_y)),
    formulas=("∂/∂p = (p − y)/(p(1−p)N)", "∂/∂y = (log(1−p) − log p)/N"),
    cases=_pair_cases(_prob, _prob), label=_loss_label("binary_cross_entropy"),
    doc="Binary cross-entropy of probabilities in (0, 1); log is clamped at -100 like PyTorch.")


# --- binary cross-entropy on logits --------------------------------------------------------
def _bce_logits_forward(x, y, reduction="mean", **_):
    # −[y log σ(x) + (1−y) log(1−σ(x))] = max(x, 0) − x·y + log(1 + e^−|x|):
    # never exponentiates a positive number, so it is finite for any x.
    losses = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
    e = np.exp(-np.abs(x))
    sig = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return _reduce(losses, reduction, np.result_type(x, y)), (x, y, sig)


def _bce_logits_grad_x(g, x, y, sig, reduction="mean", **_):
    return nd((sig - y) * _upstream(g, reduction, x) * _scale(reduction, x.size))


def _bce_logits_grad_y(g, x, y, sig, reduction="mean", **_):
    return nd(-x * _upstream(g, reduction, x) * _scale(reduction, x.size))


BCE_WITH_LOGITS = define_op(
    name="binary_cross_entropy_with_logits", engine="tensor", symbol="BCE·σ",
    forward=_bce_logits_forward, grads=(_bce_logits_grad_x, _bce_logits_grad_y),
    # ṫ = reduce((σ(x) − y)·ṫx − x·ṫy)
    jvps=(_elementwise_jvp(_bce_logits_grad_x), _elementwise_jvp(_bce_logits_grad_y)),
    formulas=("∂/∂x = (σ(x) − y)/N", "∂/∂y = −x/N"),
    cases=_pair_cases(_normal, _prob), label=_loss_label("bce_with_logits"))


def check_class_targets(fn, scores_shape, targets):
    """Targets must be integers in [0, C), one per row of an (N, C) score matrix."""
    if len(scores_shape) != 2:
        raise ValueError(f"{fn}: expected scores of shape (N, C), got {tuple(scores_shape)}")
    if targets.ndim != 1 or len(targets) != scores_shape[0]:
        raise ValueError(f"{fn}: targets must have shape ({scores_shape[0]},) to match scores "
                         f"{tuple(scores_shape)}, got {targets.shape}")
    if targets.dtype.kind not in "iu":  # (np.issubdtype is ~30x slower)
        raise TypeError(f"{fn}: targets must be integer class indices, got dtype {targets.dtype}"
                        " (for probabilities use binary_cross_entropy or mse_loss)")
    if len(targets):
        if isinstance(targets, BatchedArray):  # (inside vmap: every example's targets)
            targets = targets.every_example()
        lo, hi = np.minimum.reduce(targets, axis=None), np.maximum.reduce(targets, axis=None)
        if lo < 0 or hi >= scores_shape[1]:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{fn}: target {int(bad)} is out of range for {scores_shape[1]} "
                             f"classes (valid: 0..{scores_shape[1] - 1})")
