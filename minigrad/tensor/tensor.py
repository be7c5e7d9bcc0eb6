"""``Tensor``: the numpy engine, one array per graph node.

A ``Tensor`` is the same graph record as a ``Value`` (a ``Node``: data, grad,
op, ordered parents, saved arrays, attrs, counter id) holding a numpy array.
Every op goes through one path, ``apply_op(op, *inputs, **attrs)``: turn the
inputs into tensors, run the registry op's ``forward`` on the raw arrays, and
record a node only when a gradient can flow (grad mode on and some input
requires grad); otherwise the result is a plain constant leaf.  The backward
engine is the shared one in ``minigrad.core`` (the loops that run: ``minigrad.engines``).

Every method of ``Tensor`` is defined in the class body below; the helpers it
calls live beside it in this package (``operators``: the fast elementwise
operators; ``arguments``: argument checks and lifting; ``numpy_protocol``:
numpy calls on tensors; ``value_reads``: the hook that sees values read into
Python).

dtypes follow PyTorch: Python floats and lists become float32, float32 stays
float32 through every op and gradient (Python numbers do not promote it, NEP
50), float64 stays float64, and an integer or bool tensor mixes with a float
tensor by being cast to the float dtype.  Only floating tensors can require
gradients.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..autograd.differentiable import Differentiable
from ..autograd.outputs import Outputs, record_outputs
from ..batching import BatchedArray, BatchingError
from ..core.node import Node, init_node
from ..core.op import Op, batched_forward, get_op
from ..engines.higher_order import building_order
from ..engines.inplace import mark_modified
from ..formatting import array_to_string
from ..ops import tensor as ops
from .arguments import (
    as_array_result,
    as_int,
    as_number,
    axis_arg,
    broadcast_shape,
    check_differentiable,
    chunk_split,
    clip_args,
    constant,
    dim_arg,
    expand_shape,
    extreme_dim,
    flat_shape,
    index_arg,
    inplace_operand,
    lift,
    numpy_call,
    op_error,
    pad_widths,
    prepare_dtypes,
    reduction_axis,
    shape_arg,
    split_sections,
    to_array,
    topk_k,
    torch_dim,
    transpose_axes,
)
from .numpy_protocol import array_function, array_ufunc
from .operators import binary_method, unary_method
from .value_reads import VALUE_READ_WATCHERS, value_read

__all__ = ["Tensor", "apply_op"]

_new = object.__new__
ndarray = np.ndarray
asarray = np.asarray
float32 = np.dtype(np.float32)


_gelu_exact = unary_method(ops.GELU, "gelu")

#: what ``max(dim=)``, ``min(dim=)`` and ``topk`` return, as PyTorch's ``torch.return_types``
max_result = namedtuple("max", ["values", "indices"])
min_result = namedtuple("min", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])


class Tensor(Differentiable, engine=True):
    """An n-dimensional array in a computation graph.

    >>> x = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, name="x")
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    array([[2., 4.],
           [6., 8.]], dtype=float32)

    ``Tensor(array)`` shares memory with a numpy ``array`` (use
    ``minigrad.tensor(...)`` for a copy); Python numbers and lists are copied,
    floats becoming float32.
    """

    __slots__ = ()

    # numpy's protocols: ``np.exp(t)``, ``array * t``, ``np.where(m, t, 0)`` are recorded
    # ops (see numpy_protocol), which is what lets the op rules, written against numpy,
    # build a gradient's graph.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return array_function(self, func, types, args, kwargs)

    __hash__ = object.__hash__  # __eq__ is elementwise, identity hashing stays

    def __init__(self, data, requires_grad: bool = False, dtype=None, name: str | None = None):
        arr = to_array(data, dtype)
        if requires_grad:
            check_differentiable(arr.dtype, "Tensor(..., requires_grad=True)")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        init_node(self, arr, requires_grad=bool(requires_grad), label=name)

    #: run a registry op on tensors and record it (``Op.__call__`` uses this)
    apply = staticmethod(lambda op, *inputs, **attrs: apply_op(op, *inputs, **attrs))

    # --- array facts -------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    # --- op metadata: what the op saw, read from the parents (nothing stored per node) ---
    @property
    def in_shapes(self) -> tuple:
        """The shapes of the op's inputs, in order; ``()`` for a leaf."""
        return tuple(p.data.shape for p in self.parents)

    @property
    def in_dtypes(self) -> tuple:
        """The dtypes of the op's inputs, in order; ``()`` for a leaf."""
        return tuple(p.data.dtype for p in self.parents)

    @property
    def T(self) -> Tensor:
        """All axes reversed (numpy's ``.T``)."""
        return apply_op(ops.TRANSPOSE, self, axes=None)

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    # --- reading values into Python (each reports to ``value_reads``'s watchers first) ---
    def item(self):
        """The single element as a Python number."""
        if VALUE_READ_WATCHERS:
            value_read(self, "item")
        if self.data.size != 1:
            raise _not_one_element(self)
        return self.data.item()

    def __float__(self) -> float:
        return float(_item(self, "__float__"))

    def __int__(self) -> int:
        return int(_item(self, "__int__"))

    def __bool__(self) -> bool:
        if VALUE_READ_WATCHERS:
            value_read(self, "__bool__")
        if self.data.size != 1:
            raise ValueError(
                f"the truth value of a tensor of shape {self.data.shape} is ambiguous; "
                f"use (t > 0).all() or .any()")
        return bool(self.data)

    def numpy(self) -> np.ndarray:
        """The underlying array (shared, not copied)."""
        if VALUE_READ_WATCHERS:
            value_read(self, "numpy")
        if self.data.__class__ is BatchedArray:  # (inside vmap: its own error says why not)
            np.asarray(self.data)
        return self.data

    def __array__(self, dtype=None, copy=None):
        if VALUE_READ_WATCHERS:
            value_read(self, "__array__")
        if building_order() and self.requires_grad:
            raise TypeError(
                "np.asarray() of a Tensor that requires grad while building a gradient's "
                "graph (create_graph=True) would cut that graph: an op's gradient rule "
                "must keep to numpy calls that Tensor implements (see numpy_protocol)")
        if self.data.__class__ is BatchedArray:  # (inside vmap: its own error says why not)
            return np.asarray(self.data)
        if copy:
            return np.array(self.data, dtype=dtype, copy=True)
        return self.data if dtype is None else self.data.astype(dtype, copy=False)

    def tolist(self):
        if VALUE_READ_WATCHERS:
            value_read(self, "tolist")
        return self.data.tolist()

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` works for one-element tensors."""
        if spec and self.data.size == 1:
            return format(self.data.item(), spec)
        return format(repr(self), spec)

    def __setitem__(self, index, value):
        raise TypeError(
            "Tensor does not support item assignment (in-place ops would silently change "
            "values saved for backward). Build a new tensor, e.g. with where(mask, value, t), "
            "or edit t.data under no_grad() if no gradient should see it.")

    # --- copying and pickling: a copy is a new node with a fresh id ---------------------------
    def __deepcopy__(self, memo):
        if self.op is not None:
            raise RuntimeError(
                "only leaf tensors can be deep-copied (a non-leaf would drag its graph "
                "along); use t.detach() first")
        new = type(self)(self.data.copy(), requires_grad=self.requires_grad,
                         dtype=self.data.dtype, name=self.label)
        if self.grad is not None:
            new.grad = self.grad.copy()
        memo[id(self)] = new
        return new

    def __reduce__(self):
        if self.op is not None:
            raise RuntimeError("only leaf tensors can be pickled; use t.detach() first")
        return (_rebuild, (type(self), self.data, self.requires_grad, self.label, self.grad))

    # --- graph bookkeeping ----------------------------------------------------------------
    def detach(self) -> Tensor:
        """A new leaf sharing this data, with no history and no gradient."""
        return constant(Tensor, self.data, self.label)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Switch gradient tracking for this leaf on (or off), in place; returns self."""
        if self.op is not None:
            raise RuntimeError(
                "requires_grad_(): only a leaf tensor's flag can be changed; this one was "
                f"made by '{self.op.name}'. Use .detach().requires_grad_() for a new leaf.")
        if requires_grad:
            check_differentiable(self.data.dtype, "requires_grad_()")
        self.requires_grad = bool(requires_grad)
        return self

    def __repr__(self) -> str:
        data = self.data
        if data.__class__ is BatchedArray:  # (inside vmap: every example, one per row)
            body = "batched(" + array_to_string(
                data.every_example(), separator=", ", prefix="tensor(batched(",
                threshold=64, edgeitems=3, max_line_width=88) + (
                f", examples of shape {data.shape})")
        else:
            body = array_to_string(
                data, separator=", ", prefix="tensor(", threshold=64, edgeitems=3,
                max_line_width=88)
        extra = ""
        if data.dtype not in (float32, np.dtype(np.int64)):
            extra += f", dtype={data.dtype}"
        if self.op is not None:
            extra += f", op={self.op.name}"
        elif self.requires_grad:
            extra += ", requires_grad=True"
        if self.label:
            extra += f", name={self.label!r}"
        return f"tensor({body}{extra})"

    __str__ = __repr__

    # --- in-place updates (optimizer steps) ---------------------------------------------
    def _inplace(self, other, ufunc, symbol: str):
        """``self.data <ufunc>= other`` in place, keeping this tensor the same object.

        This is how a hand-written SGD step reads: ``with no_grad(): w -= lr * w.grad``.
        Like PyTorch, it is refused on a leaf that requires grad while grad mode
        is on (the update would have to be part of the graph).  On a tensor made
        by an op (``loss += term``, ``out += skip``) it is not done in place:
        Python falls back to ``x = x + y``, a new node.  Otherwise it is allowed
        and recorded (``mark_modified``): a graph that saved the old values
        refuses to backward rather than use the new ones.
        """
        if self.op is not None:
            # Its op (or a later one) may have saved this very array, so the update
            # cannot happen in place: ``x += y`` means ``x = x + y``, a new node, and
            # anything else holding the old tensor keeps the old values.
            return NotImplemented
        value = inplace_operand(self, other, symbol)
        try:
            ufunc(self.data, value, out=self.data, casting="same_kind")
        except TypeError as err:  # numpy's UFuncTypeError subclasses TypeError
            raise TypeError(
                f"in-place '{symbol}=': cannot store a {value.dtype} result in a "
                f"{self.data.dtype} tensor; cast first (e.g. .float())") from err
        mark_modified((self,))  # a graph that saved the old values can no longer backward
        return self

    def __iadd__(self, other):
        return self._inplace(other, np.add, "+")

    def __isub__(self, other):
        return self._inplace(other, np.subtract, "-")

    def __imul__(self, other):
        return self._inplace(other, np.multiply, "*")

    def __itruediv__(self, other):
        return self._inplace(other, np.true_divide, "/")

    # --- arithmetic (the hot path: see operators.operator_method) -------------
    __add__ = binary_method(ops.ADD, "__add__")
    __radd__ = binary_method(ops.ADD, "__radd__", reflected=True)
    __sub__ = binary_method(ops.SUB, "__sub__")
    __rsub__ = binary_method(ops.SUB, "__rsub__", reflected=True)
    __mul__ = binary_method(ops.MUL, "__mul__")
    __rmul__ = binary_method(ops.MUL, "__rmul__", reflected=True)
    __truediv__ = binary_method(ops.DIV, "__truediv__")
    __rtruediv__ = binary_method(ops.DIV, "__rtruediv__", reflected=True)
    __pow__ = binary_method(ops.POW, "__pow__")
    __rpow__ = binary_method(ops.POW, "__rpow__", reflected=True)
    __matmul__ = binary_method(ops.MATMUL, "__matmul__")
    __rmatmul__ = binary_method(ops.MATMUL, "__rmatmul__", reflected=True)
    matmul = binary_method(ops.MATMUL, "matmul")
    __neg__ = unary_method(ops.NEG, "__neg__")
    __abs__ = unary_method(ops.ABS, "__abs__")
    maximum = binary_method(ops.MAXIMUM, "maximum",
        doc="Elementwise larger value; a tie shares the gradient half and half.")
    minimum = binary_method(ops.MINIMUM, "minimum",
        doc="Elementwise smaller value; a tie shares the gradient half and half.")

    def __pos__(self):
        return self

    # --- comparisons: non-differentiable bool tensors ----------------------------------
    def __lt__(self, other):
        return _compare(np.less, self, other, "__lt__")

    def __le__(self, other):
        return _compare(np.less_equal, self, other, "__le__")

    def __gt__(self, other):
        return _compare(np.greater, self, other, "__gt__")

    def __ge__(self, other):
        return _compare(np.greater_equal, self, other, "__ge__")

    def __eq__(self, other):
        return _compare(np.equal, self, other, "__eq__")

    def __ne__(self, other):
        return _compare(np.not_equal, self, other, "__ne__")

    def all(self, axis=None, keepdims=False) -> Tensor:
        if VALUE_READ_WATCHERS:
            value_read(self, "all")
        return constant(Tensor, _result(self.data.all(axis, keepdims=keepdims)))

    def any(self, axis=None, keepdims=False) -> Tensor:
        if VALUE_READ_WATCHERS:
            value_read(self, "any")
        return constant(Tensor, _result(self.data.any(axis, keepdims=keepdims)))

    # --- elementwise functions ----------------------------------------------------------
    exp = unary_method(ops.EXP, "exp")
    log = unary_method(ops.LOG, "log")
    sqrt = unary_method(ops.SQRT, "sqrt")
    abs = unary_method(ops.ABS, "abs")
    tanh = unary_method(ops.TANH, "tanh")
    sigmoid = unary_method(ops.SIGMOID, "sigmoid")
    relu = unary_method(ops.RELU, "relu")

    def leaky_relu(self, negative_slope: float = 0.01):
        return apply_op(ops.LEAKY_RELU, self,
                        negative_slope=as_number(negative_slope, "leaky_relu", "negative_slope"))

    def gelu(self, approximate: str = "none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        if approximate == "none":
            return _gelu_exact(self)
        return apply_op(ops.GELU, self, approximate=approximate)

    def clip(self, min=None, max=None):
        """Limit values to [min, max]; the gradient is 0 outside.

        Either bound may be None, a number, or a constant tensor/array that
        broadcasts to this tensor's shape (bounds get no gradient).  Float bounds
        on an integer tensor give float32, as in PyTorch.
        """
        x, lo, hi = clip_args(self, min, max)
        return apply_op(ops.CLIP, x, min=lo, max=hi)

    clamp = clip

    # --- reductions ------------------------------------------------------------------
    # (``dtype``/``out`` are there because ``np.sum(t)``, ``np.mean(t)``, ``np.max(t)``
    # call these methods with them: see ``_numpy_call``.  ``dim=``/``keepdim=`` are
    # PyTorch's names for ``axis=``/``keepdims=``, accepted alike: ``torch_dim``.)
    def sum(self, axis=None, keepdims: bool = False, *, dim=None, keepdim: bool = False,
            dtype=None, out=None):
        axis, keepdims = torch_dim(axis, dim, keepdims, keepdim, "sum")
        return _reduce(ops.SUM, numpy_call(self, "sum", dtype, out), axis, keepdims)

    def mean(self, axis=None, keepdims: bool = False, *, dim=None, keepdim: bool = False,
             dtype=None, out=None):
        axis, keepdims = torch_dim(axis, dim, keepdims, keepdim, "mean")
        return _reduce(ops.MEAN, numpy_call(self, "mean", dtype, out), axis, keepdims)

    def max(self, axis=None, keepdims: bool = False, *, dim=None, keepdim: bool = False,
            out=None):
        """The largest value(s).  ``axis=`` (numpy's form, and a positional argument) gives
        the values only, tied maxima sharing the gradient; ``dim=`` (PyTorch's form) gives
        ``(values, indices)``, the gradient going to the index returned (the first on a
        tie).  Both forms exist because lessons and code written for ``max(axis)`` rely on
        it returning a tensor."""
        if dim is None:
            return _reduce(ops.MAX, numpy_call(self, "max", None, out), axis, keepdims)
        values, indices = apply_op(ops.MAX_DIM, self, axis=extreme_dim(self, dim, axis, "max"),
                                   keepdims=bool(keepdim or keepdims))
        return max_result(values, indices)

    def min(self, axis=None, keepdims: bool = False, *, dim=None, keepdim: bool = False,
            out=None):
        """The smallest value(s); ``axis=`` and ``dim=`` as in ``max``."""
        if dim is None:
            return _reduce(ops.MIN, numpy_call(self, "min", None, out), axis, keepdims)
        values, indices = apply_op(ops.MIN_DIM, self, axis=extreme_dim(self, dim, axis, "min"),
                                   keepdims=bool(keepdim or keepdims))
        return min_result(values, indices)

    def var(self, axis=None, keepdims: bool = False, ddof: int = 0):
        """Variance (numpy's default ddof=0; PyTorch's default is ddof=1)."""
        axis = reduction_axis(axis, self, "var")
        return apply_op(ops.VAR, self, axis=axis, keepdims=bool(keepdims), ddof=int(ddof))

    def std(self, axis=None, keepdims: bool = False, ddof: int = 0):
        return self.var(axis, keepdims, ddof).sqrt()

    def logsumexp(self, axis=None, keepdims: bool = False, *, dim=None,
                  keepdim: bool = False):
        """log Σ exp(x), computed without overflow."""
        axis, keepdims = torch_dim(axis, dim, keepdims, keepdim, "logsumexp")
        return _reduce(ops.LOGSUMEXP, self, axis, keepdims)

    def softmax(self, axis: int | None = None, *, dim: int | None = None):
        """e^xᵢ / Σⱼ e^xⱼ along ``axis`` (or ``dim``; the last one by default)."""
        axis = torch_dim(axis, dim, op_name="softmax")[0]
        axis = -1 if axis is None else axis
        return apply_op(ops.SOFTMAX, self, axis=axis_arg(axis, self, "softmax", single=True))

    def log_softmax(self, axis: int | None = None, *, dim: int | None = None):
        axis = torch_dim(axis, dim, op_name="log_softmax")[0]
        axis = axis_arg(-1 if axis is None else axis, self, "log_softmax", single=True)
        return apply_op(ops.LOG_SOFTMAX, self, axis=axis)

    def argmax(self, axis=None, keepdims: bool = False, *, dim=None,
               keepdim: bool = False) -> Tensor:
        """Index of the largest value (the first one on a tie); not differentiable."""
        if VALUE_READ_WATCHERS:
            value_read(self, "argmax")
        axis, keepdims = torch_dim(axis, dim, keepdims, keepdim, "argmax")
        axis = axis_arg(axis, self, "argmax", single=True)
        return constant(Tensor, _result(np.argmax(self.data, axis=axis, keepdims=keepdims)))

    def argmin(self, axis=None, keepdims: bool = False, *, dim=None,
               keepdim: bool = False) -> Tensor:
        if VALUE_READ_WATCHERS:
            value_read(self, "argmin")
        axis, keepdims = torch_dim(axis, dim, keepdims, keepdim, "argmin")
        axis = axis_arg(axis, self, "argmin", single=True)
        return constant(Tensor, _result(np.argmin(self.data, axis=axis, keepdims=keepdims)))

    # --- shape ---------------------------------------------------------------------------
    def reshape(self, *shape):
        # (Always a new tensor, even for the same shape: renaming or re-flagging the
        # result must not change ``self``, as with PyTorch's views.)
        return apply_op(ops.RESHAPE, self, shape=shape_arg(shape, "reshape"))

    view = reshape

    def transpose(self, *axes):
        """Permute the axes (numpy semantics: no argument reverses them all).

        ``x.transpose(1, 0)`` swaps a matrix's axes; ``x.transpose(0, 1)`` is the
        identity (numpy), not PyTorch's swap of axes 0 and 1: that is
        ``x.swapaxes(0, 1)``.  An explicit identity warns, as it is almost
        always code written for PyTorch.
        """
        axes = transpose_axes(axes, self)
        return apply_op(ops.TRANSPOSE, self, axes=axes)

    def permute(self, *axes):
        return apply_op(ops.TRANSPOSE, self, axes=shape_arg(axes, "permute"))

    def swapaxes(self, axis1: int, axis2: int):
        """Exchange two axes (what PyTorch calls ``transpose(dim0, dim1)``)."""
        axes = list(range(self.data.ndim))
        a1 = axis_arg(axis1, self, "swapaxes", single=True) % max(self.data.ndim, 1)
        a2 = axis_arg(axis2, self, "swapaxes", single=True) % max(self.data.ndim, 1)
        axes[a1], axes[a2] = axes[a2], axes[a1]
        return apply_op(ops.TRANSPOSE, self, axes=tuple(axes))

    def squeeze(self, axis=None):
        return apply_op(ops.SQUEEZE, self, axis=axis_arg(axis, self, "squeeze"))

    def unsqueeze(self, axis: int):
        return apply_op(ops.UNSQUEEZE, self, axis=as_int(axis, "unsqueeze", "axis"))

    def expand(self, *shape):
        """Broadcast to ``shape`` (a view); -1 keeps that axis's size."""
        return self.broadcast_to(expand_shape(shape, self.data.shape))

    def broadcast_to(self, shape):
        return apply_op(ops.EXPAND, self, shape=broadcast_shape(shape, self.data.shape))

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        """Merge axes start_dim..end_dim into one (PyTorch's arguments)."""
        return apply_op(ops.FLATTEN, self, shape=flat_shape(self, start_dim, end_dim))

    def pad(self, pad_width, value: float = 0.0):
        """Constant padding; ``pad_width`` as in numpy: int, (before, after), or a pair per axis."""
        widths = pad_widths(pad_width, self)
        return apply_op(ops.PAD, self, pad_width=widths, value=as_number(value, "pad", "value"))

    # --- several outputs, sharing one record (``autograd/outputs.py``) ----------------------
    def split(self, split_size_or_sections, dim: int = 0) -> tuple:
        """Pieces along ``dim`` (PyTorch's ``split``): an int gives pieces of that size
        (the last may be smaller), a list gives pieces of exactly those sizes.  The
        pieces share one backward record, each knowing its ``output_nr``."""
        dim = dim_arg(self, dim, "split")
        return apply_op(ops.SPLIT, self, sections=split_sections(self, split_size_or_sections, dim),
                        axis=dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """Cut into ``chunks`` pieces along ``dim`` (PyTorch's ``chunk``): pieces of
        ``ceil(n / chunks)``, so there may be fewer than ``chunks`` of them."""
        return self.split(chunk_split(self, chunks, dim), dim)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``, that dim removed (PyTorch's ``unbind``)."""
        return apply_op(ops.UNBIND, self, axis=dim_arg(self, dim, "unbind"))

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        """The ``k`` largest (``largest=False``: smallest) values along ``dim`` and their
        indices, as ``(values, indices)`` (PyTorch's ``topk``); always sorted, ties in
        index order.  Only ``values`` is differentiable."""
        dim = dim_arg(self, dim, "topk")
        values, indices = apply_op(ops.TOPK, self, k=topk_k(self, k, dim), axis=dim,
                                   largest=bool(largest), sorted=bool(sorted))
        return topk_result(values, indices)

    def __getitem__(self, index):
        return apply_op(ops.GETITEM, self, index=index_arg(index))

    def astype(self, dtype) -> Tensor:
        """A copy in another dtype; differentiable between float dtypes."""
        dtype = np.dtype(dtype)
        if dtype == self.data.dtype:
            return self
        if dtype.kind != "f":
            return constant(Tensor, self.data.astype(dtype))
        return apply_op(ops.CAST, self, dtype=dtype)

    def float(self) -> Tensor:
        return self.astype(np.float32)

    def double(self) -> Tensor:
        return self.astype(np.float64)


# --- leaves and constants ---------------------------------------------------------------
def _rebuild(cls, data, requires_grad, label, grad) -> Tensor:
    t = cls(data, requires_grad=requires_grad, dtype=data.dtype, name=label)
    t.grad = grad
    return t


# --- building nodes ---------------------------------------------------------------------
def apply_op(op, *inputs, **attrs) -> Tensor:
    """Run a registry op on tensors (numbers and arrays become constants) and record it.

    The result is a graph node (``op``, ``parents``, ``saved``, ``attrs``) only
    when grad mode is on and some input requires grad; otherwise a constant
    leaf.  A node's ``attrs`` are the op's settings (``axis=1`` ...), ``None``
    if it has none; its input shapes and dtypes are ``in_shapes`` and
    ``in_dtypes``, read from the parents.  Python numbers take the dtype of the
    first floating tensor input, so they never promote it.

    This is also the way to use an op you registered yourself: ``op`` may be
    an ``Op`` or its registered name, and a scalar-engine op applied to
    ``Value`` inputs gives a ``Value`` (``apply_op(CUBE, v)``).
    """
    if not isinstance(op, Op) or op.engine != "tensor":
        return _apply_other(op, inputs, attrs)
    for x in inputs:
        if not isinstance(x, Tensor):
            tensors = _lift_all(inputs, op)
            break
    else:
        tensors = inputs
    datas = [t.data for t in tensors]
    if op.float_only or op.promote:
        prepare_dtypes(op, datas)
    try:
        out, saved = op.forward(*datas, **attrs)
    except (ValueError, IndexError, TypeError) as err:
        raise op_error(op, tensors, attrs, err) from None
    except BatchingError:  # inside vmap, a forward that cannot run on batches: its rule
        out, saved = batched_forward(op, datas, attrs)  # or one call per example
    return _node(op, out, tensors, saved, attrs)


def _apply_other(op, inputs, attrs):
    """``apply_op`` for anything but a tensor ``Op``: a name, a scalar op, a Function's op."""
    from ..value import Value, apply_scalar_op

    values = any(isinstance(x, Value) for x in inputs)
    if isinstance(op, str):
        op = get_op(op, "scalar" if values else "tensor")
    if not isinstance(op, Op):
        raise TypeError(f"apply_op: expected an Op from the registry or its name, got "
                        f"{type(op).__name__}")
    if op.engine == "scalar":
        return apply_scalar_op(op, *inputs, **attrs)
    if op.engine == "tensor":
        if values:
            raise TypeError(f"{op.name}: a tensor op cannot take a Value; the scalar and "
                            f"tensor engines do not mix")
        return apply_op(op, *inputs, **attrs)
    cls = op.function
    if cls is not None:
        raise TypeError(f"apply_op: '{op.name}' is a custom Function: call "
                        f"{cls.__name__}.apply(...)")
    raise ValueError(f"apply_op: op '{op.name}' has an unknown engine {op.engine!r} "
                     f"(expected 'tensor' or 'scalar')")


def _lift_all(inputs, op) -> tuple:
    """Inputs as tensors: numbers and arrays become constants in the first float tensor's dtype."""
    like = None
    for x in inputs:
        if isinstance(x, Tensor) and x.data.dtype.kind == "f":
            like = x.data.dtype
            break
    return tuple(x if isinstance(x, Tensor) else lift(Tensor, x, like, op.name) for x in inputs)


def _node(op, out, parents, saved, attrs) -> Tensor:
    if out.__class__ is not ndarray:  # a 0-d result (numpy gives a scalar), or several
        if out.__class__ is Outputs:  # outputs sharing one record (autograd/outputs.py)
            return record_outputs(Tensor, op, parents, out, saved, attrs or None)
        out, saved = as_array_result(out, saved)
    # (a general op: the engine checks each gradient it returns)
    return init_node(_new(Tensor), out, op, parents, saved, attrs or None)


def _item(t, method):
    """``t``'s one element as a Python number, for ``float()`` and ``int()``."""
    if VALUE_READ_WATCHERS:
        value_read(t, method)
    if t.data.size != 1:
        raise _not_one_element(t)
    return t.data.item()


def _not_one_element(t) -> ValueError:
    return ValueError(f"item(): only a one-element tensor converts to a Python number; this "
                      f"one has shape {t.data.shape}")


def _reduce(op, x, axis, keepdims) -> Tensor:
    return apply_op(op, x, axis=reduction_axis(axis, x, op.name), keepdims=bool(keepdims))


def _result(out):
    """A result computed on the data as an array (numpy gives scalars for 0-d), a batch
    (inside vmap) as it is."""
    return out if out.__class__ is BatchedArray else asarray(out)


def _compare(ufunc, a, b, method) -> Tensor:
    if VALUE_READ_WATCHERS:
        value_read(a, method)
    bd = b.data if isinstance(b, Tensor) else b
    if isinstance(bd, Node):
        return NotImplemented
    try:
        return constant(Tensor, _result(ufunc(a.data, bd)))
    except (ValueError, TypeError) as err:
        other = np.shape(bd)
        raise ValueError(f"{ufunc.__name__}: cannot compare shapes {a.data.shape} and "
                         f"{other}: {err}") from None


