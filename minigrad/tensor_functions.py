"""The module-level tensor functions: constructors (``zeros``, ``randn``, ``arange`` ...),
functions of several tensors (``cat``, ``stack``, ``where``, ``maximum``) and the ops with
several outputs (``split``, ``chunk``, ``unbind``, ``topk``, ``max(dim=)``), which are
also bound as ``Tensor`` methods here (``tensor.py`` has no room left for them).

Like PyTorch's, the constructors make float32 unless told otherwise, and the
random ones draw from one seeded generator (``manual_seed``), so results repeat.
"""

from __future__ import annotations

import math
import numbers
from collections import namedtuple

import numpy as np

from . import tensor_ops as ops
from .random import generator as pick_generator
from .tensor import Tensor, apply_op
from .tensor_args import as_int, constant, lift, scalar_value, size_arg, to_array
from .tensor_numpy import implements

__all__ = [
    "arange", "cat", "chunk", "concatenate", "full", "maximum", "minimum", "ones",
    "ones_like", "rand", "randn", "split", "stack", "tensor", "topk", "unbind", "where",
    "zeros", "zeros_like",
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


# --- ops with several outputs (``autograd/outputs.py``) ---------------------------------------
#: what ``max(dim=)``, ``min(dim=)`` and ``topk`` return, as PyTorch's ``torch.return_types``
max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])


def _dim(t, dim, op_name) -> int:
    dim = as_int(dim, op_name, "dim")
    ndim = t.data.ndim
    if not -ndim <= dim < ndim:
        raise ValueError(f"{op_name}: dim {dim} is out of range for a tensor of shape "
                         f"{t.data.shape} (expected {-ndim} <= dim < {ndim})")
    return dim


def split(t, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``t`` along ``dim`` (PyTorch's ``split``): an int gives pieces of that
    size (the last may be smaller), a list gives pieces of exactly those sizes.  The
    pieces share one backward record, each knowing its ``output_nr``."""
    dim = _dim(t, dim, "split")
    n = t.data.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = tuple(as_int(k, "split", "a section size") for k in split_size_or_sections)
        if sum(sections) != n or any(k < 0 for k in sections):
            raise ValueError(f"split: sections {list(sections)} must be sizes >= 0 adding up "
                             f"to {n}, the size of dim {dim} of shape {t.data.shape}")
    else:
        size = as_int(split_size_or_sections, "split", "split_size")
        if size <= 0 and n:
            raise ValueError(f"split: split_size must be >= 1, got {size} (shape "
                             f"{t.data.shape}, dim {dim})")
        sections = (size,) * (n // size) + ((n % size,) if n % size else ()) if n else (0,)
    return apply_op(ops.SPLIT, t, sections=sections, axis=dim)


def chunk(t, chunks: int, dim: int = 0) -> tuple:
    """``t`` cut into ``chunks`` pieces along ``dim`` (PyTorch's ``chunk``): pieces of
    ``ceil(n / chunks)``, so there may be fewer than ``chunks`` of them."""
    chunks = as_int(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be >= 1, got {chunks}")
    n = t.data.shape[_dim(t, dim, "chunk")]
    if n == 0:
        return split(t, [0] * chunks, dim)
    return split(t, math.ceil(n / chunks), dim)


def unbind(t, dim: int = 0) -> tuple:
    """The slices of ``t`` along ``dim``, that dim removed (PyTorch's ``unbind``)."""
    return apply_op(ops.UNBIND, t, axis=_dim(t, dim, "unbind"))


def topk(t, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (``largest=False``: smallest) values along ``dim`` and their
    indices, as ``(values, indices)`` (PyTorch's ``topk``); always sorted, ties in index
    order.  Only ``values`` is differentiable."""
    dim = _dim(t, dim, "topk")
    k = as_int(k, "topk", "k")
    n = t.data.shape[dim]
    if not 0 <= k <= n:
        raise ValueError(f"topk: k={k} is out of range: dim {dim} of shape {t.data.shape} "
                         f"has {n} elements")
    values, indices = apply_op(ops.TOPK, t, k=k, axis=dim, largest=bool(largest),
                               sorted=bool(sorted))
    return topk_result(values, indices)


def _extreme_method(name, reduce, op, result):
    def method(self, axis=None, keepdims: bool = False, *, dim=None, keepdim: bool = False,
               out=None):
        if dim is None:
            return reduce(self, axis, keepdims, out=out)
        if axis is not None:
            raise TypeError(f"{name}: give dim= (values and indices, PyTorch's form) or "
                            f"axis= (values only, numpy's form), not both")
        dim = _dim(self, dim, name)
        if self.data.shape[dim] == 0:
            raise ValueError(f"{name}: dim {dim} of shape {self.data.shape} is empty")
        values, indices = apply_op(op, self, axis=dim, keepdims=bool(keepdim or keepdims))
        return result(values, indices)

    method.__name__ = name
    method.__doc__ = (
        f"The {'largest' if name == 'max' else 'smallest'} value(s).  ``axis=`` (numpy's "
        f"form, and a positional argument) gives the values only, tied extremes sharing the "
        f"gradient; ``dim=`` (PyTorch's form) gives ``(values, indices)``, the gradient "
        f"going to the index returned (the first on a tie).  Both forms exist because "
        f"lessons and code written for ``max(axis)`` rely on it returning a tensor.")
    return method


Tensor.split = split
Tensor.chunk = chunk
Tensor.unbind = unbind
Tensor.topk = topk
Tensor.max = _extreme_method("max", Tensor.max, ops.MAX_DIM, max_result)
Tensor.min = _extreme_method("min", Tensor.min, ops.MIN_DIM, min_result)


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
