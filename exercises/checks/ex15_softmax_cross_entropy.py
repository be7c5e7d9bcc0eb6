"""Checks for exercise 15: the loss against a float64 reference (also at logits of
±1000), the gradient against central differences of the loss, random upstream g."""

import warnings

import numpy as np

from ._support import call, expect_array, expect_close, expect_scalar, fail, fmt, rng_for


def reference_loss(z, y):
    m = z.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(y)), y]))


def reference_grad(g, z, y, eps=1e-6):
    """Central differences of the reference loss (independent of the closed form)."""
    out = np.zeros_like(z)
    z = z.copy()
    for idx in np.ndindex(*z.shape):
        orig = z[idx]
        z[idx] = orig + eps
        plus = reference_loss(z, y)
        z[idx] = orig - eps
        minus = reference_loss(z, y)
        z[idx] = orig
        out[idx] = g * (plus - minus) / (2 * eps)
    return out


def _cases():
    rng = rng_for("ex15.cases")
    for n, c, scale in ((4, 3, 1.0), (6, 5, 3.0), (1, 4, 1.0), (5, 2, 0.5)):
        yield (f"{n}×{c} random logits", rng.standard_normal((n, c)) * scale,
               rng.integers(0, c, n))
    z = rng.standard_normal((3, 4))
    z[0] += 1000.0
    z[1, 2] = -1000.0
    z[2, 1] = 1000.0
    yield "logits as large as ±1000", z, np.array([1, 2, 0])


STABLE = ("subtract each row's maximum before exp: logsumexp(z) = m + log Σ e^(z − m); "
          "e^1000 overflows to inf")


def check_cross_entropy(cross_entropy):
    for name, z, y in _cases():
        context = f"cross_entropy({name}, targets={fmt(y)})"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # overflow: reported below
            got = call(cross_entropy, "cross_entropy", {"logits": z.copy(), "targets": y},
                       context=context)
        want = reference_loss(z, y)
        expect_scalar(got, what="the loss", context=context,
                      hint="the loss is one number: take the mean over the batch")
        if not np.isfinite(np.asarray(got, dtype=float)).all():
            fail(f"{context} = {fmt(got)}, expected {fmt(want)}", STABLE)
        hint = "L = mean over examples of (logsumexp(z[n]) − z[n, y_n])"
        if np.isclose(float(np.asarray(got)), want * len(y)):
            hint = "the loss is the *mean* over examples, not the sum"
        expect_close(got, want, what="the loss", context=context, hint=hint, rtol=1e-9)


def check_cross_entropy_backward(cross_entropy_backward):
    rng = rng_for("ex15.backward")
    for name, z, y in _cases():
        g = float(rng.uniform(0.5, 2.0) * rng.choice([-1, 1]))
        context = f"cross_entropy_backward(g={g:.4g}, {name}, targets={fmt(y)})"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = call(cross_entropy_backward, "cross_entropy_backward",
                       {"g": g, "logits": z.copy(), "targets": y}, context=context)
        expect_array(got, z.shape, what="the gradient", context=context,
                     hint="the gradient has the logits' shape (N, C)")
        if not np.isfinite(got).all():
            fail(f"{context}: the gradient has non-finite entries: {fmt(got)}", STABLE)
        want = reference_grad(g, z, y)
        hint = "dL/dz = (softmax(z) − onehot(y)) / N, times g"
        if np.allclose(got, want * len(y), atol=1e-6):
            hint = "divide by N: the loss is the mean over the N examples"
        expect_close(got, want, what="dL/dlogits", context=context, hint=hint, upstream=g,
                     atol=1e-6, rtol=1e-5)
