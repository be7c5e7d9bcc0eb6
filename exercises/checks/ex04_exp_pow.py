"""Checks for exercise 04: both rules against minigrad's engine, random upstream gradients."""

from minigrad import Value

from ._support import call, expect_close, expect_tuple, rng_for


def check_exp_backward(exp_backward):
    rng = rng_for("ex04.exp")
    for x, g in zip(rng.uniform(-2, 2, 8), rng.uniform(-3, 3, 8), strict=True):
        v = Value(float(x))
        out = v.exp()
        out.backward(float(g))
        context = f"exp_backward(g={g:.4g}, out={out.data:.4g})  [out = exp({x:.4g})]"
        got = call(exp_backward, "exp_backward", {"g": float(g), "out": out.data})
        expect_close(got, v.grad, what="dL/dx", context=context, upstream=g,
                     hint="d e^x/dx = e^x, which is the saved out: multiply it by g")


def check_pow_backward(pow_backward):
    rng = rng_for("ex04.pow")
    cases = [(float(x), float(p), float(g)) for x, p, g in zip(
        rng.uniform(0.3, 2.5, 8), rng.uniform(-2, 3, 8), rng.uniform(-3, 3, 8), strict=True)]
    cases += [(1.5, 2.0, 0.7), (2.0, -1.0, -1.3), (0.8, 0.5, 2.1)]
    edge = [(0.0, 2.0, 1.7), (0.0, 3.0, -0.6)]  # x = 0: the limit x^p·ln x → 0
    for x, p, g in cases + edge:
        vx, vp = Value(x), Value(p)
        out = vx**vp
        out.backward(g)
        args = {"g": g, "x": x, "p": p, "out": out.data}
        context = f"pow_backward(g={g:.4g}, x={x:.4g}, p={p:.4g}, out={out.data:.4g})"
        zero_hint = ("at x = 0, x^p·ln x → 0 as x → 0⁺ (for p > 0): return 0.0 for dL/dp "
                     "there instead of taking log(0)") if x == 0 else None
        got = expect_tuple(call(pow_backward, "pow_backward", args, hint_on_error=zero_hint),
                           2, names=("dL/dx", "dL/dp"), context=context)
        expect_close(got[0], vx.grad, what="dL/dx", context=context, upstream=g,
                     hint="∂(x^p)/∂x = p·x^(p−1) (the exponent drops by one)")
        expect_close(got[1], vp.grad, what="dL/dp", context=context, upstream=g,
                     hint=zero_hint or "∂(x^p)/∂p = x^p·ln x = out·ln x")
