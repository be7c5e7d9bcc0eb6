"""Exercise 10 · unbroadcast: the backward of broadcasting (lesson 5).

numpy broadcasting lets ``a + b`` combine shapes ``(2, 3, 4)`` and ``(3, 1)``:
``b`` is (virtually) copied along the missing leading axis and along its
size-1 axis, to ``(2, 3, 4)``.  Backward receives ``grad`` of the output's
shape, ``(2, 3, 4)``, but ``b.grad`` must have ``b``'s shape, ``(3, 1)``.

Every element of ``b`` was used once per copy, so its gradient is the *sum* of
the gradients of its copies:

1. sum over the leading axes that broadcasting added (``grad.ndim − len(shape)``
   of them; here axis 0), then
2. sum over every axis where ``shape`` has size 1 but ``grad`` does not (here
   the last axis), *keeping* that axis with size 1 (``keepdims=True``).

Write ``unbroadcast(grad, shape)`` returning an array of exactly ``shape``
(``shape == ()`` means a 0-d array: a broadcast scalar).  Do not modify
``grad`` in place; if it already has ``shape``, return it as it is.

Check it:  python -m exercises ex10   (in a notebook: ``check("ex10")``)
"""

import numpy as np

__all__ = ["unbroadcast"]


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum ``grad`` down to ``shape``, undoing numpy broadcasting."""
    raise NotImplementedError
