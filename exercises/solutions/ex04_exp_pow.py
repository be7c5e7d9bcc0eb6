"""Reference solution for exercise 04 (the backward rules of exp and pow)."""

import math

__all__ = ["exp_backward", "pow_backward"]


def exp_backward(g: float, out: float) -> float:
    """Return ``dL/dx`` for ``out = exp(x)`` given ``g = dL/dout``."""
    return g * out


def pow_backward(g: float, x: float, p: float, out: float) -> tuple[float, float]:
    """Return ``(dL/dx, dL/dp)`` for ``out = x ** p`` given ``g = dL/dout``."""
    dx = g * p * x ** (p - 1)
    dp = 0.0 if x == 0 else g * out * math.log(x)
    return dx, dp
