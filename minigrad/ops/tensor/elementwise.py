"""Elementwise tensor ops: arithmetic, comparisons-as-masks, activations.

Every rule here returns a gradient in the *output* (broadcast) shape and
dtype, either ``g`` itself or a fresh array; the engine sums it back to each
input's shape with ``unbroadcast``.  All of them are registered with
``elementwise=True``: when no input was broadcast or promoted (``Node.grads_fit_inputs``)
the engine adds their results in without checking them, a promise that
``tests/minigrad/ops/test_tensor_registry.py`` verifies for every op.  Python
numbers in the rules (``0.5``, ``1``) do not promote float32 arrays (NEP 50),
so float32 stays float32 through forward and backward.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.op import define_op, no_gradient, passthrough
from ..notation import notation
from ._base import BROADCAST_PAIRS, away_from_zero, masked, nd, uniform

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


# --- arithmetic -------------------------------------------------------------------
ADD = define_op(
    **notation("add"), engine="tensor", ufunc=np.add, saves="nothing",
    grads=(passthrough, passthrough), cases=_binary_cases(uniform, uniform),
    elementwise=True, promote=True,
    doc="Addition passes the upstream gradient unchanged to both inputs; it saves nothing.")
SUB = define_op(
    **notation("sub"), engine="tensor", ufunc=np.subtract, saves="nothing",
    grads=(passthrough, lambda g: nd(-g)), cases=_binary_cases(uniform, uniform),
    elementwise=True, promote=True)
MUL = define_op(
    **notation("mul"), engine="tensor", ufunc=np.multiply, saves="inputs",
    grads=(lambda g, a, b: g * b, lambda g, a, b: g * a),
    cases=_binary_cases(uniform, uniform), elementwise=True, promote=True,
    doc="Each input's gradient is the upstream gradient times the *other* input.")


def _div_forward(a, b):
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        # True division of integers gives PyTorch's default float32, not numpy's float64
        # (such inputs never need a gradient, so the rules below never see them).
        a = a.astype(np.float32)
        b = b.astype(np.float32)
    out = a / b
    return out, (b, out)


DIV = define_op(
    **notation("div"), engine="tensor", forward=_div_forward,
    grads=(lambda g, b, out: nd(g / b), lambda g, b, out: nd(-g * out / b)),
    cases=_binary_cases(uniform, away_from_zero), elementwise=True, promote=True)


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
        return nd(g * np.where(np.logical_and(x == 0, p >= 0), 0, out * np.log(x)))


POW = define_op(
    **notation("pow"), engine="tensor", forward=lambda x, p: ((out := x**p), (x, p, out)),
    grads=(_pow_grad_base, _pow_grad_exponent), cases=_binary_cases(_pos, uniform),
    elementwise=True, promote=True,
    doc="Power rule for the base; x^p·ln x for the exponent, which needs x > 0.  At the "
        "edges the gradients follow PyTorch: ∂/∂x is 0 wherever p = 0 (even at x = 0, where "
        "p·x^(p−1) would be 0·inf), ∂/∂p is 0 at x = 0 for p ≥ 0 (the limit) and NaN for "
        "a negative base (ln x is undefined).")
NEG = define_op(
    **notation("neg"), engine="tensor", ufunc=np.negative, saves="nothing",
    grads=(lambda g: nd(-g),), cases=_unary_cases(uniform), elementwise=True)


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


MAXIMUM = define_op(
    **notation("maximum"), engine="tensor", forward=_maximum_forward,
    grads=(lambda g, wa, wb: masked(g, wa), lambda g, wa, wb: masked(g, wb)),
    cases=_binary_cases(uniform, uniform), elementwise=True, promote=True,
    constant_saves=True)
MINIMUM = define_op(
    **notation("minimum"), engine="tensor", forward=_minimum_forward,
    grads=(lambda g, wa, wb: masked(g, wa), lambda g, wa, wb: masked(g, wb)),
    cases=_binary_cases(uniform, uniform), elementwise=True, promote=True,
    constant_saves=True)


def _where_forward(cond, a, b):
    return np.where(cond, a, b), (cond,)


def _where_cases(rng):
    out = []
    for sa, sb in BROADCAST_PAIRS[:5]:
        shape = np.broadcast_shapes(sa, sb)
        out.append(((np.asarray(rng.random(shape) > 0.5), uniform(rng, sa), uniform(rng, sb)), {}))
    return out


WHERE = define_op(
    name="where", engine="tensor", symbol="where", forward=_where_forward,
    grads=(no_gradient,
           lambda g, cond: masked(g, cond),  # (g·mask, not np.where: see masked)
           lambda g, cond: masked(g, ~cond)),
    formulas=("∂/∂cond = none (a boolean condition has no gradient)",
              "∂/∂a = 1 where cond else 0", "∂/∂b = 0 where cond else 1"),
    cases=_where_cases, elementwise=True, promote=slice(1, None),
    doc="Picks a where the (boolean, non-differentiable) condition holds, b elsewhere.")


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


CLIP = define_op(
    name="clip", engine="tensor", symbol="clip", forward=_clip_forward,
    grads=(lambda g, inside, **_: masked(g, inside),),
    formulas=("∂/∂x = 1 if min ≤ x ≤ max else 0",),
    cases=lambda rng: [((uniform(rng, (3, 4)),), {"min": -0.55, "max": 0.65}),
                       ((uniform(rng, (5,)),), {"min": None, "max": 0.25}),
                       ((uniform(rng, ()),), {"min": -0.05, "max": None})],
    label=_clip_label, elementwise=True)


# --- unary functions --------------------------------------------------------------
EXP = define_op(
    **notation("exp"), engine="tensor", ufunc=np.exp, saves="output",
    grads=(lambda g, out: nd(g * out),), cases=_unary_cases(uniform),
    elementwise=True, float_only=True)
LOG = define_op(
    **notation("log"), engine="tensor", ufunc=np.log, saves="inputs",
    grads=(lambda g, x: nd(g / x),), cases=_unary_cases(_pos),
    elementwise=True, float_only=True)
SQRT = define_op(
    **notation("sqrt"), engine="tensor", ufunc=np.sqrt, saves="output",
    grads=(lambda g, out: nd(g / (2 * out)),), cases=_unary_cases(_pos),
    elementwise=True, float_only=True)


def _abs_grad(g, x):
    """g · sign(x), with sign(NaN) = 0 as in PyTorch (numpy's ``sign`` gives NaN there)."""
    s = np.sign(x)
    nan = np.isnan(s)
    if nan.any():
        s = np.where(nan, 0, s)
    return nd(g * s)


ABS = define_op(
    **notation("abs"), engine="tensor", ufunc=np.abs, saves="inputs", grads=(_abs_grad,),
    cases=_unary_cases(away_from_zero), elementwise=True)


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
    if out.size < _LARGE or out.__class__ is not np.ndarray:  # (nodes: the plain formula)
        return g - g * out * out
    t = out * out
    np.subtract(1, t, out=t)
    t *= g
    return t


def _sigmoid_grad(g, out):
    """∂/∂x σ(x) · g = out·(1 − out) · g."""
    if out.size < _LARGE or out.__class__ is not np.ndarray:  # (nodes: the plain formula)
        return nd(g * (out - out * out))
    t = 1 - out
    t *= out
    t *= g
    return t


TANH = define_op(
    **notation("tanh"), engine="tensor", ufunc=np.tanh, saves="output", grads=(_tanh_grad,),
    cases=_unary_cases(uniform), elementwise=True, float_only=True)


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


SIGMOID = define_op(
    **notation("sigmoid"), engine="tensor", forward=_sigmoid_forward, grads=(_sigmoid_grad,),
    cases=_unary_cases(uniform), elementwise=True, float_only=True)


def _relu_grad(g, out):
    """g where out > 0, else 0 (exactly, even for an inf g); a NaN input passes g on,
    as in PyTorch, rather than hiding it: the mask is "not out ≤ 0", not "out > 0".
    An output of relu is never negative, so that mask is ``out ≠ 0`` (NaN ≠ 0 holds):
    one comparison."""
    return masked(g, out != 0)


RELU = define_op(
    **notation("relu"), engine="tensor",
    forward=lambda x: ((out := np.maximum(x, 0)), (out,)), grads=(_relu_grad,),
    cases=_unary_cases(away_from_zero), elementwise=True)


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


LEAKY_RELU = define_op(
    name="leaky_relu", engine="tensor", symbol="LeakyReLU", forward=_leaky_forward,
    # (a plain product: PyTorch's rule is g·negative_slope too, so with slope 0 an inf g
    # gives NaN there, unlike relu's)
    grads=(lambda g, slope, **_: nd(g * slope),),
    formulas=("∂/∂x = 1 if x > 0 else negative_slope",),
    cases=_unary_cases(away_from_zero, negative_slope=0.1),
    label=lambda attrs: f"LeakyReLU({attrs.get('negative_slope', 0.01)})",
    elementwise=True, float_only=True)

_erf_scalar = np.frompyfunc(math.erf, 1, 1)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function elementwise (numpy has none; math.erf is exact to float64)."""
    return np.asarray(_erf_scalar(x), dtype=x.dtype)


ERF = define_op(
    **notation("erf"), engine="tensor", forward=lambda x: (erf(x), (x,)),
    grads=(lambda g, x: nd(g * (_2_SQRTPI * np.exp(-(x * x)))),),
    cases=_unary_cases(uniform), elementwise=True, float_only=True,
    doc="The error function, erf(x) = 2/√π ∫₀ˣ e^(−t²) dt: GELU's normal cdf is built on it.")


# GELU's forward and rule are written with ERF, the op, and numpy calls: on Tensors (a
# create_graph pass recomputes the saved cdf by running this forward on the input node)
# every step is a recorded node, so the gradient can be differentiated again.
def _gelu_forward(x, approximate="none"):
    if approximate == "tanh":
        # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        t = np.tanh(inner)
        return 0.5 * x * (1 + t), (x, t)
    cdf = 0.5 * (1 + ERF(x * _SQRT1_2))
    return x * cdf, (x, cdf)


def _gelu_grad(g, x, c, approximate="none", **_):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        dinner = k * (1 + 3 * 0.044715 * x * x)
        return nd(g * (0.5 * (1 + c) + 0.5 * x * (1 - c * c) * dinner))
    pdf = _INV_SQRT_2PI * np.exp(-0.5 * x * x)
    return nd(g * (c + x * pdf))


GELU = define_op(
    **notation("gelu"), engine="tensor", forward=_gelu_forward, grads=(_gelu_grad,),
    cases=lambda rng: (_unary_cases(uniform)(rng)
                       + [((uniform(rng, (3, 4)),), {"approximate": "tanh"})]),
    label=lambda attrs: "GELU(tanh)" if attrs.get("approximate") == "tanh" else "GELU",
    elementwise=True, float_only=True)
