"""Exercise 20 · choose the mode: a Jacobian, and the dot-product test (lesson 12).

For ``f: ℝⁿ → ℝᵐ`` the Jacobian ``J`` is ``m × n`` (``J[i, j] = ∂fᵢ/∂xⱼ``).
One forward-mode pass (``jvp``) gives a *column* ``J·t``; one reverse-mode pass
(``vjp``) gives a *row* ``cᵀ·J``.  So ``minigrad.func.jacfwd`` computes n
columns (one direction per input) and ``jacrev`` one forward pass then m rows
(one direction per output); each carries its directions through one batched pass
(``chunk_size=1``: one pass per direction), so the work grows with the directions.

Part 1.  ``jacobian(f, x)``: ``f`` maps a 1-D float64 Tensor of n numbers to a
1-D Tensor of m numbers.  Return ``J`` as an ``(m, n)`` numpy array, built with
``jacfwd`` or ``jacrev``, whichever needs at most ``min(n, m)`` directions
(either one when n = m).  You may call ``f(x)`` once yourself to learn m.  The
check counts them with ``minigrad.func.count_passes``.

Part 2.  ``dot_product_test(f, x, t, c)``: reverse mode is forward mode
*transposed*, which you can test numerically: for any ``t`` (shaped like the
input) and ``c`` (shaped like the output),

    ⟨J t, c⟩ = ⟨t, Jᵀ c⟩

Return the two sides as a pair of floats, the left from **one** ``jvp`` and the
right from **one** ``vjp`` (no Jacobian: that would cost min(n, m) passes).
Reminders: ``jvp(f, (x,), (t,))`` returns ``(f(x), J·t)``; ``vjp(f, x)`` returns
``(f(x), vjp_fn)`` and ``vjp_fn(c)`` a tuple with one gradient per input.  (If
the sides disagree, some op's forward rule and backward rule disagree: a test
worth running on every new op.)

Check it:  python -m exercises ex20   (in a notebook: ``check("ex20")``)
"""

import numpy as np  # noqa: F401  (you will want them)

from minigrad import Tensor  # noqa: F401
from minigrad.func import jacfwd, jacrev, jvp, vjp  # noqa: F401

__all__ = ["jacobian", "dot_product_test"]


def jacobian(f, x: Tensor) -> np.ndarray:
    """The ``(m, n)`` Jacobian of ``f`` at ``x`` with the cheaper of jacfwd and jacrev."""
    raise NotImplementedError


def dot_product_test(f, x: Tensor, t: np.ndarray, c: np.ndarray) -> tuple[float, float]:
    """``(⟨J t, c⟩, ⟨t, Jᵀ c⟩)`` from one jvp and one vjp."""
    raise NotImplementedError
