"""The module-level tensor functions: constructors (``zeros``, ``randn``, ``arange`` ...)
and functions of several tensors (``cat``, ``stack``, ``where``, ``maximum``).

Like PyTorch's, the constructors make float32 unless told otherwise, and the
random ones draw from one seeded generator (``manual_seed``), so results repeat.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import tensor_ops as ops
from .random import generator as pick_generator
from .tensor import Tensor, apply_op
from .tensor_args import as_int, constant, lift, scalar_value, size_arg, to_array
from .tensor_numpy import implements

__all__ = [
    "arange", "cat", "concatenate", "full", "maximum", "minimum", "ones",
    "ones_like", "rand", "randn", "stack", "tensor", "where", "zeros", "zeros_like",
]

ndarray = np.ndarray
asarray = np.asarray
float32 = np.dtype(np.float32)


# --- functions of several tensors ------------------------------------------------------------
def _tensor_list(tensors, op_name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op_name} expects a list or tuple of tensors, got "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise ValueError(f"{op_name} needs at least one tensor")
    return tensors


def cat(tensors, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis (``np.concatenate``)."""
    return apply_op(ops.CAT, *_tensor_list(tensors, "cat"), axis=as_int(axis, "cat", "axis"))


concatenate = cat  # numpy's name


def stack(tensors, axis: int = 0) -> Tensor:
    """Join tensors of equal shape along a new axis (``np.stack``)."""
    return apply_op(ops.STACK, *_tensor_list(tensors, "stack"),
                    axis=as_int(axis, "stack", "axis"))


def maximum(a, b) -> Tensor:
    """Elementwise larger value (``np.maximum``); a tie shares the gradient half and half."""
    return _either(Tensor.maximum, a, b, "maximum")


def minimum(a, b) -> Tensor:
    """Elementwise smaller value (``np.minimum``); a tie shares the gradient half and half."""
    return _either(Tensor.minimum, a, b, "minimum")


def _either(method, a, b, op_name) -> Tensor:
    """``method(a, b)`` when either operand (not necessarily the first) is a Tensor."""
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            raise TypeError(f"{op_name}: give at least one Tensor (for arrays use np.{op_name})")
        a = lift(Tensor, a, b.data.dtype, op_name)
    return method(a, b)


def where(condition, a, b) -> Tensor:
    """``a`` where ``condition`` (a bool tensor or array) holds, else ``b``."""
    cond = condition.data if isinstance(condition, Tensor) else asarray(condition)
    if cond.dtype != bool:
        raise TypeError(f"where: the condition must be a bool tensor (e.g. x > 0), got dtype "
                        f"{cond.dtype}")
    cond_t = condition if isinstance(condition, Tensor) else constant(Tensor, cond)
    return apply_op(ops.WHERE, cond_t, a, b)


# --- numpy's names for them, when a Tensor is an argument (see tensor_numpy) -----------------
@implements(np.where)
def _np_where(condition, *a_b):
    if not a_b:  # np.where(cond) alone: the indices where it holds, not differentiable
        return np.where(condition.data if isinstance(condition, Tensor) else condition)
    return where(condition, *a_b)


@implements(np.concatenate)
def _np_concatenate(arrays, axis=0, **_):
    return cat(list(arrays), axis)


@implements(np.stack)
def _np_stack(arrays, axis=0, **_):
    return stack(list(arrays), axis)


# --- constructors ----------------------------------------------------------------------------
def _float_dtype(dtype, fn):
    dtype = float32 if dtype is None else np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"{fn}: dtype must be a float dtype, got {dtype}")
    return dtype


def _make(arr, requires_grad, name) -> Tensor:
    return Tensor(arr, requires_grad=requires_grad, name=name)


def tensor(data, requires_grad: bool = False, dtype=None, name: str | None = None) -> Tensor:
    """A new tensor holding a *copy* of ``data`` (Python floats become float32)."""
    arr = to_array(data, dtype)
    source = data.data if isinstance(data, Tensor) else data
    if arr is source or (isinstance(source, ndarray) and np.shares_memory(arr, source)):
        arr = arr.copy()
    return Tensor(arr, requires_grad=requires_grad, name=name)


def zeros(*shape, dtype=None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    dtype = float32 if dtype is None else dtype
    return _make(np.zeros(size_arg(shape, "zeros"), dtype=dtype), requires_grad, name)


def ones(*shape, dtype=None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    dtype = float32 if dtype is None else dtype
    return _make(np.ones(size_arg(shape, "ones"), dtype=dtype), requires_grad, name)


def full(shape, fill_value, dtype=None, requires_grad: bool = False,
         name: str | None = None) -> Tensor:
    arr = np.full(size_arg((shape,), "full"), fill_value, dtype=dtype)
    if dtype is None and arr.dtype == np.float64:
        arr = arr.astype(float32)
    return _make(arr, requires_grad, name)


def zeros_like(t, dtype=None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    ref = t.data if isinstance(t, Tensor) else asarray(t)
    return _make(np.zeros(ref.shape, dtype=dtype or ref.dtype), requires_grad, name)


def ones_like(t, dtype=None, requires_grad: bool = False, name: str | None = None) -> Tensor:
    ref = t.data if isinstance(t, Tensor) else asarray(t)
    return _make(np.ones(ref.shape, dtype=dtype or ref.dtype), requires_grad, name)


def randn(*shape, generator=None, seed=None, dtype=None, requires_grad: bool = False,
          name: str | None = None) -> Tensor:
    """Standard normal samples from a seeded ``np.random.Generator``.

    ``generator=`` uses your generator, ``seed=`` a fresh one, neither the
    module's default (reset it with ``manual_seed``), so results repeat.
    """
    rng = pick_generator(generator, seed)
    dtype = _float_dtype(dtype, "randn")
    return _make(rng.standard_normal(size_arg(shape, "randn"), dtype=dtype), requires_grad, name)


def rand(*shape, generator=None, seed=None, dtype=None, requires_grad: bool = False,
         name: str | None = None) -> Tensor:
    """Uniform samples in [0, 1) (see ``randn`` for the generator)."""
    rng = pick_generator(generator, seed)
    dtype = _float_dtype(dtype, "rand")
    return _make(rng.random(size_arg(shape, "rand"), dtype=dtype), requires_grad, name)


def arange(start, stop=None, step=1, dtype=None, requires_grad: bool = False,
           name: str | None = None) -> Tensor:
    """Evenly spaced values in [start, stop): int64 for ints, float32 for floats."""
    bounds = []
    for what, v in (("start", start), ("stop", stop), ("step", step)):
        n = scalar_value(v)
        if v is not None and (isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Real)):
            raise TypeError(f"arange: {what} must be a number, got {v!r}")
        bounds.append(n)
    start, stop, step = bounds
    arr = np.arange(start, stop, step) if stop is not None else np.arange(start)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype == np.float64:
        arr = arr.astype(float32)
    return _make(arr, requires_grad, name)
