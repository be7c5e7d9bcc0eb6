"""Small helpers shared by the functional ops: registration, argument checks, test inputs."""

from __future__ import annotations

import numbers

import numpy as np

from ..autograd.node import Node
from ..autograd.registry import Op, get_op, register

__all__ = ["fused_op", "pair", "as_array", "shape_error", "data_of"]


def fused_op(name, symbol, forward, grads, formula, cases, label=None, doc="", **extra) -> Op:
    """Register a tensor op of the functional library (same conventions as ``tensor_ops``).

    ``forward(*arrays, **attrs) -> (out, saved)``; each rule ``rule(g, *saved, **attrs)``
    returns ``g · ∂out/∂input`` or ``None`` (for a non-differentiable input such as
    integer class targets).  If the tensor engine already registered an op of the same
    name, that one is kept: one op, one entry.
    """
    try:
        return get_op(name, "tensor")
    except KeyError:
        pass
    return register(Op(name, symbol, forward, tuple(grads), formula, "tensor", None, cases,
                       label, doc, extra))


def pair(value, name: str, fn: str) -> tuple[int, int]:
    """``3 -> (3, 3)``; ``(2, 3) -> (2, 3)``; anything else is a clear error."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value), int(value))
    if (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)):
        return (int(value[0]), int(value[1]))
    raise TypeError(f"{fn}: {name} must be an int or a pair of ints, got {value!r}")


def data_of(x):
    """The numpy array behind a Tensor (or the array itself; ``ndarray.data`` is a buffer)."""
    return x.data if isinstance(x, Node) else x


def as_array(x) -> np.ndarray:
    return np.asarray(data_of(x))


def shape_error(fn: str, message: str) -> ValueError:
    return ValueError(f"{fn}: {message}")
