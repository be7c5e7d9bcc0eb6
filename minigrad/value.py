"""``Value``: the scalar engine, one float per graph node.

This is micrograd's idea with the record made explicit: a ``Value`` holds a
float, its gradient, and *how it was made* (the op from the registry, the
ordered parents, what the op saved), instead of a closure.  Because nodes are
plain data, a renderer can draw them, a recorder can replay backward edge by
edge, and Python's garbage collector has no reference cycles to chase.
"""

from __future__ import annotations

import numbers

from .autograd.differentiable import Differentiable
from .core.modes import COUNTS
from .core.node import Node, init_node, next_id
from .engines.higher_order import building_order
from .formatting import format_number
from .ops import scalar as ops

__all__ = ["Value"]

_new = object.__new__


# ``a * b``, ``v.tanh()`` ...: each operator is its registry op, bound in a closure.
# It runs the op's forward on the floats and makes the result's node.  In the usual
# case (some input requires grad, grad mode is on everywhere, nobody watches:
# ``COUNTS.detours`` is zero) it writes ``init_node``'s slots itself; in every other
# case ``init_node`` decides whether the result is recorded (a node) or a constant.
# ``tests/minigrad/core/test_node.py`` compares the two, slot by slot, for every
# operator.  (Why: each Python call is a visible share of a scalar op's cost; the
# written-out slots take ``a * b`` from about 420 to 350 ns, see benchmarks/scalar.py.
# Closures rather than ``def __mul__(self, other): return self._binary(MUL, other)``
# for the same reason.)  A float's gradient is a float, so its rules' results always
# fit their input (``grads_fit_inputs=True``).
def _unary_method(op, name: str):
    forward = op.forward

    def method(x):
        out, saved = forward(x.data)
        if COUNTS.detours or not x.requires_grad:  # the constructor decides, its way
            return init_node(_new(Value), out, op, (x,), saved, None, True)
        node = _new(Value)  # recorded: init_node's slots, written out
        node.data = out
        node.grad = None
        node.requires_grad = True
        node.op = op
        node.parents = (x,)
        node.saved = saved
        node.attrs = None
        node.id = next_id()
        node.label = None
        node.origin = None
        node.grads_fit_inputs = True
        return node

    method.__name__, method.__qualname__ = name, f"Value.{name}"
    method.__doc__ = f"``{op.name}`` of this value (op '{op.name}': {op.formula})."
    return method


def _binary_method(op, name: str, reflected: bool = False, doc: str | None = None):
    forward = op.forward

    def method(self, other):
        if type(other) is not Value:
            other = _constant(other, op)
        out, saved = forward(self.data, other.data)
        if COUNTS.detours or not (self.requires_grad or other.requires_grad):
            return init_node(_new(Value), out, op, (self, other), saved, None, True)
        node = _new(Value)  # recorded: init_node's slots, written out
        node.data = out
        node.grad = None
        node.requires_grad = True
        node.op = op
        node.parents = (self, other)
        node.saved = saved
        node.attrs = None
        node.id = next_id()
        node.label = None
        node.origin = None
        node.grads_fit_inputs = True
        return node

    def reflected_method(self, other):  # ``2 * v`` runs ``v.__rmul__(2)``: the op is ``2 × v``
        if type(other) is not Value:
            other = _constant(other, op)
        out, saved = forward(other.data, self.data)
        return init_node(_new(Value), out, op, (other, self), saved, None, True)

    method = reflected_method if reflected else method
    method.__name__, method.__qualname__ = name, f"Value.{name}"
    method.__doc__ = doc or (f"``other {op.symbol} self`` (op '{op.name}')" if reflected
                             else f"``self {op.symbol} other`` (op '{op.name}')")
    return method


class Value(Differentiable, engine=True):
    """A scalar in a computation graph.

    >>> a = Value(2.0, name="a"); b = Value(3.0, name="b")
    >>> c = a * b + a          # a is used twice: two edges, gradients add up
    >>> c.backward()
    >>> a.grad, b.grad
    (4.0, 2.0)
    """

    __slots__ = ()

    def __init__(self, data, name: str | None = None, requires_grad: bool = True, *,
                 label: str | None = None):
        if type(data) is not float:
            data = _to_float(data)
        if label is not None:  # the older spelling of ``name``
            if name is not None and label != name:
                raise TypeError(f"Value: give label or name, not both ({label!r}, {name!r})")
            name = label
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        init_node(self, data, requires_grad=bool(requires_grad), label=name)

    # --- building nodes ----------------------------------------------------------
    def _unary(self, op):
        """``op(self)`` for any one-input scalar op (the methods below are this, bound to
        their op)."""
        return _unary_method(op, op.name)(self)

    def _binary(self, op, other, reflected=False):
        """``op(self, other)`` (or ``op(other, self)``) for any two-input scalar op."""
        return _binary_method(op, op.name, reflected)(self, other)

    # --- arithmetic: each operator is its registry op, bound (see _binary_method) --------
    __add__ = _binary_method(ops.ADD, "__add__")
    __radd__ = _binary_method(ops.ADD, "__radd__", reflected=True)
    __sub__ = _binary_method(ops.SUB, "__sub__")
    __rsub__ = _binary_method(ops.SUB, "__rsub__", reflected=True)
    __mul__ = _binary_method(ops.MUL, "__mul__")
    __rmul__ = _binary_method(ops.MUL, "__rmul__", reflected=True)
    __truediv__ = _binary_method(ops.DIV, "__truediv__")
    __rtruediv__ = _binary_method(ops.DIV, "__rtruediv__", reflected=True)
    __pow__ = _binary_method(ops.POW, "__pow__")
    __rpow__ = _binary_method(ops.POW, "__rpow__", reflected=True)
    __neg__ = _unary_method(ops.NEG, "__neg__")
    __abs__ = _unary_method(ops.ABS, "__abs__")

    def __pos__(self):
        return self

    # --- functions -----------------------------------------------------------------
    exp = _unary_method(ops.EXP, "exp")
    log = _unary_method(ops.LOG, "log")
    sqrt = _unary_method(ops.SQRT, "sqrt")
    tanh = _unary_method(ops.TANH, "tanh")
    sigmoid = _unary_method(ops.SIGMOID, "sigmoid")
    relu = _unary_method(ops.RELU, "relu")
    gelu = _unary_method(ops.GELU, "gelu")
    erf = _unary_method(ops.ERF, "erf")
    abs = _unary_method(ops.ABS, "abs")
    sin = _unary_method(ops.SIN, "sin")
    cos = _unary_method(ops.COS, "cos")
    maximum = _binary_method(
        ops.MAXIMUM, "maximum",
        doc="The larger of two values; on a tie each side receives half the gradient.")
    minimum = _binary_method(
        ops.MINIMUM, "minimum",
        doc="The smaller of two values; on a tie each side receives half the gradient.")

    # --- comparisons (on data; they build no graph) -----------------------------------
    # ``==`` is deliberately *not* among them: it stays identity, because nodes are
    # looked up in lists, sets and dicts (``node in graph``) all over the engine and
    # the renderers.  Compare values with ``a.data == b.data``.
    def __lt__(self, other):
        return self.data < _data(other)

    def __le__(self, other):
        return self.data <= _data(other)

    def __gt__(self, other):
        return self.data > _data(other)

    def __ge__(self, other):
        return self.data >= _data(other)

    __hash__ = object.__hash__

    #: run a scalar registry op on Values and record it (``Op.__call__`` uses this)
    apply = staticmethod(lambda op, *inputs, **attrs: apply_scalar_op(op, *inputs, **attrs))

    # --- conveniences ----------------------------------------------------------------
    def item(self) -> float:
        return self.data

    def __float__(self) -> float:
        if building_order() and self.requires_grad:
            raise TypeError(
                "float() of a Value that requires grad while building a gradient's graph "
                "(create_graph=True) would cut that graph: an op's gradient rule must use "
                "the Value's own operators and methods (math.* functions take floats)")
        return self.data

    def __int__(self) -> int:
        return int(self.data)

    def __bool__(self) -> bool:
        """``if loss:`` tests the number, as for a one-element Tensor (and PyTorch)."""
        return bool(self.data)

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` formats the number; an empty spec gives the repr."""
        return format(self.data, spec) if spec else repr(self)

    def __reduce__(self):
        """Copies and pickles of a leaf are new leaves with fresh ids (two nodes never
        share an id); a non-leaf would drag its whole graph along, so it refuses."""
        if self.op is not None:
            raise RuntimeError(
                "only leaf Values can be copied or pickled (a non-leaf would drag its "
                "graph along); use v.detach() first"
            )
        return (_rebuild, (self.data, self.label, self.requires_grad, self.grad))

    def detach(self) -> Value:
        """A new leaf with the same number and no history (``requires_grad=False``)."""
        return Value(self.data, self.label, requires_grad=False)

    def __repr__(self) -> str:
        grad = "None" if self.grad is None else _fmt(self.grad)
        extra = ""
        if self.op is not None:
            extra += f", op={self.op.name}"
        if self.label:
            extra += f", name={self.label!r}"
        return f"Value(data={_fmt(self.data)}, grad={grad}{extra})"


def _fmt(x: float) -> str:
    """The number as every renderer writes it (``minigrad.formatting``): ``3.0000e-06``."""
    return format_number(x)


def _rebuild(data, label, requires_grad, grad) -> Value:
    v = Value(data, label, requires_grad=requires_grad)
    v.grad = grad
    return v


def _data(x):
    return x.data if isinstance(x, Value) else x


def _to_float(data) -> float:
    if isinstance(data, Node):
        raise TypeError(
            f"Value(...) takes a number, got a {type(data).__name__}; "
            "to copy a Value without its history use v.detach()"
        )
    if isinstance(data, bool) or not isinstance(data, numbers.Real):
        hint = " (for arrays use minigrad.Tensor)" if hasattr(data, "__len__") else ""
        raise TypeError(f"Value holds one real number, got {type(data).__name__}{hint}")
    return float(data)


def apply_scalar_op(op, *inputs, **attrs) -> Value:
    """Run a scalar registry op on Values (numbers become constants) and record it.

    What ``minigrad.apply_op`` does for an op registered with ``engine="scalar"``:
    the way to use an op of your own that has no ``Value`` method.
    """
    if attrs:
        raise TypeError(f"{op.name}: scalar ops take no settings, got {', '.join(attrs)}")
    if len(inputs) != op.arity:
        raise TypeError(f"{op.name} takes {op.arity} input{'s' * (op.arity != 1)} (one per "
                        f"gradient rule), got {len(inputs)}")
    for x in inputs:
        if isinstance(x, Node) and not isinstance(x, Value):
            raise TypeError(f"{op.name}: a scalar op cannot take a {type(x).__name__}; the "
                            f"scalar and tensor engines do not mix")
    parents = tuple(x if isinstance(x, Value) else _constant(x, op) for x in inputs)
    out, saved = op.forward(*(p.data for p in parents))
    return init_node(_new(Value), out, op, parents, saved, None, True)


def _constant(x, op) -> Value:
    """Wrap a Python number as a constant leaf (it needs no gradient)."""
    if isinstance(x, Node):
        raise TypeError(
            f"{op.name}: cannot combine a Value with a {type(x).__name__}; "
            "the scalar and tensor engines do not mix"
        )
    if type(x) is not float and (isinstance(x, bool) or not isinstance(x, numbers.Real)):
        raise TypeError(f"{op.name}: unsupported operand type {type(x).__name__} for Value")
    return Value(float(x), requires_grad=False)
