"""Weight initialisation: keep each layer's activations (and gradients) at unit scale.

A layer computing ``Σ_i w_i x_i`` over ``fan_in`` inputs multiplies the
variance of its input by ``fan_in · Var(w)``.  Choosing ``Var(w) = 1/fan_in``
(times a *gain* for the nonlinearity that follows) keeps the signal from
exploding or vanishing across many layers:

* ``kaiming_*`` (He et al.):     Var(w) = gain² / fan           (gain √2 for ReLU)
* ``xavier_*`` (Glorot, Bengio): Var(w) = gain² · 2 / (fan_in + fan_out)

A uniform U(−a, a) has variance a²/3, so the uniform versions use
``a = √3 · std``.  For a weight of shape ``(out, in, *kernel)``,
``fan_in = in · prod(kernel)`` and ``fan_out = out · prod(kernel)``.

Every function takes ``rng``: a ``numpy.random.Generator``, an int seed, or
``None`` for minigrad's one default generator (``minigrad/random.py``, the one
``minigrad.randn`` and dropout use; reset it with ``minigrad.manual_seed(seed)``,
also importable as ``init.manual_seed``), so a model is reproducible from one number.
The functions return new float32 arrays; the ``*_`` versions fill a
``Parameter`` in place, like ``torch.nn.init``.

Inside ``vmap`` they follow ``randomness=`` (``minigrad.random.sample``): under
``"different"`` the new array is a batch, one draw per example (an ensemble's
initial weights in one call); a ``*_`` fill then needs a parameter batched at that
vmap's level, as ``torch.func.vmap`` does for in-place random ops.
"""

from __future__ import annotations

import math

import numpy as np

from ..batching.randomness import check_fill
from ..engines.inplace import mark_modified
from ..random import get_rng, manual_seed, sample

__all__ = [
    "manual_seed", "get_rng", "calculate_gain", "fan_in_and_fan_out",
    "kaiming_uniform", "kaiming_normal", "xavier_uniform", "xavier_normal", "uniform", "zeros",
    "ones", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_",
]

def calculate_gain(nonlinearity: str = "relu", param: float | None = None) -> float:
    """The factor that keeps the variance at 1 through ``nonlinearity`` (PyTorch's values)."""
    if nonlinearity in ("linear", "identity", "sigmoid", "conv2d", "conv1d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1.0 + slope * slope))
    if nonlinearity == "selu":
        return 0.75
    raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}")


def fan_in_and_fan_out(shape) -> tuple[int, int]:
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"fan in/out needs a weight with at least 2 axes (out, in, ...), "
                         f"got shape {shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(shape, mode):
    fan_in, fan_out = fan_in_and_fan_out(shape)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return fan_in if mode == "fan_in" else fan_out


def uniform(shape, low: float, high: float, rng=None, dtype=np.float32) -> np.ndarray:
    return sample(get_rng(rng).uniform, tuple(shape), low, high).astype(dtype)


def zeros(shape, dtype=np.float32) -> np.ndarray:
    return np.zeros(tuple(shape), dtype=dtype)


def ones(shape, dtype=np.float32) -> np.ndarray:
    return np.ones(tuple(shape), dtype=dtype)


def kaiming_uniform(shape, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "relu",
                    rng=None, dtype=np.float32) -> np.ndarray:
    """U(−b, b) with b = gain · √(3 / fan).  ``a`` is the leaky-ReLU slope (PyTorch's name)."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(shape, mode))
    bound = math.sqrt(3.0) * std
    return uniform(shape, -bound, bound, rng, dtype)


def kaiming_normal(shape, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "relu",
                   rng=None, dtype=np.float32) -> np.ndarray:
    """N(0, std²) with std = gain / √fan."""
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(shape, mode))
    return _normal(shape, std, rng, dtype)


def xavier_uniform(shape, gain: float = 1.0, rng=None, dtype=np.float32) -> np.ndarray:
    """U(−b, b) with b = gain · √(6 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform(shape, -bound, bound, rng, dtype)


def xavier_normal(shape, gain: float = 1.0, rng=None, dtype=np.float32) -> np.ndarray:
    """N(0, std²) with std = gain · √(2 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(shape)
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return _normal(shape, std, rng, dtype)


def _normal(shape, std, rng, dtype):
    return sample(get_rng(rng).normal, tuple(shape), 0.0, std).astype(dtype)


def _fill(fn):
    def fill_(param, *args, **kwargs):
        kwargs.setdefault("dtype", param.data.dtype)
        check_fill(fill_.__name__, param.data)  # (vmap "different": room for a batch?)
        param.data[...] = fn(param.data.shape, *args, **kwargs)
        # A graph built before the fill saved the old values: make its backward refuse.
        mark_modified([param])
        return param

    fill_.__name__ = fn.__name__ + "_"
    fill_.__doc__ = f"Fill ``param`` in place with :func:`{fn.__name__}` values."
    return fill_


kaiming_uniform_ = _fill(kaiming_uniform)
kaiming_normal_ = _fill(kaiming_normal)
xavier_uniform_ = _fill(xavier_uniform)
xavier_normal_ = _fill(xavier_normal)
