"""Exercise 14 · a gradient check by central differences (lesson 8).

How do you know a backward rule is right?  Compare it with the definition of
the derivative.  The *central* difference

    f'(x) ≈ (f(x + ε) − f(x − ε)) / (2ε)

is accurate to O(ε²) (the one-sided ``(f(x + ε) − f(x)) / ε`` only to O(ε)):
with ε = 1e-6 in float64 it agrees with a correct gradient to about 1e-8.

Part 1.  ``numerical_gradient(f, x, eps=1e-6)``: ``f`` maps a float64 array to a
float; return an array of ``x``'s shape whose element ``i`` is the central
difference of ``f`` along element ``i`` of ``x``.  You may nudge ``x`` in place
(``x[idx] += eps``), but put every element back: ``x`` must be unchanged
afterwards.  ``np.ndindex(*x.shape)`` walks every index of any shape.

Part 2.  ``gradcheck(fn, *values, eps=1e-6, tol=1e-5)``: ``fn`` takes minigrad
``Value``s and returns a ``Value``.  Compute the analytic gradients with
minigrad's backward, the numerical ones by nudging each input's ``.data``,
and return ``True`` when for *every* input
``|analytic − numerical| ≤ tol · max(1, |numerical|)``, else ``False``.

* The inputs may arrive carrying an old ``.grad``: clear it before backward.
* Build the graph again for each nudged evaluation (``fn(*values)``) and read
  ``.data`` of the result; leave every input's ``.data`` as you found it.

The checks give your gradcheck functions built with deliberately broken backward
rules: a gradcheck that always says ``True`` will not pass.

Check it:  python -m exercises ex14   (in a notebook: ``check("ex14")``)
"""

import numpy as np

__all__ = ["numerical_gradient", "gradcheck"]


def numerical_gradient(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of ``f`` at ``x``, one per element; ``x`` is left unchanged."""
    raise NotImplementedError


def gradcheck(fn, *values, eps: float = 1e-6, tol: float = 1e-5) -> bool:
    """True when backward's gradients of ``fn`` at ``values`` match central differences."""
    raise NotImplementedError
