"""Exercise 02 · the backward rule of mul (lesson 2).

For ``out = a · b`` the local derivatives are

    ∂out/∂a = b        ∂out/∂b = a

Backward is handed ``g = dL/dout``, the gradient of the final loss with respect
to this node's output (the *upstream* gradient), and returns each input's share
by the chain rule:

    dL/da = g · ∂out/∂a = g · b        dL/db = g · ∂out/∂b = g · a

This is exactly the shape of a rule in minigrad's op registry,
``rule(g, *saved)``: mul saves both inputs for backward.

Write ``mul_backward(g, a, b)`` returning the pair ``(dL/da, dL/db)``.

Check it:  python -m exercises ex02   (notebook: ``from exercises import check; check("ex02")``)
"""

__all__ = ["mul_backward"]


def mul_backward(g: float, a: float, b: float) -> tuple[float, float]:
    """Return ``(dL/da, dL/db)`` for ``out = a * b`` given ``g = dL/dout``."""
    raise NotImplementedError
