"""Checks for exercise 11: against central differences of sum(g * (a @ b)), with
non-square shapes (so a transpose in the wrong place shows up as a wrong shape)
and random upstream gradients."""

import numpy as np

from ._support import call, expect_close, expect_tuple, rng_for


def numerical_vjp(f, x, g, eps=1e-3):
    """d sum(g * f(x)) / dx by central differences (exact here: f is linear in x)."""
    x = x.copy()
    out = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        plus = np.sum(g * f(x))
        x[idx] = orig - eps
        minus = np.sum(g * f(x))
        x[idx] = orig
        out[idx] = (plus - minus) / (2 * eps)
    return out


def _check(fn, name, shapes, rng, hints):
    for sa, sb in shapes:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        g = rng.standard_normal(np.matmul(a, b).shape)
        context = f"{name}(g of shape {g.shape}, a of shape {sa}, b of shape {sb})"
        shape_hint = (f"each gradient has its input's shape: dL/da {sa}, dL/db {sb}; "
                      f"{hints[0]}")
        got = expect_tuple(call(fn, name, {"g": g, "a": a, "b": b}, context=context,
                                hint_on_error=shape_hint), 2,
                           names=("dL/da", "dL/db"), context=context)
        want_a = numerical_vjp(lambda x, b=b: x @ b, a, g)
        want_b = numerical_vjp(lambda x, a=a: a @ x, b, g)
        expect_close(got[0], want_a, what="dL/da", context=context, hint=hints[0], atol=1e-8)
        expect_close(got[1], want_b, what="dL/db", context=context, hint=hints[1], atol=1e-8)


def check_matmul_backward(matmul_backward):
    rng = rng_for("ex11.matmul")
    shapes = [((3, 4), (4, 5)), ((1, 3), (3, 2)), ((4, 1), (1, 3)), ((2, 2), (2, 2))]
    _check(matmul_backward, "matmul_backward", shapes, rng,
           ("dL/da = g @ bᵀ: shape (n, m) @ (m, k) = (n, k), the shape of a",
            "dL/db = aᵀ @ g: shape (k, n) @ (n, m) = (k, m), the shape of b"))


def check_batched_matmul_backward(batched_matmul_backward):
    rng = rng_for("ex11.batched")
    shapes = [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
              ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 2), (4, 2, 3))]
    hint = ("transpose only the last two axes (np.swapaxes(x, -1, -2)), then sum the gradient "
            "over the batch axes its input was broadcast along (unbroadcast)")
    _check(batched_matmul_backward, "batched_matmul_backward", shapes, rng, (hint, hint))
