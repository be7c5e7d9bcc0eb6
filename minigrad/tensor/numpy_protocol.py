"""``Tensor`` speaks numpy: ``np.exp(t)``, ``np.where(m, t, 0)``, ``array * t``.

numpy lets another array type take over its functions (NEP 13 for ufuncs such
as ``np.exp`` and ``np.multiply``, NEP 18 for functions such as ``np.where``):
when a ``Tensor`` is among the arguments, numpy calls ``Tensor.__array_ufunc__``
or ``Tensor.__array_function__`` instead of computing.  minigrad answers with
its own ops, so the call is recorded in the graph like ``t.exp()`` would be.

Why it matters here: every op's gradient rules are written once, against
numpy (``lambda g, out: g * (1 - out * out)``, ``np.where(mask, g, 0)``).  On
raw arrays they run at numpy's speed; in a ``create_graph`` backward pass the
engine hands them Tensors instead, and each numpy call they make becomes a
recorded op, so the gradient has a graph of its own.  No derivative is written
twice.

The rules of the game:

* a differentiable ufunc (``DIFFERENTIABLE``) becomes its registry op;
* a ufunc with no derivative to speak of (comparisons, ``isnan``, ``sign`` ...)
  is computed on the raw data: its result is a constant tensor;
* a numpy function is handled if some module registered it with ``implements``
  (``combining`` does ``where``, ``concatenate``, ``stack`` ...);
* anything else, on a tensor that requires grad, would silently drop it from
  the graph: an error names the numpy function instead.  On constants it is
  computed on the raw data, as before.
"""

from __future__ import annotations

import operator

import numpy as np

from ..core.modes import COUNTS, STATE
from ..engines.higher_order import building_order
from .arguments import constant, lift

__all__ = ["array_ufunc", "array_function", "implements", "HANDLED_FUNCTIONS", "DIFFERENTIABLE"]


def _square(x):
    return x * x


def _log1p(x):  # (as a composition: log(1 + x) loses digits for tiny x, a price only
    return (1 + x).log()  # the graph of a gradient pays: first-order rules call numpy)


def _expm1(x):
    return x.exp() - 1


def _reciprocal(x):
    return 1.0 / x


#: ufuncs that are registry ops, as the operator or method that runs the op
DIFFERENTIABLE = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
    np.true_divide: operator.truediv, np.power: operator.pow, np.matmul: operator.matmul,
    np.maximum: lambda a, b: a.maximum(b), np.minimum: lambda a, b: a.minimum(b),
    np.negative: operator.neg, np.positive: operator.pos, np.absolute: operator.abs,
    np.exp: lambda x: x.exp(), np.log: lambda x: x.log(), np.sqrt: lambda x: x.sqrt(),
    np.tanh: lambda x: x.tanh(), np.square: _square, np.reciprocal: _reciprocal,
    np.log1p: _log1p, np.expm1: _expm1,
}

#: ufuncs whose result carries no gradient (a comparison, a test, a rounding: their
#: derivative is zero wherever it exists), so they are computed on the raw data
NO_GRADIENT = {
    np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
    np.isnan, np.isinf, np.isfinite, np.signbit, np.sign, np.logical_and, np.logical_or,
    np.logical_not, np.logical_xor, np.floor, np.ceil, np.rint, np.trunc, np.floor_divide,
    np.invert, np.bitwise_and, np.bitwise_or, np.bitwise_xor,
}

#: numpy functions (NEP 18) with a Tensor implementation: ``{np.where: where, ...}``
HANDLED_FUNCTIONS: dict = {}

#: numpy functions that read no values, or give no gradient (dtypes, shapes, tests):
#: computed on the raw data, whatever requires grad
NO_GRADIENT_FUNCTIONS = {
    np.result_type, np.broadcast_shapes, np.allclose, np.isclose, np.array_equal,
    np.argmax, np.argmin, np.argsort, np.nonzero, np.count_nonzero, np.any, np.all,
    np.may_share_memory, np.shares_memory,
}


def implements(numpy_function):
    """Register the Tensor version of a numpy function (a decorator)."""
    def register(fn):
        HANDLED_FUNCTIONS[numpy_function] = fn
        return fn

    return register


def _needs_grad(values) -> bool:
    return (not COUNTS.no_grad_threads or STATE.grad_enabled) and any(
        getattr(v, "requires_grad", False) for v in values)


def _raw(x):
    """Tensors (also inside lists and tuples) as their arrays."""
    if isinstance(x, (list, tuple)):
        return type(x)(_raw(v) for v in x)
    return getattr(x, "data", x) if hasattr(x, "engine_class") else x


def _wrap(cls, result):
    """numpy results as constant tensors (a tuple of results stays a tuple)."""
    if isinstance(result, tuple):
        return tuple(_wrap(cls, r) for r in result)
    if isinstance(result, np.ndarray):
        return constant(cls, result)
    if isinstance(result, np.generic):
        return constant(cls, np.asarray(result))
    return result


def array_ufunc(self, ufunc, method, inputs, kwargs):
    """``Tensor.__array_ufunc__``: a numpy ufunc called with a Tensor among its arguments."""
    cls = self.engine_class
    name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    if method == "__call__" and not kwargs:
        run = DIFFERENTIABLE.get(ufunc)
        if run is not None:
            like = next((x.data.dtype for x in inputs if isinstance(x, cls)
                         and x.data.dtype.kind == "f"), None)
            return run(*(x if isinstance(x, cls) else lift(cls, x, like, name) for x in inputs))
    if ufunc not in NO_GRADIENT and _needs_grad(inputs):
        how = "" if method == "__call__" and not kwargs else (
            " (minigrad's ops make new tensors: out= and ufunc methods are not recorded)")
        raise TypeError(f"np.{name} on a Tensor that requires grad: minigrad has no "
                        f"gradient rule for it{how}. Use the Tensor's own ops, or .data "
                        f"for a plain array outside the graph")
    out = kwargs.get("out")
    if out is not None:  # write into constants' arrays (a mask built in place)
        kwargs["out"] = tuple(_raw(o) for o in out)
        if _needs_grad(out):
            raise TypeError(f"np.{name}(..., out=t): t requires grad; its values are in the "
                            f"graph and cannot be overwritten")
    result = getattr(ufunc, method)(*_raw(inputs), **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    return _wrap(cls, result)


def array_function(self, func, types, args, kwargs):
    """``Tensor.__array_function__``: a numpy function called with a Tensor argument."""
    handler = HANDLED_FUNCTIONS.get(func)
    if handler is not None:
        return handler(*args, **kwargs)
    values = _flat(args) + _flat(tuple(kwargs.values()))
    if func not in NO_GRADIENT_FUNCTIONS and building_order() and _needs_grad(values):
        raise TypeError(f"np.{func.__name__} on a Tensor that requires grad, while building "
                        f"a gradient's graph (create_graph=True): minigrad has no Tensor "
                        f"version of it, and computing it on the raw data would cut the "
                        f"graph")
    # Unhandled: computed on the raw data, as numpy would after np.asarray(t).
    return func(*_raw(args), **{k: _raw(v) for k, v in kwargs.items()})


def _flat(values) -> tuple:
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat(v))
        else:
            out.append(v)
    return tuple(out)


# numpy functions that are Tensor methods already (numpy itself calls the method when
# it meets an object that is not an array; with __array_function__ defined, it asks us).
def _method(name):
    def call(a, *args, **kwargs):
        if not hasattr(a, "engine_class"):
            return getattr(np, name)(a, *args, **kwargs)
        return getattr(a, name)(*args, **kwargs)

    call.__name__ = name
    return call


for _name in ("sum", "mean", "max", "min", "clip", "squeeze"):
    implements(getattr(np, _name))(_method(_name))
implements(np.amax)(_method("max"))
implements(np.amin)(_method("min"))


@implements(np.transpose)
def _transpose(a, axes=None):
    return a.transpose(*axes) if axes is not None else a.transpose()


@implements(np.reshape)
def _reshape(a, shape=None, order="C", **kwargs):
    if order != "C":
        raise ValueError("reshape: only order='C' is supported for Tensors")
    return a.reshape(kwargs.get("newshape", shape))


@implements(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    return array.broadcast_to(shape)


@implements(np.expand_dims)
def _expand_dims(a, axis):
    return a.unsqueeze(axis)


@implements(np.shape)
def _shape(a):
    return a.shape


@implements(np.ndim)
def _ndim(a):
    return a.ndim


@implements(np.size)
def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


@implements(np.zeros_like)
def _zeros_like(a, dtype=None, **kwargs):
    return constant(a.engine_class, np.zeros_like(_raw(a), dtype=dtype))


@implements(np.ones_like)
def _ones_like(a, dtype=None, **kwargs):
    return constant(a.engine_class, np.ones_like(_raw(a), dtype=dtype))

