"""Checks for exercise 14: numerical gradients against known derivatives (with an ε
big enough that one-sided differences fail), and a gradcheck that must say False
for ops with deliberately broken backward rules, on any input."""

import math

import numpy as np

from minigrad import Value, apply_op
from minigrad.autograd import Op

from ._support import call, expect_array, expect_close, fail, fmt, fmt_typed, rng_for


# --- numerical_gradient ------------------------------------------------------------------
def _f1(x):
    return float(np.sum(np.sin(x) * x**2))


def _df1(x):
    return np.cos(x) * x**2 + 2 * x * np.sin(x)


def _f2(x):
    return float(np.log(np.sum(np.exp(x))))  # logsumexp: every element matters


def _df2(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def check_numerical_gradient(numerical_gradient):
    rng = rng_for("ex14.numerical")
    cases = [(_f1, _df1, rng.uniform(-2, 2, (3, 4)), 1e-3, 2e-6,
              "sum(sin(x)·x²) at a 3×4 x, eps=1e-3"),
             (_f2, _df2, rng.uniform(-1, 1, 5), None, 1e-7, "logsumexp(x) at a 5-vector x"),
             (_f1, _df1, rng.uniform(-2, 2, (2, 1, 3)), 1e-4, 1e-7,
              "sum(sin(x)·x²) at a 2×1×3 x, eps=1e-4")]
    for f, df, x, eps, atol, name in cases:
        before = x.copy()
        args = {"f": f, "x": x} if eps is None else {"f": f, "x": x, "eps": eps}
        context = f"numerical_gradient on {name}"
        got = call(numerical_gradient, "numerical_gradient", args, context=context)
        expect_array(got, x.shape, what="the result", context=context,
                     hint="one difference per element of x: the result has x's shape")
        if not np.array_equal(x, before):
            fail(f"{context}: x was changed (first changed element at "
                 f"{tuple(int(i) for i in np.argwhere(x != before)[0])})",
                 "put each element back after nudging it (x[idx] = original)")
        want = df(before)
        hint = "central differences: (f(x + ε) − f(x − ε)) / (2ε), one element at a time"
        eps_ = 1e-6 if eps is None else eps
        forward = np.zeros_like(before)
        for idx in np.ndindex(*before.shape):
            y = before.copy()
            y[idx] += eps_
            forward[idx] = (f(y) - f(before)) / eps_
        if np.allclose(got, forward, atol=atol * 0.1, rtol=0):
            hint = ("this is the one-sided difference (f(x + ε) − f(x)) / ε, accurate to O(ε) "
                    "only: use the central one, (f(x + ε) − f(x − ε)) / (2ε)")
        elif np.allclose(got, 2 * want, atol=1e-4):
            hint = "divide by 2ε: the two points are 2ε apart"
        expect_close(got, want, what="the gradient", context=context, atol=atol, rtol=0,
                     hint=hint)


# --- gradcheck ------------------------------------------------------------------------
def _broken(name, symbol, forward, grads):
    """An op whose backward rules are wrong on purpose, and a function applying it
    (an unregistered scalar op: ``apply_op`` runs it like any other)."""
    op = Op(name=name, engine="scalar", symbol=symbol, forward=forward, grads=grads,
            formulas=("(deliberately wrong)",) * len(grads))

    def apply(*xs):
        return apply_op(op, *xs)

    return apply


# sin whose derivative has the wrong sign
bad_sin = _broken("bad_sin", "sin", lambda x: (math.sin(x), (x,)),
                  (lambda g, x: -g * math.cos(x),))
# x² whose rule forgets to multiply by the upstream gradient
bad_square = _broken("bad_square", "²", lambda x: (x * x, (x,)), (lambda g, x: 2.0 * x,))
# a / b, right for a, wrong for b (sign): only a check of *every* input catches it
bad_div = _broken("bad_div", "÷", lambda a, b: (a / b, (a, b)),
                  (lambda g, a, b: g / b, lambda g, a, b: g * a / (b * b)))


def _good_1(a, b):
    return (a * b).tanh() + a.exp()


def _good_2(x):
    return x * x * x - x.sin()


def _good_3(a, b, c):
    return (a / b + c * a).sigmoid() * c


def _bad_1(a, b):
    return bad_sin(a) * 2.0 + b


def _bad_2(x):
    return bad_square(x) * 3.0  # upstream is 3 at the broken node


def _bad_3(a, b):
    return bad_div(a, b) + a * b


CASES = [  # (fn, inputs, expected answer, description)
    (_good_1, (0.4, -0.7), True, "tanh(a·b) + exp(a)"),
    (_good_2, (1.3,), True, "x·x·x − sin(x)"),
    (_good_3, (0.5, 1.5, -0.8), True, "σ(a/b + c·a)·c"),
    (_bad_1, (0.4, 2.0), False, "2·bad_sin(a) + b, where bad_sin's derivative has the wrong sign"),
    (_bad_2, (1.1,), False, "3·bad_square(x), whose rule forgets the upstream gradient"),
    (_bad_3, (0.9, 1.7), False, "bad_div(a, b) + a·b, where only ∂/∂b is wrong"),
]


def check_gradcheck(gradcheck):
    for fn, data, expected, name in CASES:
        values = [Value(x, name="abc"[i]) for i, x in enumerate(data)]
        for v in values:
            v.grad = 5.0  # stale gradients from "earlier work"
        context = f"gradcheck(fn, {', '.join(fmt(x) for x in data)}) with fn = {name}"
        got = call(gradcheck, "gradcheck", {"fn": fn, **{f"x{i}": v for i, v in enumerate(values)}},
                   context=context)
        if not isinstance(got, (bool, np.bool_)):
            fail(f"{context} should return True or False, got {fmt_typed(got)}",
                 "bool(...) turns a 0-d array into True or False" if
                 isinstance(got, np.ndarray) and got.ndim == 0 else None)
        moved = [v for v, x in zip(values, data, strict=True) if v.data != x]
        if moved:
            fail(f"{context}: input {moved[0].label} was left at {fmt(moved[0].data)}",
                 "restore each input's .data after nudging it")
        if bool(got) == expected:
            continue
        if expected:
            hint = ("a correct function was rejected: were the inputs' old .grad values "
                    "(they arrived set to 5.0) cleared before backward?")
        elif name.startswith("bad_div"):
            hint = "compare the gradient of every input, not only the first"
        else:
            hint = "compare backward's gradient with the central difference for each input"
        fail(f"{context} returned {got}, expected {expected}", hint)

