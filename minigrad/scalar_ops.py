"""The scalar engine's op table: one registry entry per op.

Each entry's ``forward(*xs) -> (out, saved)`` works on Python floats; each
gradient rule ``rule(g, *saved)`` returns ``g · ∂out/∂input``.  Python's float
arithmetic raises where IEEE 754 (and PyTorch) return ``inf`` or ``nan``
(``1/0``, ``math.exp(1000)``, ``(-8) ** (1/3)``); the helpers below give the
IEEE answers instead, so a student sees the ``inf``/``nan`` that anomaly
detection is there to catch rather than a Python exception.
"""

from __future__ import annotations

import math

from .autograd.registry import define_op, passthrough

INF = math.inf
NAN = math.nan
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# --- IEEE-style float helpers -------------------------------------------------------
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
    return math.sin(x) if math.isfinite(x) else NAN


def fcos(x: float) -> float:
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
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def flog(x: float) -> float:
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
    if x == 0 and p >= 0:
        return g * 0.0
    return g * out * flog(x)


def _maximum_grad(g, a, b, first):
    if a == b:
        return 0.5 * g  # a tie shares the gradient, so its total is conserved
    if a != a or b != b:
        return g  # a nan result: both inputs get g, as in PyTorch
    return g if (a > b) == first else 0.0


def _minimum_grad(g, a, b, first):
    if a == b:
        return 0.5 * g
    if a != a or b != b:
        return g
    return g if (a < b) == first else 0.0


def _op(name, symbol, forward, grads, formula, domain, doc=""):
    """(transitional) A scalar op from the old positional fields."""
    parts = tuple(p.strip() for p in formula.split(",  "))
    if len(parts) != len(grads):
        parts = (formula,) + ("",) * (len(grads) - 1)
    return define_op(name=name, engine="scalar", symbol=symbol, forward=forward,
                     grads=tuple(grads), formulas=parts, domain=domain, doc=doc)


# Ranges chosen so every op is smooth there: division keeps away from 0, log and
# fractional powers from non-positive bases.
_ANY = (-2.0, 2.0)
_POS = (0.3, 2.5)

ADD = _op("add", "+", lambda a, b: (a + b, ()),
          (passthrough, passthrough),
          "∂/∂a = 1,  ∂/∂b = 1", (_ANY, _ANY),
          "Addition routes the gradient unchanged to both inputs; it saves nothing.")
SUB = _op("sub", "−", lambda a, b: (a - b, ()),
          (passthrough, lambda g: -g),
          "∂/∂a = 1,  ∂/∂b = −1", (_ANY, _ANY))
MUL = _op("mul", "×", lambda a, b: (a * b, (a, b)),
          (lambda g, a, b: g * b, lambda g, a, b: g * a),
          "∂/∂a = b,  ∂/∂b = a", (_ANY, _ANY),
          "Each input's gradient is the upstream gradient times the *other* input.")
# ∂/∂b = −a/b² as (a/b)/b: b·b under/overflows for |b| beyond ~1e±154 where the
# gradient itself is representable.
DIV = _op("div", "÷", lambda a, b: (fdiv(a, b), (a, b)),
          (lambda g, a, b: fdiv(g, b), lambda g, a, b: -(g * fdiv(fdiv(a, b), b))),
          "∂/∂a = 1/b,  ∂/∂b = −a/b²", (_ANY, _POS))
POW = _op("pow", "**", lambda x, p: ((out := fpow(x, p)), (x, p, out)),
          (_pow_grad_base, _pow_grad_exponent),
          "∂/∂x = p·x^(p−1) (0 where p = 0),  ∂/∂p = x^p·ln x", (_POS, (-2.0, 3.0)),
          "At p = 0 the power is the constant 1, so ∂/∂x is 0 even at x = 0, where "
          "p·x^(p−1) would be 0·inf = nan (PyTorch agrees).")
NEG = _op("neg", "−", lambda x: (-x, ()), (lambda g: -g,), "∂/∂x = −1", (_ANY,))
EXP = _op("exp", "exp", lambda x: ((out := fexp(x)), (out,)),
          (lambda g, out: g * out,), "∂/∂x = exp(x) = out", (_ANY,))
LOG = _op("log", "log", lambda x: (flog(x), (x,)),
          (lambda g, x: fdiv(g, x),), "∂/∂x = 1/x", (_POS,))
SQRT = _op("sqrt", "√", lambda x: ((out := fsqrt(x)), (out,)),
           (lambda g, out: fdiv(g, 2.0 * out),), "∂/∂x = 1/(2√x) = 1/(2·out)", (_POS,))
TANH = _op("tanh", "tanh", lambda x: ((out := math.tanh(x)), (out,)),
           (lambda g, out: g * (1.0 - out * out),), "∂/∂x = 1 − tanh²(x) = 1 − out²", (_ANY,))
SIGMOID = _op("sigmoid", "σ", lambda x: ((out := fsigmoid(x)), (out,)),
              (lambda g, out: g * out * (1.0 - out),), "∂/∂x = σ(x)·(1 − σ(x)) = out·(1 − out)",
              (_ANY,))
# ``x <= 0``, not ``not x > 0``: a nan input stays nan (and passes g back, as in
# PyTorch) instead of becoming a harmless-looking 0.
RELU = _op("relu", "ReLU", lambda x: (0.0 if x <= 0 else x, (x,)),
           (lambda g, x: 0.0 if x <= 0 else g,), "∂/∂x = 1 if x > 0 else 0", (_ANY,))
GELU = _op("gelu", "GELU", lambda x: (0.5 * x * (1.0 + math.erf(x / _SQRT2)), (x,)),
           (lambda g, x: g * (0.5 * (1.0 + math.erf(x / _SQRT2))
                              + x * _INV_SQRT_2PI * math.exp(-0.5 * x * x)),),
           "∂/∂x = Φ(x) + x·φ(x)", (_ANY,))
ABS = _op("abs", "|x|", lambda x: (abs(x), (x,)),
          (lambda g, x: g if x > 0 else (-g if x < 0 else g * 0.0),), "∂/∂x = sign(x)",
          (_ANY,))
SIN = _op("sin", "sin", lambda x: (fsin(x), (x,)),
          (lambda g, x: g * fcos(x),), "∂/∂x = cos(x)", (_ANY,))
COS = _op("cos", "cos", lambda x: (fcos(x), (x,)),
          (lambda g, x: -g * fsin(x),), "∂/∂x = −sin(x)", (_ANY,))
MAXIMUM = _op("maximum", "max", lambda a, b: (fmaximum(a, b), (a, b)),
              (lambda g, a, b: _maximum_grad(g, a, b, True),
               lambda g, a, b: _maximum_grad(g, a, b, False)),
              "∂/∂a = 1 if a > b else 0 (½ each on a tie)", (_ANY, _ANY))
MINIMUM = _op("minimum", "min", lambda a, b: (fminimum(a, b), (a, b)),
              (lambda g, a, b: _minimum_grad(g, a, b, True),
               lambda g, a, b: _minimum_grad(g, a, b, False)),
              "∂/∂a = 1 if a < b else 0 (½ each on a tie)", (_ANY, _ANY))
