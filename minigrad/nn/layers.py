"""The standard layers, each a thin ``Module`` around one ``minigrad.nn.functional`` op.

Layers with weights take ``rng=`` (a numpy Generator) or ``seed=`` (an int) so
that a model is reproducible; with neither they draw from minigrad's default
generator (``minigrad.random``; ``minigrad.manual_seed(s)`` resets it).
Weights use PyTorch's default initialisation, U(−1/√fan_in, 1/√fan_in).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.node import Node
from . import functional as F
from . import init
from .functional import fused, pair
from .module import Module
from .parameter import Parameter

__all__ = [
    "Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "Flatten", "Identity", "ReLU", "LeakyReLU",
    "Tanh", "Sigmoid", "GELU", "Softmax", "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
]


def _generator(rng, seed, layer):
    if rng is not None and seed is not None:
        raise ValueError(f"{layer}: pass rng= or seed=, not both")
    return init.get_rng(rng if rng is not None else seed)


def _activation(layer: str, activation):
    """The ``activation=`` of a layer that can fuse its ReLU: ``None`` or ``"relu"``."""
    if activation not in _ACTIVATIONS:
        raise ValueError(f"{layer}: activation must be one of {_ACTIVATIONS}, got "
                         f"{activation!r}")
    return activation


_ACTIVATIONS = (None, "relu")


class Linear(Module):
    """``y = x @ weight.T + bias``; weight (out_features, in_features).

    ``activation="relu"`` gives ``relu(x @ weight.T + bias)`` as one fused op
    (``functional/fused.py``): one graph node, the ReLU done in place.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, rng=None,
                 seed=None, dtype=np.float32, activation: str | None = None):
        super().__init__()
        self.activation = _activation("Linear", activation)
        self.in_features, self.out_features = int(in_features), int(out_features)
        g = _generator(rng, seed, "Linear")
        bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
        self.weight = Parameter(init.uniform((out_features, in_features), -bound, bound, g, dtype),
                                dtype=dtype)
        if bias:
            self.bias = Parameter(init.uniform((out_features,), -bound, bound, g, dtype),
                                  dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        if self.activation is None:
            return F.linear(x, self.weight, self.bias)
        if self.bias is None:
            return F.linear(x, self.weight).relu()
        return fused.linear_relu(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}"
                + (f", activation={self.activation!r}" if self.activation else ""))


class Conv2d(Module):
    """2-D convolution over (N, C, H, W); weight (out_channels, in_channels, kh, kw).

    ``activation="relu"``: conv2d and ReLU as one fused op (``functional/fused.py``).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 bias: bool = True, *, rng=None, seed=None, dtype=np.float32,
                 activation: str | None = None):
        super().__init__()
        self.activation = _activation("Conv2d", activation)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2d")
        self.stride = pair(stride, "stride", "Conv2d")
        self.padding = pair(padding, "padding", "Conv2d")
        g = _generator(rng, seed, "Conv2d")
        fan_in = self.in_channels * self.kernel_size[0] * self.kernel_size[1]
        bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
        shape = (self.out_channels, self.in_channels, *self.kernel_size)
        self.weight = Parameter(init.uniform(shape, -bound, bound, g, dtype), dtype=dtype)
        if bias:
            self.bias = Parameter(init.uniform((out_channels,), -bound, bound, g, dtype),
                                  dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        if self.activation is not None and self.bias is not None:
            return fused.conv2d_relu(x, self.weight, self.bias, self.stride, self.padding)
        out = F.conv2d(x, self.weight, self.bias, self.stride, self.padding)
        return out if self.activation is None else out.relu()

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.bias is None:
            s += ", bias=False"
        if self.activation:
            s += f", activation={self.activation!r}"
        return s


class _Pool(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x):
        return type(self)._fn(x, self.kernel_size, self.stride, self.padding)

    def extra_repr(self) -> str:
        stride = self.kernel_size if self.stride is None else self.stride
        return f"kernel_size={self.kernel_size}, stride={stride}, padding={self.padding}"


class MaxPool2d(_Pool):
    _fn = staticmethod(F.max_pool2d)


class AvgPool2d(_Pool):
    _fn = staticmethod(F.avg_pool2d)


class Flatten(Module):
    """Flatten axes ``start_dim..end_dim`` into one (by default all but the batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    def forward(self, x):
        return x


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}" if self.approximate != "none" else ""


class Softmax(Module):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def forward(self, x):
        return F.softmax(x, self.axis)

    def extra_repr(self) -> str:
        return f"axis={self.axis}"


class Dropout(Module):
    """Zero activations with probability ``p`` in training mode; the identity in eval mode."""

    def __init__(self, p: float = 0.5, *, rng=None, seed=None):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p = float(p)
        g = _generator(rng, seed, "Dropout")
        # Our own stream (split off the given one), so dropout masks do not shift when
        # other layers draw more or fewer numbers.
        self._rng = np.random.default_rng(g.integers(2**63 - 1))

    def forward(self, x):
        return F.dropout(x, self.p, self.training, self._rng)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class _BatchNorm(Module):
    """Shared by BatchNorm1d/2d.

    ``momentum=None`` (as in PyTorch) makes the running statistics a plain
    cumulative average of every batch seen: update ``k`` uses momentum ``1/k``
    (``k = num_batches_tracked``), so each batch weighs the same.
    """

    _ndims: tuple = ()
    _layout = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, *, dtype=np.float32,
                 activation: str | None = None):
        super().__init__()
        self.activation = _activation(type(self).__name__, activation)
        if momentum is not None and (isinstance(momentum, bool)
                                     or not isinstance(momentum, numbers.Real)):
            raise TypeError(f"{type(self).__name__}: momentum must be a number or None "
                            f"(cumulative average), got {type(momentum).__name__}")
        self.num_features, self.eps, self.momentum = int(num_features), eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(np.ones(num_features), dtype=dtype)
            self.bias = Parameter(np.zeros(num_features), dtype=dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", np.zeros(num_features, dtype))
            self.register_buffer("running_var", np.ones(num_features, dtype))
            self.register_buffer("num_batches_tracked", np.zeros((), np.int64))
        else:
            self.running_mean = self.running_var = None

    def forward(self, x):
        shape = tuple(np.shape(x.data if isinstance(x, Node) else x))
        if len(shape) not in self._ndims:
            raise ValueError(f"{type(self).__name__}: expected a {self._layout} input, got shape "
                             f"{shape}")
        if shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}): input has {shape[1]} "
                             f"channels (shape {shape})")
        use_batch = self.training or not self.track_running_stats
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked += 1
            if momentum is None:  # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked)
        momentum = 0.0 if momentum is None else momentum
        if self.activation is not None and use_batch and self.affine and len(shape) == 4:
            return self._fused_relu(x, momentum)
        out = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                           training=use_batch, momentum=momentum, eps=self.eps)
        return out if self.activation is None else out.relu()

    def _fused_relu(self, x, momentum):
        """Batch statistics and ReLU in one op (``fused.batch_norm2d_relu``); the running
        statistics updated as ``F.batch_norm`` does (the variance unbiased)."""
        if self.training and self.track_running_stats:
            data = x.data if isinstance(x, Node) else np.asarray(x)
            axes = (0, 2, 3)
            for buf, stat in ((self.running_mean, data.mean(axis=axes)),
                              (self.running_var, data.var(axis=axes, ddof=1))):
                buf *= 1 - momentum
                buf += momentum * stat.astype(buf.dtype)
        return fused.batch_norm2d_relu(x, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}"
                + (f", activation={self.activation!r}" if self.activation else ""))


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) inputs, one mean/variance per channel C."""

    _ndims = (2, 3)
    _layout = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) inputs, one mean/variance per channel C."""

    _ndims = (4,)
    _layout = "(N, C, H, W)"


class LayerNorm(Module):
    """Normalise each sample over its trailing ``normalized_shape`` axes."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, *,
                 dtype=np.float32):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(n) for n in normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(np.ones(self.normalized_shape), dtype=dtype)
            self.bias = Parameter(np.zeros(self.normalized_shape), dtype=dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
