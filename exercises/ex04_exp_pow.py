"""Exercise 04 · the backward rules of exp and pow (lesson 2).

exp.  ``out = e^x`` is its own derivative: ``∂out/∂x = e^x = out``.  minigrad's
exp saves its output, so the rule gets ``out`` and needs no second ``exp``.

pow.  ``out = x^p`` with *both* ``x`` and ``p`` differentiable (``Value ** Value``):

    ∂out/∂x = p · x^(p−1)          ∂out/∂p = x^p · ln x = out · ln x

The rule receives what the op saved, ``(x, p, out)``.  One edge case: at
``x = 0`` the formula ``out · ln x`` reads ``0 · (−∞)``, but the limit of
``x^p · ln x`` as ``x → 0⁺`` is ``0`` for ``p > 0``; return ``0.0`` there (as
PyTorch does) instead of crashing on ``math.log(0)``.

Both rules multiply by the upstream gradient ``g = dL/dout`` (the chain rule).

Check it:  python -m exercises ex04   (in a notebook: ``check("ex04")``)
"""

__all__ = ["exp_backward", "pow_backward"]


def exp_backward(g: float, out: float) -> float:
    """Return ``dL/dx`` for ``out = exp(x)`` given ``g = dL/dout``."""
    raise NotImplementedError


def pow_backward(g: float, x: float, p: float, out: float) -> tuple[float, float]:
    """Return ``(dL/dx, dL/dp)`` for ``out = x ** p`` given ``g = dL/dout``."""
    raise NotImplementedError
