"""A layer and its ReLU as one registry op: ``linear_relu``, ``conv2d_relu``, ``batch_norm2d_relu``.

``relu(layer(x))`` is two nodes; fused, it is one node with one rule per input,
drawn as one box, and the ReLU runs in place on the layer's fresh output (no
second output-sized array).  Nothing is written twice: each rule is the
layer's own registry rule applied to the ReLU's own rule,

    ∂L/∂input = layer_rule(relu_rule(g, out), ...)    (relu_rule: g where out > 0)

and the forward is the layer's registry forward followed by ``max(·, 0)``.
(``tests/minigrad/ops`` checks them like every op: gradcheck, second derivatives, both
engines.)  ``nn.Linear(..., activation="relu")``, ``nn.Conv2d(...,
activation="relu")`` and ``nn.BatchNorm2d(..., activation="relu")`` use them.
"""

from __future__ import annotations

import numpy as np

from ...core.op import define_op
from ...ops.tensor import RELU
from ...tensor import apply_op
from ._util import float_inputs
from .conv import CONV2D, check_conv_args
from .linear import LINEAR
from .norm import BATCH_NORM

__all__ = ["LINEAR_RELU", "CONV2D_RELU", "BATCH_NORM2D_RELU", "linear_relu", "conv2d_relu",
           "batch_norm2d_relu"]

_relu_rule = RELU.grads[0]


def _relu_in_place(out):
    """``max(out, 0)`` into ``out`` itself (a fresh array); on graph nodes (a create_graph
    pass reruns the forward on them) the recorded relu."""
    if isinstance(out, np.ndarray):
        np.maximum(out, 0, out=out)
        return out
    return RELU(out)


def _fused(layer, name, symbol, formulas, cases, **fields):
    """The op ``relu(layer(...))``: saves the layer's values and the output."""

    def forward(*xs, **attrs):
        out, saved = layer.forward(*xs, **attrs)
        out = _relu_in_place(out)
        return out, (*saved, out)

    def rule(k):
        layer_rule = layer.grads[k]

        def grad(g, *saved, **attrs):
            return layer_rule(_relu_rule(g, saved[-1]), *saved[:-1], **attrs)

        grad.__name__ = f"{name}_grad_{k}"
        return grad

    def forward_rule(k):
        # Forward mode, the other way round: the layer's tangent, then relu's rule on it
        # (relu is elementwise, so its rule is its own transpose).
        layer_jvp = layer.jvps[k]

        def jvp(t, *saved, **attrs):
            return _relu_rule(layer_jvp(t, *saved[:-1], **attrs), saved[-1])

        jvp.__name__ = f"{name}_jvp_{k}"
        return jvp

    forward.__name__ = f"{name}_forward"
    return define_op(name=name, engine="tensor", symbol=symbol, forward=forward,
                     grads=tuple(rule(k) for k in range(len(layer.grads))),
                     jvps=tuple(forward_rule(k) for k in range(len(layer.jvps))),
                     formulas=tuple(f"{f} with g ← g·[out > 0]" for f in formulas),
                     cases=cases, doc=f"{layer.name} followed by ReLU, fused.",
                     **fields)



LINEAR_RELU = _fused(LINEAR, "linear_relu", "linear+ReLU",
                     ("∂/∂x = ĝ·W", "∂/∂W = ĝᵀ·x", "∂/∂b = Σ ĝ over the rows"), LINEAR.cases)
CONV2D_RELU = _fused(CONV2D, "conv2d_relu", "conv2d+ReLU", CONV2D.formulas, CONV2D.cases,
                     label=lambda attrs: CONV2D.display(attrs) + "+ReLU")
BATCH_NORM2D_RELU = _fused(BATCH_NORM, "batch_norm2d_relu", "BatchNorm+ReLU",
                           BATCH_NORM.formulas, BATCH_NORM.cases,
                           label=lambda attrs: "BatchNorm+ReLU")


# --- the functions nn calls (the checks are the unfused functions') -----------------------
def linear_relu(x, weight, bias):
    """``relu(x @ weight.T + bias)`` as one node (``F.linear``'s arguments, a bias required)."""
    if bias is None:
        raise ValueError("linear_relu: needs a bias (use F.linear(...).relu() without one)")
    x, weight, bias = _floats(x, weight, bias)
    xs, ws, bs = x.data.shape, weight.data.shape, bias.data.shape
    if len(ws) != 2 or not xs or xs[-1] != ws[1] or bs != (ws[0],):
        raise ValueError(f"linear_relu: input {xs}, weight {ws} and bias {bs} do not fit: "
                         f"expected (..., in), (out, in) and (out,)")
    return apply_op(LINEAR_RELU, x, weight, bias)


def conv2d_relu(x, weight, bias, stride=(1, 1), padding=(0, 0)):
    """``relu(conv2d(x, weight, bias))`` as one node (stride and padding as pairs)."""
    if bias is None:
        raise ValueError("conv2d_relu: needs a bias (use F.conv2d(...).relu() without one)")
    x, weight, bias = _floats(x, weight, bias)
    check_conv_args(x.data.shape, weight.data.shape, bias.data.shape, stride, padding,
                    "conv2d_relu")
    return apply_op(CONV2D_RELU, x, weight, bias, stride=tuple(stride), padding=tuple(padding))


def batch_norm2d_relu(x, weight, bias, eps: float = 1e-5):
    """``relu(batch_norm(x, training=True))`` as one node (this batch's statistics; the
    caller updates running statistics, as ``nn.BatchNorm2d`` does)."""
    x, weight, bias = _floats(x, weight, bias)
    if x.data.ndim != 4 or weight.data.shape != (x.data.shape[1],):
        raise ValueError(f"batch_norm2d_relu: expected an (N, C, H, W) input and weight of "
                         f"shape (C,), got {x.data.shape} and {weight.data.shape}")
    return apply_op(BATCH_NORM2D_RELU, x, weight, bias, eps=float(eps))


def _floats(*xs):
    return float_inputs("fused", *xs)
