"""Wrong answers that ``checks/ex14_gradcheck.py`` must reject (lesson 8)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake


@mistake("ex14", "numerical_gradient", "one-sided difference", "one-sided")
def _forward_difference(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    base = f(x)
    for idx in np.ndindex(*x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        grad[idx] = (f(x) - base) / eps
        x[idx] = orig
    return grad


@mistake("ex14", "numerical_gradient", "forgets to restore x", "put each element back")
def _no_restore(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        plus = f(x)
        x[idx] = orig - eps
        grad[idx] = (plus - f(x)) / (2 * eps)
    return grad


@mistake("ex14", "numerical_gradient", "divides by ε, not 2ε", "2ε")
def _no_two(f, x, eps=1e-6):
    from exercises.solutions.ex14_gradcheck import numerical_gradient

    return 2 * numerical_gradient(f, x, eps)


@mistake("ex14", "numerical_gradient", "builds the gradient in float32",
         "right to float32 precision")
def _float32_gradient(f, x, eps=1e-6):
    from exercises.solutions.ex14_gradcheck import numerical_gradient

    # the mistake: stored in an array made with dtype=np.float32, where x and f are float64
    return numerical_gradient(f, x, eps).astype(np.float32)


mistake("ex14", "gradcheck", "always True", "expected False")(
    lambda fn, *values, eps=1e-6, tol=1e-5: True)


def _gradcheck(first_only=False, clear=True):
    def gradcheck(fn, *values, eps=1e-6, tol=1e-5):
        if clear:
            for v in values:
                v.grad = None
        fn(*values).backward()
        for v in values[:1] if first_only else values:
            original = v.data
            v.data = original + eps
            plus = fn(*values).data
            v.data = original - eps
            minus = fn(*values).data
            v.data = original
            numeric = (plus - minus) / (2 * eps)
            if not abs(v.grad - numeric) <= tol * max(1.0, abs(numeric)):
                return False
        return True

    return gradcheck


mistake("ex14", "gradcheck", "checks only the first input", "every input")(
    _gradcheck(first_only=True))
mistake("ex14", "gradcheck", "keeps the stale .grad", "cleared before backward")(
    _gradcheck(clear=False))
