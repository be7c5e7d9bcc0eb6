"""Wrong answers that ``checks/ex24_fuse_by_hand.py`` must reject (lesson 14)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake


@mistake("ex24", "fused_forward", "one line, numpy's temporaries", "out=")
def _one_liner(x, y, z):
    t = np.tanh(x * y + z)
    return np.exp(t * 0.5 - x), t


@mistake("ex24", "fused_forward", "keeps every intermediate, as the eager graph does", "out=")
def _eager_style(x, y, z):
    a = x * y
    b = a + z
    t = np.tanh(b)
    d = t * 0.5
    e = d - x
    out = np.exp(e)
    _keep = (a, b, d, e)  # what the eager ops saved
    return out, t


@mistake("ex24", "fused_forward", "forgets the 0.5", "0.5")
def _no_half(x, y, z):
    t = np.tanh(x * y + z)
    return np.exp(t - x), t


@mistake("ex24", "fused_forward", "returns (t, out)", "in that order")
def _swapped(x, y, z):
    from exercises.solutions.ex24_fuse_by_hand import fused_forward

    out, t = fused_forward(x, y, z)
    return t, out


@mistake("ex24", "fused_forward", "promotes float32 to float64", "keep the inputs' dtype")
def _promotes(x, y, z):
    from exercises.solutions.ex24_fuse_by_hand import fused_forward

    return fused_forward(*(a.astype(np.float64, copy=False) for a in (x, y, z)))


@mistake("ex24", "fused_forward", "works in place in x", "wrote into its input x")
def _in_input(x, y, z):
    np.multiply(x, y, out=x)
    np.add(x, z, out=x)
    t = np.tanh(x)
    return np.exp(t * 0.5), t


def _backward(g, x, y, t, out, half=0.5, dtanh=None, minus_x=True, swap=False):
    ge = g * out
    gb = ge * half * (1 - t * t if dtanh is None else dtanh(t))
    gx, gy = (gb * x, gb * y) if swap else (gb * y, gb * x)
    return (gx - ge if minus_x else gx), gy, gb


mistake("ex24", "fused_backward", "forgets x's second path", "x is read twice")(
    lambda g, x, y, t, out: _backward(g, x, y, t, out, minus_x=False))
mistake("ex24", "fused_backward", "ignores the upstream gradient", "upstream gradient g")(
    lambda g, x, y, t, out: _backward(np.ones_like(g), x, y, t, out))
mistake("ex24", "fused_backward", "forgets the 0.5", "0.5")(
    lambda g, x, y, t, out: _backward(g, x, y, t, out, half=1.0))
mistake("ex24", "fused_backward", "tanh's derivative as 1 − t", "1 − t²")(
    lambda g, x, y, t, out: _backward(g, x, y, t, out, dtanh=lambda t: 1 - t))
mistake("ex24", "fused_backward", "swaps x and y in the product's rule", "∂(x·y)/∂x = y")(
    lambda g, x, y, t, out: _backward(g, x, y, t, out, swap=True))


@mistake("ex24", "fused_backward", "works in place in g", "wrote into g")
def _into_g(g, x, y, t, out):
    np.multiply(g, out, out=g)
    gb = g * 0.5 * (1 - t * t)
    return gb * y - g, gb * x, gb
