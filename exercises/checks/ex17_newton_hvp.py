"""Checks for exercise 17: Newton steps against closed-form derivatives, Hessian-vector
products against central differences of the gradient along v; inputs arrive with a
stale .grad, which must be left alone."""

import math

import numpy as np

from minigrad import Tensor, Value
from minigrad.autograd import grad

from ._second_order import CREATE_GRAPH, DOT_GRAD, call_twice
from ._support import close, expect_array, expect_close, expect_scalar, fail, fmt, rng_for


# --- newton_step: f, f', f'' in closed form ---------------------------------------------------
def _quartic(x):
    return (x - 1.5) ** 4 + x * x


def _exp_line(x):
    return x.exp() - 2.0 * x


def _x_tanh(x):
    return x.tanh() * x  # x is used twice


def _log_bowl(x):
    return (x * x + 1.0).log()


NEWTON_CASES = [  # (f, its text, x, f'(x), f''(x))
    (_quartic, "(x − 1.5)⁴ + x²", 0.3,
     lambda x: 4 * (x - 1.5) ** 3 + 2 * x, lambda x: 12 * (x - 1.5) ** 2 + 2),
    (_exp_line, "exp(x) − 2x", 0.2, lambda x: math.exp(x) - 2, math.exp),
    (_x_tanh, "x·tanh(x)", 0.7,
     lambda x: math.tanh(x) + x * (1 - math.tanh(x) ** 2),
     lambda x: (1 - math.tanh(x) ** 2) * (2 - 2 * x * math.tanh(x))),
    (_log_bowl, "log(x² + 1)", 0.4,
     lambda x: 2 * x / (x * x + 1), lambda x: (2 - 2 * x * x) / (x * x + 1) ** 2),
]


def check_newton_step(newton_step):
    for f, text, x, d1, d2 in NEWTON_CASES:
        context = f"newton_step(f, {fmt(x)}) with f(x) = {text}"
        got = call_twice(newton_step, "newton_step", {"f": f, "x": x}, context)
        if isinstance(got, Value):
            fail(f"{context} returned a Value ({fmt(got)}), expected a float",
                 "return the next point as a float (a Value's number is its .data)")
        expect_scalar(got, what="the next point", context=context)
        g, h = d1(x), d2(x)
        want = x - g / h
        hint = "x − f'(x) / f''(x), with both derivatives from grad()"
        if close(got, x - g / (g + h)):
            hint = DOT_GRAD + " (here f'' came out as f' + f'')"
        elif close(got, x + g / h):
            hint = "the step goes downhill: subtract f'(x) / f''(x)"
        elif close(got, x - g):
            hint = "divide the first derivative by the second"
        elif close(got, x - h / g):
            hint = "the ratio is upside down: f'(x) / f''(x)"
        expect_close(got, want, what="the next point", context=context, hint=hint, rtol=1e-9)


# --- hvp: central differences of the gradient along v ----------------------------------------
def _gradient(f, arrays):
    xs = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    return [np.asarray(g) for g in grad(f(xs), xs)]


def _expected_hvp(f, arrays, vs, eps=1e-5):
    """(∇f(x + εv) − ∇f(x − εv)) / 2ε: the derivative of the gradient along v."""
    plus = _gradient(f, [a + eps * v for a, v in zip(arrays, vs)])
    minus = _gradient(f, [a - eps * v for a, v in zip(arrays, vs)])
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _hvp_cases():
    rng = rng_for("ex17.hvp")
    X = rng.standard_normal((6, 3))

    def layer(xs):
        w, b = xs
        return ((Tensor(X) @ w + b).tanh() ** 2).sum()

    def mixed(xs):
        (x,) = xs
        return (x * x).sum() * x.sum() + (x.exp() * x).sum()

    def pair(xs):
        a, b = xs
        return (a @ b).sigmoid().mean() + (a * a).sum() * (b * b).sum()

    yield "((X @ w + b).tanh() ** 2).sum()", layer, [rng.standard_normal((3, 2)),
                                                     rng.standard_normal(2)]
    yield "(x·x).sum()·x.sum() + (exp(x)·x).sum()", mixed, [rng.uniform(-1, 1, 4)]
    yield "sigmoid(a @ b).mean() + Σa²·Σb²", pair, [rng.standard_normal((2, 3)),
                                                     rng.standard_normal((3, 2))]


def check_hvp(hvp):
    rng = rng_for("ex17.hvp.v")
    for text, f, arrays in _hvp_cases():
        vs = [rng.standard_normal(a.shape) for a in arrays]
        xs = [Tensor(a.copy(), requires_grad=True, name=f"x{i}") for i, a in enumerate(arrays)]
        stale = [np.full(a.shape, 5.0) for a in arrays]
        for x, s in zip(xs, stale):
            x.grad = s.copy()
        context = f"hvp(f, xs, vs) with f = {text}"
        got = call_twice(hvp, "hvp", {"f": f, "xs": xs, "vs": [v.copy() for v in vs]}, context)
        for x, s in zip(xs, stale):
            if not (isinstance(x.grad, np.ndarray) and np.array_equal(x.grad, s)):
                fail(f"{context} changed {x.label}.grad (it arrived as an array of 5.0 and "
                     f"should stay so)", DOT_GRAD)
        if not isinstance(got, (list, tuple)) or len(got) != len(xs):
            fail(f"{context} should return a list of {len(xs)} arrays (one per input), got "
                 f"{fmt(got)}")
        if any(isinstance(h, Tensor) for h in got):
            fail(f"{context} returned Tensors, expected numpy arrays",
                 "the second grad() needs no create_graph: it returns arrays")
        want = _expected_hvp(f, arrays, vs)
        for i, (h, w) in enumerate(zip(got, want)):
            expect_array(h, w.shape, what=f"H·v for input {i}", context=context)
        if all(close(h, 2 * w, atol=1e-6, rtol=1e-5) for h, w in zip(got, want)):
            hint = "H·v is counted twice: differentiate Σ gᵢ·vᵢ once"
        else:
            hint = ("differentiate the scalar Σᵢ sum(gᵢ · vᵢ), where g = grad(f(xs), xs, "
                    f"create_graph=True); {CREATE_GRAPH}")
        for i, (h, w) in enumerate(zip(got, want)):
            expect_close(h, w, what=f"H·v for input {i}", context=context, hint=hint,
                         atol=1e-6, rtol=1e-5)
