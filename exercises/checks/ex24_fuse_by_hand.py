"""Checks for exercise 24: the hand-fused chain against eager minigrad (values and
gradients, float64, random upstream gradient), its dtype, its inputs left alone, and the
forward's peak memory measured with tracemalloc (a fused kernel allocates only what it
returns)."""

from __future__ import annotations

import tracemalloc

import numpy as np

from minigrad import Tensor

from ._support import call, close, expect_array, expect_close, expect_tuple, fail, rng_for

__all__ = ["check_fused_forward", "check_fused_backward", "eager_chain", "peak_arrays"]

CHAIN = "exp(tanh(x·y + z)·0.5 − x)"


def eager_chain(x, y, z, g=None):
    """``out, (gx, gy, gz)`` by eager minigrad: the graph, then ``backward`` of sum(g·out)."""
    xs = [Tensor(a, requires_grad=True) for a in (x, y, z)]
    tx, ty, tz = xs
    out = ((tx * ty + tz).tanh() * 0.5 - tx).exp()
    if g is None:
        return out.data, None
    (out * Tensor(g)).sum().backward()
    return out.data, tuple(t.grad for t in xs)


def _inputs(shape, dtype, name):
    rng = rng_for(name)
    return [(rng.standard_normal(shape) * 0.7).astype(dtype) for _ in range(3)]


def peak_arrays(fn, *args) -> tuple:
    """``(result, peak)``: what ``fn(*args)`` returns, and the most memory it held at once
    during the call beyond what was held before, in units of ``args[0].nbytes``."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()
    return result, peak / args[0].nbytes


def _forward_hint(out, x, t) -> str:
    for want, hint in ((np.exp(t - x), "the chain multiplies tanh by 0.5 before subtracting x"),
                       (np.exp(t * 0.5 + x), "the chain subtracts x: exp(t·0.5 − x)")):
        if close(out, want, atol=1e-12, rtol=1e-10):
            return hint
    return f"out = {CHAIN}"


def check_fused_forward(fused_forward):
    for shape in ((5, 7), (3,), (64, 2048)):
        x, y, z = _inputs(shape, np.float64, f"ex24.forward.{shape}")
        copies = [a.copy() for a in (x, y, z)]
        context = f"fused_forward(x, y, z) on float64 arrays of shape {shape}"
        got, peak = peak_arrays(lambda *a, c=context: call(
            fused_forward, "fused_forward", dict(zip("xyz", a)), context=c), x, y, z)
        out, t = expect_tuple(got, 2, names=("out", "t"), context=context)
        for a, c, name in zip((x, y, z), copies, "xyz"):
            if not np.array_equal(a, c):
                fail(f"{context} wrote into its input {name}",
                     "the inputs belong to the caller: write only into arrays you allocated")
        expect_array(out, shape, what="out", context=context)
        expect_array(t, shape, what="t", context=context)
        want, _ = eager_chain(x, y, z)
        if close(t, want, rtol=1e-10) and close(out, np.tanh(x * y + z), rtol=1e-10):
            fail(f"{context} returned (t, out)", "return (out, t), in that order")
        expect_close(t, np.tanh(x * y + z), what="t", context=context,
                     hint="t = tanh(x·y + z), the value tanh's derivative reads",
                     atol=1e-12, rtol=1e-10)
        expect_close(out, want, what="out", context=context, hint=_forward_hint(out, x, t),
                     atol=1e-12, rtol=1e-10)
        if x.nbytes >= 1 << 20 and peak > 2.1:
            fail(f"{context}: the call held {peak:.1f} arrays of x's size at its peak "
                 f"(tracemalloc), expected at most 2 (out and t)",
                 "write each step into a buffer you already have, as a fused kernel does: "
                 "np.add(t, z, out=t), np.tanh(t, out=t), ... (each `a * b` allocates a new "
                 "array)")
    x, y, z = _inputs((4, 5), np.float32, "ex24.forward.f32")
    out, t = call(fused_forward, "fused_forward", {"x": x, "y": y, "z": z})
    for name, a in (("out", out), ("t", t)):
        if getattr(a, "dtype", None) != np.float32:
            fail(f"fused_forward on float32 inputs returned {name} of dtype "
                 f"{getattr(a, 'dtype', type(a).__name__)}, expected float32",
                 "keep the inputs' dtype: a Python 0.5 keeps float32, np.float64(0.5) or "
                 "an array made with np.ones(shape) promotes to float64")


def _backward_hint(got, x, y, t, out, g) -> str:
    """Which slip gives the answer ``got``: each variant of the chain rule, computed."""
    def grads(g=g, half=0.5, dtanh=1 - t * t, minus_x=True, swap=False):
        ge = g * out
        gb = ge * half * dtanh
        gx, gy = (gb * x, gb * y) if swap else (gb * y, gb * x)
        return (gx - ge if minus_x else gx), gy, gb

    variants = (
        (grads(minus_x=False), "x is read twice (by x·y and by − x): add the gradient of the "
                               "second path, −g·out, to gx"),
        (grads(g=np.ones_like(g)), "multiply by the upstream gradient g (the chain rule)"),
        (grads(half=1.0), "the chain multiplies by 0.5: so does its backward"),
        (grads(dtanh=1 - t), "∂tanh(b)/∂b = 1 − t², with t = tanh(b)"),
        (grads(swap=True), "∂(x·y)/∂x = y and ∂(x·y)/∂y = x"),
    )
    for want, hint in variants:
        if all(close(a, b, atol=1e-12, rtol=1e-10) for a, b in zip(got, want)):
            return hint
    return "work back from out: g·out, then ·0.5, then ·(1 − t²), then into x, y, z"


def check_fused_backward(fused_backward):
    for shape in ((5, 7), (3,), (16, 33)):
        name = f"ex24.backward.{shape}"
        x, y, z = _inputs(shape, np.float64, name)
        g = rng_for(name + ".g").standard_normal(shape)
        t = np.tanh(x * y + z)
        out, want = eager_chain(x, y, z, g)
        owned = {"g": g, "t": t, "out": out}
        copies = {k: v.copy() for k, v in owned.items()}
        context = f"fused_backward(g, x, y, t, out) on float64 arrays of shape {shape}"
        got = call(fused_backward, "fused_backward",
                   {"g": g, "x": x, "y": y, "t": t, "out": out}, context=context)
        got = expect_tuple(got, 3, names=("gx", "gy", "gz"), context=context)
        for k, v in owned.items():
            if not np.array_equal(v, copies[k]):
                fail(f"{context} wrote into {k}",
                     f"{k} belongs to the caller (the forward's saved value, or the upstream "
                     f"gradient): write only into arrays you allocated")
        for a, n in zip(got, ("gx", "gy", "gz")):
            expect_array(a, shape, what=n, context=context)
        hint = _backward_hint(got, x, y, t, out, g)
        for a, w, n in zip(got, want, ("gx", "gy", "gz")):
            expect_close(a, w, what=n, context=context, hint=hint, atol=1e-12, rtol=1e-10)
