"""Checks for exercise 29: per-example gradient norms of two small models (a softmax
classifier with three labels flipped, whose gradients are the largest, and a tanh
regression), against a loop of ``grad`` over the examples, from one batched backward pass
(``count_passes``); and the ``k`` largest, largest first, as indices."""

from __future__ import annotations

import numpy as np

import minigrad.nn.functional as F
from minigrad import Tensor
from minigrad.func import count_passes, grad

from ._support import call, expect_close, fail, fmt, rng_for

B = 12  # examples: not the number of parameters, so a wrong in_dims cannot line up

IN_DIMS = ("theta is the same for every example: map only over the examples, "
           "vmap(grad(loss), in_dims=(None, 0, 0))")
MEAN = ("every example got the same number: that is the norm of the gradient of the batch's "
        "mean (or sum) loss, not of each example's; vmap(grad(loss)) gives one gradient per "
        "example")
AXIS = ("the gradients come as a (B, P) array, one row per example: take each row's norm, "
        "np.linalg.norm(g, axis=1)")
SQUARED = "these are the squared norms: take the square root (np.linalg.norm does)"
LOOP = ("one vmap(grad(loss), in_dims=(None, 0, 0)) call runs one batched backward pass for "
        "the whole batch; a loop over the examples runs one per example")


def _classifier(rng):
    d, c = 5, 3
    xs = rng.standard_normal((B, d))
    W = rng.standard_normal((d, c))
    ts = (xs @ W).argmax(axis=1)
    ts[[2, 7, 9]] = (ts[[2, 7, 9]] + 1) % c          # three mislabelled examples
    theta = 0.8 * W.ravel()                            # a model that fits the others

    def loss(theta, x, t):
        return F.cross_entropy((x @ theta.reshape(d, c))[None], t[None])

    return "a softmax classifier (15 weights)", loss, theta, xs, ts


def _regression(rng):
    d, h = 3, 4
    xs, ts = rng.standard_normal((B, d)), rng.standard_normal(B)
    theta = rng.standard_normal(d * h + h) * 0.7

    def loss(theta, x, t):
        hidden = (x @ theta[:d * h].reshape(d, h)).tanh()
        return ((hidden * theta[d * h:]).sum() - t) ** 2

    return "a tanh regression (16 weights)", loss, theta, xs, ts


def _models():
    rng = rng_for("ex29.models")
    return [_classifier(rng), _regression(rng)]


def _expected(loss, theta, xs, ts):
    return np.array([np.linalg.norm(grad(loss)(Tensor(theta), Tensor(xs[i]), Tensor(ts[i])).data)
                     for i in range(B)])


def _hint_on_error(exc):
    if "same size along their in_dims" in str(exc) or "in_dims" in str(exc):
        return IN_DIMS
    return None


def _norms_hint(got, want):
    g = np.asarray(got, dtype=np.float64)
    if g.shape == (B,) and np.allclose(g, want ** 2, rtol=1e-7, atol=1e-12):
        return SQUARED
    if g.ndim == 1 and g.size and np.allclose(g, g[0]):
        return MEAN
    if g.shape != (B,):
        return AXIS if g.ndim == 1 else None
    return None


def check_per_example_norms(per_example_norms):
    for name, loss, theta, xs, ts in _models():
        want = _expected(loss, theta, xs, ts)
        context = f"per_example_norms(loss, theta, xs, ts) for {name}, {B} examples"
        with count_passes() as passes:
            got = call(per_example_norms, "per_example_norms",
                       {"loss": loss, "theta": Tensor(theta), "xs": Tensor(xs),
                        "ts": Tensor(ts)}, hint_on_error=_hint_on_error, context=context)
        if isinstance(got, Tensor):
            got = got.data
        expect_close(got, want, what="the norms", context=context, hint=_norms_hint(got, want))
        if passes.backward != 1:
            fail(f"{context} ran {passes.backward} backward passes, expected 1", LOOP)


def check_largest_gradients(largest_gradients):
    for name, loss, theta, xs, ts in _models():
        norms = _expected(loss, theta, xs, ts)
        for k in (1, 3):
            want = np.argsort(-norms, kind="stable")[:k]
            context = f"largest_gradients(loss, theta, xs, ts, k={k}) for {name}"
            got = call(largest_gradients, "largest_gradients",
                       {"loss": loss, "theta": Tensor(theta), "xs": Tensor(xs),
                        "ts": Tensor(ts), "k": k}, hint_on_error=_hint_on_error,
                       context=context)
            got = np.asarray(got.data if isinstance(got, Tensor) else got)
            message = (f"{context} returned {fmt(got)}, expected {fmt(want)} (the norms: "
                       f"{fmt(norms)})")
            if got.shape != want.shape:
                fail(message, f"return the k={k} indices as a 1-D array")
            if got.dtype.kind not in "iu":
                hint = ("these are the norms themselves: return the examples' indices "
                        "(np.argsort)" if np.allclose(np.sort(got), np.sort(norms)[-k:])
                        else "return integer indices")
                fail(message, hint)
            if np.array_equal(got, want):
                continue
            if np.array_equal(got, want[::-1]):
                fail(message, "the right examples, smallest first: put the largest first "
                              "(np.argsort(-norms)[:k], or reverse np.argsort(norms)[-k:])")
            if np.array_equal(got, np.argsort(norms, kind="stable")[:k]):
                fail(message, "these are the examples with the smallest norms: np.argsort "
                              "sorts in increasing order")
            fail(message)
