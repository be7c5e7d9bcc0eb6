"""Elementwise tensor ops: arithmetic, comparisons-as-masks, activations.

Every rule here returns a gradient in the *output* (broadcast) shape and
dtype, either ``g`` itself or a fresh array; the engine sums it back to each
input's shape with ``unbroadcast``.  All of them are registered with
``elementwise=True``: when no input was broadcast or promoted (``Node.grads_fit_inputs``)
the engine adds their results in without checking them, a promise that
``tests/test_tensor_registry.py`` verifies for every op.  Python
numbers in the rules (``0.5``, ``1``) do not promote float32 arrays (NEP 50),
so float32 stays float32 through forward and backward.
"""

from __future__ import annotations

import math

import numpy as np

from ..autograd.registry import passthrough
from ._base import BROADCAST_PAIRS, away_from_zero, masked, nd, tensor_op, uniform

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# --- test inputs ------------------------------------------------------------------
def _binary_cases(a_vals, b_vals):
    def cases(rng):
        return [((a_vals(rng, sa), b_vals(rng, sb)), {}) for sa, sb in BROADCAST_PAIRS]

    return cases


def _unary_cases(vals, **attrs):
    def cases(rng):
        return [((vals(rng, s),), dict(attrs)) for s in ((), (4,), (3, 5), (2, 3, 4))]

    return cases


def _pos(rng, shape):
    return np.asarray(rng.uniform(0.3, 2.5, size=shape))


def _elementwise_op(*args, **kwargs):
    """``tensor_op`` with ``elementwise=True``: every op in this module is one."""
    return tensor_op(*args, elementwise=True, **kwargs)


def _ufunc_op(name, symbol, ufunc, saves, grads, formula, cases, **kwargs):
    """(transitional) An elementwise op that is one numpy ufunc call, keeping ``saves``."""
    return _elementwise_op(name, symbol, None, grads, formula, cases, ufunc=ufunc,
                           saves=saves, **kwargs)


# --- arithmetic -------------------------------------------------------------------
ADD = _ufunc_op(
    "add", "+", np.add, "nothing",
    (passthrough, passthrough),
    "∂/∂a = 1,  ∂/∂b = 1", _binary_cases(uniform, uniform),
    doc="Addition passes the upstream gradient unchanged to both inputs; it saves nothing.",
    promote=True)
SUB = _ufunc_op(
    "sub", "−", np.subtract, "nothing",
    (passthrough, lambda g: nd(-g)),
    "∂/∂a = 1,  ∂/∂b = −1", _binary_cases(uniform, uniform), promote=True)
MUL = _ufunc_op(
    "mul", "×", np.multiply, "inputs",
    (lambda g, a, b: nd(g * b), lambda g, a, b: nd(g * a)),
    "∂/∂a = b,  ∂/∂b = a", _binary_cases(uniform, uniform),
    doc="Each input's gradient is the upstream gradient times the *other* input.",
    promote=True)
def _div_forward(a, b):
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        # True division of integers gives PyTorch's default float32, not numpy's float64
        # (such inputs never need a gradient, so the rules below never see them).
        a = a.astype(np.float32)
        b = b.astype(np.float32)
    out = a / b
    return out, (b, out)


DIV = _elementwise_op(
    "div", "÷", _div_forward,
    (lambda g, b, out: nd(g / b), lambda g, b, out: nd(-g * out / b)),
    "∂/∂a = 1/b,  ∂/∂b = −a/b² = −out/b", _binary_cases(uniform, away_from_zero),
    promote=True)


def _pow_grad_base(g, x, p, out):
    # p·x^(p−1), exactly 0 where p = 0 (as in PyTorch): there x^(p−1) may be inf (x = 0)
    # and 0·inf is NaN.  An exponent per element is raised to 0 instead where p = 0
    # (x^0 = 1 for every x), which changes no other element; adding the bool mask keeps
    # p's dtype.  A scalar exponent (x ** 2, the common case) just takes a branch.
    if p.ndim:
        return nd(g * p * x ** (p - 1 + (p == 0)))
    return nd(g * p * x ** (p - 1)) if p else nd(g * p)


def _pow_grad_exponent(g, x, p, out):
    # d(x^p)/dp = x^p · ln x.  Where x = 0 and p ≥ 0 it is 0, the limit (as in PyTorch;
    # numerically 0·(−inf)).  Where x < 0, ln x is undefined and so is the gradient: NaN,
    # as in PyTorch (x^p is only real there for integer p, so it has no slope in p).
    with np.errstate(divide="ignore", invalid="ignore"):
        return nd(g * np.where((x == 0) & (p >= 0), 0, out * np.log(x)))


POW = _elementwise_op(
    "pow", "**", lambda x, p: ((out := x**p), (x, p, out)),
    (_pow_grad_base, _pow_grad_exponent),
    "∂/∂x = p·x^(p−1) (0 where p = 0),  ∂/∂p = x^p·ln x (0 where x = 0 and p ≥ 0; "
    "NaN where x < 0)",
    _binary_cases(_pos, uniform),
    doc="Power rule for the base; x^p·ln x for the exponent, which needs x > 0.  At the "
        "edges the gradients follow PyTorch: ∂/∂x is 0 wherever p = 0 (even at x = 0, where "
        "p·x^(p−1) would be 0·inf), ∂/∂p is 0 at x = 0 for p ≥ 0 (the limit) and NaN for "
        "a negative base (ln x is undefined).",
    promote=True)
NEG = _ufunc_op("neg", "−", np.negative, "nothing", (lambda g: nd(-g),), "∂/∂x = −1",
                _unary_cases(uniform))


def _extreme_weights(lose, tie, dtype):
    """An input's share of a ``maximum``/``minimum`` gradient: 0 where it lost, ½ on a
    tie (so the tie's gradient is shared and its total conserved), 1 elsewhere.  Where
    either input is NaN nobody lost or tied, so both get the whole gradient, as in
    PyTorch: the NaN output's cause is not hidden from either of them."""
    return (1.0 - lose - 0.5 * tie).astype(dtype, copy=False)


def _maximum_forward(a, b):
    out = np.maximum(a, b)
    tie = a == b
    return out, (_extreme_weights(a < b, tie, out.dtype), _extreme_weights(b < a, tie, out.dtype))


def _minimum_forward(a, b):
    out = np.minimum(a, b)
    tie = a == b
    return out, (_extreme_weights(a > b, tie, out.dtype), _extreme_weights(b > a, tie, out.dtype))


MAXIMUM = _elementwise_op(
    "maximum", "max", _maximum_forward,
    (lambda g, wa, wb: masked(g, wa), lambda g, wa, wb: masked(g, wb)),
    "∂/∂a = 1 if a > b, 0 if a < b, ½ on a tie (1 if either is NaN)",
    _binary_cases(uniform, uniform), promote=True)
MINIMUM = _elementwise_op(
    "minimum", "min", _minimum_forward,
    (lambda g, wa, wb: masked(g, wa), lambda g, wa, wb: masked(g, wb)),
    "∂/∂a = 1 if a < b, 0 if a > b, ½ on a tie (1 if either is NaN)",
    _binary_cases(uniform, uniform), promote=True)


def _where_forward(cond, a, b):
    return np.where(cond, a, b), (cond,)


def _where_cases(rng):
    out = []
    for sa, sb in BROADCAST_PAIRS[:5]:
        shape = np.broadcast_shapes(sa, sb)
        out.append(((np.asarray(rng.random(shape) > 0.5), uniform(rng, sa), uniform(rng, sb)), {}))
    return out


WHERE = _elementwise_op(
    "where", "where", _where_forward,
    (lambda g, cond: None,
     lambda g, cond: masked(g, cond),  # (g·mask, not np.where: see masked)
     lambda g, cond: masked(g, ~cond)),
    "∂/∂a = 1 where cond else 0,  ∂/∂b = 0 where cond else 1", _where_cases,
    doc="Picks a where the (boolean, non-differentiable) condition holds, b elsewhere.",
    promote=slice(1, None))


def _clip_forward(x, min=None, max=None):
    out = np.clip(x, min, max)
    inside = np.ones(x.shape, dtype=bool)
    if min is not None:
        inside &= x >= min
    if max is not None:
        inside &= x <= max
    return out, (inside,)


def _clip_label(attrs):
    def show(b):  # an array bound is shown by its shape, not its values
        return f"array{b.shape}" if isinstance(b, np.ndarray) else b

    return f"clip[{show(attrs.get('min'))}, {show(attrs.get('max'))}]"


CLIP = _elementwise_op(
    "clip", "clip", _clip_forward, (lambda g, inside, **_: masked(g, inside),),
    "∂/∂x = 1 if min ≤ x ≤ max else 0",
    lambda rng: [((uniform(rng, (3, 4)),), {"min": -0.55, "max": 0.65}),
                 ((uniform(rng, (5,)),), {"min": None, "max": 0.25}),
                 ((uniform(rng, ()),), {"min": -0.05, "max": None})],
    label=_clip_label,
)


# --- unary functions --------------------------------------------------------------
EXP = _ufunc_op("exp", "exp", np.exp, "output",
                (lambda g, out: nd(g * out),), "∂/∂x = exp(x) = out",
                _unary_cases(uniform), float_only=True)
LOG = _ufunc_op("log", "log", np.log, "inputs",
                (lambda g, x: nd(g / x),), "∂/∂x = 1/x", _unary_cases(_pos),
                float_only=True)
SQRT = _ufunc_op("sqrt", "√", np.sqrt, "output",
                 (lambda g, out: nd(g / (2 * out)),), "∂/∂x = 1/(2√x) = 1/(2·out)",
                 _unary_cases(_pos), float_only=True)
def _abs_grad(g, x):
    """g · sign(x), with sign(NaN) = 0 as in PyTorch (numpy's ``sign`` gives NaN there)."""
    s = np.sign(x)
    nan = np.isnan(s)
    if nan.any():
        s = np.where(nan, 0, s)
    return nd(g * s)


ABS = _ufunc_op("abs", "|x|", np.abs, "inputs", (_abs_grad,), "∂/∂x = sign(x)",
                _unary_cases(away_from_zero))
# tanh and sigmoid are the activations whose rules need more than one numpy call,
# and the best way to spell them depends on the size.  A small array's cost is the
# Python calls: g − g·out·out never converts the Python number 1 (~0.5 us on a 4x4
# float32 array).  A large array's cost is memory traffic: each call streams whole
# arrays, and ``g * (1 - out*out)`` makes a temporary per call.  Filling one fresh
# buffer in place (three passes, one allocation, fewer arrays read) is ~40% faster
# on 4M elements.  Both compute the same formula.
_LARGE = 1 << 15  # elements; far above where a Python call stops mattering


def _tanh_grad(g, out):
    """∂/∂x tanh(x) · g = (1 − out²) · g."""
    if out.size < _LARGE:
        return nd(g - g * out * out)
    t = out * out
    np.subtract(1, t, out=t)
    t *= g
    return t


def _sigmoid_grad(g, out):
    """∂/∂x σ(x) · g = out·(1 − out) · g."""
    if out.size < _LARGE:
        return nd(g * (out - out * out))
    t = 1 - out
    t *= out
    t *= g
    return t


TANH = _ufunc_op("tanh", "tanh", np.tanh, "output",
                 (_tanh_grad,), "∂/∂x = 1 − tanh²(x) = 1 − out²", _unary_cases(uniform),
                 float_only=True)


def _sigmoid_forward(x):
    # σ(x) = 1/(1+e^−x) overflows e^−x for very negative x; with e = e^−|x| ≤ 1:
    # σ(x) = 1/(1+e) for x ≥ 0 and e/(1+e) for x < 0, both safe.  The choice between
    # them is a product with max(e, x ≥ 0), which is 1 or e, not np.where: with signs
    # that change from element to element np.where is several times slower than the
    # whole formula.  (nd: numpy gives scalars for 0-d inputs, which cannot be reused.)
    e = nd(np.abs(x))
    np.negative(e, out=e)
    np.exp(e, out=e)
    out = nd(1 + e)
    np.divide(1, out, out=out)
    out *= np.maximum(e, x >= 0)
    return out, (out,)


SIGMOID = _elementwise_op("sigmoid", "σ", _sigmoid_forward,
                    (_sigmoid_grad,),
                    "∂/∂x = σ(x)·(1 − σ(x)) = out·(1 − out)", _unary_cases(uniform),
                    float_only=True)
def _relu_grad(g, out):
    """g where out > 0, else 0 (exactly, even for an inf g); a NaN input passes g on,
    as in PyTorch, rather than hiding it: the mask is "not out ≤ 0", not "out > 0"."""
    keep = nd(out <= 0)  # (an array even for 0-d, to be inverted in place)
    np.logical_not(keep, out=keep)
    return masked(g, keep)


RELU = _elementwise_op("relu", "ReLU", lambda x: ((out := np.maximum(x, 0)), (out,)),
                 (_relu_grad,),
                 "∂/∂x = 1 if x > 0 else 0 (a NaN passes the gradient on)",
                 _unary_cases(away_from_zero))


def _leaky_forward(x, negative_slope=0.01):
    # The slope of each element, 1 where x > 0 and negative_slope elsewhere (NaN included,
    # as in PyTorch), is saved for backward, and both passes are one product with it.
    # Built from the mask by arithmetic that is exact (1 + 0 and 0 + slope), not by
    # np.where: with a mask that changes from element to element np.where is about ten
    # times slower than a product on float32.  (It costs a float per element where a
    # bool mask would do: time over memory.)
    pos = x > 0
    slope = pos.astype(x.dtype)
    slope += np.logical_not(pos) * x.dtype.type(negative_slope)
    return x * slope, (slope,)


LEAKY_RELU = _elementwise_op(
    "leaky_relu", "LeakyReLU", _leaky_forward,
    # (a plain product: PyTorch's rule is g·negative_slope too, so with slope 0 an inf g
    # gives NaN there, unlike relu's)
    (lambda g, slope, **_: nd(g * slope),),
    "∂/∂x = 1 if x > 0 else negative_slope",
    _unary_cases(away_from_zero, negative_slope=0.1),
    label=lambda attrs: f"LeakyReLU({attrs.get('negative_slope', 0.01)})",
    float_only=True,
)

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function elementwise (numpy has none; math.erf is exact to float64)."""
    return np.asarray(_erf_scalar(x), dtype=x.dtype)


def _gelu_forward(x, approximate="none"):
    if approximate == "tanh":
        # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        t = np.tanh(inner)
        return 0.5 * x * (1 + t), (x, t)
    cdf = 0.5 * (1 + erf(x * _SQRT1_2))
    return x * cdf, (x, cdf)


def _gelu_grad(g, x, c, approximate="none", **_):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        dinner = k * (1 + 3 * 0.044715 * x * x)
        return nd(g * (0.5 * (1 + c) + 0.5 * x * (1 - c * c) * dinner))
    pdf = _INV_SQRT_2PI * np.exp(-0.5 * x * x)
    return nd(g * (c + x * pdf))


GELU = _elementwise_op(
    "gelu", "GELU", _gelu_forward, (_gelu_grad,),
    "∂/∂x = Φ(x) + x·φ(x)  (Φ, φ: standard normal cdf and pdf)",
    lambda rng: _unary_cases(uniform)(rng) + [((uniform(rng, (3, 4)),), {"approximate": "tanh"})],
    label=lambda attrs: "GELU(tanh)" if attrs.get("approximate") == "tanh" else "GELU",
    float_only=True)
