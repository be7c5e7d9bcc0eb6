"""Making tensors: ``tensor`` (a copy of some data), ``zeros``, ``ones``, ``full``,
``zeros_like``, ``ones_like``, ``randn``, ``rand``, ``arange``.

Like PyTorch's, the constructors make float32 unless told otherwise, and the
random ones draw from one seeded generator (``manual_seed``), so results repeat
(inside ``vmap`` too, per example or shared as its ``randomness=`` says).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..random import generator as pick_generator
from ..random import sample
from .arguments import scalar_value, size_arg, to_array
from .tensor import Tensor

__all__ = [
    "arange", "full", "ones", "ones_like", "rand", "randn", "tensor", "zeros", "zeros_like",
]

ndarray = np.ndarray
asarray = np.asarray
float32 = np.dtype(np.float32)


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
    Inside ``vmap`` it follows ``randomness=`` (``minigrad.random.sample``): an error,
    one draw shared by every example (``"same"``), or each example its own
    (``"different"``: one draw of ``(B,) + shape``, seen as one example's ``shape``).
    """
    rng = pick_generator(generator, seed)
    dtype = _float_dtype(dtype, "randn")
    data = sample(rng.standard_normal, size_arg(shape, "randn"), dtype=dtype)
    return _make(data, requires_grad, name)


def rand(*shape, generator=None, seed=None, dtype=None, requires_grad: bool = False,
         name: str | None = None) -> Tensor:
    """Uniform samples in [0, 1) (see ``randn`` for the generator)."""
    rng = pick_generator(generator, seed)
    dtype = _float_dtype(dtype, "rand")
    data = sample(rng.random, size_arg(shape, "rand"), dtype=dtype)
    return _make(data, requires_grad, name)


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
