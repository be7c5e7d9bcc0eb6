"""``minigrad.nn.functional`` (import as ``F``): the neural-network ops, PyTorch's names.

Each function checks its arguments (errors name the shapes), then runs one
registry op through ``apply_op``, so every layer is one node with a symbol, a
formula and a gradient-checked backward.  The ops that gain from being fused
(speed or numerical stability) live in the submodules, with the math:

* ``linear``   linear, dropout
* ``conv``     conv2d, max_pool2d, avg_pool2d
* ``losses``   cross_entropy, nll_loss, mse_loss, binary_cross_entropy(_with_logits)
* ``norm``     batch_norm, layer_norm

Activations and softmax are the Tensor's own ops, re-exported here so that
``F.relu(x)`` reads like PyTorch.  Axes are called ``axis`` (numpy's name),
as on ``Tensor``.

dtypes follow the Tensor methods (PyTorch's rule): float32 stays float32 and
float64 stays float64, in the result and in every gradient; an int or bool
input is a constant cast to the floating operands' dtype, float32 when none is
floating (``_util.float_inputs``).  Integer class targets stay indices.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...batching.state import different_levels
from ...random import get_rng
from ...tensor import apply_op
from ...tensor.arguments import as_number, shape_arg
from . import conv as _conv
from . import linear as _linear
from . import losses as _losses
from . import norm as _norm
from ._util import as_array, constant_like, data_of, float_inputs, is_parameter, pair
from ._util import as_tensor as _tensor

__all__ = [
    "avg_pool2d", "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "conv2d", "cross_entropy", "dropout", "gelu", "layer_norm", "leaky_relu", "linear",
    "log_softmax", "max_pool2d", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh",
]

_REDUCTIONS = ("mean", "sum", "none")


def _shape(x) -> tuple:
    data = data_of(x)
    return data.shape if data.__class__ is np.ndarray else tuple(np.shape(data))


def _check_reduction(fn, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{fn}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")


# --- activations and softmax (the Tensor's own ops) ---------------------------------------
def relu(x):
    """max(x, 0)."""
    return _tensor(x, "relu").relu()


def leaky_relu(x, negative_slope: float = 0.01):
    """x if x > 0 else negative_slope · x (an int input gives float32, not float64)."""
    return _tensor(x, "leaky_relu").leaky_relu(negative_slope)  # (the op casts ints)


def gelu(x, approximate: str = "none"):
    """x · Φ(x), Φ the standard normal cdf (``approximate="tanh"`` for the tanh formula)."""
    return _tensor(x, "gelu").gelu(approximate)


def tanh(x):
    return _tensor(x, "tanh").tanh()


def sigmoid(x):
    """1 / (1 + e^−x), computed without overflow."""
    return _tensor(x, "sigmoid").sigmoid()


def softmax(x, axis: int | None = None, *, dim: int | None = None):
    """e^xᵢ / Σⱼ e^xⱼ along ``axis`` (PyTorch's ``dim=``; the last axis by default),
    stable: the maximum is subtracted first."""
    return _tensor(x, "softmax").softmax(axis, dim=dim)


def log_softmax(x, axis: int | None = None, *, dim: int | None = None):
    """xᵢ − log Σⱼ e^xⱼ along ``axis`` (or ``dim=``), without forming the softmax."""
    return _tensor(x, "log_softmax").log_softmax(axis, dim=dim)


# --- layers ---------------------------------------------------------------------------------
def linear(x, weight, bias=None):
    """``x @ weight.T + bias`` with ``weight`` of shape (out_features, in_features).

    An int input takes the weight's float dtype, as ``x @ weight.T`` does.
    """
    x, weight, bias = float_inputs("linear", x, weight, bias)
    xs, ws = x.data.shape, weight.data.shape
    if len(ws) != 2:
        raise ValueError(f"linear: weight must be 2-D (out_features, in_features), got {ws}")
    if not xs or xs[-1] != ws[1]:
        raise ValueError(f"linear: input of shape {xs} does not match weight {ws}: the last "
                         f"axis of the input must be in_features = {ws[1]}")
    if bias is None:
        return apply_op(_linear.LINEAR_NO_BIAS, x, weight)
    bs = bias.data.shape
    if bs != (ws[0],):
        raise ValueError(f"linear: bias must have shape ({ws[0]},) for weight {ws}, got {bs}")
    return apply_op(_linear.LINEAR, x, weight, bias)


def conv2d(x, weight, bias=None, stride=1, padding=0):
    """2-D cross-correlation of an (N, C, H, W) input with (O, C, kh, kw) kernels.

    Output shape (N, O, Ho, Wo) with Ho = (H + 2·padding − kh) // stride + 1.
    """
    stride, padding = pair(stride, "stride", "conv2d"), pair(padding, "padding", "conv2d")
    x, weight, bias = float_inputs("conv2d", x, weight, bias)
    _conv.check_conv_args(_shape(x), _shape(weight), None if bias is None else _shape(bias),
                          stride, padding)
    if bias is None:
        return apply_op(_conv.CONV2D_NO_BIAS, x, weight, stride=stride, padding=padding)
    return apply_op(_conv.CONV2D, x, weight, bias, stride=stride, padding=padding)


def _pool(op, fn, x, kernel_size, stride, padding):
    kernel = pair(kernel_size, "kernel_size", fn)
    stride = kernel if stride is None else pair(stride, "stride", fn)
    padding = pair(padding, "padding", fn)
    (x,) = float_inputs(fn, x)  # max-pool pads with -inf, avg-pool scales by 1/k²: float work
    _conv.check_pool_input(_shape(x), kernel, stride, padding, fn)
    return apply_op(op, x, kernel=kernel, stride=stride, padding=padding)


def max_pool2d(x, kernel_size=2, stride=None, padding=0):
    """Maximum over each kernel_size window (stride defaults to kernel_size)."""
    return _pool(_conv.MAX_POOL2D, "max_pool2d", x, kernel_size, stride, padding)


def avg_pool2d(x, kernel_size=2, stride=None, padding=0):
    """Mean over each kernel_size window (stride defaults to kernel_size)."""
    return _pool(_conv.AVG_POOL2D, "avg_pool2d", x, kernel_size, stride, padding)


def dropout(x, p: float = 0.5, training: bool = True, rng=None):
    """Zero each element with probability ``p`` and scale the rest by 1/(1 − p).

    The identity (the same tensor) when ``training`` is false or ``p == 0``; an
    int or bool input becomes float32 in either mode, so the result's dtype does
    not depend on ``training``.
    ``rng`` (a numpy Generator, an int seed, or None for minigrad's default
    generator, see ``minigrad.random``) draws one seed per call, stored in the node's attrs.
    Inside ``vmap`` it follows ``randomness=``: an error, one mask for every example
    (``"same"``), or one per example (``"different"``, at every nested vmap that says
    so, whether or not ``x`` is batched there: an unbatched ``x`` gives a batch).
    (``torch.func.vmap`` refuses ``"same"`` for a batched input; sharing one mask is
    well defined, so minigrad allows it.)
    """
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p!r}")
    (x,) = float_inputs("dropout", x)
    if not training or p == 0:
        return x
    seed = int(get_rng(rng).integers(2**63 - 1))
    levels = different_levels()
    if levels:  # vmap(randomness="different"): a mask per example, (level, size) per level
        return apply_op(_linear.DROPOUT, x, p=float(p), seed=seed, per_example=tuple(levels))
    return apply_op(_linear.DROPOUT, x, p=float(p), seed=seed)


def batch_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5):
    """Normalise each channel (axis 1) of an (N, C) or (N, C, ...) input.

    Training: uses this batch's mean and (biased) variance, and updates
    ``running_mean``/``running_var`` in place when given:
    ``r = (1 − momentum) · r + momentum · batch_stat`` (the variance unbiased, as in
    PyTorch).  Eval: uses the running statistics.

    The input's float dtype wins: the running statistics and a ``weight``/``bias``
    that is not a parameter (an array, or a tensor without requires_grad) are cast
    to it.  A ``weight``/``bias`` that requires grad keeps its dtype and promotes
    as in ``x * weight``: float64 parameters on a float32 input give a float64
    result (and float32 gradients for the input).  An int input takes the
    parameters' float dtype, float32 without any.
    """
    shape = _shape(x)
    if len(shape) < 2:
        raise ValueError(f"batch_norm: expected an input of shape (N, C) or (N, C, ...), "
                         f"got {shape}")
    C = shape[1]
    for name, v in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if v is not None and _shape(v) != (C,):
            raise ValueError(f"batch_norm: {name} must have shape ({C},) for an input with "
                             f"{C} channels {shape}, got {_shape(v)}")
    eps = as_number(eps, "batch_norm", "eps")
    x, weight, bias = _affine_operands("batch_norm", x, weight, bias, (C,))
    dtype = x.data.dtype
    if training:
        axes, _ = _norm.channel_axes(len(shape))
        count = x.data.size // max(C, 1)
        if count <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when "
                             f"training, got input of shape {shape}")
        if running_mean is not None or running_var is not None:
            # Check everything before the first buffer changes in place.
            momentum = as_number(momentum, "batch_norm", "momentum")
            for name, buf in (("running_mean", running_mean), ("running_var", running_var)):
                if buf is not None:
                    _check_running_buffer(name, buf)
            xd = x.data
            mean = xd.mean(axis=axes)
            var = xd.var(axis=axes, ddof=1)
            for buf, stat in ((running_mean, mean), (running_var, var)):
                if buf is not None:
                    arr = data_of(buf)
                    arr *= 1 - momentum
                    arr += momentum * stat.astype(arr.dtype)
        return apply_op(_norm.BATCH_NORM, x, weight, bias, eps=eps)
    if running_mean is None or running_var is None:
        raise ValueError("batch_norm: eval mode (training=False) needs running_mean and "
                         "running_var")
    return apply_op(_norm.BATCH_NORM_EVAL, x, weight, bias, constant_like(running_mean, dtype),
                    constant_like(running_var, dtype), eps=eps)


def _check_running_buffer(name, buf) -> None:
    """A running statistic that training updates in place: a writable float array."""
    arr = data_of(buf)
    if not isinstance(arr, np.ndarray) or arr.dtype.kind != "f":
        kind = arr.dtype if isinstance(arr, np.ndarray) else type(arr).__name__
        raise TypeError(f"batch_norm: {name} must be a float array or Tensor, since training "
                        f"updates it in place; got {kind}")
    if not arr.flags.writeable:
        raise ValueError(f"batch_norm: {name} is a read-only array, but training updates it "
                         f"in place")


def _affine_operands(fn, x, weight, bias, shape):
    """A norm's input as a float tensor, and γ, β in its dtype unless they are parameters."""
    (x,) = float_inputs(fn, x, like=[v for v in (weight, bias) if is_parameter(v)])
    dtype = x.data.dtype
    weight = np.ones(shape, dtype) if weight is None else constant_like(weight, dtype)
    bias = np.zeros(shape, dtype) if bias is None else constant_like(bias, dtype)
    return x, weight, bias


def layer_norm(x, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalise over the trailing ``normalized_shape`` axes of each sample.

    dtypes as in ``batch_norm``: the input's float dtype wins over constant γ, β.
    """
    norm_shape = shape_arg((normalized_shape,), "layer_norm")
    shape = _shape(x)
    k = len(norm_shape)
    if k == 0 or shape[len(shape) - k:] != norm_shape or len(shape) < k:
        raise ValueError(f"layer_norm: input of shape {shape} does not end with the "
                         f"normalized_shape {norm_shape}")
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and _shape(v) != norm_shape:
            raise ValueError(f"layer_norm: {name} must have shape {norm_shape}, got {_shape(v)}")
    x, weight, bias = _affine_operands("layer_norm", x, weight, bias, norm_shape)
    return apply_op(_norm.LAYER_NORM, x, weight, bias, eps=as_number(eps, "layer_norm", "eps"),
                    ndim=k)


# --- losses ------------------------------------------------------------------------------
def _targets(fn, targets):
    if targets.__class__ is np.ndarray:
        return targets
    return as_array(targets)  # (a batch of targets, inside vmap, stays one)


def cross_entropy(logits, targets, reduction: str = "mean"):
    """Softmax cross-entropy of (N, C) logits against integer class targets (N,).

    Fused and stable: finite for logits of any size (±1000 in float32 included);
    the gradient is exactly (softmax − onehot) / N.
    """
    _check_reduction("cross_entropy", reduction)
    (logits,) = float_inputs("cross_entropy", logits)  # int logits: float32 (targets stay ints)
    t = _targets("cross_entropy", targets)
    _losses.check_class_targets("cross_entropy", _shape(logits), t)
    return apply_op(_losses.CROSS_ENTROPY, logits, t, reduction=reduction)


def nll_loss(log_probs, targets, reduction: str = "mean"):
    """−log_probs[i, targets[i]], averaged: use after ``log_softmax``."""
    _check_reduction("nll_loss", reduction)
    (log_probs,) = float_inputs("nll_loss", log_probs)
    t = _targets("nll_loss", targets)
    _losses.check_class_targets("nll_loss", _shape(log_probs), t)
    return apply_op(_losses.NLL_LOSS, log_probs, t, reduction=reduction)


def _same_shape(fn, a, b):
    if _shape(a) != _shape(b):
        raise ValueError(f"{fn}: input shape {_shape(a)} and target shape {_shape(b)} differ "
                         "(reshape one of them; broadcasting here is almost always a bug)")


def _float_pair(fn, input, target):
    """The input as a float tensor and the target in its dtype (labels are often int).

    A target that requires grad is a second float operand: it keeps its dtype and
    decides an int input's, as in ``input - target``.
    """
    if is_parameter(target):
        return float_inputs(fn, input, target)
    (input,) = float_inputs(fn, input)
    return input, constant_like(target, input.data.dtype)


def mse_loss(input, target, reduction: str = "mean"):
    """mean((input − target)²)."""
    _check_reduction("mse_loss", reduction)
    _same_shape("mse_loss", input, target)
    input, target = _float_pair("mse_loss", input, target)
    return apply_op(_losses.MSE_LOSS, input, target, reduction=reduction)


def binary_cross_entropy(input, target, reduction: str = "mean"):
    """−mean[y log p + (1 − y) log(1 − p)] for probabilities p in [0, 1]."""
    _check_reduction("binary_cross_entropy", reduction)
    _same_shape("binary_cross_entropy", input, target)
    input, target = _float_pair("binary_cross_entropy", input, target)
    p = input.data
    if p.size and (np.nanmin(p) < 0 or np.nanmax(p) > 1):
        raise ValueError("binary_cross_entropy: input must be probabilities in [0, 1] "
                         f"(got values in [{np.nanmin(p):.4g}, {np.nanmax(p):.4g}]); for raw "
                         "scores use binary_cross_entropy_with_logits")
    return apply_op(_losses.BCE, input, target, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, reduction: str = "mean"):
    """Sigmoid + binary cross-entropy in one stable op (finite for any logit)."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    _same_shape("binary_cross_entropy_with_logits", input, target)
    input, target = _float_pair("binary_cross_entropy_with_logits", input, target)
    return apply_op(_losses.BCE_WITH_LOGITS, input, target, reduction=reduction)
