"""Small helpers shared by the functional ops: argument checks, dtypes."""

from __future__ import annotations

import numbers

import numpy as np

from ...batching import BatchedArray
from ...core.node import Node
from ...tensor import Tensor

__all__ = ["pair", "as_array", "shape_error", "data_of", "as_tensor",
           "float_inputs", "is_parameter", "constant_like"]

_FLOAT32 = np.dtype(np.float32)


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
    """``x``'s values as an array (a batch, inside vmap, as it is)."""
    data = data_of(x)
    return data if isinstance(data, BatchedArray) else np.asarray(data)


def shape_error(fn: str, message: str) -> ValueError:
    return ValueError(f"{fn}: {message}")


# --- dtypes: the policy of the Tensor methods, applied at the entry of each functional op ----
def as_tensor(x, fn: str) -> Tensor:
    """``x`` as a Tensor (arrays and lists become constants), or a clear error."""
    if isinstance(x, Tensor):
        return x
    try:
        return Tensor(x)
    except TypeError as err:
        raise TypeError(f"{fn}: expected a Tensor or array, got {type(x).__name__}") from err


def float_inputs(fn: str, *xs, like=()) -> tuple:
    """``xs`` as tensors, each integer/bool one cast to the op's float dtype.

    The functional ops are float ops: fed an int tensor as is, numpy would
    truncate their float constants (``avg_pool2d``'s 1/k², dropout's 1/(1−p))
    or promote to float64.  So, as ``Tensor`` arithmetic does (``_promote``,
    ``float_only``), an int or bool operand, which can never require grad,
    joins as a constant in the dtype of the floating operands (those of ``xs``
    and ``like``, numpy's promotion: float32 with float64 gives float64, as in
    ``x @ w``), or float32 when none is floating.  Float operands come back
    unchanged and ``None`` (a missing bias) stays ``None``.
    """
    for x in xs:  # the common case, all float tensors: nothing to do
        if x is not None and not (isinstance(x, Tensor) and x.data.dtype.kind == "f"):
            break
    else:
        return xs
    ts = [None if x is None else as_tensor(x, fn) for x in xs]
    floats = [t.data.dtype for t in ts if t is not None and t.data.dtype.kind == "f"]
    floats += [data_of(v).dtype for v in like if data_of(v).dtype.kind == "f"]
    dtype = np.result_type(*floats) if floats else _FLOAT32
    return tuple(t if t is None or t.data.dtype.kind == "f"
                 else Tensor(t.data.astype(dtype), name=t.label) for t in ts)


def is_parameter(v) -> bool:
    """A tensor that requires grad: its dtype is its own, never cast."""
    return isinstance(v, Tensor) and v.requires_grad


def constant_like(v, dtype):
    """A constant operand (a target, a fixed weight) in the input's float ``dtype``.

    Arrays, lists and tensors that do not require grad are cast (int labels
    become floats, a float64 array does not promote a float32 input); a tensor
    that requires grad is a parameter and is returned as is, so numpy's
    promotion decides, exactly as in ``Tensor`` arithmetic.
    """
    if isinstance(v, Tensor) and (v.requires_grad or v.data.dtype == dtype):
        return v
    data = data_of(v)
    if isinstance(data, BatchedArray):  # (inside vmap: a batch of targets)
        return data.astype(dtype, copy=False)
    return np.asarray(data, dtype=dtype)
