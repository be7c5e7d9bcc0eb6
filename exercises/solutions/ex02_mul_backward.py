"""Reference solution for exercise 02 (the backward rule of mul)."""

__all__ = ["mul_backward"]


def mul_backward(g: float, a: float, b: float) -> tuple[float, float]:
    """Return ``(dL/da, dL/db)`` for ``out = a * b`` given ``g = dL/dout``."""
    return g * b, g * a
