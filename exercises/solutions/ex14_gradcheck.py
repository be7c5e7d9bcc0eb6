"""Reference solution for exercise 14 (a gradient check by central differences)."""

import numpy as np

__all__ = ["numerical_gradient", "gradcheck"]


def numerical_gradient(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of ``f`` at ``x``, one per element; ``x`` is left unchanged."""
    grad = np.zeros(x.shape, dtype=np.float64)
    for idx in np.ndindex(*x.shape):
        original = x[idx]
        x[idx] = original + eps
        plus = f(x)
        x[idx] = original - eps
        minus = f(x)
        x[idx] = original
        grad[idx] = (plus - minus) / (2 * eps)
    return grad


def gradcheck(fn, *values, eps: float = 1e-6, tol: float = 1e-5) -> bool:
    """True when backward's gradients of ``fn`` at ``values`` match central differences."""
    for v in values:
        v.grad = None
    fn(*values).backward()
    analytic = [0.0 if v.grad is None else v.grad for v in values]
    for v, a in zip(values, analytic, strict=True):
        original = v.data
        v.data = original + eps
        plus = fn(*values).data
        v.data = original - eps
        minus = fn(*values).data
        v.data = original
        numeric = (plus - minus) / (2 * eps)
        if not abs(a - numeric) <= tol * max(1.0, abs(numeric)):
            return False
    return True
