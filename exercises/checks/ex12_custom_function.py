"""Checks for exercise 12: forward values (also at ±1000 and in float32), gradients
with random upstream gradients, broadcasting, and that save_for_backward was used."""

import numpy as np

from minigrad import Tensor
from minigrad.autograd import unbroadcast

from ._support import call, expect_close, fail, fmt, rng_for

SAVE_HINT = ("keep what backward needs with ctx.save_for_backward(...) and read it back with "
             "ctx.saved_tensors: saved values are released after backward, attributes on ctx "
             "live as long as the graph")


def _apply(cls, name, *inputs, context):
    out = call(cls.apply, f"{name}.apply", dict(enumerate(inputs)), context=context)
    if not isinstance(out, Tensor):
        fail(f"{context} returned {type(out).__name__}, expected a Tensor (return an array "
             f"from forward)")
    return out


def _backward(out, g, context):
    call(out.backward, "backward", {"gradient": g}, context=f"{context}.backward(g)")


def _saved(out, context):
    if out.op is not None and not out.saved:
        fail(f"{context}: the node saved nothing for backward", SAVE_HINT)


def check_Softplus(Softplus):
    rng = rng_for("ex12.softplus")
    cases = [("random x", rng.uniform(-3, 3, (3, 4))),
             ("x with entries of ±30 and ±1000", np.array([[-1000.0, -30.0, 0.0],
                                                           [1e-8, 30.0, 1000.0]]))]
    for name, data in cases:
        x = Tensor(data.copy(), requires_grad=True)
        context = f"Softplus.apply(x) with {name}"
        with np.errstate(all="ignore"):
            out = _apply(Softplus, "Softplus", x, context=context)
        want = np.logaddexp(0.0, data)
        if out.shape != data.shape:
            fail(f"{context}: output has shape {out.shape}, expected {data.shape}")
        if not np.isfinite(out.data).all():
            fail(f"{context}: output {fmt(out.data)} is not finite",
                 "log(1 + e^x) overflows for large x: use max(x, 0) + log1p(e^−|x|)")
        expect_close(out.data, want, what="softplus(x)", context=context,
                     hint="softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^−|x|)")
        _saved(out, context)
        g = rng.standard_normal(data.shape)
        with np.errstate(all="ignore"):
            _backward(out, g, context)
        sig = np.exp(-np.logaddexp(0.0, -data))
        if x.grad is None:
            fail(f"{context}: x.grad is None after backward", "backward returns the gradient")
        if not np.isfinite(x.grad).all():
            # Name the formula that broke: e^x overflows for x ≫ 0, e^−x for x ≪ 0.
            bad = ~np.isfinite(x.grad)
            if (data[bad] > 0).all():
                hint = ("e^x / (1 + e^x) overflows for x ≫ 0 (∞/∞ = nan): use "
                        "1 / (1 + e^−x) there, or a stable sigmoid "
                        "np.exp(-np.logaddexp(0, -x))")
            elif (data[bad] < 0).all():
                hint = ("1 / (1 + e^−x) overflows for x ≪ 0: use e^x / (1 + e^x) there, "
                        "or a stable sigmoid np.exp(-np.logaddexp(0, -x))")
            else:
                hint = ("σ(x) needs 1 / (1 + e^−x) for x ≥ 0 and e^x / (1 + e^x) for x < 0, "
                        "or np.exp(-np.logaddexp(0, -x))")
            fail(f"{context}: x.grad {fmt(x.grad)} is not finite (at x = "
                 f"{fmt(data[bad])})", hint)
        expect_close(x.grad, g * sig, what="x.grad", context=context, upstream=g,
                     hint="∂softplus/∂x = σ(x) = 1 / (1 + e^−x), times grad_out")
    x32 = Tensor(rng.uniform(-3, 3, (2, 3)).astype(np.float32), requires_grad=True)
    out = _apply(Softplus, "Softplus", x32, context="Softplus.apply(x) with float32 x")
    if out.dtype != np.float32:
        fail(f"Softplus.apply(x) with float32 x returned {out.dtype}, expected float32",
             "float32 in, float32 out: numpy keeps float32 unless a float64 array joins in "
             "(np.maximum(d, 0) and np.log1p(...) of float32 stay float32)")


def check_Hypot(Hypot):
    rng = rng_for("ex12.hypot")
    for shape_a, shape_b in (((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3))):
        a_data = rng.uniform(0.5, 2.0, shape_a) * rng.choice([-1, 1], shape_a)
        b_data = rng.uniform(0.5, 2.0, shape_b) * rng.choice([-1, 1], shape_b)
        a = Tensor(a_data.copy(), requires_grad=True)
        b = Tensor(b_data.copy(), requires_grad=True)
        context = f"Hypot.apply(a, b) with a of shape {shape_a}, b of shape {shape_b}"
        out = _apply(Hypot, "Hypot", a, b, context=context)
        want = np.hypot(a_data, b_data)
        if out.shape != want.shape:
            fail(f"{context}: output has shape {out.shape}, expected {want.shape}")
        expect_close(out.data, want, what="hypot(a, b)", context=context,
                     hint="√(a² + b²), elementwise")
        _saved(out, context)
        g = rng.standard_normal(want.shape)
        _backward(out, g, context)
        for name, leaf, data in (("a", a, a_data), ("b", b, b_data)):
            if leaf.grad is None:
                fail(f"{context}: {name}.grad is None after backward",
                     "return one gradient per input: (grad_a, grad_b)")
            local = g * np.broadcast_to(data, want.shape) / want
            expect_close(leaf.grad, unbroadcast(local, data.shape), what=f"{name}.grad",
                         context=context, upstream=None,
                         hint=f"∂hypot/∂{name} = {name} / out, times grad_out")
