"""Exercise 19 · dual numbers: forward mode by hand (lesson 12).

Forward mode carries a *tangent* next to every value.  Write each number as
``a + ȧε``, where ε is a made-up number with ``ε² = 0``; then ordinary
arithmetic carries the derivative along by itself:

    (a + ȧε) + (b + ḃε) = (a + b) + (ȧ + ḃ)ε
    (a + ȧε) · (b + ḃε) = ab + (ȧb + aḃ)ε          (ȧḃε² is 0: the product rule)
    (a + ȧε) / (b + ḃε) = a/b + (ȧb − aḃ)/b² ε     (the quotient rule)
    g(a + ȧε)           = g(a) + g'(a)·ȧ ε        (Taylor; e.g. sin: cos(a)·ȧ)

Part 1.  ``Dual(value, tangent=0.0)``: a dual number with attributes ``value``
and ``tangent`` (floats).  Give it ``+``, ``-``, ``*``, ``/`` with another Dual
*or a plain number on either side* (``x * 2.0`` and ``2.0 * x``: a number on
the left calls ``__radd__``, ``__rsub__``, ``__rmul__``, ``__rtruediv__``;
a plain number is a constant, its tangent is 0), unary minus, and the methods
``exp()`` and ``sin()``.  Every operation returns a new ``Dual``.

Part 2.  ``derivative(f, x)``: the same idea with minigrad's forward mode.
``f`` maps a ``Value`` to a ``Value`` (written with ``+ - * /``, ``.exp()``,
``.sin()``, ``.tanh()`` ...); ``x`` is a float.  Return ``(f(x), f'(x))`` as
two floats from **one** call of ``f`` carrying a tangent, and no backward pass:

    with forward_ad.dual_level():
        xd = forward_ad.make_dual(Value(x), ...)    # x with the tangent ẋ = ?
        ...                                         # f once, then unpack_dual

``unpack_dual(y)`` gives ``(primal, tangent)``; the tangent is ``None`` when
``y`` does not depend on ``x`` at all (then the derivative is 0).

Check it:  python -m exercises ex19   (in a notebook: ``check("ex19")``)
"""

import math  # noqa: F401  (you will want it)

from minigrad import Value  # noqa: F401
from minigrad.autograd import forward_ad  # noqa: F401

__all__ = ["Dual", "derivative"]


class Dual:
    """A dual number ``value + tangent·ε`` with ``ε² = 0``."""

    def __init__(self, value: float, tangent: float = 0.0):
        raise NotImplementedError

    def __add__(self, other):
        raise NotImplementedError

    def __radd__(self, other):
        raise NotImplementedError

    def __sub__(self, other):
        raise NotImplementedError

    def __rsub__(self, other):
        raise NotImplementedError

    def __mul__(self, other):
        raise NotImplementedError

    def __rmul__(self, other):
        raise NotImplementedError

    def __truediv__(self, other):
        raise NotImplementedError

    def __rtruediv__(self, other):
        raise NotImplementedError

    def __neg__(self):
        raise NotImplementedError

    def exp(self):
        """e^x: its derivative is e^x."""
        raise NotImplementedError

    def sin(self):
        """sin x: its derivative is cos x."""
        raise NotImplementedError


def derivative(f, x: float) -> tuple[float, float]:
    """``(f(x), f'(x))`` from one forward pass of ``f`` carrying a tangent."""
    raise NotImplementedError
