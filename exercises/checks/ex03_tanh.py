"""Checks for exercise 03: tanh against math.tanh, its rule against minigrad's engine."""

import math

import numpy as np

from minigrad import Value

from ._support import call, expect_close, fail, forbidding, is_finite_number, rng_for

TANH = math.tanh  # the reference, kept before the check hides math.tanh from the student


def check_tanh(tanh):
    why = "build tanh from math.exp: math.tanh and numpy.tanh are what you are rebuilding"
    with forbidding(tanh, [(math, "tanh"), (np, "tanh")], why):
        _check_tanh(tanh)


def _check_tanh(tanh):
    rng = rng_for("ex03.tanh")
    xs = [float(x) for x in rng.uniform(-3, 3, 8)] + [0.0, 1e-9, -2e-6, 0.5, -0.5]
    for x in xs:
        got = call(tanh, "tanh", {"x": x})
        # (e^{2x} − 1)/(e^{2x} + 1) loses digits near 0 to cancellation: allow for it.
        expect_close(got, TANH(x), what="tanh(x)", context=f"tanh({x:.6g})",
                     atol=1e-12, rtol=1e-9, hint="tanh(x) = (e^{2x} − 1) / (e^{2x} + 1)")
    for x in (20.0, -20.0, 400.0, -400.0, 1000.0, -1000.0, 1e6):
        got = call(tanh, "tanh", {"x": x},
                   hint_on_error="e^{2x} overflows for large x: use e^{−2x} for x ≥ 0 "
                                 "(and tanh(−x) = −tanh(x) for x < 0)")
        if not is_finite_number(got):
            fail(f"tanh({x:g}) = {got!r}: it should be {TANH(x):g}",
                 "∞/∞ is nan: for x ≥ 0 write tanh(x) = (1 − e^{−2x}) / (1 + e^{−2x}), "
                 "and use tanh(−x) = −tanh(x) for x < 0")
        expect_close(got, TANH(x), what="tanh(x)", context=f"tanh({x:g})")


def check_tanh_backward(tanh_backward):
    rng = rng_for("ex03.tanh_backward")
    for x, g in zip(rng.uniform(-2.5, 2.5, 8), rng.uniform(-3, 3, 8), strict=True):
        x, g = float(x), float(g)
        v = Value(x)
        out = v.tanh()
        out.backward(g)
        context = f"tanh_backward(g={g:.4g}, out={out.data:.4g})  [out = tanh({x:.4g})]"
        got = call(tanh_backward, "tanh_backward", {"g": g, "out": out.data})
        expect_close(got, v.grad, what="dL/dx", context=context, upstream=g,
                     hint="d tanh(x)/dx = 1 − tanh²(x) = 1 − out², times g")
