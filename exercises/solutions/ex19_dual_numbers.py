"""Reference solution for exercise 19 (dual numbers)."""

import math

from minigrad import Value
from minigrad.autograd import forward_ad

__all__ = ["Dual", "derivative"]


def _lift(x):
    """A plain number is a constant: tangent 0."""
    return x if isinstance(x, Dual) else Dual(float(x), 0.0)


class Dual:
    """A dual number ``value + tangent·ε`` with ``ε² = 0``."""

    def __init__(self, value: float, tangent: float = 0.0):
        self.value = float(value)
        self.tangent = float(tangent)

    def __add__(self, other):
        other = _lift(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        other = _lift(other)
        return Dual(self.value - other.value, self.tangent - other.tangent)

    def __rsub__(self, other):
        return _lift(other) - self

    def __mul__(self, other):
        other = _lift(other)
        return Dual(self.value * other.value,
                    self.tangent * other.value + self.value * other.tangent)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        other = _lift(other)
        b = other.value
        return Dual(self.value / b, (self.tangent * b - self.value * other.tangent) / (b * b))

    def __rtruediv__(self, other):
        return _lift(other) / self

    def __neg__(self):
        return Dual(-self.value, -self.tangent)

    def exp(self):
        """e^x: its derivative is e^x."""
        e = math.exp(self.value)
        return Dual(e, e * self.tangent)

    def sin(self):
        """sin x: its derivative is cos x."""
        return Dual(math.sin(self.value), math.cos(self.value) * self.tangent)

    def __repr__(self) -> str:
        return f"Dual({self.value:.6g}, {self.tangent:.6g})"


def derivative(f, x: float) -> tuple[float, float]:
    """``(f(x), f'(x))`` from one forward pass of ``f`` carrying a tangent."""
    with forward_ad.dual_level():
        out = f(forward_ad.make_dual(Value(x), 1.0))
        primal, tangent = forward_ad.unpack_dual(out)
        return primal.data, 0.0 if tangent is None else tangent.data
