"""Checking what a user passes to a tensor op, before numpy sees it.

A wrong argument gets an error that names the op and the argument
(``unsqueeze: axis must be an int, got 1.5``), never a truncated value or a
numpy traceback from deep inside.  ``op_error`` turns a failure inside an op's
forward into the same kind of message, with the inputs' shapes and dtypes.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..autograd.forward_ad import refuse_stale_inplace
from ..batching.array import BatchedArray
from ..core.modes import COUNTS, STATE
from ..core.node import Node, init_node

__all__ = [
    "to_array", "check_differentiable", "NUMBERS", "promote", "as_number", "scalar_value",
    "as_index", "as_int", "size_arg", "bound_arg", "shape_arg", "axis_arg", "index_arg",
    "op_error", "constant", "lift", "prepare_dtypes", "as_array_result", "numpy_call",
    "reduction_axis", "inplace_operand", "pad_widths", "dim_arg", "split_sections",
    "chunk_split", "topk_k", "extreme_dim", "clip_args", "transpose_axes",
]

_new = object.__new__
ndarray = np.ndarray
asarray = np.asarray
float32 = np.dtype(np.float32)


def to_array(data, dtype=None) -> np.ndarray:
    """The array a new tensor holds: numpy arrays as they are, Python data as float32/int64."""
    if dtype is not None:
        dtype = np.dtype(dtype)
    if isinstance(data, ndarray):
        arr = data if dtype is None or data.dtype == dtype else data.astype(dtype)
    elif isinstance(data, Node):
        if not isinstance(data.data, ndarray):
            raise TypeError(f"cannot make a Tensor from a {type(data).__name__}; "
                            "the scalar and tensor engines do not mix (use v.data)")
        arr = np.array(data.data, dtype=dtype)
    elif isinstance(data, np.generic):
        arr = np.asarray(data, dtype=dtype)
    elif isinstance(data, BatchedArray):  # inside vmap: a batch that looks like one array
        return data if dtype is None or data.dtype == dtype else data.astype(dtype)
    else:
        try:
            arr = np.asarray(data, dtype=dtype)
        except (ValueError, TypeError) as e:
            raise TypeError(f"cannot make a Tensor from {type(data).__name__}: {e}") from None
        if dtype is None and arr.dtype == np.float64:
            arr = arr.astype(np.float32)  # Python floats default to float32, like PyTorch
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"Tensor supports float, int and bool data, got dtype {arr.dtype}")
    return arr


def check_differentiable(dtype, where: str) -> None:
    if dtype.kind != "f":
        raise TypeError(
            f"{where}: only floating-point tensors can require gradients, got dtype {dtype}; "
            f"convert first, e.g. Tensor(data, dtype='float32') or t.float()")


NUMBERS = (float, int, np.floating, np.integer, np.bool_)


def promote(ad, bd):
    """Operands of different dtypes, cast where PyTorch's rules differ from numpy's.

    * An integer/bool operand takes the other operand's float dtype.
    * A 0-d operand does not widen an operand with dimensions of the same kind:
      a float32 matrix times a 0-d float64 tensor stays float32 (numpy would
      give float64).  Between two operands with dimensions numpy's rule stands
      (float32 with float64 gives float64).
    """
    ka, kb = ad.dtype.kind, bd.dtype.kind
    if ka == "f" and kb != "f":
        bd = bd.astype(ad.dtype)
    elif kb == "f" and ka != "f":
        ad = ad.astype(bd.dtype)
    elif ka == kb and (ad.ndim == 0) != (bd.ndim == 0):
        if ad.ndim == 0:
            ad = ad.astype(bd.dtype)
        else:
            bd = bd.astype(ad.dtype)
    return ad, bd


def as_number(x, op_name, what):
    """A real-number setting (a one-element tensor counts) as a float, or a clear error."""
    v = scalar_value(x)
    if not isinstance(v, numbers.Real):
        raise TypeError(f"{op_name}: {what} must be a number, got {x!r}")
    return float(v)


def scalar_value(x):
    """A one-element tensor or array as the Python number it holds; anything else as is."""
    if isinstance(x, Node):
        x = x.data
    if isinstance(x, ndarray) and x.size == 1:
        return x.item()
    return x


def as_index(x) -> int | None:
    """``x`` as an int if it is one (a Python or numpy integer, a 0-d integer array or
    tensor), else None.  A float is not truncated (``axis=1.5`` is not 1), and a bool is
    refused: Python counts it as an int, but True as an axis or a size is a mistake."""
    if isinstance(x, Node):
        x = x.data
    if isinstance(x, ndarray):
        return int(x) if x.ndim == 0 and x.dtype.kind in "iu" else None
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return int(x)
    return None


def as_int(x, op_name, what) -> int:
    """An int setting, or a TypeError naming the op and the argument."""
    i = as_index(x)
    if i is None:
        raise TypeError(f"{op_name}: {what} must be an int, got {x!r}")
    return i


def size_arg(args, op_name) -> tuple:
    """A constructor's shape: like ``shape_arg``, and every size must be >= 0."""
    shape = shape_arg(args, op_name)
    if any(n < 0 for n in shape):
        raise ValueError(f"{op_name}: sizes must be >= 0, got shape {shape}")
    return shape


def bound_arg(b, x, op_name):
    """A clip bound: None, a number, or a constant array in ``x``'s float dtype."""
    if b is None:
        return None
    if isinstance(b, Node) and isinstance(b.data, ndarray):
        if b.requires_grad:
            raise TypeError(f"{op_name}: a bound that requires grad is not supported; "
                            f"write x.maximum(lo).minimum(hi) to get gradients for bounds")
        b = b.data
    if isinstance(b, NUMBERS) and not isinstance(b, np.ndarray):
        return float(b) if isinstance(b, (float, np.floating)) else int(b)
    if isinstance(b, Node):
        raise TypeError(f"{op_name}: expected a number, array or Tensor bound, got "
                        f"{type(b).__name__}")
    try:
        arr = np.asarray(b)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "fiub":
        raise TypeError(f"{op_name}: expected a number, array or Tensor bound, got "
                        f"{type(b).__name__}")
    shape = x.data.shape
    try:
        fits = np.broadcast_shapes(arr.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{op_name}: a bound of shape {arr.shape} does not broadcast to "
                         f"the tensor's shape {shape}")
    if x.data.dtype.kind == "f":
        arr = arr.astype(x.data.dtype, copy=False)  # bounds never promote the tensor
    return arr


def clip_args(x, lo, hi) -> tuple:
    """``clip``'s ``(x, min, max)``: bounds checked by ``bound_arg``; float bounds on an
    integer tensor make it float32 first, as in PyTorch."""
    if lo is None and hi is None:
        raise ValueError("clip: give min, max or both")
    lo, hi = bound_arg(lo, x, "clip"), bound_arg(hi, x, "clip")
    if x.data.dtype.kind != "f" and any(
            isinstance(b, float) or getattr(b, "dtype", None) is not None
            and b.dtype.kind == "f" for b in (lo, hi)):
        x = x.float()
        lo, hi = bound_arg(lo, x, "clip"), bound_arg(hi, x, "clip")
    return x, lo, hi


def transpose_axes(axes, t):
    """``transpose``'s permutation (None: reverse them all).  An explicit identity warns:
    it is almost always code written for PyTorch's ``transpose(dim0, dim1)``."""
    axes = shape_arg(axes, "transpose") if axes and axes != (None,) else None
    if axes is not None and len(axes) >= 2 and len(axes) == t.data.ndim and all(
            a % len(axes) == i for i, a in enumerate(axes)):
        warnings.warn(
            f"transpose{axes} keeps every axis in place: numpy's transpose takes a "
            f"permutation. To swap two axes as PyTorch's transpose(dim0, dim1) does, "
            f"use swapaxes(dim0, dim1) (or .T for a matrix)", stacklevel=3)
    return axes


def shape_arg(args, op_name) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3)."""
    if len(args) == 1 and as_index(args[0]) is None:
        args = args[0]
    try:
        shape = tuple(as_index(a) for a in args)
    except TypeError:
        shape = (None,)
    if None in shape:
        raise TypeError(f"{op_name}: expected a shape made of ints, got {args!r}")
    return shape


def expand_shape(args, shape) -> tuple:
    """``expand``'s target shape, with -1 meaning "keep this axis's size"."""
    target = shape_arg(args, "expand")
    lead = len(target) - len(shape)
    return tuple(shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(target))


def broadcast_shape(target, shape) -> tuple:
    """A shape ``shape`` broadcasts to, checked (a clear error instead of numpy's)."""
    target = shape_arg((target,), "broadcast_to")
    try:
        ok = np.broadcast_shapes(shape, target) == target
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"expand: a tensor of shape {shape} cannot be broadcast "
                         f"to shape {target} (each axis must match or be 1)")
    return target


def flat_shape(t, start_dim, end_dim) -> tuple:
    """``flatten``'s result shape: axes start_dim..end_dim merged into one."""
    shape = t.data.shape
    n = len(shape)
    if n == 0:
        return (1,)
    s = axis_arg(start_dim, t, "flatten", single=True) % n
    e = axis_arg(end_dim, t, "flatten", single=True) % n
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    merged = 1
    for k in shape[s:e + 1]:
        merged *= k
    return shape[:s] + (merged,) + shape[e + 1:]


def axis_arg(axis, t, op_name, single=False):
    """Validate ``axis`` (None, int or tuple of ints) against ``t``'s dimensions."""
    if axis is None:
        return None
    ndim = t.data.ndim
    one = as_index(axis)
    if single and one is None:
        raise TypeError(f"{op_name}: axis must be an int, got {axis!r}")
    try:
        axes = (one,) if one is not None else tuple(as_index(a) for a in axis)
    except TypeError:
        axes = (None,)
    if None in axes:
        raise TypeError(f"{op_name}: axis must be None, an int or a tuple of ints, "
                        f"got {axis!r}")
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"{op_name}: axis {a} is out of range for a tensor of shape "
                             f"{t.data.shape} ({ndim} dimensions)")
    if len({a % max(ndim, 1) for a in axes}) != len(axes):
        raise ValueError(f"{op_name}: repeated axis in {axis!r}")
    return axes[0] if one is not None else axes


def torch_dim(axis, dim, keepdims=False, keepdim=False, op_name="") -> tuple:
    """``(axis, keepdims)`` from numpy's ``axis=``/``keepdims=`` or PyTorch's ``dim=``/
    ``keepdim=``: the same reduction under either name, since a student who learned
    PyTorch writes ``x.sum(dim=1, keepdim=True)`` and one who learned numpy ``axis=1``."""
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{op_name}: give axis= (numpy's name) or dim= (PyTorch's), "
                            f"not both")
        axis = dim
    return axis, bool(keepdims or keepdim)


def dim_arg(t, dim, op_name) -> int:
    """One dim of ``t`` (PyTorch's ``dim=``), checked: an int in ``-ndim <= dim < ndim``."""
    dim = as_int(dim, op_name, "dim")
    ndim = t.data.ndim
    if not -ndim <= dim < ndim:
        raise ValueError(f"{op_name}: dim {dim} is out of range for a tensor of shape "
                         f"{t.data.shape} (expected {-ndim} <= dim < {ndim})")
    return dim


def split_sections(t, split_size_or_sections, dim) -> tuple:
    """``split``'s pieces as their sizes along ``dim`` (a checked dim): an int is a piece
    size (the last piece may be smaller), a list the exact sizes, adding up to the dim."""
    n = t.data.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = tuple(as_int(k, "split", "a section size") for k in split_size_or_sections)
        if sum(sections) != n or any(k < 0 for k in sections):
            raise ValueError(f"split: sections {list(sections)} must be sizes >= 0 adding up "
                             f"to {n}, the size of dim {dim} of shape {t.data.shape}")
        return sections
    size = as_int(split_size_or_sections, "split", "split_size")
    if size <= 0 and n:
        raise ValueError(f"split: split_size must be >= 1, got {size} (shape "
                         f"{t.data.shape}, dim {dim})")
    return (size,) * (n // size) + ((n % size,) if n % size else ()) if n else (0,)


def chunk_split(t, chunks, dim):
    """What ``chunk(chunks, dim)`` passes to ``split``: pieces of ``ceil(n / chunks)``
    (``chunks`` empty pieces for an empty dim)."""
    chunks = as_int(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be >= 1, got {chunks}")
    n = t.data.shape[dim_arg(t, dim, "chunk")]
    return [0] * chunks if n == 0 else math.ceil(n / chunks)


def topk_k(t, k, dim) -> int:
    """``topk``'s ``k``, checked against the size of ``dim`` (a checked dim)."""
    k = as_int(k, "topk", "k")
    n = t.data.shape[dim]
    if not 0 <= k <= n:
        raise ValueError(f"topk: k={k} is out of range: dim {dim} of shape {t.data.shape} "
                         f"has {n} elements")
    return k


def extreme_dim(t, dim, axis, op_name) -> int:
    """The dim of ``max(dim=)``/``min(dim=)``: not with ``axis=``, in range, not empty."""
    if axis is not None:
        raise TypeError(f"{op_name}: give dim= (values and indices, PyTorch's form) or "
                        f"axis= (values only, numpy's form), not both")
    dim = dim_arg(t, dim, op_name)
    if t.data.shape[dim] == 0:
        raise ValueError(f"{op_name}: dim {dim} of shape {t.data.shape} is empty")
    return dim


def index_arg(index) -> tuple:
    """A user index as a tuple numpy understands, with tensors and lists as arrays."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, Node):
            i = i.data
        elif isinstance(i, list):
            i = asarray(i) if i else np.zeros(0, dtype=np.intp)  # x[[]]: an empty selection
        if isinstance(i, ndarray) and i.dtype.kind not in "iub":
            raise IndexError(f"getitem: index arrays must be integer or bool, got dtype {i.dtype}")
        out.append(i)
    return tuple(out)


# --- errors ---------------------------------------------------------------------------
def describe(tensors) -> str:
    return ", ".join(f"{tuple(t.data.shape)} {t.data.dtype}" for t in tensors)


def op_error(op, tensors, attrs, err) -> Exception:
    """A clear error for a failed forward: the op, the inputs' shapes and dtypes, the cause."""
    name = op.name
    shapes = [tuple(t.data.shape) for t in tensors]
    if name == "matmul" and len(shapes) == 2:
        a, b = shapes
        if not a or not b:
            msg = (f"matmul: both operands need at least one dimension, got shapes {a} and {b}"
                   " (use * to multiply by a scalar)")
        else:
            inner_a = a[-1]
            inner_b = b[0] if len(b) == 1 else b[-2]
            if inner_a != inner_b:
                msg = (f"matmul: shapes {a} and {b} do not line up: the last axis of the first "
                       f"({inner_a}) must equal the {'only' if len(b) == 1 else 'second-to-last'}"
                       f" axis of the second ({inner_b})")
            else:
                msg = (f"matmul: batch shapes {a[:-2]} and {b[:-2]} of operands {a} and {b} "
                       "cannot be broadcast together")
    elif op.arity == 2 and "broadcast" in str(err):
        msg = f"{name}: shapes {shapes[0]} and {shapes[1]} cannot be broadcast together"
    else:
        settings = {k: v for k, v in attrs.items() if k != "index"}
        shown = f" with {settings}" if settings else ""
        msg = f"{name}{shown}: {err}"
    msg += f"  [inputs: {describe(tensors)}]"
    if isinstance(err, IndexError):
        return IndexError(msg)
    if isinstance(err, TypeError):
        return TypeError(msg)
    return ValueError(msg)


# --- constants: non-tensor operands as tensors ------------------------------------------
def constant(cls, arr, label=None):
    """A constant leaf of the engine class ``cls`` (no gradient) around ``arr``, without
    the constructor's checks."""
    return init_node(_new(cls), arr, label=label)


def lift(cls, x, like: np.dtype | None, op_name: str):
    """A non-tensor operand as a constant tensor whose dtype does not promote ``like``.

    A Python float next to a float32 tensor becomes float32 (next to an integer
    tensor, float32 too: int + 0.5 is a float32 result, as in PyTorch).
    """
    if isinstance(x, cls):
        return x
    if isinstance(x, NUMBERS):  # numpy scalars count as numbers too, as in PyTorch
        if like is not None and like.kind == "f":
            return constant(cls, np.array(x, dtype=like))
        if isinstance(x, (float, np.floating)):
            return constant(cls, np.array(x, dtype=float32))
        return constant(cls, np.array(x))
    if isinstance(x, Node):
        raise TypeError(f"{op_name}: a tensor op cannot take a {type(x).__name__}; "
                        "the scalar and tensor engines do not mix")
    try:
        arr = to_array(x)
    except TypeError:
        raise TypeError(f"{op_name}: unsupported operand of type {type(x).__name__} "
                        "for a Tensor op") from None
    return constant(cls, arr)


# --- dtypes and results ----------------------------------------------------------------
def prepare_dtypes(op, datas) -> None:
    """dtype fixes before forward: int/bool inputs of float ops become float."""
    if op.float_only and datas and datas[0].dtype.kind != "f":
        datas[0] = datas[0].astype(float32)
    promote = op.promote
    if promote:  # PyTorch's rules, as in ``promote``
        part = slice(None) if promote is True else promote
        idx = range(len(datas))[part]
        floats = [datas[i] for i in idx if datas[i].dtype.kind == "f"]
        if floats:
            # operands with dimensions decide; 0-d ones only if they are all there is
            shaped = [d.dtype for d in floats if d.ndim]
            target = np.result_type(*(shaped or [d.dtype for d in floats]))
            for i in idx:
                d = datas[i]
                if d.dtype != target and (d.dtype.kind != "f" or (shaped and not d.ndim)):
                    datas[i] = d.astype(target)


def as_array_result(out, saved):
    """A 0-d result as an array, and the forward's saved values with the result (which
    ``tanh``, ``relu`` ... keep for backward) replaced by that same array, so that the
    node's saved output *is* its data, as for any other shape.  (A batch, inside vmap,
    is kept as it is.)"""
    if isinstance(out, BatchedArray):
        return out, saved
    arr = asarray(out)
    return arr, tuple(arr if v is out else v for v in saved)


def numpy_call(t, name, dtype=None, out=None):
    """The extra arguments numpy passes when ``np.sum(t)`` defers to ``t.sum(...)``.

    ``dtype`` casts first (a differentiable ``astype``); ``out`` cannot work, since a
    graph op always makes a new tensor, so it is a clear error, not a numpy one.
    """
    if out is not None:
        raise TypeError(f"{name}: out= is not supported: a tensor op makes a new tensor "
                        f"(write r = t.{name}(...) instead)")
    return t if dtype is None else t.astype(dtype)


def reduction_axis(axis, x, op_name):
    """A validated reduction axis; for a 0-d tensor, None (it has no axis to reduce:
    ``axis=0``, ``-1`` or ``(0,)`` leave its one value as it is, as in PyTorch)."""
    if axis is None:
        return None
    axis = axis_arg(axis, x, op_name)
    return None if x.data.ndim == 0 else axis

# --- helpers of Tensor's methods --------------------------------------------------------
def inplace_operand(t, other, symbol: str) -> np.ndarray:
    """The array ``t <symbol>= other`` adds in, checked: ``t`` is not a leaf requiring
    grad with grad mode on (the update would have to be part of the graph, as PyTorch
    says too), the result keeps ``t``'s shape, and no forward-mode tangent goes stale."""
    if t.requires_grad and (not COUNTS.no_grad_threads or STATE.grad_enabled):
        raise RuntimeError(
            f"in-place '{symbol}=' on a leaf that requires grad, with grad mode on. "
            f"Parameter updates belong in `with minigrad.no_grad():` (then "
            f"w {symbol}= ... changes w.data in place and w stays the same leaf).")
    if COUNTS.watchers:
        refuse_stale_inplace(t, other, symbol)
    value = other.data if isinstance(other, Node) else np.asarray(other)
    try:
        shape = np.broadcast_shapes(t.data.shape, value.shape)
    except ValueError:
        shape = None
    if shape != t.data.shape:
        raise ValueError(
            f"in-place '{symbol}=': a value of shape {value.shape} cannot update a "
            f"tensor of shape {t.data.shape} (the result must keep the tensor's shape)")
    return value


def pad_widths(pad_width, t) -> tuple:
    """``pad_width`` as in numpy (an int, (before, after), or a pair per axis), checked
    and spelled out as one (before, after) pair of ints per axis of ``t``."""
    try:
        widths = asarray(pad_width)
    except ValueError:  # ragged nesting
        widths = None
    if widths is None or widths.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width must be an int, a pair of ints or a pair per "
                        f"axis, got {pad_width!r}")
    try:
        widths = np.broadcast_to(widths, (t.data.ndim, 2))
    except ValueError:
        raise ValueError(f"pad: pad_width {pad_width!r} does not fit a tensor of shape "
                         f"{t.data.shape}") from None
    if (widths < 0).any():
        raise ValueError(f"pad: negative pad_width {pad_width!r}")
    return tuple((int(a), int(b)) for a, b in widths)
