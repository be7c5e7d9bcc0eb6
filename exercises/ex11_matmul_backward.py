"""Exercise 11 · the backward rule of matmul (lesson 5).

For ``out = a @ b`` with ``a`` of shape ``(n, k)`` and ``b`` of shape ``(k, m)``,
``out[i, j] = Σ_t a[i, t] · b[t, j]``.  Given ``g = dL/dout`` (shape ``(n, m)``):

    dL/da[i, t] = Σ_j g[i, j] · b[t, j]      that is   dL/da = g @ bᵀ   (n, k)
    dL/db[t, j] = Σ_i a[i, t] · g[i, j]      that is   dL/db = aᵀ @ g   (k, m)

A quick way to remember (and to check) it: each gradient has the shape of its
input, and there is only one way to multiply ``g`` with the other factor
(transposed) to get that shape.

Part 1.  ``matmul_backward(g, a, b)`` for 2-D ``a`` and ``b``.

Part 2.  ``batched_matmul_backward(g, a, b)``: ``a`` is ``(..., n, k)`` and ``b``
is ``(..., k, m)``; numpy multiplies the last two axes and *broadcasts* the
leading "batch" axes, e.g. ``(2, 1, 3, 4) @ (5, 4, 2)`` gives ``(2, 5, 3, 2)``.
Transpose only the last two axes (``np.swapaxes(x, -1, -2)``); then reduce each
gradient to its input's shape, because an input broadcast over the batch was
used once per batch element (exercise 10's ``unbroadcast``, or
``minigrad.autograd.unbroadcast``).

Check it:  python -m exercises ex11   (in a notebook: ``check("ex11")``)
"""

import numpy as np

__all__ = ["matmul_backward", "batched_matmul_backward"]


def matmul_backward(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(dL/da, dL/db)`` for ``out = a @ b`` (2-D) given ``g = dL/dout``."""
    raise NotImplementedError


def batched_matmul_backward(g: np.ndarray, a: np.ndarray,
                            b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(dL/da, dL/db)`` for a batched, broadcasting ``out = a @ b``."""
    raise NotImplementedError
