"""The scalar engine's op table: one ``define_op`` per op.

The ops the tensor engine has too (all but sin and cos) are the entries of
``ops.shared``, their math written once and bound here to ``FLOAT``, this
engine's primitives; this module adds only their safe input ``domain``.  Each
op's ``forward(*xs) -> (out, saved)`` works on Python floats; each gradient
rule ``rule(g, *saved)`` returns ``g · ∂out/∂input``.  Python's float
arithmetic raises where IEEE 754 (and PyTorch) return ``inf`` or ``nan``
(``1/0``, ``math.exp(1000)``, ``(-8) ** (1/3)``); the helpers below give the
IEEE answers instead, so a student sees the ``inf``/``nan`` that anomaly
detection is there to catch rather than a Python exception.
"""

from __future__ import annotations

import contextlib
import math

from ..core.op import define_op
from .shared import SHARED, Override, Primitives

INF = math.inf
NAN = math.nan


# --- IEEE-style float helpers -------------------------------------------------------
# The gradient rules call these on floats, and in a ``create_graph`` backward pass on
# ``Value`` nodes (see ``engines/higher_order.py``): on a node each helper is the node's
# own op (or reads the node's number, for a test), so the rule is recorded too.
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


def fsign(x) -> float:
    """−1.0, 0.0 or 1.0 (0.0 at nan, as PyTorch's ``sign`` in a gradient); a node's number
    (``<`` on a Value compares numbers)."""
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


def fwhere(cond, a, b):
    """``a if cond else b``: ``where`` for one number (both were computed already)."""
    return a if cond else b


def fmasked(g, w):
    """g·w, exactly 0.0 where w is 0 (a blocked gradient, even for an inf or nan g); g itself
    where w is 1 (relu, a won maximum)."""
    if not w:
        return 0.0
    return g if w == 1 else g * w


def fis_zero(x) -> float:
    """1.0 where x (a node's number) is 0, else 0.0: a mask that adds (``p − 1 + mask``)."""
    return 1.0 if _num(x) == 0 else 0.0


def _as_is(w, like):
    return w


_QUIET = contextlib.nullcontext()

#: the scalar engine's primitives (``ops.shared``): Python floats, IEEE answers.
#: ``bool`` is a number's ``nonzero`` (true at nan; a Value's ``bool`` reads its number).
#: ``tanh``, ``sqrt``, ``erf`` take floats only: no rule calls them on a node.
FLOAT = Primitives(
    engine="scalar", exp=fexp, log=flog, sqrt=fsqrt, tanh=math.tanh, erf=math.erf, div=fdiv,
    pow=fpow, maximum=fmaximum, minimum=fminimum, sign=fsign, where=fwhere, masked=fmasked,
    nonzero=bool, is_zero=fis_zero, like=_as_is, quiet=lambda: _QUIET)

# Ranges chosen so every op is smooth there: division keeps away from 0, log and
# fractional powers from non-positive bases.
_ANY = (-2.0, 2.0)
_POS = (0.3, 2.5)


def _shared(name, *domain):
    return SHARED[name].define("scalar", FLOAT, domain=domain)


ADD = _shared("add", _ANY, _ANY)
SUB = _shared("sub", _ANY, _ANY)
MUL = _shared("mul", _ANY, _ANY)
DIV = _shared("div", _ANY, _POS)
POW = _shared("pow", _POS, (-2.0, 3.0))
NEG = _shared("neg", _ANY)
EXP = _shared("exp", _ANY)
LOG = _shared("log", _POS)
SQRT = _shared("sqrt", _POS)
TANH = _shared("tanh", _ANY)
SIGMOID = _shared("sigmoid", _ANY)
# relu is in every hidden unit of an MLP: on floats its shared forward and rule would make
# one Python call each (``maximum``, ``masked``), so the scalar engine spells them inline.
_INLINE = Override("Speed: relu runs on every hidden unit; the shared forward and rule "
                   "call maximum() and masked(), one Python call each, inline here.")
RELU = SHARED["relu"].define(
    "scalar", FLOAT, domain=(_ANY,), why={"forward": _INLINE, "grads[0]": _INLINE},
    forward=lambda x: ((out := x if x >= 0 or x != x else 0.0), (out,)),
    grads={0: lambda g, out: g if out else 0.0})
ERF = _shared("erf", _ANY)
GELU = _shared("gelu", _ANY)
ABS = _shared("abs", _ANY)
MAXIMUM = SHARED["maximum"].define("scalar", FLOAT, domain=(_ANY, _ANY), constant_saves=True)
MINIMUM = SHARED["minimum"].define("scalar", FLOAT, domain=(_ANY, _ANY), constant_saves=True)

# --- the scalar engine's own ops ---------------------------------------------------------
SIN = define_op(
    name="sin", engine="scalar", symbol="sin", forward=lambda x: (fsin(x), (x,)),
    grads=(lambda g, x: g * fcos(x),), formulas=("∂/∂x = cos(x)",), domain=(_ANY,))
COS = define_op(
    name="cos", engine="scalar", symbol="cos", forward=lambda x: (fcos(x), (x,)),
    grads=(lambda g, x: -g * fsin(x),), formulas=("∂/∂x = −sin(x)",), domain=(_ANY,))
