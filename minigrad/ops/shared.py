"""The ops both engines have, one entry each: notation and math written once.

``a * b`` is the same op whether ``a`` is a float (``Value``) or an array
(``Tensor``), so it is written once, as minitorch's ``operators.py`` serves its
scalar and tensor engines.  An entry gives an op's ``symbol``, its ``formulas``
(one per input, ``∂/∂<input> = ...``, true in both engines, edge cases
included), whether it is written ``infix``, and its **math**: a function of
``m``, the engine's primitives, that returns the op's ``forward`` and one
gradient rule per input::

    @shared("exp", "exp", formulas=("∂/∂x = exp(x) = out",))
    def _exp(m):
        exp = m.exp  # (a closure variable: no attribute lookup, no extra call, per rule)

        def forward(x):
            out = exp(x)
            return out, (out,)

        return forward, (lambda g, out: g * out,)

``ops.scalar`` binds every entry to ``FLOAT`` (Python floats, with IEEE answers
where Python raises) and ``ops.tensor`` to ``ARRAY`` (numpy), each adding only
its engine's facts: ``entry.define("tensor", ARRAY, ufunc=np.exp,
saves="output", ...)``.  The two engines' rules are then the same code
(``rule.__code__``) with different primitives in their closures;
``tests/minigrad/ops/test_shared_one_definition.py`` checks that for every op
registered in both engines.

The arithmetic operators (``a * b``, ``-g``, ``abs(x)``, ``x < y``) work on
floats, arrays and graph nodes alike, so the math uses them directly.  The
primitives cover the rest (``PRIMITIVES`` lists them): where floats and arrays
differ (``1/0`` raises on a float), where a test must read a number (``x == 0``
on a ``Value`` is identity, not a comparison) and where a value is chosen
(``where``, ``masked``).  In a ``create_graph`` pass the rules run on graph nodes:
every primitive a rule calls is the node's own op there, so the gradient is
recorded too (``engines/higher_order.py``).

**Overrides.**  An engine may replace the forward or one rule with its own code,
for speed or for an engine-only fact, by passing it to ``define``; each one is
recorded in ``entry.overrides`` with why, and the test walks every override and
checks it against the shared math (values and gradients; bit for bit where it
says so).  A one-ufunc tensor op's ``ufunc`` is the tensor operators' inline fast
path; the shared forward stays its ``forward`` and the test compares the two.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import NamedTuple

from ..core.op import Op, define_op, get_op, passthrough

__all__ = ["PRIMITIVES", "Primitives", "SharedOp", "Override", "SHARED", "NOTATION", "shared",
           "notation"]


@dataclass(frozen=True, kw_only=True)
class Primitives:
    """What the shared math needs from an engine beyond the arithmetic operators.

    Each is called on the engine's raw numbers (floats, or arrays), and, in a
    ``create_graph`` pass, on its graph nodes (where it must record, or read the
    node's number for a test).
    """

    engine: str
    exp: Callable  #: e^x, ``inf`` on overflow
    log: Callable  #: ln x, ``-inf`` at 0 and NaN below
    sqrt: Callable  #: √x, NaN below 0
    tanh: Callable
    erf: Callable  #: the error function on numbers (a rule that records uses ``op("erf")``)
    div: Callable  #: a / b, ``±inf``/NaN at b = 0
    pow: Callable  #: x^p as a real number (NaN for a negative base and fractional p)
    maximum: Callable  #: the larger of two, NaN if either is
    minimum: Callable  #: the smaller of two, NaN if either is
    sign: Callable  #: −1, 0 or 1 (0 at NaN, as PyTorch)
    where: Callable  #: ``where(cond, a, b)``: a where cond holds, else b
    masked: Callable  #: ``masked(g, w)``: g·w where w ≠ 0 and exactly 0 elsewhere, whatever g is
    nonzero: Callable  #: x ≠ 0 (true at NaN), as a mask
    is_zero: Callable  #: x = 0, as a mask that also adds (``p − 1 + is_zero(p)``)
    like: Callable  #: ``like(w, x)``: w in x's dtype (masks and weights of 0, ½, 1)
    quiet: Callable  #: ``with quiet():`` no warnings for ``log 0`` or ``0·inf`` inside

    def op(self, name: str) -> Op:
        """This engine's registered op ``name``, for math that uses another shared op:
        on numbers it computes, on a graph node it records (``Op.__call__``)."""
        return get_op(name, self.engine)


#: the primitives every engine provides (the fields of ``Primitives`` but its engine)
PRIMITIVES = tuple(f.name for f in fields(Primitives) if f.name != "engine")


class Override(NamedTuple):
    """Why an engine replaces an entry's forward or one of its rules with its own code,
    and whether the test may demand the shared math's bits (``exact``) or a tolerance."""

    why: str
    exact: bool = True


@dataclass(frozen=True, eq=False, kw_only=True)
class SharedOp:
    """One op both engines have: its notation and its math (see the module doc)."""

    name: str
    symbol: str
    formulas: tuple[str, ...]
    infix: bool
    math: Callable[[Primitives], tuple]  # math(m) -> (forward, (rule, ...))
    doc: str = ""
    #: {engine: the Op built from this entry}
    ops: dict = field(default_factory=dict, repr=False)
    #: {engine: {"forward" or "grads[i]": (the engine's function, Override)}}
    overrides: dict = field(default_factory=dict, repr=False)

    def bind(self, m: Primitives) -> tuple:
        """``(forward, grads)``: the math with ``m``'s primitives in its closures."""
        forward, grads = self.math(m)
        return forward, tuple(grads)

    def define(self, engine: str, m: Primitives, *, forward=None, grads=None,
               why: dict | None = None, **facts) -> Op:
        """Register this op for ``engine``: the shared math bound to ``m``, plus the
        engine's ``facts`` (``ufunc``, ``cases``, ``domain`` ...).  ``forward=`` or
        ``grads={slot: rule}`` replace the shared code: overrides, each with its
        reason in ``why={"forward": Override(...)}``."""
        if m.engine != engine:
            raise ValueError(f"{self.name}: {engine} ops take {engine} primitives, "
                             f"not {m.engine}'s")
        shared_forward, rules = self.bind(m)
        rules = list(rules)
        mine = {}
        why = why or {}
        replaced = [("forward", forward)] + [(f"grads[{i}]", r) for i, r in (grads or {}).items()]
        for what, code in replaced:
            if code is None:
                continue
            if what not in why:
                raise TypeError(f"{self.name}: the {engine} override of {what} needs its "
                                f"reason: why={{{what!r}: Override(...)}}")
            mine[what] = (code, why[what])
            if what == "forward":
                shared_forward = code
            else:
                rules[int(what[6:-1])] = code
        op = define_op(**notation(self.name), engine=engine, forward=shared_forward,
                       grads=tuple(rules), doc=self.doc, **facts)
        self.ops[engine] = op
        self.overrides[engine] = mine
        return op


#: every entry, by name, in definition order
SHARED: dict[str, SharedOp] = {}


def shared(name: str, symbol: str, *, formulas: tuple[str, ...], infix: bool = False):
    """Decorator: make the function ``math(m) -> (forward, grads)`` the entry ``name``."""

    def declare(math_of):
        if name in SHARED:
            raise ValueError(f"shared op {name!r} is already defined")
        SHARED[name] = SharedOp(name=name, symbol=symbol, formulas=formulas, infix=infix,
                                math=math_of, doc=(math_of.__doc__ or "").strip())
        return math_of

    return declare


def notation(name: str) -> dict:
    """The notation of shared op ``name``: ``name``, ``symbol``, ``formulas`` and ``infix``."""
    entry = SHARED[name]
    return {"name": name, "symbol": entry.symbol, "formulas": entry.formulas,
            "infix": entry.infix}


# ================================================================================================
# The entries.  Where a derivative is 0 at a point (|x| at 0, ∂(x^p)/∂p at x = 0) a rule
# returns g·0, not a plain 0, so a NaN or inf arriving from later ops stays visible, as in
# PyTorch; where PyTorch blocks the gradient (relu, a lost maximum, x^0) ``masked``/``where``
# give a plain 0 whatever g is.
# ================================================================================================

# --- arithmetic, written between the operands ---------------------------------------------------
@shared("add", "+", formulas=("∂/∂a = 1", "∂/∂b = 1"), infix=True)
def _add(m):
    """Addition routes the gradient unchanged to both inputs; it saves nothing."""
    return (lambda a, b: (a + b, ())), (passthrough, passthrough)


@shared("sub", "−", formulas=("∂/∂a = 1", "∂/∂b = −1"), infix=True)
def _sub(m):
    """Subtraction passes g to a and −g to b; it saves nothing."""
    return (lambda a, b: (a - b, ())), (passthrough, lambda g: -g)


@shared("mul", "×", formulas=("∂/∂a = b", "∂/∂b = a"), infix=True)
def _mul(m):
    """Each input's gradient is the upstream gradient times the *other* input."""
    return (lambda a, b: (a * b, (a, b))), (lambda g, a, b: g * b, lambda g, a, b: g * a)


@shared("div", "÷", formulas=("∂/∂a = 1/b", "∂/∂b = −a/b² = −out/b"), infix=True)
def _div(m):
    """Division saves b and its output: ∂/∂b = −a/b² is −out/b.  Computed as −g·(out/b),
    PyTorch's order: ``b·b`` would under/overflow for |b| beyond ~1e±154 where the
    gradient itself is representable, and ``(g·out)/b`` can overflow before the division.

    (Settled from two versions: the scalar engine saved (a, b) and computed
    −g·((a/b)/b), the same number; the tensor engine −(g·out)/b.)"""
    div = m.div

    def forward(a, b):
        out = div(a, b)
        return out, (b, out)

    return forward, (lambda g, b, out: div(g, b), lambda g, b, out: -(g * div(out, b)))


@shared("pow", "**", infix=True, formulas=(
        "∂/∂x = p·x^(p−1) (0 where p = 0)",
        "∂/∂p = x^p·ln x (0 where x = 0 and p ≥ 0; NaN where x < 0)"))
def _pow(m):
    """Power rule for the base; x^p·ln x for the exponent, which needs x > 0.  At the edges
    the gradients follow PyTorch: ∂/∂x is a plain 0 wherever p = 0, whatever g is (x^0 is
    the constant 1; even at x = 0, where p·x^(p−1) would be 0·inf = NaN), and g·(p·x^(p−1))
    elsewhere, g last (g·p can under/overflow on its own); ∂/∂p is 0 at x = 0 for p ≥ 0
    (the limit) and NaN for a negative base (ln x is undefined).

    (Settled from two versions: the scalar engine branched on p and multiplied g last, the
    tensor engine masked p = 0 by raising x to 0 there and multiplied g first, so a NaN g
    came through at p = 0.  Now both mask, raise x to 0 where p = 0, and multiply g last.)"""
    pow_, log, where, is_zero, quiet = m.pow, m.log, m.where, m.is_zero, m.quiet

    def forward(x, p):
        out = pow_(x, p)
        return out, (x, p, out)

    def grad_base(g, x, p, out):
        zero = is_zero(p)  # x is raised to p − 1 + 1 = 0 where p = 0: x⁰ = 1, no 0·inf
        return where(zero, 0.0, g * (p * pow_(x, p - 1 + zero)))

    def grad_exponent(g, x, p, out):
        with quiet():  # (0·ln 0 = 0·(−inf), masked right away)
            return g * where(is_zero(x) * (p >= 0), 0.0, out * log(x))

    return forward, (grad_base, grad_exponent)


# --- one input ----------------------------------------------------------------------------------
@shared("neg", "−", formulas=("∂/∂x = −1",))
def _neg(m):
    """Negation sends −g back; it saves nothing."""
    return (lambda x: (-x, ())), (lambda g: -g,)


@shared("exp", "exp", formulas=("∂/∂x = exp(x) = out",))
def _exp(m):
    """The exponential is its own derivative, so it saves its output."""
    exp = m.exp

    def forward(x):
        out = exp(x)
        return out, (out,)

    return forward, (lambda g, out: g * out,)


@shared("log", "log", formulas=("∂/∂x = 1/x",))
def _log(m):
    """The natural logarithm saves its input: ∂/∂x = 1/x."""
    log, div = m.log, m.div
    return (lambda x: (log(x), (x,))), (lambda g, x: div(g, x),)


@shared("sqrt", "√", formulas=("∂/∂x = 1/(2√x) = 1/(2·out)",))
def _sqrt(m):
    """The square root saves its output: ∂/∂x = 1/(2·out)."""
    sqrt, div = m.sqrt, m.div

    def forward(x):
        out = sqrt(x)
        return out, (out,)

    return forward, (lambda g, out: div(g, 2.0 * out),)


@shared("tanh", "tanh", formulas=("∂/∂x = 1 − tanh²(x) = 1 − out²",))
def _tanh(m):
    """tanh saves its output: ∂/∂x = 1 − out², computed as g·(1 − out·out), PyTorch's
    formula: an inf g gives inf where |out| < 1 (g − g·out·out would give inf − inf = NaN).

    (Settled from three versions: this one, the scalar engine's; the tensor engine's
    g − g·out·out for small arrays, ~0.3 us faster on a 4x4 array because it converts
    no constant 1, but NaN for an inf g; and its in-place large-array path, which stays,
    as an override that computes this formula.)"""
    tanh = m.tanh

    def forward(x):
        out = tanh(x)
        return out, (out,)

    return forward, (lambda g, out: g * (1 - out * out),)


@shared("sigmoid", "σ", formulas=("∂/∂x = σ(x)·(1 − σ(x)) = out·(1 − out)",))
def _sigmoid(m):
    """σ(x) = 1/(1 + e^−x) overflows e^−x for very negative x; with e = e^−|x| ≤ 1 it is
    r = 1/(1 + e) for x ≥ 0 and e·r for x < 0, both safe.  It saves its output:
    ∂/∂x = out·(1 − out), computed as g·(out − out·out).

    (Settled from two forwards, the scalar engine's e/(1 + e) for x < 0 and the tensor
    engine's e·(1/(1 + e)), and three rules.  The tensor engine's forward and its
    large-array rule are overrides that compute these formulas in place.)"""
    exp, where = m.exp, m.where

    def forward(x):
        e = exp(-abs(x))
        r = 1 / (1 + e)
        out = where(x >= 0, r, e * r)
        return out, (out,)

    return forward, (lambda g, out: g * (out - out * out),)


@shared("relu", "ReLU", formulas=("∂/∂x = 1 if x > 0 else 0 (a NaN passes the gradient on)",))
def _relu(m):
    """max(x, 0).  It saves its output: the gradient passes where out ≠ 0, which is where
    x > 0, and where x is NaN (PyTorch passes g there too, rather than hide the NaN); it
    is exactly 0 elsewhere, even for an inf g.

    (Settled: the scalar engine saved its input, the tensor engine its output, which the
    node holds anyway.  The scalar engine spells this forward and rule inline, an override
    for speed: relu is in every hidden unit of an MLP.)"""
    maximum, masked, nonzero = m.maximum, m.masked, m.nonzero

    def forward(x):
        out = maximum(x, 0.0)
        return out, (out,)

    return forward, (lambda g, out: masked(g, nonzero(out)),)


_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)


@shared("erf", "erf", formulas=("∂/∂x = 2/√π · e^(−x²)",))
def _erf(m):
    """The error function, erf(x) = 2/√π ∫₀ˣ e^(−t²) dt: GELU's normal cdf is built on it."""
    erf, exp = m.erf, m.exp
    return (lambda x: (erf(x), (x,))), (lambda g, x: g * (_2_SQRTPI * exp(-(x * x))),)


@shared("gelu", "GELU", formulas=("∂/∂x = Φ(x) + x·φ(x) (Φ, φ: standard normal cdf and pdf)",))
def _gelu(m):
    """GELU(x) = x·Φ(x), Φ(x) = ½(1 + erf(x/√2)) the normal cdf; it saves x and Φ(x), and
    ∂/∂x = Φ(x) + x·φ(x), φ(x) = e^(−x²/2)/√(2π).  The forward calls the ``erf`` *op*: in a
    ``create_graph`` pass the saved cdf is recomputed by running this forward on the input
    node, and every step of it is recorded.  ``approximate="tanh"`` (a tensor setting: the
    scalar engine's ops take none) is PyTorch's tanh approximation.

    (Settled: the scalar engine saved x alone and recomputed the cdf in backward, as
    ½x(1 + erf(x/√2)); both now save the cdf and compute it as the tensor engine did.)"""
    erf, exp, tanh = m.op("erf"), m.exp, m.tanh

    def forward(x, approximate="none"):
        if approximate == "tanh":  # ½x(1 + tanh(√(2/π)·(x + 0.044715·x³)))
            t = tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x))
            return 0.5 * x * (1 + t), (x, t)
        cdf = 0.5 * (1 + erf(x * _SQRT1_2))
        return x * cdf, (x, cdf)

    def grad(g, x, c, approximate="none"):
        if approximate == "tanh":
            dinner = _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
            return g * (0.5 * (1 + c) + 0.5 * x * (1 - c * c) * dinner)
        return g * (c + x * (_INV_SQRT_2PI * exp(-0.5 * x * x)))

    return forward, (grad,)


@shared("abs", "|x|", formulas=("∂/∂x = sign(x) (0 at x = 0 and at NaN)",))
def _abs(m):
    """|x| saves its input: ∂/∂x = sign(x), so at 0 (and at NaN) g·0: an inf or NaN g
    stays visible, as in PyTorch."""
    sign = m.sign
    return (lambda x: (abs(x), (x,))), (lambda g, x: g * sign(x),)


# --- the larger / smaller of two ----------------------------------------------------------------
@shared("maximum", "max", formulas=(
        "∂/∂a = 1 if a > b, 0 if a < b, ½ on a tie (1 if either is NaN)",
        "∂/∂b = 1 if b > a, 0 if b < a, ½ on a tie (1 if either is NaN)"))
def _maximum(m):
    """The larger of a and b.  Each input's share of the gradient is a weight computed in
    forward: 0 where it lost, ½ on a tie (the tie's gradient is shared, its total
    conserved), 1 elsewhere; where either input is NaN nobody lost or tied, so both get
    the whole gradient, as in PyTorch.  The weights are constants of the graph
    (``constant_saves``).

    (Settled: the scalar engine saved a and b and compared them in backward; both now
    save the weights, as the tensor engine did.)"""
    maximum, masked, like = m.maximum, m.masked, m.like

    def forward(a, b):
        out = maximum(a, b)
        tie = 0.5 * (a == b)
        return out, (like(1.0 - (a < b) - tie, out), like(1.0 - (b < a) - tie, out))

    return forward, (lambda g, share_a, share_b: masked(g, share_a),
                     lambda g, share_a, share_b: masked(g, share_b))


@shared("minimum", "min", formulas=(
        "∂/∂a = 1 if a < b, 0 if a > b, ½ on a tie (1 if either is NaN)",
        "∂/∂b = 1 if b < a, 0 if b > a, ½ on a tie (1 if either is NaN)"))
def _minimum(m):
    """The smaller of a and b, with ``maximum``'s weights, the comparisons reversed."""
    minimum, masked, like = m.minimum, m.masked, m.like

    def forward(a, b):
        out = minimum(a, b)
        tie = 0.5 * (a == b)
        return out, (like(1.0 - (a > b) - tie, out), like(1.0 - (b > a) - tie, out))

    return forward, (lambda g, share_a, share_b: masked(g, share_a),
                     lambda g, share_a, share_b: masked(g, share_b))


#: the notation of every entry, by name (what the renderers and the step-through panel show)
NOTATION: dict[str, dict] = {name: {k: v for k, v in notation(name).items() if k != "name"}
                             for name in SHARED}
