"""``Value``: the scalar engine, one float per graph node.

This is micrograd's idea with the record made explicit: a ``Value`` holds a
float, its gradient, and *how it was made* (the op from the registry, the
ordered parents, what the op saved), instead of a closure.  Because nodes are
plain data, a renderer can draw them, a recorder can replay backward edge by
edge, and Python's garbage collector has no reference cycles to chase.
"""

from __future__ import annotations

import numbers

from . import scalar_ops as ops
from .autograd.node import Node, init_node, op_node
from .formatting import format_number

__all__ = ["Value"]

_new = object.__new__


class Value(Node):
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
        init_node(self, data, bool(requires_grad), label=name)

    # --- building nodes ----------------------------------------------------------
    # Every op runs its registry entry's forward on the floats and lets ``op_node``
    # decide whether the result is recorded (a node) or a constant.  A float's
    # gradient is a float, so its rules' results always fit their input.
    def _unary(self, op):
        out, saved = op.forward(self.data)
        return op_node(Value, op, out, (self,), saved, None, True)

    def _binary(self, op, other, reflected=False):
        if type(other) is not Value:
            other = _constant(other, op)
        a, b = (other, self) if reflected else (self, other)
        out, saved = op.forward(a.data, b.data)
        return op_node(Value, op, out, (a, b), saved, None, True)

    # --- arithmetic ----------------------------------------------------------------
    def __add__(self, other):
        return self._binary(ops.ADD, other)

    def __radd__(self, other):
        return self._binary(ops.ADD, other, reflected=True)

    def __sub__(self, other):
        return self._binary(ops.SUB, other)

    def __rsub__(self, other):
        return self._binary(ops.SUB, other, reflected=True)

    def __mul__(self, other):
        return self._binary(ops.MUL, other)

    def __rmul__(self, other):
        return self._binary(ops.MUL, other, reflected=True)

    def __truediv__(self, other):
        return self._binary(ops.DIV, other)

    def __rtruediv__(self, other):
        return self._binary(ops.DIV, other, reflected=True)

    def __pow__(self, other):
        return self._binary(ops.POW, other)

    def __rpow__(self, other):
        return self._binary(ops.POW, other, reflected=True)

    def __neg__(self):
        return self._unary(ops.NEG)

    def __pos__(self):
        return self

    def __abs__(self):
        return self._unary(ops.ABS)

    # --- functions -----------------------------------------------------------------
    def exp(self):
        return self._unary(ops.EXP)

    def log(self):
        return self._unary(ops.LOG)

    def sqrt(self):
        return self._unary(ops.SQRT)

    def tanh(self):
        return self._unary(ops.TANH)

    def sigmoid(self):
        return self._unary(ops.SIGMOID)

    def relu(self):
        return self._unary(ops.RELU)

    def gelu(self):
        return self._unary(ops.GELU)

    def abs(self):
        return self._unary(ops.ABS)

    def sin(self):
        return self._unary(ops.SIN)

    def cos(self):
        return self._unary(ops.COS)

    def maximum(self, other):
        """The larger of two values; on a tie each side receives half the gradient."""
        return self._binary(ops.MAXIMUM, other)

    def minimum(self, other):
        """The smaller of two values; on a tie each side receives half the gradient."""
        return self._binary(ops.MINIMUM, other)

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

    # --- conveniences ----------------------------------------------------------------
    def item(self) -> float:
        return self.data

    def __float__(self) -> float:
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
    return op_node(Value, op, out, parents, saved, None, True)


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
