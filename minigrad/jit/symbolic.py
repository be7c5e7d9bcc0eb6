"""Running an op's own numpy code on symbols, to read it as an expression.

An elementwise op's forward and gradient rules are plain numpy expressions
(``g * b``, ``g - g * out * out``).  Run them on ``Sym`` objects instead of
arrays and every numpy call they make is recorded as an ``Expr`` node instead
of computed: the result is the op's formula as a small expression graph, read
from the registry's one definition, never written a second time.  That graph
is what a fused kernel is generated from (``kernels.py``).

A ``Sym`` is a mutable box around an ``Expr`` because op code updates arrays
in place (``np.exp(e, out=e)``, ``t *= g``): an in-place step rebinds the box to
the new expression; expressions themselves never change.

Code that needs a value (``if p:``, a reshape) raises ``Unsymbolic``: that op is
not fused, it runs as its own equation.  One such function is recorded whole
instead: ``masked(g, mask)``, the NaN-safe product of relu's, maximum's and
minimum's rules, becomes a ``masked`` step that the kernel calls as it is.  Every
``Expr`` knows its shape and dtype, found the way numpy would (broadcasting;
NEP 50 promotion, where a Python number never promotes an array).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["Expr", "Sym", "Unsymbolic", "leaf", "symbolic_forward", "symbolic_rule",
           "UFUNCS"]


class Unsymbolic(Exception):
    """Op code needed a value (or a numpy call this module does not model)."""


#: the numpy ufuncs an expression may call, by name
UFUNCS = {u.__name__: u for u in (
    np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.power, np.exp, np.log,
    np.sqrt, np.tanh, np.absolute, np.maximum, np.minimum, np.greater, np.greater_equal,
    np.less, np.less_equal, np.equal, np.not_equal, np.logical_not, np.logical_and,
    np.logical_or, np.square, np.reciprocal)}


class Expr:
    """One node of an expression graph: ``fn(*args)``, a leaf (``fn == "leaf"``, ``args ==
    (name,)``) or a constant (``fn == "const"``, ``args == (number,)``)."""

    __slots__ = ("fn", "args", "shape", "dtype")

    def __init__(self, fn: str, args: tuple, shape: tuple, dtype):
        self.fn, self.args, self.shape, self.dtype = fn, args, shape, np.dtype(dtype)

    @property
    def is_const(self) -> bool:
        return self.fn == "const"

    def __repr__(self) -> str:
        if self.fn == "leaf":
            return self.args[0]
        if self.fn == "const":
            return repr(self.args[0])
        return f"{self.fn}({', '.join(map(repr, self.args))})"


def leaf(name: str, shape, dtype) -> Sym:
    return Sym(Expr("leaf", (name,), tuple(shape), dtype))


def _const(x) -> Expr:
    # A Python number stays weak (NEP 50: it takes the array's dtype); a numpy scalar
    # keeps its own dtype and promotes like an array.
    dtype = x.dtype if isinstance(x, np.generic) else np.dtype(type(x) if not isinstance(
        x, bool) else np.bool_)
    return Expr("const", (x,), (), dtype)


def _operand(x) -> Expr:
    if isinstance(x, Sym):
        return x.expr
    if isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, complex):
        return _const(x)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return _const(x.dtype.type(x))
    raise Unsymbolic(f"operand {type(x).__name__}")


def _dummy(e: Expr):
    """What numpy's type resolution sees for ``e``: a 0-d array, or the weak number."""
    if e.is_const:
        return e.args[0]
    return np.zeros((), e.dtype)


def call(fn: str, *args) -> Sym:
    """``fn(*args)`` as a new expression, with numpy's result shape and dtype."""
    if fn == "cast":
        x = _operand(args[0])
        return Sym(Expr("cast", (x,), x.shape, args[1]))
    exprs = tuple(_operand(a) for a in args)
    dummies = [_dummy(e) for e in exprs]
    if fn == "where":
        dtype = np.where(*dummies).dtype
    elif fn == "masked":  # ops.tensor's masked(g, mask): g·mask, made NaN-safe
        with np.errstate(all="ignore"):
            dtype = np.asarray(np.multiply(*dummies)).dtype
    else:
        with np.errstate(all="ignore"):
            dtype = np.asarray(UFUNCS[fn](*dummies)).dtype
    shape = np.broadcast_shapes(*(e.shape for e in exprs if not e.is_const))
    return Sym(Expr(fn, exprs, shape, dtype))


class Sym:
    """A stand-in for an array while op code runs (see the module doc)."""

    __slots__ = ("expr",)
    #: (``nd()`` passes graph nodes through unchanged by this mark; ``Op.__call__`` on a
    #: Sym ends up in ``apply``, which refuses: an op inside an op stays unfused)
    engine_class = None

    def __init__(self, expr: Expr):
        self.expr = expr

    @staticmethod
    def apply(op, *inputs, **attrs):
        raise Unsymbolic(f"op {op.name} called inside another op")

    # Op code that picks a formula by array kind (``out.__class__ is not np.ndarray``:
    # graph nodes take the plain formula) must pick what it does on arrays, or the
    # kernel would round differently from the eager op.
    __class__ = property(lambda self: np.ndarray)
    shape = property(lambda self: self.expr.shape)
    dtype = property(lambda self: self.expr.dtype)
    ndim = property(lambda self: len(self.expr.shape))
    size = property(lambda self: int(np.prod(self.expr.shape, dtype=np.int64)))

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if method != "__call__" or kwargs or ufunc.__name__ not in UFUNCS:
            raise Unsymbolic(f"numpy {ufunc.__name__}.{method}")
        result = call(ufunc.__name__, *inputs)
        if out is not None:
            (box,) = out
            if not isinstance(box, Sym):
                raise Unsymbolic("out= into an array")
            box.expr = result.expr
            return box
        return result

    def __array_function__(self, func, types, args, kwargs):
        if func is np.where and len(args) == 3 and not kwargs:
            return call("where", *args)
        raise Unsymbolic(f"numpy {func.__name__}")

    @staticmethod
    def masked_expression(g, mask):
        """``masked(g, mask)`` (``ops.tensor``) as one step: its NaN check needs values,
        so the kernel calls the function itself (relu's, maximum's ... rules)."""
        return call("masked", g, mask)

    def astype(self, dtype, copy=True):
        dtype = np.dtype(dtype)
        return Sym(self.expr) if dtype == self.dtype else call("cast", self, dtype)

    def copy(self):
        return Sym(self.expr)

    def __bool__(self):
        raise Unsymbolic("bool() of a symbol")

    def __getattr__(self, name):
        raise Unsymbolic(f"attribute {name}")

    def _inplace(self, ufunc, other):
        self.expr = ufunc(self, other).expr
        return self


def _binary(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _u in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                  ("truediv", np.true_divide), ("pow", np.power)):
    setattr(Sym, f"__{_name}__", _binary(_u))
    setattr(Sym, f"__r{_name}__", _binary(_u, True))
    setattr(Sym, f"__i{_name}__", lambda self, other, _u=_u: self._inplace(_u, other))
for _name, _u in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                  ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(Sym, f"__{_name}__", _binary(_u))
Sym.__neg__ = lambda self: np.negative(self)
Sym.__abs__ = lambda self: np.absolute(self)
Sym.__invert__ = lambda self: np.logical_not(self)
Sym.__hash__ = object.__hash__


def symbolic_forward(op, ins: list, attrs: dict | None):
    """``(out, saved)`` of ``op`` on symbols ``ins``; raises ``Unsymbolic``.

    A one-ufunc op is its ufunc, saving what ``op.saves`` says (as the Tensor's
    inlined operators do); any other op's forward runs on the symbols.
    """
    attrs = attrs or {}
    if op.ufunc is not None and not attrs:
        out = op.ufunc(*ins)
        keep = {"nothing": (), "inputs": tuple(ins), "output": (out,)}[op.saves]
        return out, keep
    try:
        out, saved = op.forward(*ins, **attrs)
    except Unsymbolic:
        raise
    except Exception as err:  # op code that cannot run on symbols at all
        raise Unsymbolic(f"{op.name}: {type(err).__name__}: {err}") from None
    if not isinstance(out, Sym) or not all(isinstance(s, Sym) for s in saved):
        raise Unsymbolic(f"{op.name} saves something that is not an expression")
    return out, tuple(saved)


def symbolic_rule(rule, g: Sym, saved: tuple, attrs: dict | None):
    """One gradient rule run on symbols: an expression, or ``None`` (no gradient)."""
    try:
        out = rule(g, *saved, **(attrs or {}))
    except Unsymbolic:
        raise
    except Exception as err:
        raise Unsymbolic(f"rule {getattr(rule, '__name__', rule)}: {err}") from None
    if out is not None and not isinstance(out, Sym):
        raise Unsymbolic("a rule returned something that is not an expression")
    return out
