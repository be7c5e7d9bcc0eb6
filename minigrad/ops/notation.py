"""How the ops that exist in both engines are written: one table for ``Value`` and ``Tensor``.

``a * b`` is the same op whether ``a`` is a float or an array, so a graph
drawn from either engine should show the same symbol and the step-through
panel the same formulas.  Each entry gives an op's ``symbol``, its
``formulas`` (one per input, ``∂/∂<input> = ...``, true in both engines,
edge cases included: the two follow PyTorch's NaN, tie and ``p = 0``
conventions alike) and whether it is written ``infix``, between its operands.

``ops.scalar`` and ``ops.tensor`` take these fields from here,
``define_op(**notation("mul"), engine="tensor", ...)``, and a test checks
that every op registered in both engines is in the table and agrees with it.
"""

from __future__ import annotations

__all__ = ["NOTATION", "notation"]

NOTATION: dict[str, dict] = {
    # --- arithmetic, written between the operands --------------------------------------
    "add": dict(symbol="+", formulas=("∂/∂a = 1", "∂/∂b = 1"), infix=True),
    "sub": dict(symbol="−", formulas=("∂/∂a = 1", "∂/∂b = −1"), infix=True),
    "mul": dict(symbol="×", formulas=("∂/∂a = b", "∂/∂b = a"), infix=True),
    "div": dict(symbol="÷", formulas=("∂/∂a = 1/b", "∂/∂b = −a/b² = −out/b"), infix=True),
    "pow": dict(symbol="**", infix=True, formulas=(
        "∂/∂x = p·x^(p−1) (0 where p = 0)",
        "∂/∂p = x^p·ln x (0 where x = 0 and p ≥ 0; NaN where x < 0)")),
    # --- one input ---------------------------------------------------------------------
    "neg": dict(symbol="−", formulas=("∂/∂x = −1",), infix=False),
    "exp": dict(symbol="exp", formulas=("∂/∂x = exp(x) = out",), infix=False),
    "log": dict(symbol="log", formulas=("∂/∂x = 1/x",), infix=False),
    "sqrt": dict(symbol="√", formulas=("∂/∂x = 1/(2√x) = 1/(2·out)",), infix=False),
    "tanh": dict(symbol="tanh", formulas=("∂/∂x = 1 − tanh²(x) = 1 − out²",), infix=False),
    "sigmoid": dict(symbol="σ", formulas=("∂/∂x = σ(x)·(1 − σ(x)) = out·(1 − out)",),
                    infix=False),
    "relu": dict(symbol="ReLU", infix=False, formulas=(
        "∂/∂x = 1 if x > 0 else 0 (a NaN passes the gradient on)",)),
    "gelu": dict(symbol="GELU", infix=False, formulas=(
        "∂/∂x = Φ(x) + x·φ(x) (Φ, φ: standard normal cdf and pdf)",)),
    "erf": dict(symbol="erf", formulas=("∂/∂x = 2/√π · e^(−x²)",), infix=False),
    "abs": dict(symbol="|x|", formulas=("∂/∂x = sign(x) (0 at x = 0 and at NaN)",),
                infix=False),
    # --- the larger / smaller of two ---------------------------------------------------
    "maximum": dict(symbol="max", infix=False, formulas=(
        "∂/∂a = 1 if a > b, 0 if a < b, ½ on a tie (1 if either is NaN)",
        "∂/∂b = 1 if b > a, 0 if b < a, ½ on a tie (1 if either is NaN)")),
    "minimum": dict(symbol="min", infix=False, formulas=(
        "∂/∂a = 1 if a < b, 0 if a > b, ½ on a tie (1 if either is NaN)",
        "∂/∂b = 1 if b < a, 0 if b > a, ½ on a tie (1 if either is NaN)")),
}


def notation(name: str) -> dict:
    """The shared fields of op ``name``: ``name``, ``symbol``, ``formulas`` and ``infix``."""
    return {"name": name, **NOTATION[name]}
