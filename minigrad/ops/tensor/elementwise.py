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

from ...batching import BatchedArray
from ...core.op import define_op, no_gradient
from ..shared import SHARED, Override, Primitives
from ._base import BROADCAST_PAIRS, away_from_zero, masked, nd, uniform


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


# --- the tensor engine's primitives (``ops.shared``) ---------------------------------
_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function elementwise (numpy has none; math.erf is exact to float64)."""
    r = _erf_scalar(x)  # (objects: a float for 0-d x, an array, or a batch of them in vmap)
    return r.astype(x.dtype) if r.__class__ is BatchedArray else np.asarray(r, dtype=x.dtype)


def _sign(x):
    """sign(x), with sign(NaN) = 0 as in PyTorch (numpy's ``sign`` gives NaN there)."""
    s = np.sign(x)
    nan = np.isnan(s)
    if nan.__class__ is BatchedArray or nan.any():  # (a batch: patched, whatever it holds)
        s = np.where(nan, 0, s)
    return s


def _nonzero(x):
    return x != 0


def _is_zero(x):
    return x == 0  # (a boolean array adds to a float one without changing its dtype)


def _like(w, x):
    return w.astype(x.dtype, copy=False)


def _quiet():
    return np.errstate(divide="ignore", invalid="ignore")


#: numpy's ufuncs and a few helpers; on a Tensor (a ``create_graph`` pass) numpy hands each
#: call to the Tensor (``tensor/numpy_protocol.py``), so the rule is recorded.
ARRAY = Primitives(
    engine="tensor", exp=np.exp, log=np.log, sqrt=np.sqrt, tanh=np.tanh, erf=erf,
    div=np.divide, pow=np.power, maximum=np.maximum, minimum=np.minimum, sign=_sign,
    where=np.where, masked=masked, nonzero=_nonzero, is_zero=_is_zero, like=_like,
    quiet=_quiet)


def _shared(name, cases, **facts):
    """The tensor op of shared entry ``name``: its math bound to ``ARRAY``, plus this engine's
    facts (every one of these ops is elementwise)."""
    return SHARED[name].define("tensor", ARRAY, cases=cases, elementwise=True, **facts)


# --- arithmetic ---------------------------------------------------------------------
ADD = _shared("add", _binary_cases(uniform, uniform), ufunc=np.add, saves="nothing",
              promote=True)
SUB = _shared("sub", _binary_cases(uniform, uniform), ufunc=np.subtract, saves="nothing",
              promote=True)
MUL = _shared("mul", _binary_cases(uniform, uniform), ufunc=np.multiply, saves="inputs",
              promote=True)


def _div_forward(a, b):
    """The shared ``div`` forward, with integer inputs cast first."""
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        a = a.astype(np.float32)
        b = b.astype(np.float32)
    out = a / b
    return out, (b, out)


DIV = _shared("div", _binary_cases(uniform, away_from_zero), promote=True,
              forward=_div_forward, why={"forward": Override(
                  "True division of integers gives PyTorch's default float32, not numpy's "
                  "float64 (such inputs never need a gradient, so the rules never see them).")})


def _pow_grad_base(g, x, p, out):
    """The shared rule, without its masks for one exponent other than 0 (``x ** 2``)."""
    if p.ndim or p.__class__ is BatchedArray or not p:  # (a batch: one p per example)
        return _POW_BASE(g, x, p, out)
    return g * (p * x ** (p - 1))


_POW_BASE = SHARED["pow"].bind(ARRAY)[1][0]
POW = _shared("pow", _binary_cases(_pos, uniform), promote=True, grads={0: _pow_grad_base},
              why={"grads[0]": Override(
                  "Speed: x ** 2 (one exponent, not 0) is the common case, and the shared "
                  "rule's two masks are no-ops there; skipping them saves two full-size passes.")})
NEG = _shared("neg", _unary_cases(uniform), ufunc=np.negative, saves="nothing")
MAXIMUM = _shared("maximum", _binary_cases(uniform, uniform), promote=True, constant_saves=True)
MINIMUM = _shared("minimum", _binary_cases(uniform, uniform), promote=True, constant_saves=True)


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
    inside = np.ones_like(x, dtype=bool)  # (like x: a batch of masks, in vmap)
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
EXP = _shared("exp", _unary_cases(uniform), ufunc=np.exp, saves="output", float_only=True)
LOG = _shared("log", _unary_cases(_pos), ufunc=np.log, saves="inputs", float_only=True)
SQRT = _shared("sqrt", _unary_cases(_pos), ufunc=np.sqrt, saves="output", float_only=True)
ABS = _shared("abs", _unary_cases(away_from_zero), ufunc=np.abs, saves="inputs")

# tanh's and sigmoid's rules need more than one numpy call, and each call streams whole
# arrays.  A small array's cost is the Python calls: the shared formulas make three.  A
# large array's cost is memory traffic: each call makes a temporary, so for a
# large array the same formula is computed by filling one fresh buffer in place (three
# passes, one allocation, fewer arrays read: ~40% faster on 4M elements).  The same
# operations in the same order: the same bits.
_LARGE = 1 << 15  # elements; far above where a Python call stops mattering


#: 1 as a 0-d array of each float dtype: ``one - t`` with an array costs about 0.3 us
#: less than with a Python ``1`` on a 4x4 array (numpy's handling of a Python scalar),
#: and gives the same bits (the same dtype, the same subtraction)
_ONES = {np.dtype(t): np.ones((), t) for t in (np.float16, np.float32, np.float64)}


def _tanh_grad(g, out):
    """The shared rule g·(1 − out·out): written out for a small array (1 as a 0-d array
    of out's dtype, no call to the shared rule), in place for a large one."""
    if out.__class__ is not np.ndarray:  # (nodes, in a create_graph pass: the plain formula)
        return _TANH_GRAD(g, out)
    if out.size < _LARGE:  # (a jit symbol, which poses as an array, keeps the plain 1)
        one = _ONES.get(out.dtype) if type(out) is np.ndarray else None
        return g * ((1 if one is None else one) - out * out)
    t = out * out
    np.subtract(1, t, out=t)
    t *= g
    return t


def _sigmoid_grad(g, out):
    """The shared rule g·(out − out·out): written out for a small array (no call to the
    shared rule), in place for a large one."""
    if out.__class__ is not np.ndarray:  # (nodes, in a create_graph pass: the plain formula)
        return _SIGMOID_GRAD(g, out)
    if out.size < _LARGE:
        return g * (out - out * out)
    t = out * out
    np.subtract(out, t, out=t)
    t *= g
    return t


_TANH_GRAD = SHARED["tanh"].bind(ARRAY)[1][0]
_SIGMOID_GRAD = SHARED["sigmoid"].bind(ARRAY)[1][0]
_IN_PLACE = Override("Speed: a large array's rule in one fresh buffer, in place (see above).")
TANH = _shared("tanh", _unary_cases(uniform), ufunc=np.tanh, saves="output", float_only=True,
               grads={0: _tanh_grad}, why={"grads[0]": _IN_PLACE})


def _sigmoid_forward(x):
    """The shared forward, where(x ≥ 0, r, e·r), as a product with max(e, x ≥ 0), which is
    1 or e, and in place: with signs that change from element to element np.where is
    several times slower than the whole formula.  (nd: numpy gives scalars for 0-d
    inputs, which cannot be reused.)"""
    e = nd(np.abs(x))
    np.negative(e, out=e)
    np.exp(e, out=e)
    out = nd(1 + e)
    np.divide(1, out, out=out)
    out *= np.maximum(e, x >= 0)
    return out, (out,)


SIGMOID = _shared("sigmoid", _unary_cases(uniform), float_only=True,
                  forward=_sigmoid_forward, grads={0: _sigmoid_grad},
                  why={"forward": Override("Speed: np.where replaced by a product, in place "
                                           "(see _sigmoid_forward)."),
                       "grads[0]": _IN_PLACE})
RELU = _shared("relu", _unary_cases(away_from_zero))


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

ERF = _shared("erf", _unary_cases(uniform), float_only=True)
GELU = _shared("gelu", lambda rng: (_unary_cases(uniform)(rng)
                                    + [((uniform(rng, (3, 4)),), {"approximate": "tanh"})]),
               label=lambda attrs: "GELU(tanh)" if attrs.get("approximate") == "tanh" else "GELU",
               float_only=True)
