"""Exercise 03 · tanh, forward and backward (lesson 2).

Forward.  ``tanh(x) = (e^x − e^−x) / (e^x + e^−x) = (e^{2x} − 1) / (e^{2x} + 1)``.
Write it with ``math.exp`` (not ``math.tanh``).  Careful: ``math.exp(2 * 1000)``
overflows (Python raises ``OverflowError``), yet ``tanh(1000)`` is just ``1.0``.
Rewrite the formula so the exponent is never positive: for ``x ≥ 0`` use
``e^{−2x}``, which only underflows harmlessly towards 0; use tanh(−x) = −tanh(x)
for the other half.

Backward.  ``d tanh(x)/dx = 1 − tanh²(x)``: the derivative is a function of the
*output*.  That is why minigrad's tanh saves ``out`` (not ``x``) for backward:
nothing has to be recomputed.  Given the upstream gradient ``g = dL/dout``,
return ``dL/dx``.

Check it:  python -m exercises ex03   (in a notebook: ``check("ex03")``)
"""

__all__ = ["tanh", "tanh_backward"]


def tanh(x: float) -> float:
    """tanh(x) computed from ``math.exp``, finite for every finite ``x``."""
    raise NotImplementedError


def tanh_backward(g: float, out: float) -> float:
    """Return ``dL/dx`` for ``out = tanh(x)`` given ``g = dL/dout`` (and only ``out``)."""
    raise NotImplementedError
