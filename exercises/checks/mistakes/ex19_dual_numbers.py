"""Wrong answers that ``checks/ex19_dual_numbers.py`` must reject (lesson 12)."""

from __future__ import annotations

import math

from minigrad import Value
from minigrad.autograd import forward_ad

from ._registry import mistake


class Right:
    """A right Dual that the wrong ones below change in one place (each operation
    returns the caller's class, so a subclass's slip shows wherever it is used)."""

    def __init__(self, value, tangent=0.0):
        self.value, self.tangent = float(value), float(tangent)

    def _new(self, value, tangent):
        return type(self)(value, tangent)

    def _lift(self, x):
        return x if isinstance(x, Right) else self._new(float(x), 0.0)

    def __add__(self, other):
        other = self._lift(other)
        return self._new(self.value + other.value, self.tangent + other.tangent)

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-self._lift(other))

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        other = self._lift(other)
        return self._new(self.value * other.value,
                         self.tangent * other.value + self.value * other.tangent)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = self._lift(other)
        b = other.value
        return self._new(self.value / b, (self.tangent * b - self.value * other.tangent) / b**2)

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def __neg__(self):
        return self._new(-self.value, -self.tangent)

    def exp(self):
        return self._new(math.exp(self.value), math.exp(self.value) * self.tangent)

    def sin(self):
        return self._new(math.sin(self.value), math.cos(self.value) * self.tangent)


def _lift(x):
    return x if isinstance(x, Right) else Right(float(x), 0.0)


@mistake("ex19", "Dual", "multiplies the tangents (ȧḃ)", "ε², which is 0")
class _ProductOfTangents(Right):
    def __mul__(self, other):
        other = _lift(other)
        return type(self)(self.value * other.value, self.tangent * other.tangent)

    __rmul__ = __mul__


@mistake("ex19", "Dual", "quotient rule with a plus", "with a minus")
class _QuotientSign(Right):
    def __truediv__(self, other):
        other = _lift(other)
        b = other.value
        return type(self)(self.value / b, (self.tangent * b + self.value * other.tangent) / b**2)


@mistake("ex19", "Dual", "a constant with tangent 1", "its tangent is 0")
class _ConstantTangentOne(Right):
    def __add__(self, other):
        other = other if isinstance(other, Right) else type(self)(float(other), 1.0)
        return type(self)(self.value + other.value, self.tangent + other.tangent)

    __radd__ = __add__


@mistake("ex19", "Dual", "c − x computed as x − c", "−ȧ")
class _RsubBackwards(Right):
    def __rsub__(self, other):
        return type(self)(float(other) - self.value, self.tangent)


@mistake("ex19", "Dual", "no reflected methods", "__radd__")
class _NoReflected(Right):
    __radd__ = __rsub__ = __rmul__ = __rtruediv__ = None


@mistake("ex19", "Dual", "sin's tangent forgets ȧ", "chain rule")
class _SinNoChain(Right):
    def sin(self):
        return type(self)(math.sin(self.value), math.cos(self.value))


@mistake("ex19", "Dual", "exp returns a float", "expected a Dual")
class _ExpFloat(Right):
    def exp(self):
        return math.exp(self.value)


@mistake("ex19", "derivative", "seeds the tangent with 0", "must be 1.0")
def _zero_seed(f, x):
    with forward_ad.dual_level():
        primal, tangent = forward_ad.unpack_dual(f(forward_ad.make_dual(Value(x), 0.0)))
        return primal.data, 0.0 if tangent is None else tangent.data


@mistake("ex19", "derivative", "uses reverse mode", "needs no backward")
def _reverse(f, x):
    leaf = Value(x)
    out = f(leaf)
    out.backward()
    return out.data, leaf.grad


@mistake("ex19", "derivative", "finite differences", "called f 3 times")
def _finite(f, x):
    h = 1e-6
    return f(Value(x)).data, (f(Value(x + h)).data - f(Value(x - h)).data) / (2 * h)


@mistake("ex19", "derivative", "forgets a tangent can be None", "depend on x")
def _no_none(f, x):
    with forward_ad.dual_level():
        primal, tangent = forward_ad.unpack_dual(f(forward_ad.make_dual(Value(x), 1.0)))
        return primal.data, tangent.data


@mistake("ex19", "derivative", "returns Values", "a float")
def _values(f, x):
    with forward_ad.dual_level():
        primal, tangent = forward_ad.unpack_dual(f(forward_ad.make_dual(Value(x), 1.0)))
        return primal, tangent


@mistake("ex19", "derivative", "returns the derivative alone", "pair")
def _slope_only(f, x):
    with forward_ad.dual_level():
        _, tangent = forward_ad.unpack_dual(f(forward_ad.make_dual(Value(x), 1.0)))
        return 0.0 if tangent is None else tangent.data
