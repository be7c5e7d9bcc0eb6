"""The scalar engine's op table: one ``define_op`` per op.

The ops the tensor engine has too (all but sin and cos) take their name,
symbol and formulas from ``ops.notation``, so both engines write them
alike.  Each entry's ``forward(*xs) -> (out, saved)`` works on Python floats; each
gradient rule ``rule(g, *saved)`` returns ``g · ∂out/∂input``.  Python's float
arithmetic raises where IEEE 754 (and PyTorch) return ``inf`` or ``nan``
(``1/0``, ``math.exp(1000)``, ``(-8) ** (1/3)``); the helpers below give the
IEEE answers instead, so a student sees the ``inf``/``nan`` that anomaly
detection is there to catch rather than a Python exception.
"""

from __future__ import annotations

import math

from ..core.op import define_op, passthrough
from .notation import notation

INF = math.inf
NAN = math.nan
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)


# --- IEEE-style float helpers -------------------------------------------------------
# The gradient rules below call these on floats, and in a ``create_graph`` backward
# pass on ``Value`` nodes (see ``engines/higher_order.py``): on a node each helper is the
# node's own op, so the rule, written once, is recorded too.
def _node(x) -> bool:
    return x.__class__ is not float and hasattr(x, "engine_class")


def _num(x) -> float:
    """The number, for a test in a rule (``x == 0``): a node's data (``==`` on nodes is
    identity)."""
    return x.data if _node(x) else x


def fdiv(a: float, b: float) -> float:
    """a / b with IEEE semantics: x/0 = ±inf, 0/0 = nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def fpow(x: float, p: float) -> float:
    """x ** p as a real number: nan for a negative base with a fractional exponent,
    and IEEE's signed infinities where Python raises (``(-0.0) ** -1`` is −inf)."""
    if _node(x) or _node(p):
        return x**p
    try:
        r = x**p
    except ZeroDivisionError:  # (±0) ** negative: the sign survives for odd integer p
        return -INF if (_odd_integer(p) and math.copysign(1.0, x) < 0) else INF
    except OverflowError:
        if x < 0 and not float(p).is_integer():
            return NAN  # no real result, however large
        return -INF if (x < 0 and _odd_integer(p)) else INF
    if type(r) is complex:
        return NAN
    return float(r)


def _odd_integer(p: float) -> bool:
    return float(p).is_integer() and int(p) % 2 == 1


def fsin(x: float) -> float:
    """sin(x), nan at ±inf (``math.sin`` raises there)."""
    if _node(x):
        return x.sin()
    return math.sin(x) if math.isfinite(x) else NAN


def fcos(x: float) -> float:
    if _node(x):
        return x.cos()
    return math.cos(x) if math.isfinite(x) else NAN


def fmaximum(a: float, b: float) -> float:
    """The larger of a and b; nan if either is nan (``a if a >= b else b`` would
    quietly pick b, hiding a nan from anomaly detection)."""
    if a != a or b != b:
        return NAN
    return a if a >= b else b


def fminimum(a: float, b: float) -> float:
    if a != a or b != b:
        return NAN
    return a if a <= b else b


def fexp(x: float) -> float:
    if _node(x):
        return x.exp()
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def flog(x: float) -> float:
    if _node(x):
        return x.log()
    if x > 0:
        return math.log(x)
    if x == 0:
        return -INF
    return NAN  # negative or nan


def fsqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else NAN


def fsigmoid(x: float) -> float:
    """1 / (1 + e^-x), computed without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


# Where a derivative is 0 at a point (|x| at 0, ∂(x^p)/∂p at x = 0) the rule returns
# ``g * 0.0``, not ``0.0``, so a nan or inf arriving from later ops stays visible, as
# in PyTorch.  The exception is also PyTorch's: at p = 0 the power is the constant 1,
# and ∂/∂x is a plain 0 whatever g is.
def _pow_grad_base(g, x, p, out):
    # p·x^(p−1) first, then g (PyTorch's order: g·p can under/overflow on its own).
    # At p = 0: 0, even at x = 0 where p·x^(p−1) would be 0·inf = nan.
    return g * (p * fpow(x, p - 1)) if p else 0.0


def _pow_grad_exponent(g, x, p, out):
    # d(x^p)/dp = x^p · ln x.  At x = 0 with p >= 0 the limit is 0 (PyTorch agrees).
    if _num(x) == 0 and _num(p) >= 0:
        return g * 0.0
    return g * out * flog(x)


def _maximum_grad(g, a, b, first):
    a, b = _num(a), _num(b)  # (only compared: the weights are constants)
    if a == b:
        return 0.5 * g  # a tie shares the gradient, so its total is conserved
    if a != a or b != b:
        return g  # a nan result: both inputs get g, as in PyTorch
    return g if (a > b) == first else 0.0


def _minimum_grad(g, a, b, first):
    a, b = _num(a), _num(b)
    if a == b:
        return 0.5 * g
    if a != a or b != b:
        return g
    return g if (a < b) == first else 0.0


# Ranges chosen so every op is smooth there: division keeps away from 0, log and
# fractional powers from non-positive bases.
_ANY = (-2.0, 2.0)
_POS = (0.3, 2.5)

ADD = define_op(
    **notation("add"), engine="scalar", forward=lambda a, b: (a + b, ()),
    grads=(passthrough, passthrough), domain=(_ANY, _ANY),
    doc="Addition routes the gradient unchanged to both inputs; it saves nothing.")
SUB = define_op(
    **notation("sub"), engine="scalar", forward=lambda a, b: (a - b, ()),
    grads=(passthrough, lambda g: -g), domain=(_ANY, _ANY))
MUL = define_op(
    **notation("mul"), engine="scalar", forward=lambda a, b: (a * b, (a, b)),
    grads=(lambda g, a, b: g * b, lambda g, a, b: g * a), domain=(_ANY, _ANY),
    doc="Each input's gradient is the upstream gradient times the *other* input.")
# ∂/∂b = −a/b² as (a/b)/b: b·b under/overflows for |b| beyond ~1e±154 where the
# gradient itself is representable.
DIV = define_op(
    **notation("div"), engine="scalar", forward=lambda a, b: (fdiv(a, b), (a, b)),
    grads=(lambda g, a, b: fdiv(g, b), lambda g, a, b: -(g * fdiv(fdiv(a, b), b))),
    domain=(_ANY, _POS))
POW = define_op(
    **notation("pow"), engine="scalar", forward=lambda x, p: ((out := fpow(x, p)), (x, p, out)),
    grads=(_pow_grad_base, _pow_grad_exponent), domain=(_POS, (-2.0, 3.0)),
    doc="At p = 0 the power is the constant 1, so ∂/∂x is 0 even at x = 0, where "
        "p·x^(p−1) would be 0·inf = nan (PyTorch agrees).")
NEG = define_op(
    **notation("neg"), engine="scalar", forward=lambda x: (-x, ()),
    grads=(lambda g: -g,), domain=(_ANY,))
EXP = define_op(
    **notation("exp"), engine="scalar", forward=lambda x: ((out := fexp(x)), (out,)),
    grads=(lambda g, out: g * out,), domain=(_ANY,))
LOG = define_op(
    **notation("log"), engine="scalar", forward=lambda x: (flog(x), (x,)),
    grads=(lambda g, x: fdiv(g, x),), domain=(_POS,))
SQRT = define_op(
    **notation("sqrt"), engine="scalar", forward=lambda x: ((out := fsqrt(x)), (out,)),
    grads=(lambda g, out: fdiv(g, 2.0 * out),), domain=(_POS,))
TANH = define_op(
    **notation("tanh"), engine="scalar", forward=lambda x: ((out := math.tanh(x)), (out,)),
    grads=(lambda g, out: g * (1.0 - out * out),), domain=(_ANY,))
SIGMOID = define_op(
    **notation("sigmoid"), engine="scalar", forward=lambda x: ((out := fsigmoid(x)), (out,)),
    grads=(lambda g, out: g * out * (1.0 - out),), domain=(_ANY,))
# ``x <= 0``, not ``not x > 0``: a nan input stays nan (and passes g back, as in
# PyTorch) instead of becoming a harmless-looking 0.
RELU = define_op(
    **notation("relu"), engine="scalar", forward=lambda x: (0.0 if x <= 0 else x, (x,)),
    grads=(lambda g, x: 0.0 if x <= 0 else g,), domain=(_ANY,))
ERF = define_op(
    **notation("erf"), engine="scalar", forward=lambda x: (math.erf(x), (x,)),
    grads=(lambda g, x: g * (_2_SQRTPI * fexp(-(x * x))),), domain=(_ANY,),
    doc="The error function, erf(x) = 2/√π ∫₀ˣ e^(−t²) dt: GELU's normal cdf is built on it.")


# GELU(x) = x·Φ(x) with Φ(x) = ½(1 + erf(x/√2)).  Both the forward and the rule call
# ``ERF`` (the op), not ``math.erf``: on a Value, in a create_graph pass, the rule's
# erf is then a recorded node, so the gradient can be differentiated again.
def _gelu_grad(g, x):
    """g · (Φ(x) + x·φ(x)), φ(x) = e^(−x²/2)/√(2π) the normal density."""
    return g * (0.5 * (1.0 + ERF(x / _SQRT2)) + x * _INV_SQRT_2PI * fexp(-0.5 * x * x))


GELU = define_op(
    **notation("gelu"), engine="scalar",
    forward=lambda x: (0.5 * x * (1.0 + ERF(x / _SQRT2)), (x,)),
    grads=(_gelu_grad,), domain=(_ANY,))
ABS = define_op(
    **notation("abs"), engine="scalar", forward=lambda x: (abs(x), (x,)),
    grads=(lambda g, x: g if x > 0 else (-g if x < 0 else g * 0.0),), domain=(_ANY,))
SIN = define_op(
    name="sin", engine="scalar", symbol="sin", forward=lambda x: (fsin(x), (x,)),
    grads=(lambda g, x: g * fcos(x),), formulas=("∂/∂x = cos(x)",), domain=(_ANY,))
COS = define_op(
    name="cos", engine="scalar", symbol="cos", forward=lambda x: (fcos(x), (x,)),
    grads=(lambda g, x: -g * fsin(x),), formulas=("∂/∂x = −sin(x)",), domain=(_ANY,))
MAXIMUM = define_op(
    **notation("maximum"), engine="scalar", forward=lambda a, b: (fmaximum(a, b), (a, b)),
    grads=(lambda g, a, b: _maximum_grad(g, a, b, True),
           lambda g, a, b: _maximum_grad(g, a, b, False)),
    domain=(_ANY, _ANY))
MINIMUM = define_op(
    **notation("minimum"), engine="scalar", forward=lambda a, b: (fminimum(a, b), (a, b)),
    grads=(lambda g, a, b: _minimum_grad(g, a, b, True),
           lambda g, a, b: _minimum_grad(g, a, b, False)),
    domain=(_ANY, _ANY))
